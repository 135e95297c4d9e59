"""The maths of the char-level GRU (chapter 6): one chunk's forward and backward, batched over time.
(B chunks side by side, CharGRU(batch=B): gleam.chargru.batch.)

Textbook GRU (reset before U_h), a linear readout and softmax cross-entropy, for one-hot
characters x_t over a vocabulary of V and a hidden state of width H:

    z_t  = σ(Wz x_t + Uz h_{t-1} + bz)                  update gate
    r_t  = σ(Wr x_t + Ur h_{t-1} + br)                  reset gate
    h̃_t  = tanh(Wh x_t + Uh (r_t ⊙ h_{t-1}) + bh)        candidate
    h_t  = (1 − z_t) ⊙ h_{t-1} + z_t ⊙ h̃_t
    y_t  = Wy h_t + by,   p_t = softmax(y_t),   L = Σ_t −ln p_t[target_t]

Only the recurrence itself (h_{t-1} → h_t and, backwards, ∂L/∂h_t → ∂L/∂h_{t-1}) runs in a Python
loop. Everything that does not depend on the previous step is done once per chunk for all K steps:
the input terms W x_t (for a one-hot x_t, a column of W), the readout, the softmax, and every weight
gradient (a sum over t of outer products is one matrix product over the chunk).

All parameters live in ONE flat float64 buffer; the dict entries are views into it:
    W  (3H, V) = [Wz; Wr; Wh]     U (3H, H) = [Uz; Ur; Uh]     b (3H,) = [bz; br; bh]
    Wy (V, H)                     by (V,)
so that clipping and the optimiser are single vectorised operations over the whole buffer.

This is the hot training path, so every piece is fused. The readable version of each:
    the cell               gleam.cells.gru.gru_textbook_step / gru_textbook_step_backward
    the loss               gleam.losses.cross_entropy / cross_entropy_grad
    the BPTT loop          gleam.sequence.backward
    the whole chunk        benchmarks/reference_chargru.py, the same numbers step by step
Sampling (`CharGRU.sample`) runs the readable cell itself. The kernels check their arguments
(chargru_batch.check_chunk / check_cache say what fits); check=False skips that for a caller whose
arguments are right by construction (CharGRU's training step).
"""
import math

import numpy as np

from gleam import checks
from gleam.chargru.batch import backward_batch, check_cache, check_chunk, forward_batch
from gleam.chargru.workspace import Workspace, fits

NAMES = ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")


def n_params(V, H):
    """Number of parameters: 3(HV + H² + H) in the cell, VH + V in the readout (V, H >= 1)."""
    V, H = checks.integer("V", V, minimum=1), checks.integer("H", H, minimum=1)
    return 3 * (H * V + H * H + H) + V * H + V


def shapes(V, H):
    """{name: shape} of the eleven parameters: W· (H, V), U· (H, H), b· (H,), Wy (V, H), by (V,)."""
    n_params(V, H)
    out = {}
    for gate in "zrh":
        out.update({"W" + gate: (H, V), "U" + gate: (H, H), "b" + gate: (H,)})
    return {**out, "Wy": (V, H), "by": (V,)}


def views(buffer, V, H):
    """Name the pieces of a flat buffer, a 1-D float64 array of n_params(V, H) entries: the
    stacked blocks W, U, b and the per-gate views."""
    n = n_params(V, H)
    if not (isinstance(buffer, np.ndarray) and buffer.ndim == 1 and buffer.dtype == np.float64):
        got = f"{buffer.dtype} {buffer.shape}" if isinstance(buffer, np.ndarray) else type(buffer).__name__
        raise ValueError(f"buffer must be a 1-D float64 array, got {got}")
    if buffer.size != n:
        raise ValueError(f"buffer has {buffer.size} entries, expected {n} for V={V}, H={H}")
    blocks = (("W", (3 * H, V)), ("U", (3 * H, H)), ("b", (3 * H,)), ("Wy", (V, H)), ("by", (V,)))
    d, start = {}, 0
    for name, shape in blocks:
        size = math.prod(shape)
        d[name] = buffer[start:start + size].reshape(shape)
        start += size
    for k, gate in enumerate("zrh"):
        d["W" + gate] = d["W"][k * H:(k + 1) * H]
        d["U" + gate] = d["U"][k * H:(k + 1) * H]
        d["b" + gate] = d["b"][k * H:(k + 1) * H]
    return d


