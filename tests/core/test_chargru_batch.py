"""CharGRU(batch=B): B parallel streams trained together (a minibatch of B chunks, the summed
gradient, the same clipping and Adagrad). B = 1 is the one-stream trainer bit for bit; B > 1 is
checked against central differences, against B separate one-chunk computations added up, against
its own file and against the standalone script. (Torch parity of a batched update:
test_torch_parity.py.)"""
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from gleam.chargru import fileformat as chargru_io
from gleam.chargru import batch as gb
from gleam.chargru import kernels as gm
from gleam.chargru import DEFAULT_CORPUS, MAX_BATCH, CharGRU, export_script, gradient_check
from gleam.chargru.workspace import BatchWorkspace

# Digests of runs made by the one-stream trainer as it was before streams existed (commit
# 949dd35, numpy 2.0.2 and the project's NumPy alike): losses, gradient norms, parameters, Adagrad
# memory, carried state and gates after the run, the saved file, the last loss and the preview
# sample. B = 1 must reproduce every bit of one machine's set. NumPy's vectorised loops (which SIMD
# extensions the CPU has) change the last bits of a run, so 949dd35 was run on three machines: the
# one the trainer was written on, one whose NumPy finds AVX2 but no AVX-512, and one with AVX-512
# up to BF16 (Ice Lake and later; its second run is bit for bit the first machine's). A run must
# match one machine's set in full, never a mix.
OLD_TRAINER = [
    (dict(), 300, [
        ("5277ae863f16d3941ad35eb9dc69604d", "c6b94431b2827699ceccd8d437ac9c86", "0.07787131538026437",
         "he river runs fbbt, slow and steas aady "),
        ("2fa5da663849c55e49bc1ab15ef4f607", "8d51248a874df0872f8eccd7ec7d2729", "0.07787131538031468",
         "he river runs fbbt, slow and steas aady "),
        ("a6050c4ed2d8844ffd00c66d6b1fb876", "be7ff6c7597b5d4141e1c8473db2da87", "0.07787131538034711",
         "he river runs fbbt, slow and steas aady ")]),
    (dict(hidden=16, seed=3, seq_len=10, lr=0.05), 120, [
        ("2b9aac184c774f4958ead26914440a57", "009d76735152845aab5e5b7789137121", "2.3515300686991583",
         "en f rw.s bim elewd in.tww mag,y slnenn "),
        ("d98b1d0c74705d4519bc950bb9776282", "5b6327f41d8ca8deb36c54defa1a09a3", "2.351530068699158",
         "en f rw.s bim elewd in.tww mag,y slnenn "),
        ("2b9aac184c774f4958ead26914440a57", "009d76735152845aab5e5b7789137121", "2.3515300686991583",
         "en f rw.s bim elewd in.tww mag,y slnenn ")]),
    (dict(lr=5.0), 50, [
        ("975b00cd4e043d9323d159ba9d99b158", "ac75aec7b3afcffcff1daed62fe6514a", "61.409254791087996",
         "hsnoyyyyyyryyyyyyyyyyyrrrhnvssssssssssss"),
        ("268381625e0265fdda892d4e50baebd2", "eb2419870def3c70b134e7237a7a7de5", "61.40925479109383",
         "hsnoyyyyyyryyyyyyyyyyyrrrhnvsssssmank.s,"),
        ("bcbf6c59df5d0127bd996d0b09978fa7", "7b30a3792226f960e7a9c37e76f4dc1e", "61.40925479108916",
         "hsnoyyyyyyryyyyyyyyyyyrrrhnvssssssssssss")]),
]


def run_digest(m, n):
    s = m.step(n)
    h = hashlib.sha256()
    for a in (s.loss, s.grad_norm, m._theta, m._memory, m.h, s.z):
        h.update(a.tobytes())
    return (h.hexdigest()[:32], hashlib.sha256(m.to_bytes()).hexdigest()[:32], repr(float(s.loss[-1])),
            m.sample_preview(40))


@pytest.mark.parametrize("batch", [None, 1])
@pytest.mark.parametrize("kwargs, n, machines", OLD_TRAINER)
def test_one_stream_is_the_old_trainer_bit_for_bit(kwargs, n, machines, batch):
    m = CharGRU(**kwargs) if batch is None else CharGRU(**kwargs, batch=batch)
    assert run_digest(m, n) in machines
    assert m.B == 1 and m.h.shape == (m.H,) and isinstance(m.position, int)


