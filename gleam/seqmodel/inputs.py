"""SeqModel's input checks: the batch, the start state and the `intervene` hooks.

Time-major (gleam.seqmodel): X (T, B) token ids or (T, B, d) features, mask (T, B).
"""
import numpy as np

from gleam import checks
from gleam.seqmodel.batching import check_mask, one_hot

__all__ = ["model_inputs", "initial_state", "check_intervene", "apply_intervention"]


def as_tuple(state):
    return tuple(state) if isinstance(state, tuple) else (state,)


def model_inputs(X, mask, d):
    """-> float (T, B, d) inputs with padding zeroed, and the bool mask."""
    try:
        X = np.asarray(X)
    except (TypeError, ValueError):
        raise ValueError(f"X must be an array of numbers, got {X!r:.80}") from None
    if X.ndim == 2:
        if not np.issubdtype(X.dtype, np.integer):
            raise ValueError(f"X has shape {X.shape}: (T, B) must hold integer token ids; "
                             "real features need shape (T, B, d)")
        if 0 in X.shape:
            raise ValueError(f"X has shape {X.shape}: expected T >= 1 and B >= 1")
        m = check_mask(mask, *X.shape)
        return one_hot(np.where(m, X, 0), d, name="X"), m
    if X.ndim != 3 or X.shape[2] != d:
        raise ValueError(f"X has shape {X.shape}, expected (T, B) token ids "
                         f"or (T, B, d) with d = {d}")
    if 0 in X.shape[:2]:
        raise ValueError(f"X has shape {X.shape}: expected T >= 1 and B >= 1")
    m = check_mask(mask, *X.shape[:2])
    X = checks.array("X", np.where(m[..., None], X, 0), finite=False)
    return X, m

def initial_state(h0, B, n, lstm):
    """The start state: zeros, or h0 ((n,) or (B, n); an LSTM's a pair) broadcast to (B, n)."""
    if h0 is None:
        return tuple(np.zeros((B, n)) for _ in range(2 if lstm else 1))
    if lstm and not (isinstance(h0, (tuple, list)) and len(h0) == 2):
        raise ValueError("an LSTM's h0 must be a pair (h0, c0)")
    parts = tuple(h0) if lstm else (h0,)
    out = []
    for a in parts:
        a = checks.array("h0", a, finite=False)
        if a.shape not in ((n,), (B, n)):
            raise ValueError(f"h0 has shape {a.shape}, expected (n,) = ({n},) "
                             f"or (B, n) = ({B}, {n})")
        out.append(np.broadcast_to(a, (B, n)).copy())
    return tuple(out)


def check_intervene(intervene, T):
    """intervene as {step in 0..T-1: function} (negative steps count from the end)."""
    if intervene is None or (isinstance(intervene, dict) and not intervene):
        return {}
    if not isinstance(intervene, dict):
        raise ValueError(f"intervene must be None or a dict {{step: function}}, got "
                         f"{type(intervene).__name__}")
    out = {}
    for t, fn in intervene.items():
        t = checks.integer("intervene's step", t)
        if not (-T <= int(t) < T):
            raise ValueError(f"intervene step {t} outside the sequence (T = {T})")
        if not callable(fn):
            raise ValueError(f"intervene[{t}] must be a function of the state")
        if int(t) % T in out:              # -1 and T − 1 are one step: one would be lost
            raise ValueError(f"intervene names step {int(t) % T} twice (as {t} and "
                             f"{int(t) % T - T if int(t) >= 0 else int(t) % T}); combine the "
                             "functions into one (gleam.instruments.interventions.combine)")
        out[int(t) % T] = fn
    return out

def apply_intervention(fn, state, t, lstm):
    """fn(copy of the state after step t), checked to have the state's shapes."""
    arg = tuple(a.copy() for a in state) if lstm else state[0].copy()
    new = as_tuple(fn(arg))
    try:
        shapes = [np.shape(a) for a in new]
    except (TypeError, ValueError):
        shapes = None
    if shapes is None or len(new) != len(state) or any(
            s != b.shape for s, b in zip(shapes, state)):
        raise ValueError(f"intervene[{t}] returned shapes {shapes}, "
                         f"expected {[b.shape for b in state]}")
    return tuple(checks.array(f"intervene[{t}]'s state", a, finite=False) for a in new)