def pack(params):
    """Copy a plain dict {Wz, Uz, bz, ..., Wy, by} of arrays of numbers (NaN and inf allowed) into a
    new flat buffer; returns (buffer, views). Every shape is checked before anything is allocated."""
    if not isinstance(params, dict):
        raise ValueError(f"params must be a dict {{Wz, Uz, bz, ..., Wy, by}}, got {type(params).__name__}")
    missing = [n for n in NAMES if n not in params]
    if missing:
        raise ValueError(f"params is missing {missing}")
    Wy = checks.array("Wy", params["Wy"], ndim=2, finite=False)
    if 0 in Wy.shape:
        raise ValueError(f"Wy must be a (V, H) matrix, V, H >= 1, got shape {Wy.shape}")
    V, H = Wy.shape
    values = {}
    for name, shape in shapes(V, H).items():
        values[name] = checks.array(name, params[name], ndim=len(shape), finite=False)
        if values[name].shape != shape:
            raise ValueError(f"{name} has shape {values[name].shape}, expected {shape} (V={V}, H={H})")
    buffer = np.empty(n_params(V, H))
    p = views(buffer, V, H)
    for name in NAMES:
        p[name][...] = values[name]
    return buffer, p


def init_params(buffer, V, H, rng, scale=0.1):
    """Weights ~ N(0, scale²), biases 0. Draw order Wz, Wr, Wh, Uz, Ur, Uh, Wy (row-major).
    0 <= scale <= 1e100 (as gleam.cells' init: scale · N(0, 1) must stay a float)."""
    p = views(buffer, V, H)
    checks.generator("rng", rng)
    scale = checks.number("scale", scale, minimum=0, maximum=1e100)
    buffer[:] = 0.0
    p["W"][...] = scale * rng.standard_normal((3 * H, V))
    p["U"][...] = scale * rng.standard_normal((3 * H, H))
    p["Wy"][...] = scale * rng.standard_normal((V, H))
    return p


def forward(p, inputs, targets, h0, *, check=True, work=None):
    """Run one chunk. inputs, targets: (K,) character indices; h0: (H,) the carried state.

    Returns (losses, cache): losses (K,) is −ln p_t[target_t] in nats (inf if that probability
    underflowed to 0); cache holds the states, gates and probabilities the backward pass needs
    (arrays of `work`, a Workspace(K, H), if given: see Workspace).
    Readable versions: the step is gleam.cells.gru.gru_textbook_step, the loss
    gleam.losses.cross_entropy (summed here, not averaged); benchmarks/reference_chargru.py.
    ValueError naming the argument for anything else (chargru_batch.check_chunk; check=False skips it).
    """
    if check:
        inputs, targets, h0 = check_chunk(p, inputs, targets, h0, ndims=(1,))
    U, Wy = p["U"], p["Wy"]
    H = U.shape[1]
    K = len(inputs)
    w = Workspace(K, H) if work is None else fits(work, check, K=K, H=H)
    # W x_t + b for all three gates and all K steps at once: a one-hot x_t picks column x_t of W
    A = np.add(p["W"].T[inputs], p["b"], out=w.A)                   # (K, 3H)
    # σ(a) = ½ (1 + tanh(a/2)): the ½ inside goes into [Uz; Ur] and the input terms, once a chunk
    np.multiply(0.5, A[:, :2 * H], out=w.half_A_zr)                 # (K, 2H)
    half_U_zr = 0.5 * U[:2 * H]                                     # (2H, H)
    U_h = U[2 * H:]                                                 # (H, H)

    hs = w.hs                                                       # h_0 .. h_K
    hs[0] = h0
    tanh, add, mul, sub = np.tanh, np.add, np.multiply, np.subtract
    # row t of hs[:-1], hs[1:], zr, z, r, h̃, r ⊙ h_{t-1}, h̃ − h_{t-1}, ½ A_zr, A_h (Workspace)
    for h, h_next, g, z_t, r_t, c, rh_t, dh_t, half_a_zr, a_h in w.forward_rows:
        # [z; r] = σ([Uz; Ur] h_{t-1} + [Wz; Wr] x_t + [bz; br])
        half_U_zr.dot(h, g)
        add(g, half_a_zr, g)
        tanh(g, g)
        mul(g, 0.5, g)
        add(g, 0.5, g)
        # h̃ = tanh(Uh (r ⊙ h_{t-1}) + Wh x_t + bh)
        mul(r_t, h, rh_t)
        U_h.dot(rh_t, c)
        add(c, a_h, c)
        tanh(c, c)
        # h_t = (1 − z) ⊙ h_{t-1} + z ⊙ h̃ = h_{t-1} + z ⊙ (h̃ − h_{t-1})
        sub(c, h, dh_t)
        mul(z_t, dh_t, h_next)
        add(h_next, h, h_next)

    # readout and softmax for all steps: y_t = Wy h_t + by, p_t = softmax(y_t)
    y = hs[1:] @ Wy.T + p["by"]                                     # (K, V)
    y -= y.max(axis=1, keepdims=True)                               # softmax is shift-invariant
    probs = np.exp(y)
    probs /= probs.sum(axis=1, keepdims=True)
    losses = -np.log(probs[np.arange(K), targets])                 # −ln p_t[target_t]
    cache = dict(inputs=inputs, targets=targets, hs=hs, zr=w.zr, h_tilde=w.h_tilde, rh=w.rh, dh=w.dh,
                 probs=probs)
    return losses, cache


