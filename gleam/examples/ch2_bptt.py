"""Chapter 2: backpropagation through time by hand, and what truncation keeps."""
import numpy as np

from gleam import cells, checks, sequence
from gleam.examples.data import plain

__all__ = ['chapter2_bptt', 'chapter2_contributions', 'chapter2_truncation_shares', 'chapter2_backward_walk',
           'chapter2_truncation_window']


def _scalar_params(w, u):
    return {"Wx": np.array([[w]]), "Wh": np.array([[u]]), "b": np.zeros(1)}


def _chapter2_forward(xs, w, u, y):
    p = _scalar_params(w, u)
    hs, caches = sequence.forward("elman", np.asarray(xs, float).reshape(-1, 1), np.zeros(1), p)
    # L = ½ (h_T − y)²: only the last state receives ∂L/∂h_T = h_T − y
    dhs = np.zeros_like(hs)
    dhs[-1] = hs[-1] - y
    return p, hs, caches, dhs


def _chapter2_run(xs, w, u, y, truncate=None):
    p, hs, caches, dhs = _chapter2_forward(xs, w, u, y)
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


def chapter2_backward_walk(w=0.8, u=0.9, xs=(1.0, 1.0, 1.0), y=0.5):
    """The hand example's backward pass, one step at a time from the last (the widget's table).

    steps[t−1] for t = 1 … T: x, h_prev, h, tanh_derivative (1 − h_t²), delta (∂L/∂h_t, the
    total gradient reaching h_t), and the step's terms of dL/dw and dL/du (δ_t (1 − h_t²) x_t
    and δ_t (1 − h_t²) h_{t−1}, from gleam.cells.elman_step_backward).
    running[r] for r = 0 … T: dL/dw and dL/du after r backward steps (the last r steps'
    terms summed, += : gleam.sequence.backward truncated to r steps); running[T] is the full
    gradient.
    """
    w, u, y = (checks.number(name, v) for name, v in (("w", w), ("u", u), ("y", y)))
    p, hs, caches, dhs = _chapter2_forward(xs, w, u, y)
    T = len(caches)
    steps = [None] * T
    delta = dhs[-1]                                  # δ_T = ∂L/∂h_T = h_T − y
    for t in reversed(range(T)):
        _, dh_prev, g = cells.elman_step_backward(delta, caches[t], p)
        c = caches[t]
        steps[t] = {"t": t + 1, "x": c["x"][0], "h_prev": c["h_prev"][0], "h": c["h"][0],
                    "tanh_derivative": 1 - c["h"][0] ** 2, "delta": delta[0],
                    "dL_dw_term": g["Wx"][0, 0], "dL_du_term": g["Wh"][0, 0]}
        # δ_{t−1} = δ_t (1 − h_t²) u (no loss at earlier steps)
        delta = dh_prev + (dhs[t - 1] if t else 0.0)
    running = [{"dL_dw": 0.0, "dL_du": 0.0}]
    for r in range(1, T + 1):
        grads, _, _ = sequence.backward("elman", dhs, caches, p, truncate=r)
        running.append({"dL_dw": grads["Wx"][0, 0], "dL_du": grads["Wh"][0, 0]})
    return plain({"w": w, "u": u, "y": y, "xs": list(xs), "h0": 0.0, "T": T, "states": hs[:, 0],
                  "loss": 0.5 * float((hs[-1, 0] - y) ** 2), "steps": steps, "running": running,
                  "dL_dw": running[-1]["dL_dw"], "dL_du": running[-1]["dL_du"]})


def chapter2_truncation_window(u=0.9, k=4, w=0.8, T=12, amplitude=0.5, y=0.5):
    """The truncation widget: chapter2_contributions' run (|each step's contribution to dL/dw|
    under an alternating input) with a window of the last k steps kept.

    kept[t] says whether step t + 1 is inside the window; share_kept is the kept bars' part of
    all bars (None if every bar is zero); dL_dw_truncated is gleam.sequence.backward's gradient
    with truncate=k, dL_dw the full one.
    """
    u = checks.number("u", u)
    k = checks.integer("k", k, minimum=1, maximum=T)
    xs = amplitude * (-1.0) ** np.arange(T)
    _, _, grads, contrib = _chapter2_run(xs, w, u, y)
    _, _, tgrads, _ = _chapter2_run(xs, w, u, y, truncate=k)
    signed = np.array([c["Wx"][0, 0] for c in contrib])
    bars = np.abs(signed)
    total = bars.sum()
    return plain({"u": u, "k": k, "w": w, "T": T, "amplitude": amplitude, "y": y, "inputs": xs,
                  "contributions": signed, "abs_contributions": bars, "kept": np.arange(T) >= T - k,
                  "share_kept": bars[-k:].sum() / total if total > 0 else None,
                  "dL_dw": grads["Wx"][0, 0], "dL_dw_truncated": tgrads["Wx"][0, 0]})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter2_bptt": chapter2_bptt(),
            "chapter2_contributions": {str(u): chapter2_contributions(u=u) for u in (0.3, 0.9)},
            "chapter2_backward_walk": chapter2_backward_walk(),
            "chapter2_truncation_window": chapter2_truncation_window()}
