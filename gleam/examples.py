"""Every worked example of the syllabus, computed through gleam and returned as plain data.

Each `chapterN_*` function returns JSON-able dicts/lists/floats with descriptive keys; the
chapter pages show these numbers and tests/core/test_syllabus.py holds them to the syllabus.
`python -m gleam.examples --json` prints `all_examples()` as one JSON document.
"""
import copy
import dataclasses
import functools
import json
import math
import sys

import numpy as np

from . import counting, dynamics, losses, memory, optim

VOCAB_ABC = ("a", "b", "c")


def _plain(obj):
    """numpy scalars/arrays and tuples → Python floats/ints/lists, recursively."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj)
    return obj


def _onehot(ch, vocab=VOCAB_ABC):
    x = np.zeros(len(vocab))
    x[vocab.index(ch)] = 1.0
    return x


def _sigmoid(a):
    return 1.0 / (1.0 + math.exp(-a))


def chapter0_scalar_memory():
    # a per-step factor q kept for T steps leaves q^T; half-life ln 0.5 / ln q
    hl = {q: dynamics.half_life(q) for q in (0.90, 0.99)}
    # local sensitivity ∂h_t/∂h_{t−1} = a (1 − tanh²(a h_{t−1})): a weight of one, saturated
    sens = {h: 1.0 * (1 - math.tanh(1.0 * h) ** 2) for h in (0.0, 2.0)}
    return {"retained_0.9_over_64": 0.9 ** 64, "half_life_0.90": hl[0.90], "half_life_0.99": hl[0.99],
            "half_life_ratio_0.99_over_0.90": hl[0.99] / hl[0.90],
            "sensitivity_a1_h0": sens[0.0], "sensitivity_a1_h2": sens[2.0]}


def chapter1_params():
    return {"Wx": np.array([[1.0, -0.5, 0.2], [0.0, 0.8, -0.3]]),
            "Wh": np.array([[0.5, -0.2], [0.1, 0.6]]), "b": np.array([0.1, -0.1])}


def chapter1_hand_example(text="abc", wh_scale=1.0):
    """Elman steps over `text` from h_0 = 0; wh_scale multiplies all of W_h (the widget's slider)."""
    from .cells import elman_step
    p = chapter1_params()
    p["Wh"] = p["Wh"] * wh_scale
    h, steps = np.zeros(2), []
    for ch in text:
        x = _onehot(ch)
        # pre-activation a = W_x x + W_h h + b; W_x x is column `ch` of W_x
        inp, rec = p["Wx"] @ x, p["Wh"] @ h
        h, _ = elman_step(x, h, p)
        steps.append({"input": ch, "input_column": inp, "recurrent_term": rec,
                      "pre_activation": inp + rec + p["b"], "state": h})
    return _plain({"steps": steps, "states": [s["state"] for s in steps]})


def _chapter2_run(xs, w, u, y, truncate=None):
    from . import sequence
    p = {"Wx": np.array([[w]]), "Wh": np.array([[u]]), "b": np.zeros(1)}
    hs, caches = sequence.forward("elman", np.asarray(xs, float).reshape(-1, 1), np.zeros(1), p)
    # L = ½ (h_T − y)²: only the last state receives ∂L/∂h_T = h_T − y
    dhs = np.zeros_like(hs)
    dhs[-1] = hs[-1] - y
    grads, _, contrib = sequence.backward("elman", dhs, caches, p, truncate=truncate)
    return hs[:, 0], 0.5 * float((hs[-1, 0] - y) ** 2), grads, contrib


def chapter2_bptt(w=0.8, u=0.9, xs=(1.0, 1.0, 1.0), y=0.5, k=2):
    hs, loss, grads, contrib = _chapter2_run(xs, w, u, y)
    _, _, tgrads, _ = _chapter2_run(xs, w, u, y, truncate=k)
    full, trunc = float(grads["Wx"][0, 0]), float(tgrads["Wx"][0, 0])
    return _plain({"states": hs, "tanh_derivatives": 1 - hs ** 2, "loss": loss,
                   "dL_dw": full, "dL_du": float(grads["Wh"][0, 0]),
                   "dL_dw_per_step": [float(c["Wx"][0, 0]) for c in contrib],
                   "dL_du_per_step": [float(c["Wh"][0, 0]) for c in contrib],
                   "truncate_k": k, "dL_dw_truncated": trunc, "truncation_shortfall": 1 - trunc / full})


def chapter2_contributions(u=0.9, w=0.8, T=12, amplitude=0.5, y=0.5, k=4):
    """The widget's bars: |contribution of each step to dL/dw| for an alternating input."""
    xs = amplitude * (-1.0) ** np.arange(T)
    _, _, grads, contrib = _chapter2_run(xs, w, u, y)
    bars = np.abs([c["Wx"][0, 0] for c in contrib])
    return _plain({"u": u, "abs_contributions": bars, "share_kept_last_k": bars[-k:].sum() / bars.sum(),
                   "k": k, "dL_dw": grads["Wx"][0, 0]})


@functools.lru_cache(maxsize=None)
def _decay_table(rhos, steps):
    return [[dynamics.measured_decay(r, steps=steps)[s] for s in steps] for r in rhos]


def chapter3_measured_decay(rhos=(0.5, 0.9, 1.5, 2.5), steps=(5, 10, 20, 50)):
    """log10 ‖∂h_t/∂h_0‖₂ at each step for each spectral radius (dynamics.measured_decay)."""
    return {"rho": list(rhos), "steps": list(steps), "log10_norm": copy.deepcopy(_decay_table(tuple(rhos), tuple(steps)))}


def chapter3_vanishing():
    # bound (γ σ_max)^T with per-step factor γσ = 0.45 (vanishes) or 1.5 (explodes), T = 20
    return {"factor_0.45_over_20": dynamics.gradient_bound(0.45, 1.0, 20),
            "factor_1.5_over_20": dynamics.gradient_bound(1.5, 1.0, 20),
            "float32_epsilon": float(np.finfo(np.float32).eps)}


def chapter3_clipping(norm=47.3, max_norm=5.0, components=(12.0, -0.4)):
    """A gradient of global norm `norm` holding `components`, clipped at `max_norm`."""
    comps = np.array(components, dtype=float)
    rest = math.sqrt(norm ** 2 - float(comps @ comps))
    grads = {"W_shown": comps, "W_rest": np.array([rest])}
    clipped, pre = optim.clip_global_norm(grads, max_norm)
    flat = np.concatenate([g.ravel() for g in grads.values()])
    cflat = np.concatenate([g.ravel() for g in clipped.values()])
    return _plain({"pre_clip_norm": pre, "max_norm": max_norm, "scale": cflat[0] / flat[0],
                   "components": comps, "clipped_components": clipped["W_shown"],
                   "post_clip_norm": optim.global_norm(clipped),
                   "cosine_before_after": flat @ cflat / (np.linalg.norm(flat) * np.linalg.norm(cflat))})


def gru_hand_params():
    """The chapter-4 weights (textbook layout). Column b is chapter 4's, column a chapter 9's
    self-test; column c is not given by the syllabus and is zero."""
    return {"Wz": np.array([[-0.2, 0.6, 0.0], [0.5, -0.4, 0.0]]), "Uz": np.array([[0.3, 0.1], [-0.2, 0.5]]),
            "bz": np.array([0.0, 0.1]),
            "Wr": np.array([[0.4, -0.3, 0.0], [-0.1, 0.7, 0.0]]), "Ur": np.array([[0.2, -0.4], [0.1, 0.3]]),
            "br": np.array([0.2, 0.0]),
            "Wh": np.array([[0.3, 0.5, 0.0], [-0.6, 0.4, 0.0]]), "Uh": np.array([[0.7, 0.2], [-0.1, 0.9]]),
            "bh": np.array([0.0, 0.0])}


def gru_hand_params_torch():
    """The same numbers in torch.nn.GRU's layout: blocks r, z, n; b_hh = 0."""
    p = gru_hand_params()
    return {"W_ih": np.vstack([p["Wr"], p["Wz"], p["Wh"]]), "W_hh": np.vstack([p["Ur"], p["Uz"], p["Uh"]]),
            "b_ih": np.concatenate([p["br"], p["bz"], p["bh"]]), "b_hh": np.zeros(6)}


def _gru_example(ch, convention, h_prev=(0.5, -0.2), T=20):
    from . import cells
    x, h = _onehot(ch), np.array(h_prev)
    if convention == "textbook":
        h_next, c = cells.gru_textbook_step(x, h, gru_hand_params())
        cand, keep = c["h_tilde"], 1 - c["z"]          # h' = (1 − z) h + z h̃: carry (1 − z)
    elif convention == "torch":
        h_next, c = cells.gru_torch_step(x, h, gru_hand_params_torch())
        cand, keep = c["n"], c["z"]                    # h' = (1 − z) n + z h: carry z
    else:
        raise ValueError(f"convention must be 'textbook' or 'torch', got {convention!r}")
    return _plain({"convention": convention, "input": ch, "h_prev": h, "z": c["z"], "r": c["r"],
                   "candidate": cand, "h": h_next, "carry_multiplier": keep, f"carry_multiplier_{T}": keep ** T})


def chapter4_gru_hand_example(convention="textbook"):
    return _gru_example("b", convention)


def chapter4_gate_meters(zs=(0.1, 0.5, 0.9), T=20):
    # backward multiplier on the carry path over T steps: (1 − z)^T
    return {"z": list(zs), "T": T, "carry_over_T": [(1 - z) ** T for z in zs]}


def chapter5_counts(d=128, n=256):
    gru, lstm = counting.param_count("gru", d, n), counting.param_count("lstm", d, n)
    return {"d": d, "n": n, "gru_params": gru, "lstm_params": lstm, "gru_over_lstm": gru / lstm,
            "gru_width_matching_lstm": counting.matching_width("gru", lstm, d),
            "gru_macs": counting.macs_per_step("gru", d, n), "lstm_macs": counting.macs_per_step("lstm", d, n)}


def chapter5_carry_multipliers():
    # retained fraction f^T for a constant keep factor f; f = σ(forget bias) at zero input
    s = {b: _sigmoid(b) for b in (0.0, 1.0, 3.0)}
    return {"0.99^30": 0.99 ** 30, "sigmoid(0)^30": s[0.0] ** 30, "sigmoid(1)": s[1.0],
            "sigmoid(1)^30": s[1.0] ** 30, "0.99^100": 0.99 ** 100, "0.9^100": 0.9 ** 100,
            "0.5^100": 0.5 ** 100, "sigmoid(3)": s[3.0], "sigmoid(3)^100": s[3.0] ** 100}


def chapter6_cross_entropy(logits=(2.0, 0.5, -1.0, 0.3, 1.2), target=0, temperatures=(0.5, 1.0, 2.0)):
    z = np.array(logits)
    loss = losses.cross_entropy(z, target)
    grad = losses.cross_entropy_grad(z, target)
    return _plain({"p_target": losses.softmax(z)[target], "loss_nats": loss, "loss_bits": losses.nats_to_bits(loss),
                   "uniform_loss": losses.cross_entropy(np.zeros_like(z), target), "grad": grad,
                   "grad_sum": grad.sum(), "temperatures": list(temperatures),
                   "p_target_at_temperature": [losses.softmax(z, t)[target] for t in temperatures]})


def chapter7_live_lab(V=24, H=32, K=25, ema_decay=0.97):
    chance = losses.cross_entropy(np.zeros(V), 0)      # uniform guess: ln V
    return {"V": V, "H": H, "K": K, "chance_nats": chance, "chance_bits": losses.nats_to_bits(chance),
            "macs_per_step": counting.macs_per_step("gru", V, H),
            "chunk_operations": counting.train_chunk_macs("gru", V, H, K),
            "ema_lag_steps": 1 / (1 - ema_decay)}


def chapter8_beyond(d=128, n=256, context_floats=256, vocab=30_000, words=(5, 50, 500)):
    layers = counting.stacked_param_counts("gru", d, n, layers=2)
    bits = math.log2(vocab)
    return {"layer_params": layers, "two_layer_params": sum(layers),
            "two_layer_params_torch": counting.stacked_param_count("gru", d, n, 2, double_bias=True),
            "bidirectional_width": 2 * n,
            "bidirectional_params": counting.stacked_param_count("gru", d, n, 1, bidirectional=True),
            "context_bytes": context_floats * 4, "bits_per_word": bits,
            "words": list(words), "source_bits": [w * bits for w in words]}


def chapter9_self_test(convention="textbook"):
    return _gru_example("a", convention)


def chapter9_deployment():
    return counting.deployment_budget("gru", d=256, n=512, layers=2, vocab=50_000, tokens=10_000)


@functools.lru_cache(maxsize=None)
def _carry_tables():
    return {name: memory.run_preset(name) for name in memory.PRESETS}


def memory_lab_carry_challenge():
    presets = {name: dataclasses.asdict(p) for name, p in memory.PRESETS.items()}
    return _plain({"trials": 5000, "seed": 46, "presets": presets, "rows": copy.deepcopy(_carry_tables())})


def all_examples():
    return {
        "chapter0_scalar_memory": chapter0_scalar_memory(),
        "chapter1_hand_example": chapter1_hand_example(),
        "chapter2_bptt": chapter2_bptt(),
        "chapter2_contributions": {str(u): chapter2_contributions(u=u) for u in (0.3, 0.9)},
        "chapter3_vanishing": chapter3_vanishing(),
        "chapter3_measured_decay": chapter3_measured_decay(),
        "chapter3_clipping": chapter3_clipping(),
        "chapter4_gru_hand_example": {c: chapter4_gru_hand_example(c) for c in ("textbook", "torch")},
        "chapter4_gate_meters": chapter4_gate_meters(),
        "chapter5_counts": chapter5_counts(),
        "chapter5_carry_multipliers": chapter5_carry_multipliers(),
        "chapter6_cross_entropy": chapter6_cross_entropy(),
        "chapter7_live_lab": chapter7_live_lab(),
        "chapter8_beyond": chapter8_beyond(),
        "chapter9_self_test": {c: chapter9_self_test(c) for c in ("textbook", "torch")},
        "chapter9_deployment": chapter9_deployment(),
        "memory_lab_carry_challenge": memory_lab_carry_challenge(),
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--json"]):
        print("usage: python -m gleam.examples [--json]", file=sys.stderr)
        return 2
    doc = _plain(all_examples())
    print(json.dumps(doc, indent=None if "--json" in argv else 2, allow_nan=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
