"""Chapters 0-3: one number of memory, the Elman cell by hand, BPTT and truncation, vanishing and
exploding gradients, clipping."""
import copy
import functools
import math

import numpy as np

from gleam import dynamics, optim
from gleam import sequence
from gleam.cells import count_params, elman_step
from gleam.examples.data import onehot, plain


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
    p = chapter1_params()
    p["Wh"] = p["Wh"] * wh_scale
    h, steps = np.zeros(2), []
    for ch in text:
        x = onehot(ch)
        # pre-activation a = W_x x + W_h h + b; W_x x is column `ch` of W_x
        inp, rec = p["Wx"] @ x, p["Wh"] @ h
        h, _ = elman_step(x, h, p)
        steps.append({"input": ch, "input_column": inp, "recurrent_term": rec,
                      "pre_activation": inp + rec + p["b"], "state": h})
    d, n = p["Wx"].shape[1], p["Wx"].shape[0]
    return plain({"steps": steps, "states": [s["state"] for s in steps],
                  "param_count": count_params("elman", d, n)})


def chapter1_wh_scale(low=0.0, high=2.0, saturating_text="aaaaaaaa"):
    """What the W_h scale slider does: the run at scale `low` (memoryless) and `high`, the
    spectral radius of W_h and the scale that makes it 1, and unit 1's pre-activation at the
    third character of `saturating_text` at scale `high` (where tanh saturates)."""
    rho = dynamics.spectral_radius(chapter1_params()["Wh"])
    saturating = chapter1_hand_example(text=saturating_text, wh_scale=high)
    return plain({"low": low, "high": high, "memoryless": chapter1_hand_example(wh_scale=low),
                  "doubled": chapter1_hand_example(wh_scale=high), "spectral_radius": rho,
                  "scale_for_radius_one": 1 / rho, "saturating_text": saturating_text,
                  "saturating_pre_activation": saturating["steps"][2]["pre_activation"][0]})


def _chapter2_run(xs, w, u, y, truncate=None):
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
    return plain({"states": hs, "tanh_derivatives": 1 - hs ** 2, "loss": loss,
                   "dL_dw": full, "dL_du": float(grads["Wh"][0, 0]),
                   "dL_dw_per_step": [float(c["Wx"][0, 0]) for c in contrib],
                   "dL_du_per_step": [float(c["Wh"][0, 0]) for c in contrib],
                   "truncate_k": k, "dL_dw_truncated": trunc, "truncation_shortfall": 1 - trunc / full})


def chapter2_contributions(u=0.9, w=0.8, T=12, amplitude=0.5, y=0.5, k=4):
    """The widget's bars: |contribution of each step to dL/dw| for an alternating input."""
    xs = amplitude * (-1.0) ** np.arange(T)
    _, _, grads, contrib = _chapter2_run(xs, w, u, y)
    bars = np.abs([c["Wx"][0, 0] for c in contrib])
    return plain({"u": u, "abs_contributions": bars, "share_kept_last_k": bars[-k:].sum() / bars.sum(),
                   "k": k, "dL_dw": grads["Wx"][0, 0]})


def chapter2_truncation_shares(us=(0.3, 0.9)):
    """chapter2_contributions at a small and a large recurrent weight u (the prose compares them)."""
    low, high = (chapter2_contributions(u=u) for u in us)
    return {"low": low, "high": high}


@functools.lru_cache(maxsize=None)
def _decay_table(rhos, steps):
    return [[dynamics.measured_decay(r, steps=steps)[s] for s in steps] for r in rhos]


def chapter3_measured_decay(rhos=(0.5, 0.9, 1.5, 2.5), steps=(5, 10, 20, 50)):
    """log10 ‖∂h_t/∂h_0‖₂ at each step for each spectral radius (dynamics.measured_decay)."""
    table = copy.deepcopy(_decay_table(tuple(rhos), tuple(steps)))
    return {"rho": list(rhos), "steps": list(steps), "log10_norm": table,
            "rows": [{"rho": r, "log10_norm": row} for r, row in zip(rhos, table)]}


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
    return plain({"pre_clip_norm": pre, "max_norm": max_norm, "scale": cflat[0] / flat[0],
                   "components": comps, "clipped_components": clipped["W_shown"],
                   "post_clip_norm": optim.global_norm(clipped),
                   "cosine_before_after": flat @ cflat / (np.linalg.norm(flat) * np.linalg.norm(cflat))})

