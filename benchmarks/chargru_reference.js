/*
 * Plain-JavaScript reference of the chapter-6 char-level GRU training step, used as a
 * speed yardstick for the lab's Pyodide trainer (benchmarks/browser.py) and checked
 * against gleam.chargru by tests/core/test_js_reference.py.
 *
 * Same algorithm as gleam's CharGRU (textbook GRU convention, reset before U_h):
 *   z  = σ(Wz x + Uz h + bz)            r = σ(Wr x + Ur h + br)
 *   h̃  = tanh(Wh x + Uh (r ⊙ h) + bh)   h' = (1 − z) ⊙ h + z ⊙ h̃
 *   y  = Wy h' + by                     p = softmax(y),  L = Σ_t −ln p_t[target_t]
 * (the gradient is that of the chunk's SUM, as in gleam and min-char-rnn; the loss returned is
 * the mean over the chunk, nats per character), truncated BPTT over one chunk of K characters
 * with the state carried between chunks,
 * per-element clip of every gradient to [−clip, clip], then Adagrad
 *   M += g²;  θ −= lr · g / (√M + eps).
 *
 * Matrices are row-major Float64Arrays: W* (H, V), U* (H, H), Wy (V, H). x is one-hot, so
 * "W x" is a column gather and "dW += da xᵀ" touches one column.
 *
 * Parallel streams (options.batch = B, default 1), as gleam's CharGRU(batch=B): B data pointers,
 * stream b starting at floor(b (N − K) / B) and wrapping back to that start mod K with its state
 * set to 0; one update per step on the SUM of the B chunks' gradients (the loss returned is the
 * mean over the B·K characters). Here the B chunks are simply computed one after the other
 * (trainStepBatch), accumulating into one gradient: plain loops gain nothing from batching.
 *
 * No dependencies. Works as a CommonJS module in node (`require`), and in a browser page
 * or worker through <script>/importScripts (global `CharGRURef`).
 */