@pytest.mark.parametrize("batch, message", [
    (0, r"batch must be an integer in \[1, 64\], got 0"), (MAX_BATCH + 1, "got 65"), (-2, "got -2"),
    (2.0, "got 2.0"), (True, "got True"), ("4", "got '4'"), (None, "got None"),
])
def test_a_bad_number_of_streams_is_refused_naming_the_argument(batch, message):
    with pytest.raises(ValueError, match=message):
        CharGRU(batch=batch)


def test_more_streams_than_places_to_start_a_chunk_are_refused():
    CharGRU("ab" * 15, seq_len=25, batch=5)                 # 30 − 25 = 5 places
    with pytest.raises(ValueError, match="batch = 6 streams need .* seq_len \\+ batch = 31 characters, got 30"):
        CharGRU("ab" * 15, seq_len=25, batch=6)


@pytest.mark.parametrize("by_einsum", [False, True])   # einsum: how the browser's NumPy (no BLAS) runs it
def test_the_batched_loss_passes_a_gradient_check_at_b3(monkeypatch, by_einsum):
    monkeypatch.setattr(gb, "SUM_OUTER_BY_EINSUM", by_einsum)
    monkeypatch.setattr(gb, "STEP_BY_EINSUM_FROM", 1 if by_einsum else None)
    m = CharGRU(hidden=6, seq_len=7, batch=3, seed=4)
    m.step(5)                                               # carried states that are not zero
    inputs, targets, h0 = m.next_chunk()
    assert inputs.shape == targets.shape == (3, 7) and h0.shape == (3, 6) and np.abs(h0).min() > 0
    errors = gradient_check(m)
    assert errors["all"] < 1e-8 and max(errors.values()) < 1e-6, errors


def test_a_broken_batched_backward_fails_the_gradient_check():
    m = CharGRU(hidden=4, seq_len=5, batch=2)

    def broken(p, cache, grads):                            # the gradient of one stream only
        gb.backward_batch(p, cache, grads)
        grads["Wy"] *= 0.5
    errors = gm.gradient_check(m.params, *m.next_chunk(), backward_fn=broken)
    assert errors["Wy"] > 0.1 and errors["Uh"] < 1e-6


@pytest.mark.parametrize("by_einsum", [False, True])   # the weight gradients' and the steps' products: both ways
def test_the_batched_gradient_is_the_sum_of_the_b_chunks_gradients(monkeypatch, by_einsum):
    monkeypatch.setattr(gb, "SUM_OUTER_BY_EINSUM", by_einsum)
    monkeypatch.setattr(gb, "STEP_BY_EINSUM_FROM", 1 if by_einsum else None)
    m = CharGRU(hidden=8, batch=4, seed=2)
    m.step(7)
    inputs, targets, h0 = m.next_chunk()
    losses, cache = gb.forward_batch(m._p, inputs, targets, h0)
    together = np.zeros_like(m._theta)
    dh0 = gb.backward_batch(m._p, cache, gm.views(together, m.V, m.H))
    apart, dh0_apart = np.zeros_like(m._theta), []
    for b in range(4):
        loss_b, cache_b = gm.forward(m._p, inputs[b], targets[b], h0[b])
        np.testing.assert_allclose(losses[b], loss_b, rtol=0, atol=1e-13)
        one = np.zeros_like(m._theta)
        dh0_apart.append(gm.backward(m._p, cache_b, gm.views(one, m.V, m.H)))
        apart += one
    assert np.abs(together - apart).max() < 1e-12 * np.abs(apart).max()
    assert np.abs(dh0 - np.array(dh0_apart)).max() < 1e-14
    # the loss a step reports is the mean over all B·K characters
    assert m.step(1).loss[0] == pytest.approx(losses.sum() / (4 * m.K), rel=1e-13)


