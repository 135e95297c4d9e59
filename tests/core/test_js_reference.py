"""The plain-JavaScript char-GRU (benchmarks/chargru_reference.js) computes what gleam computes.

The browser benchmark compares the lab's training speed with that JavaScript port, so the port must
be the same algorithm: same loss, same gradient, same clipped Adagrad update, same carried state and
the same wrap-around at the end of the corpus. Weights go to node as JSON (exactly: a float64
written by `json` is read back by JavaScript to the same double); agreement is to 1e-9.
"""
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gleam.chargru import DEFAULT_CORPUS, CharGRU

REFERENCE = Path(__file__).resolve().parents[2] / "benchmarks" / "chargru_reference.js"
NAMES = ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")
TOL = 1e-9

# Reads one JSON job from stdin: the model's state and a number of steps to run on `data`
# (character indices) through the reference's own chunking; prints per-step losses, pre-clip
# gradient norms, and the final parameters, clipped gradients, Adagrad memory and state.
DRIVER = r"""
const R = require(process.argv[1]);
let text = "";
process.stdin.on("data", (d) => { text += d; });
process.stdin.on("end", () => {
  const job = JSON.parse(text);
  const m = R.createModel(job.V, job.H, job.K, job.params,
                          {lr: job.lr, clip: job.clip, h0: job.h0, memory: job.memory, pointer: job.pointer});
  const losses = [], norms = [], inputs = [];
  for (let s = 0; s < job.steps; s++) {
    // the chunk the reference is about to train on (after its own wrap rule)
    const wraps = m.pointer + job.K + 1 > job.data.length;
    inputs.push(job.data.slice(wraps ? 0 : m.pointer, (wraps ? 0 : m.pointer) + job.K));
    losses.push(R.trainOnData(m, job.data, 1));
    norms.push(m.lastGradNorm);
  }
  const flat = (o) => Object.fromEntries(R.NAMES.map((k) => [k, Array.from(o[k])]));
  process.stdout.write(JSON.stringify({
    losses, norms, inputs, vocab: R.encode(job.corpus).vocab.join(""),
    params: flat(m.p), grads: flat(m.grads), memory: flat(m.mem), h: Array.from(m.h),
    pointer: m.pointer, steps: m.steps,
  }));
});
"""