def backward(p, cache, grads, *, check=True, work=None):
    """Gradient of L = Σ_t −ln p_t[target_t] for the chunk, written into the views `grads`.

    Truncated BPTT: h_0 came from the previous chunk and counts as a constant here. Returns
    ∂L/∂h_0, the gradient that truncation drops (it is not sent back to the previous chunk).
    Readable versions: the loop is gleam.sequence.backward, each step
    gleam.cells.gru.gru_textbook_step_backward, the readout's ∂L/∂y
    gleam.losses.cross_entropy_grad (times K: the loss here is a sum); benchmarks/reference_chargru.py.
    ValueError naming the argument unless cache is forward's for p and grads views of p's sizes
    (chargru_batch.check_cache; check=False skips it).
    """
    if check:
        check_cache(p, cache, grads, ndims=(1,))
    U, Wy = p["U"], p["Wy"]
    H = U.shape[1]
    V = Wy.shape[0]
    hs, zr, h_tilde, rh, dh = cache["hs"], cache["zr"], cache["h_tilde"], cache["rh"], cache["dh"]
    inputs, targets = cache["inputs"], cache["targets"]
    K = len(inputs)
    w = Workspace(K, H) if work is None else fits(work, check, K=K, H=H)

    # ∂L/∂y_t = p_t − onehot(target_t): push the right logit up, the others down
    dy = cache["probs"].copy()
    dy[np.arange(K), targets] -= 1.0
    # readout gradients summed over t: ∂L/∂Wy = Σ_t dy_t h_tᵀ, ∂L/∂by = Σ_t dy_t
    np.dot(dy.T, hs[1:], out=grads["Wy"])
    grads["by"][...] = dy.sum(axis=0)

    # row t of gd (t = 0..K, like hs) = [∂L/∂h_t, ∂L/∂(r_t ⊙ h_{t-1})]. ∂L/∂h_t starts as the
    # readout path Wyᵀ dy_t; the loop adds the path through h_{t+1} (the two paths are summed)
    gd = w.gd
    gd.fill(0.0)
    g_h = gd[:, :H]
    g_h[1:] = dy @ Wy
    # per-step factors that do not depend on the recursion, for all t at once:
    #   ∂h_t/∂a_h = z ⊙ (1 − h̃²)                      (a_h: the pre-activation of h̃)
    #   ∂h_t/∂a_z = (h̃ − h_{t-1}) ⊙ z(1 − z),   ∂(r ⊙ h_{t-1})/∂a_r = h_{t-1} ⊙ r(1 − r)
    #   ∂h_t/∂h_{t-1} directly = 1 − z (the carry path),   ∂(r ⊙ h_{t-1})/∂h_{t-1} = r
    # (as z (1 − h̃ h̃) and zr (1 − zr) [h̃ − h_{t-1}, h_{t-1}] compute them, into the workspace)
    w.write_factors(zr, h_tilde, dh, hs[:-1])                       # f_h, f_zr, f_carry = [1 − z, r]
    U_zrT = np.ascontiguousarray(U[:2 * H].T)                       # (H, 2H)
    U_hT = np.ascontiguousarray(U[2 * H:].T)                        # (H, H)

    da_zr, da_h = w.da_zr, w.da_h                                   # [∂L/∂a_z, ∂L/∂a_r], ∂L/∂a_h
    both, tmp = w.both, w.tmp
    both_h, both_rh = both[:H], both[H:]
    mul, add = np.multiply, np.add
    # t = K .. 1: row t of gd, g_h, g_rh, row t−1 of g_h, f_h, da_h, f_zr, da_zr, f_carry (Workspace)
    for row, g, g_rh_t, prev, fh, dah, fzr, dazr, fc in w.backward_rows:
        # ∂L/∂a_h = ∂L/∂h_t ⊙ z ⊙ (1 − h̃²);   ∂L/∂(r ⊙ h_{t-1}) = Uhᵀ ∂L/∂a_h
        mul(g, fh, dah)
        U_hT.dot(dah, g_rh_t)
        # [∂L/∂a_z, ∂L/∂a_r] = [∂L/∂h_t ⊙ (h̃ − h_{t-1}) ⊙ z(1−z),  ∂L/∂(r⊙h) ⊙ h_{t-1} ⊙ r(1−r)]
        mul(row, fzr, dazr)
        # ∂L/∂h_{t-1} += (1 − z) ⊙ ∂L/∂h_t + r ⊙ ∂L/∂(r⊙h) + [Uz; Ur]ᵀ [∂L/∂a_z; ∂L/∂a_r]
        mul(row, fc, both)
        add(prev, both_h, prev)
        add(prev, both_rh, prev)
        U_zrT.dot(dazr, tmp)
        add(prev, tmp, prev)

    # weight gradients as sums over t, one matrix product each:
    #   ∂L/∂W = Σ_t da_t x_tᵀ (x_t one-hot: da_t is added into column x_t),  ∂L/∂b = Σ_t da_t
    #   ∂L/∂[Uz; Ur] = Σ_t [da_z; da_r] h_{t-1}ᵀ,   ∂L/∂Uh = Σ_t da_h (r ⊙ h_{t-1})ᵀ
    x = np.zeros((K, V))
    x[np.arange(K), inputs] = 1.0
    np.dot(da_zr.T, x, out=grads["W"][:2 * H])
    np.dot(da_h.T, x, out=grads["W"][2 * H:])
    grads["b"][:2 * H] = da_zr.sum(axis=0)
    grads["b"][2 * H:] = da_h.sum(axis=0)
    np.dot(da_zr.T, hs[:-1], out=grads["U"][:2 * H])
    np.dot(da_h.T, rh, out=grads["U"][2 * H:])
    return g_h[0].copy()


