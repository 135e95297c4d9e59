"""Chapter 2: backpropagation through time by hand, and what truncation keeps."""
import numpy as np

from gleam import sequence
from gleam.examples.data import plain

__all__ = ['chapter2_bptt', 'chapter2_contributions', 'chapter2_truncation_shares']


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


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter2_bptt": chapter2_bptt(),
            "chapter2_contributions": {str(u): chapter2_contributions(u=u) for u in (0.3, 0.9)}}