def test_a_reused_batch_workspace_gives_what_fresh_arrays_give_chunk_after_chunk():
    """A B > 1 model's steps run through one BatchWorkspace. Chunks that differ in inputs, carried
    states (zero, then not) and weights, run in turn through one, give bit for bit what each gives
    through fresh arrays: losses, the cache, the gradient and ∂L/∂h_0."""
    m = CharGRU(batch=3, hidden=8, seed=4)
    B, K, H, V = 3, m.K, m.H, m.V
    work, rng = BatchWorkspace(B, K, H, V), np.random.default_rng(0)
    for i in range(4):
        inputs, targets = rng.integers(0, V, (B, K)), rng.integers(0, V, (B, K))
        h0 = rng.standard_normal((B, H)) * (i % 2)
        p = gm.views(m._theta + 0.1 * i * rng.standard_normal(m._theta.size), V, H)
        fresh, reused = np.zeros(m._theta.size), np.full(m._theta.size, np.nan)
        losses, cache = gb.forward_batch(p, inputs, targets, h0)
        dh0 = gb.backward_batch(p, cache, gm.views(fresh, V, H))
        losses_w, cache_w = gb.forward_batch(p, inputs, targets, h0, work=work)
        dh0_w = gb.backward_batch(p, cache_w, gm.views(reused, V, H), work=work)
        np.testing.assert_array_equal(losses_w, losses)
        for key in ("hs", "zr", "h_tilde", "rh", "dh", "probs"):
            np.testing.assert_array_equal(cache_w[key], cache[key], err_msg=f"chunk {i}: {key}")
        np.testing.assert_array_equal(reused, fresh)
        np.testing.assert_array_equal(dh0_w, dh0)
    assert cache_w["zr"] is work.zr and cache["zr"] is not work.zr     # the cache is the workspace's
    assert m._work.B == 3 and m.step(2).n == 2                          # the model's own, reused
    with pytest.raises(ValueError, match=r"^work must be a BatchWorkspace\(B=3, K=25, H=8, V=24\) for this "
                                         r"chunk, got BatchWorkspace\(B=2, K=25, H=8, V=24\)$"):
        gb.forward_batch(m._p, inputs, targets, h0, work=BatchWorkspace(2, K, H, V))
    with pytest.raises(ValueError, match=r"^work must be a BatchWorkspace\(B=3, K=25, H=8, V=24\) for this "
                                         r"chunk, got <class 'gleam.chargru.workspace.Workspace'>$"):
        gb.backward_batch(m._p, cache, m._g, work=gm.Workspace(K, H))


def test_the_batched_gates_saturate_to_exactly_0_and_1_without_a_warning():
    """The batched forward's σ is 1 / (1 + e^−a): for a pre-activation below −709, e^−a overflows to
    inf and σ must be exactly 0 (above +37, exactly 1), silently, as the one-chunk tanh form gives."""
    m = CharGRU(hidden=4, batch=2, seq_len=3, seed=1)
    inputs, targets, h0 = m.next_chunk()
    p = gm.views(m._theta.copy(), m.V, m.H)
    p["bz"][:] = [-1e4, -800.0, 800.0, 1e4]
    p["br"][:] = [-1e300, -710.0, 40.0, 1e300]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        losses, cache = gb.forward_batch(p, inputs, targets, h0)
    z, r = cache["zr"][:, :, :4], cache["zr"][:, :, 4:]
    assert (z[..., :2] == 0).all() and (z[..., 2:] == 1).all() and (r[..., :2] == 0).all() and (r[..., 2:] == 1).all()
    for b in range(2):                                   # what the one-chunk forward gives, to rounding
        np.testing.assert_allclose(cache["zr"][:, b], gm.forward(p, inputs[b], targets[b], h0[b])[1]["zr"],
                                   rtol=0, atol=1e-15)
    assert np.isfinite(losses).all()