def gradient_check(params, inputs, targets, h0=None, eps=1e-5, backward_fn=None):
    """Analytic gradient of one chunk's loss L against central differences, entry by entry:

        ∂L/∂θ_i ≈ (L(θ + ε e_i) − L(θ − ε e_i)) / 2ε

    Works on a copy of params. Returns {name: ‖analytic − numeric‖ / (‖analytic‖ + ‖numeric‖)} for
    every parameter (0 where both are exactly 0) and "all": the same over the whole gradient.
    A correct backward in float64 gives ~1e-9 or less; a gradient (either side) that is not finite
    gives inf, a failure by any threshold (never a silent 0). The differences carry ~1e-11 of rounding
    noise, so a parameter whose gradient is itself nearly 0 (norm ~1e-6) can show a larger ratio.
    `backward_fn(p, cache, grads)` replaces `backward` as the analytic side (to show what a
    broken backward pass looks like).

    B chunks at once: inputs and targets (B, K), h0 (B, H) check `forward_batch` /
    `backward_batch`, L summed over all B·K characters.
    """
    eps = checks.number("eps", eps, minimum=0, strict_min=True)
    if backward_fn is not None and not callable(backward_fn):
        raise ValueError(f"backward_fn must be None or a function, got {backward_fn!r:.60}")
    buf, p = pack(params)
    V, H = p["Wy"].shape
    if h0 is None:
        h0 = np.zeros(np.shape(checks.numeric("inputs", inputs))[:-1] + (H,))
    inputs, targets, h0 = check_chunk(p, inputs, targets, h0, ndims=(1, 2))
    fwd, bwd = (forward, backward) if inputs.ndim == 1 else (forward_batch, backward_batch)
    analytic = np.empty_like(buf)
    (backward_fn or bwd)(p, fwd(p, inputs, targets, h0)[1], views(analytic, V, H))
    numeric = np.empty_like(buf)
    for i in range(buf.size):
        old = buf[i]
        buf[i] = old + eps
        plus = fwd(p, inputs, targets, h0, check=False)[0].sum()
        buf[i] = old - eps
        minus = fwd(p, inputs, targets, h0, check=False)[0].sum()
        buf[i] = old
        numeric[i] = (plus - minus) / (2 * eps)
    a, b = views(analytic, V, H), views(numeric, V, H)
    a["all"], b["all"] = analytic, numeric
    errors = {}
    for name in NAMES + ("all",):
        scale = np.sqrt((a[name] ** 2).sum()) + np.sqrt((b[name] ** 2).sum())
        diff = np.sqrt(((a[name] - b[name]) ** 2).sum())
        if not (np.isfinite(diff) and np.isfinite(scale)):
            errors[name] = math.inf          # NaN or inf somewhere: the check fails, loudly
        else:
            errors[name] = float(diff / scale) if scale > 0 else 0.0
    return errors