def run_node(job):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js) is not on PATH: it is needed to run benchmarks/chargru_reference.js; "
                    "install Node.js 18+ (e.g. apt-get install nodejs)")
    done = subprocess.run([node, "-e", DRIVER, str(REFERENCE)], input=json.dumps(job),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"node failed:\n{done.stderr}"
    return json.loads(done.stdout)


def snapshot(model):
    """The model's full training state as plain lists (JSON-ready)."""
    return {
        "params": {k: model.params[k].tolist() for k in NAMES},
        "memory": {k: model.memory[k].tolist() for k in NAMES},
        "h0": model.h.tolist(),
        "pointer": model.position,
    }


def job_for(model, steps):
    return dict(snapshot(model), V=model.V, H=model.H, K=model.K, lr=model.lr, clip=model.clip,
                steps=steps, corpus=model.corpus,
                data=[model.vocab.index(ch) for ch in model.corpus])


def assert_close(js, py, what):
    js, py = np.asarray(js, dtype=np.float64), np.asarray(py, dtype=np.float64)
    assert js.shape == py.shape, f"{what}: shape {js.shape} vs {py.shape}"
    err = float(np.max(np.abs(js - py))) if js.size else 0.0
    assert err <= TOL, f"{what}: max |JS − gleam| = {err:.3g} > {TOL}"


def compare_state(out, model):
    for k in NAMES:
        assert_close(np.reshape(out["params"][k], model.params[k].shape), model.params[k], f"param {k}")
        assert_close(np.reshape(out["memory"][k], model.memory[k].shape), model.memory[k], f"Adagrad memory {k}")
    assert_close(out["h"], model.h, "carried state h")
    assert out["pointer"] == model.position


@pytest.mark.parametrize("hidden", [8, 32])
def test_first_step_same_loss_gradient_and_update(hidden):
    model = CharGRU(DEFAULT_CORPUS, hidden=hidden, seq_len=25, lr=0.1, seed=3)
    before = {k: v.copy() for k, v in model.params.items()}
    out = run_node(job_for(model, steps=1))
    stats = model.step(1)

    assert out["vocab"] == model.vocab and model.V == 24
    assert_close(out["losses"], stats.loss, "chunk loss (nats/char)")
    assert_close(out["norms"], stats.grad_norm, "pre-clip gradient norm")
    for k in NAMES:
        # the clipped gradient, and the update it made (Adagrad's first step: ±lr where g ≠ 0)
        assert_close(np.reshape(out["grads"][k], model.grads[k].shape), model.grads[k], f"gradient {k}")
        update_js = np.reshape(out["params"][k], before[k].shape) - before[k]
        assert_close(update_js, model.params[k] - before[k], f"update of {k}")
    compare_state(out, model)
    assert np.any(stats.grad_norm > 0) and np.isfinite(stats.loss).all()


def test_mid_training_step_with_carried_state_and_memory():
    # after some training: non-zero carried state, accumulated Adagrad memory, clipping active
    model = CharGRU(DEFAULT_CORPUS, hidden=16, seq_len=25, lr=0.5, seed=1)
    model.step(4)
    assert np.any(model.h != 0) and model.position == 4 * 25
    before = {k: v.copy() for k, v in model.params.items()}
    out = run_node(job_for(model, steps=1))
    stats = model.step(1)
    assert_close(out["losses"], stats.loss, "chunk loss")
    assert_close(out["norms"], stats.grad_norm, "pre-clip gradient norm")
    for k in NAMES:
        update_js = np.reshape(out["params"][k], before[k].shape) - before[k]
        assert_close(update_js, model.params[k] - before[k], f"update of {k}")
    compare_state(out, model)


def test_clipping_is_per_element_at_5():
    # a large learning rate and large weights make some gradient entries exceed ±5
    model = CharGRU(DEFAULT_CORPUS, hidden=8, seq_len=25, lr=0.1, seed=2)
    model.params["Wy"][...] *= 40.0
    out = run_node(job_for(model, steps=1))
    stats = model.step(1)
    grads = np.concatenate([np.ravel(out["grads"][k]) for k in NAMES])
    assert np.max(np.abs(grads)) == 5.0, "the test needs a gradient beyond the clip"
    assert_close(out["norms"], stats.grad_norm, "pre-clip gradient norm")
    assert stats.grad_norm[0] > 5.0
    compare_state(out, model)


@pytest.mark.parametrize("length", [len(DEFAULT_CORPUS), 10 * 25 + 1])
def test_many_steps_across_the_wrap_around(length):
    # K = 25: the pointer wraps (state reset to 0) after 10 chunks of the 270-character corpus;
    # 251 = 10·25 + 1 characters is the edge case where the 10th chunk just fits before the wrap
    corpus = DEFAULT_CORPUS[:length]
    model = CharGRU(corpus, hidden=8, seq_len=25, lr=0.1, seed=0)
    n = length // 25 + 3
    expected_inputs = []
    probe = CharGRU(corpus, hidden=8, seq_len=25, lr=0.1, seed=0)
    for _ in range(n):
        expected_inputs.append(probe.next_chunk()[0].tolist())
        probe.step(1)
    out = run_node(job_for(model, steps=n))
    stats = model.step(n)
    assert out["inputs"] == expected_inputs, "the JS reference chunks the corpus differently"
    assert_close(out["losses"], stats.loss, "losses of every step")
    assert_close(out["norms"], stats.grad_norm, "pre-clip norms of every step")
    assert out["steps"] == model.steps == n
    compare_state(out, model)