def test_streams_start_spread_over_the_corpus_and_wrap_on_their_own_grid():
    N, K, B = len(DEFAULT_CORPUS), 25, 8
    m = CharGRU(batch=B, hidden=4)
    assert m.starts == tuple(b * (N - K) // B for b in range(B)) and m.positions == m.starts
    for _ in range(60):
        before, (inputs, _, h0) = m.positions, m.next_chunk()
        m.step(1)
        for b, (pos, start) in enumerate(zip(before, m.starts)):
            wrapped = pos + K + 1 > N
            at = start % K if wrapped else pos
            assert "".join(m.vocab[i] for i in inputs[b]) == DEFAULT_CORPUS[at:at + K]
            assert m.positions[b] == at + K and (not h0[b].any()) == (wrapped or before == m.starts)
        assert len({tuple(row) for row in inputs}) == B     # never two streams on the same chunk


def test_stream_zero_s_gates_are_reported():
    m = CharGRU(hidden=8, batch=3)
    m.step(4)
    inputs, targets, h0 = m.next_chunk()
    _, before = gm.pack(m.params)                           # the parameters the next step runs on
    s = m.step(1)
    zr = gm.forward(before, inputs[0], targets[0], h0[0])[1]["zr"]
    assert s.z.shape == s.r.shape == (8, m.K)
    np.testing.assert_allclose(s.z, zr[:, :8].T, rtol=0, atol=1e-13)
    np.testing.assert_allclose(s.r, zr[:, 8:].T, rtol=0, atol=1e-13)


def test_more_streams_learn_more_per_step():
    one, eight = CharGRU(), CharGRU(batch=8)
    a, b = one.step(150).loss, eight.step(150).loss
    assert b[-20:].mean() < a[-20:].mean()


# --- files and the script -------------------------------------------------------------------------

def test_a_b4_model_saves_as_version_2_and_continues_exactly():
    m = CharGRU(hidden=16, batch=4, seed=9)
    m.step(37)
    data = m.to_bytes()
    with np.load(io.BytesIO(data), allow_pickle=False) as f:
        header = json.loads(str(f["header"]))
        assert f["h"].shape == (4, 16)
    assert (header["version"], header["batch"], header["position"]) == (2, 4, list(m.positions))
    loaded = CharGRU.from_bytes(data)
    assert (loaded.B, loaded.positions, loaded.steps) == (4, m.positions, 37)
    np.testing.assert_array_equal(loaded.h, m.h)
    np.testing.assert_array_equal(loaded.step(25).loss, m.step(25).loss)
    np.testing.assert_array_equal(loaded._theta, m._theta)
    assert loaded.sample_preview(50) == m.sample_preview(50)


def test_a_one_stream_file_is_still_version_1_and_reads_as_b1():
    m = CharGRU()
    m.step(3)
    with np.load(io.BytesIO(m.to_bytes()), allow_pickle=False) as f:
        header = json.loads(str(f["header"]))
    assert header["version"] == 1 and "batch" not in header
    assert CharGRU.from_bytes(m.to_bytes()).B == 1


def _b4_state(**changes):
    m = CharGRU(batch=4, hidden=8)
    m.step(3)
    state = m.state_dict()
    state.update(changes)
    return state


@pytest.mark.parametrize("changes, message", [
    (dict(batch=0), r"batch must be an integer in \[1, 64\]"),
    (dict(batch=3), r"position must be a list of batch = 3"),
    (dict(position=[75, 137, 199]), "position must be a list of batch = 4"),
    (dict(position=[75, 137, 198, 261]), "position of stream 2 must be 24 plus a multiple of seq_len = 25, got 198"),
    (dict(position=[75, 137, 199, 9999]), "position of stream 3 must be an integer in"),
    (dict(h=np.zeros(8)), r"h has shape \(8,\), expected \(4, 8\)"),
])
def test_a_b4_state_that_does_not_fit_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        CharGRU.from_state(_b4_state(**changes))


def test_a_version_2_file_without_batch_is_refused():
    m = CharGRU(batch=2)
    state = chargru_io.loads(m.to_bytes())
    assert state["batch"] == 2
    data = chargru_io.dumps({**state, "batch": 1})            # written as version 1 ...
    with pytest.raises(ValueError, match="position must be an integer"):
        CharGRU.from_bytes(data)                              # ... whose one pointer is a list


def test_the_exported_script_replays_a_b4_run(tmp_path):
    m = CharGRU(hidden=16, batch=4, seed=5)
    losses = list(m.step(80).loss)
    m.lr = 0.05
    losses += list(m.step(70).loss)
    source = export_script(m)
    assert re.search(r"^BATCH = 4 ", source, re.M) and "STEPS = 150 " in source
    path = tmp_path / "home.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    got = {int(s): float(v) for s, v in re.findall(r"^step (\d+): loss (\S+) nats", done.stdout, re.M)}
    assert sorted(got) == list(range(146, 151))
    assert all(abs(v - losses[s - 1]) < 1e-9 for s, v in got.items())
    assert done.stdout.rstrip("\n").endswith(m.sample_preview(240))


def test_a_diverging_b4_run_stops_at_the_same_step_in_the_script(tmp_path):
    m = CharGRU(lr=5.0, batch=4)
    m.step(60)
    assert m.diverged
    path = tmp_path / "home.py"
    path.write_text(export_script(m), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=300).stdout
    assert f"diverged at step {m.steps + 1}" in out


# --- the plain-JavaScript reference the benchmark races ----------------------------------------------

JS_DRIVER = r"""
const R = require(process.argv[1]);
let text = "";
process.stdin.on("data", (d) => { text += d; });
process.stdin.on("end", () => {
  const job = JSON.parse(text);
  const m = R.createModel(job.V, job.H, job.K, job.params, {lr: job.lr, batch: job.B});
  const losses = [];
  for (let s = 0; s < job.steps; s++) losses.push(R.trainOnData(m, job.data, 1));
  const flat = (o) => Object.fromEntries(R.NAMES.map((k) => [k, Array.from(o[k])]));
  process.stdout.write(JSON.stringify({losses, params: flat(m.p), h: m.hb.map((h) => Array.from(h)),
                                       pointers: m.pointers}));
});
"""


def test_the_js_reference_trains_b_streams_as_gleam_does():
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js) is not on PATH: it runs benchmarks/chargru_reference.js")
    reference = Path(__file__).resolve().parents[2] / "benchmarks" / "chargru_reference.js"
    m = CharGRU(hidden=8, batch=4, seed=1)
    job = dict(V=m.V, H=m.H, K=m.K, B=4, lr=m.lr, steps=30,          # 30 steps: every stream wraps
               params={k: m.params[k].tolist() for k in m.params if k in m.grads},
               data=[m.vocab.index(ch) for ch in m.corpus])
    done = subprocess.run([node, "-e", JS_DRIVER, str(reference)], input=json.dumps(job),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    losses = m.step(30).loss
    assert np.max(np.abs(np.array(out["losses"]) - losses)) < 1e-9
    for k in m.grads:
        assert np.max(np.abs(np.reshape(out["params"][k], m.params[k].shape) - m.params[k])) < 1e-9, k
    assert np.max(np.abs(np.array(out["h"]) - m.h)) < 1e-9 and tuple(out["pointers"]) == m.positions


# --- found by fuzzing (tests/core/test_fuzz.py): each of these failed before its fix -------------

def test_the_batched_kernels_refuse_what_does_not_fit_naming_it():
    m = CharGRU(batch=3, hidden=4, seq_len=5)
    inputs, targets, h0 = m.next_chunk()                               # (3, 5), (3, 5), (3, 4)
    with pytest.raises(ValueError, match=r"^inputs must be a non-empty \(B, K\) array of character indices"):
        gb.forward_batch(m._p, inputs[0], targets[0], h0[0])          # one chunk: was a ValueError of unpacking
    with pytest.raises(ValueError, match=r"^h0 has shape \(1, 4\), expected \(3, 4\) \(H = 4\)$"):
        gb.forward_batch(m._p, inputs, targets, h0[:1])                # was broadcast to the 3 streams
    with pytest.raises(ValueError, match=r"^targets has shape \(3, 4\), expected \(3, 5\)"):
        gb.forward_batch(m._p, inputs, targets[:, :4], h0)
    with pytest.raises(ValueError, match=r"^inputs must hold character indices in \[0, 24\), got 0 to 24$"):
        gb.forward_batch(m._p, np.where(inputs == inputs.max(), 24, inputs), targets, h0)   # was an IndexError
    _, one = gm.forward(m._p, inputs[0], targets[0], h0[0])
    with pytest.raises(ValueError, match=r"^cache\['inputs'\] must be a non-empty \(B, K\) array"):
        gb.backward_batch(m._p, one, gm.views(np.zeros(m._theta.size), m.V, m.H))   # a one-chunk cache
    _, cache = gb.forward_batch(m._p, inputs, targets, h0)
    with pytest.raises(ValueError, match=r"^cache\['probs'\] must be a float64 array of shape \(15, 24\)"):
        gb.backward_batch(m._p, dict(cache, probs=cache["probs"][:5]), gm.views(np.zeros(m._theta.size), m.V, m.H))
    with pytest.raises(ValueError, match=r"^grads must be the dict of views chargru_math.views makes \(W, U, b, Wy, by, \.\.\.\), got NoneType$"):
        gb.backward_batch(m._p, cache, None)


@pytest.mark.parametrize("hidden", [8, 64])
def test_the_steps_products_by_einsum_from_a_width_on_give_matmuls_numbers(monkeypatch, hidden):
    """Pyodide multiplies each time step by einsum from H = STEP_BY_EINSUM_FROM on: the same run to
    rounding (here both ways, in CPython), and nothing else changes."""
    runs = {}
    for start in (None, hidden, hidden + 1):
        monkeypatch.setattr(gb, "STEP_BY_EINSUM_FROM", start)
        m = CharGRU(hidden=hidden, batch=4, seed=7)
        m.step(6)
        runs[start] = m._theta.copy()
    assert np.array_equal(runs[None], runs[hidden + 1])             # below the width: matmul, bit for bit
    # the products' rounding (~1e-16) differs; six Adagrad updates carry it to ~1e-12 of the weights
    assert 0 < np.abs(runs[hidden] - runs[None]).max() < 1e-9 * np.abs(runs[None]).max()