(function (root, factory) {
  if (typeof module === "object" && module.exports) module.exports = factory();
  else root.CharGRURef = factory();
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var NAMES = ["Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by"];

  function shapes(V, H) {
    return {
      Wz: [H, V], Uz: [H, H], bz: [H],
      Wr: [H, V], Ur: [H, H], br: [H],
      Wh: [H, V], Uh: [H, H], bh: [H],
      Wy: [V, H], by: [V],
    };
  }

  function size(shape) {
    var n = 1;
    for (var i = 0; i < shape.length; i++) n *= shape[i];
    return n;
  }

  // Small deterministic PRNG (mulberry32) + Box-Muller, for the benchmark's own init.
  function rngNormal(seed) {
    var a = seed >>> 0;
    function uniform() {
      a = (a + 0x6d2b79f5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
    }
    return function () {
      return Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    };
  }

  function toF64(value, shape, name) {
    var n = size(shape);
    var out = new Float64Array(n);
    var flat = [];
    (function walk(v) {
      if (Array.isArray(v) || ArrayBuffer.isView(v)) for (var i = 0; i < v.length; i++) walk(v[i]);
      else flat.push(+v);
    })(value);
    if (flat.length !== n) {
      throw new Error(name + " has " + flat.length + " numbers, expected " + n + " for shape (" + shape.join(", ") + ")");
    }
    for (var i = 0; i < n; i++) out[i] = flat[i];
    return out;
  }

  /*
   * createModel(V, H, K, params?, options?)
   *   params : optional {Wz: nested arrays or flat, ...} (all eleven); else a seeded
   *            N(0, 1)·scale init (weights) with zero biases.
   *   options: {lr = 0.1, clip = 5, eps = 1e-8, seed = 0, scale = 0.1,
   *             h0 = zeros (the carried state), memory = zeros (Adagrad memory, same keys
   *             and shapes as params), pointer = 0 (index of the next chunk's first char)}
   */
  function createModel(V, H, K, params, options) {
    options = options || {};
    if (!(V >= 2 && H >= 1 && K >= 1)) throw new Error("need V >= 2, H >= 1, K >= 1");
    var sh = shapes(V, H);
    var p = {}, g = {}, m = {};
    var normal = rngNormal(options.seed === undefined ? 0 : options.seed);
    var scale = options.scale === undefined ? 0.1 : options.scale;
    for (var i = 0; i < NAMES.length; i++) {
      var k = NAMES[i];
      if (params) {
        if (!(k in params)) throw new Error("params is missing " + k);
        p[k] = toF64(params[k], sh[k], k);
      } else {
        p[k] = new Float64Array(size(sh[k]));
        if (sh[k].length === 2) for (var j = 0; j < p[k].length; j++) p[k][j] = scale * normal();
      }
      g[k] = new Float64Array(size(sh[k]));
      m[k] = options.memory ? toF64(options.memory[k], sh[k], "memory." + k) : new Float64Array(size(sh[k]));
    }
    var h = new Float64Array(H);
    if (options.h0) h.set(toF64(options.h0, [H], "h0"));
    var B = options.batch === undefined ? 1 : options.batch;
    if (!(B >= 1)) throw new Error("need batch >= 1");
    var hb = [h];
    for (var b = 1; b < B; b++) hb.push(new Float64Array(H));
    return {
      B: B, hb: hb, pointers: options.pointers || null,
      V: V, H: H, K: K,
      lr: options.lr === undefined ? 0.1 : options.lr,
      clip: options.clip === undefined ? 5 : options.clip,
      eps: options.eps === undefined ? 1e-8 : options.eps,
      p: p, grads: g, mem: m, h: h,
      steps: 0, lastGradNorm: 0,
      // per-chunk caches, (K, H) / (K, V), allocated once
      hs: new Float64Array((K + 1) * H),   // row 0 = h before the chunk
      zs: new Float64Array(K * H), rs: new Float64Array(K * H), hts: new Float64Array(K * H),
      rh: new Float64Array(K * H), ps: new Float64Array(K * V),
      // scratch
      dh: new Float64Array(H), dhNext: new Float64Array(H), dy: new Float64Array(V),
      daz: new Float64Array(H), dar: new Float64Array(H), dah: new Float64Array(H), drh: new Float64Array(H),
      pointer: options.pointer || 0,
    };
  }

  function sigmoid(a) { return 1 / (1 + Math.exp(-a)); }

  // dst += M v   (M rows x cols, row-major)
  function addMatVec(dst, M, v, rows, cols) {
    for (var i = 0; i < rows; i++) {
      var s = 0, o = i * cols;
      for (var j = 0; j < cols; j++) s += M[o + j] * v[j];
      dst[i] += s;
    }
  }

  /*
   * One training step on a chunk: inputs, targets are arrays of K character indices.
   * Uses and then carries model.h; returns the chunk's mean cross-entropy (nats/char).
   * Afterwards model.grads holds the clipped gradient of the chunk's summed loss and
   * model.lastGradNorm its global norm before clipping.
   */
  function trainStep(model, inputs, targets) {
    var G = model.grads;
    for (var n = 0; n < NAMES.length; n++) G[NAMES[n]].fill(0);
    var loss = chunkGrad(model, inputs, targets, model.h);
    update(model);
    return loss / model.K;
  }

  /*
   * B chunks (arrays of B arrays of K indices), stream b from state model.hb[b] (carried
   * afterwards): the summed gradient of all B·K characters, then one clipped Adagrad update.
   * Returns the mean cross-entropy over the B·K characters.
   */
  function trainStepBatch(model, inputsB, targetsB) {
    var G = model.grads, loss = 0;
    for (var n = 0; n < NAMES.length; n++) G[NAMES[n]].fill(0);
    for (var b = 0; b < inputsB.length; b++) loss += chunkGrad(model, inputsB[b], targetsB[b], model.hb[b]);
    update(model);
    return loss / (inputsB.length * model.K);
  }

  // One chunk from state h: ADDS its summed loss's gradient into model.grads, writes the last
  // state into h, returns the summed loss.
  function chunkGrad(model, inputs, targets, hState) {
    var V = model.V, H = model.H, K = model.K, P = model.p, G = model.grads;
    if (inputs.length !== K || targets.length !== K) throw new Error("inputs and targets must have length K = " + K);
    var Wz = P.Wz, Uz = P.Uz, bz = P.bz, Wr = P.Wr, Ur = P.Ur, br = P.br;
    var Wh = P.Wh, Uh = P.Uh, bh = P.bh, Wy = P.Wy, by = P.by;
    var hs = model.hs, zs = model.zs, rs = model.rs, hts = model.hts, rhs = model.rh, ps = model.ps;
    var i, j, t, o, s, x;
    hs.set(hState, 0);
    var loss = 0;

    // ---- forward over the chunk ----
    for (t = 0; t < K; t++) {
      x = inputs[t];
      var hp = t * H, hn = (t + 1) * H, c = t * H;
      // z = σ(Wz[:, x] + Uz h + bz),  r = σ(Wr[:, x] + Ur h + br)
      for (i = 0; i < H; i++) {
        var sz = Wz[i * V + x] + bz[i], sr = Wr[i * V + x] + br[i];
        o = i * H;
        for (j = 0; j < H; j++) {
          var hj = hs[hp + j];
          sz += Uz[o + j] * hj;
          sr += Ur[o + j] * hj;
        }
        zs[c + i] = sigmoid(sz);
        rs[c + i] = sigmoid(sr);
      }
      for (i = 0; i < H; i++) rhs[c + i] = rs[c + i] * hs[hp + i];
      // h̃ = tanh(Wh[:, x] + Uh (r ⊙ h) + bh);  h' = (1 − z) h + z h̃
      for (i = 0; i < H; i++) {
        s = Wh[i * V + x] + bh[i];
        o = i * H;
        for (j = 0; j < H; j++) s += Uh[o + j] * rhs[c + j];
        var ht = Math.tanh(s), z = zs[c + i];
        hts[c + i] = ht;
        hs[hn + i] = (1 - z) * hs[hp + i] + z * ht;
      }
      // y = Wy h' + by;  p = softmax(y);  loss −= log p[target]
      var pv = t * V, ymax = -Infinity;
      for (i = 0; i < V; i++) {
        s = by[i];
        o = i * H;
        for (j = 0; j < H; j++) s += Wy[o + j] * hs[hn + j];
        ps[pv + i] = s;
        if (s > ymax) ymax = s;
      }
      var sum = 0;
      for (i = 0; i < V; i++) { var e = Math.exp(ps[pv + i] - ymax); ps[pv + i] = e; sum += e; }
      for (i = 0; i < V; i++) ps[pv + i] /= sum;
      loss -= Math.log(ps[pv + targets[t]]);
    }

    // ---- backward (truncated at the chunk start) ----
    var dWz = G.Wz, dUz = G.Uz, dbz = G.bz, dWr = G.Wr, dUr = G.Ur, dbr = G.br;
    var dWh = G.Wh, dUh = G.Uh, dbh = G.bh, dWy = G.Wy, dby = G.by;
    var dh = model.dh, dhNext = model.dhNext, dy = model.dy;
    var daz = model.daz, dar = model.dar, dah = model.dah, drh = model.drh;
    dhNext.fill(0);
    for (t = K - 1; t >= 0; t--) {
      x = inputs[t];
      var hp2 = t * H, hn2 = (t + 1) * H, c2 = t * H, pv2 = t * V;
      // ∂L/∂y = p − onehot(target): push the right logit up, the others down
      for (i = 0; i < V; i++) dy[i] = ps[pv2 + i];
      dy[targets[t]] -= 1;
      // dWy += dy h'ᵀ;  dby += dy;  dh = Wyᵀ dy + dh_next  (the two paths into h_t)
      for (j = 0; j < H; j++) dh[j] = dhNext[j];
      for (i = 0; i < V; i++) {
        var dyi = dy[i];
        dby[i] += dyi;
        o = i * H;
        for (j = 0; j < H; j++) {
          dWy[o + j] += dyi * hs[hn2 + j];
          dh[j] += Wy[o + j] * dyi;
        }
      }
      for (i = 0; i < H; i++) {
        var zi = zs[c2 + i], hti = hts[c2 + i], hpi = hs[hp2 + i];
        // h' = (1 − z) h + z h̃:  ∂/∂z = h̃ − h,  ∂/∂h̃ = z,  carry path ∂/∂h = 1 − z
        daz[i] = dh[i] * (hti - hpi) * zi * (1 - zi);
        dah[i] = dh[i] * zi * (1 - hti * hti);
        dhNext[i] = dh[i] * (1 - zi);
      }
      // dUh += dah (r⊙h)ᵀ;  d(r⊙h) = Uhᵀ dah
      drh.fill(0);
      for (i = 0; i < H; i++) {
        var da = dah[i];
        dWh[i * V + x] += da;
        dbh[i] += da;
        o = i * H;
        for (j = 0; j < H; j++) {
          dUh[o + j] += da * rhs[c2 + j];
          drh[j] += Uh[o + j] * da;
        }
      }
      for (i = 0; i < H; i++) {
        var ri = rs[c2 + i];
        dar[i] = drh[i] * hs[hp2 + i] * ri * (1 - ri);
        dhNext[i] += drh[i] * ri;
      }
      // gate pre-activations: dW[:, x] += da;  dU += da hᵀ;  dh_prev += Uᵀ da
      for (i = 0; i < H; i++) {
        var dz = daz[i], dr = dar[i];
        dWz[i * V + x] += dz; dbz[i] += dz;
        dWr[i * V + x] += dr; dbr[i] += dr;
        o = i * H;
        for (j = 0; j < H; j++) {
          var hpj = hs[hp2 + j];
          dUz[o + j] += dz * hpj;
          dUr[o + j] += dr * hpj;
          dhNext[j] += Uz[o + j] * dz + Ur[o + j] * dr;
        }
      }
    }

    hState.set(hs.subarray(K * H, (K + 1) * H));
    return loss;
  }

  // pre-clip global norm, per-element clip, Adagrad, on the gradient in model.grads
  function update(model) {
    var P = model.p, G = model.grads, n, i;
    var lr = model.lr, clip = model.clip, eps = model.eps, norm2 = 0;
    for (n = 0; n < NAMES.length; n++) {
      var gk = G[NAMES[n]], pk = P[NAMES[n]], mk = model.mem[NAMES[n]];
      for (i = 0; i < gk.length; i++) {
        var gi = gk[i];
        norm2 += gi * gi;
        gi = gi > clip ? clip : (gi < -clip ? -clip : gi);
        gk[i] = gi;
        mk[i] += gi * gi;
        pk[i] -= lr * gi / (Math.sqrt(mk[i]) + eps);
      }
    }
    model.lastGradNorm = Math.sqrt(norm2);
    model.steps++;
  }

  // Sorted distinct characters and the corpus as indices.
  function encode(corpus) {
    var chars = Array.from(new Set(Array.from(corpus))).sort();
    var index = {};
    chars.forEach(function (ch, k) { index[ch] = k; });
    return { vocab: chars, data: Array.from(corpus).map(function (ch) { return index[ch]; }) };
  }

  /*
   * Train on a corpus the way the lab does: successive chunks of K inputs with the next
   * characters as targets; the state is carried and reset to zero only when the data wraps.
   */
  function trainOnData(model, data, nSteps) {
    if (model.B > 1) return trainOnDataBatch(model, data, nSteps);
    var K = model.K, inputs = new Int32Array(K), targets = new Int32Array(K), loss = 0;
    for (var s = 0; s < nSteps; s++) {
      if (model.pointer + K + 1 > data.length) { model.pointer = 0; model.h.fill(0); }
      for (var t = 0; t < K; t++) { inputs[t] = data[model.pointer + t]; targets[t] = data[model.pointer + t + 1]; }
      loss = trainStep(model, inputs, targets);
      model.pointer += K;
    }
    return loss;
  }

  // The same with B streams (model.B > 1): pointers spread over the corpus, each wrapping on its grid.
  function starts(N, K, B) {
    var out = [];
    for (var b = 0; b < B; b++) out.push(Math.floor(b * (N - K) / B));
    return out;
  }

  function trainOnDataBatch(model, data, nSteps) {
    var K = model.K, B = model.B, N = data.length, s0 = starts(N, K, B), loss = 0, b, t;
    if (!model.pointers) model.pointers = s0.slice();
    if (!model.inB) {
      model.inB = []; model.tgB = [];
      for (b = 0; b < B; b++) { model.inB.push(new Int32Array(K)); model.tgB.push(new Int32Array(K)); }
    }
    var pos = model.pointers;
    for (var s = 0; s < nSteps; s++) {
      for (b = 0; b < B; b++) {
        if (pos[b] + K + 1 > N) { pos[b] = s0[b] % K; model.hb[b].fill(0); }
        for (t = 0; t < K; t++) { model.inB[b][t] = data[pos[b] + t]; model.tgB[b][t] = data[pos[b] + t + 1]; }
      }
      loss = trainStepBatch(model, model.inB, model.tgB);
      for (b = 0; b < B; b++) pos[b] += K;
    }
    return loss;
  }

  // Plain nested arrays of the parameters (for JSON).
  function exportParams(model) {
    var sh = shapes(model.V, model.H), out = {};
    NAMES.forEach(function (k) {
      var a = model.p[k];
      if (sh[k].length === 1) out[k] = Array.from(a);
      else {
        var rows = [], cols = sh[k][1];
        for (var i = 0; i < sh[k][0]; i++) rows.push(Array.from(a.subarray(i * cols, (i + 1) * cols)));
        out[k] = rows;
      }
    });
    return out;
  }

  return {
    NAMES: NAMES, shapes: shapes, createModel: createModel, trainStep: trainStep,
    trainStepBatch: trainStepBatch, encode: encode, trainOnData: trainOnData, exportParams: exportParams,
  };
});
