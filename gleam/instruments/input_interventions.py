"""Interventions on a sequence model's inputs (the shortcut controls: erase or shuffle a cue).

Each returns a new X (SeqModel zeroes padded inputs itself):
    zero_input(X, steps)              x_t ← 0: for token ids the one-hot of no token, so ids
                                      come back as (T, B, d) features
    permute_inputs(X, mask, steps)    at each listed t, the inputs of the sequences valid at t
                                      are shuffled among them (one permutation per step)
Re-exported by gleam.instruments.interventions, which measures what they change (`effect`).
"""
import numpy as np

from gleam import checks
from gleam.seqmodel.batching import check_mask, one_hot

__all__ = ["zero_input", "permute_inputs"]


# ---------------------------------------------------------------- argument checks (shared)
def check_indices(name, values, minimum=0):
    """An integer or a 1-D list of them -> a sorted tuple of distinct ints >= minimum."""
    if isinstance(values, np.ndarray):
        values = values.tolist() if values.ndim == 1 else values
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = (values,)
    if not isinstance(values, (list, tuple, range)):
        raise ValueError(f"{name} must be an integer >= {minimum} or a list of them, "
                         f"got {values!r:.80}")
    checks.entries(name, len(values), (len(values),))
    if len(values) == 0:
        raise ValueError(f"{name} must name at least one index, got none")
    return tuple(sorted({checks.integer(name, v, minimum=minimum) for v in values}))


def as_array_or_object(value):
    """np.asarray(value), or a 0-D object array where NumPy refuses (ragged lists)."""
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return np.asarray(None)


# ---------------------------------------------------------------- the state as one matrix
# ---------------------------------------------------------------- input interventions
def _inputs(X, mask, d=None):
    """X as token ids (T, B) int or features (T, B, d) float (a copy), and the bool mask."""
    a = as_array_or_object(X)
    if a.ndim == 2:
        if a.dtype.kind not in "iu":
            raise ValueError(f"X of shape {a.shape} must hold integer token ids ((T, B)); "
                             "real features need shape (T, B, d)")
        out = a.astype(np.int64)
    elif a.ndim == 3:
        out = checks.array("X", a, finite=False)
        if d is not None and a.shape[2] != d:
            raise ValueError(f"X has d = {a.shape[2]} features, but d = {d} was given")
    else:
        raise ValueError(f"X must be a (T, B) array of token ids or (T, B, d) features, got "
                         f"{X!r:.80}")
    if 0 in a.shape:
        raise ValueError(f"X has shape {a.shape}: expected T >= 1 and B >= 1 (and d >= 1)")
    return out, check_mask(mask, *a.shape[:2])


def _in_range(steps, T):
    steps = check_indices("steps", steps)
    if steps[-1] >= T:
        raise ValueError(f"steps: step {steps[-1]} is outside X's T = {T} steps")
    return list(steps)


def zero_input(X, steps, d=None, mask=None):
    """A new (T, B, d) float X with x_t = 0 for every t in steps (and at padded steps).

    Token ids (T, B) are first turned into one-hot features of width d (then required); a zero
    row is the one-hot of no token, which the cell sees as "no input at all".
    """
    d = checks.integer("d", d, minimum=1, none_ok=True)
    a, m = _inputs(X, mask, d)
    if a.ndim == 2:
        if d is None:
            raise ValueError("d (the vocabulary size) is needed to turn token ids X into "
                             "one-hot features")
        a = one_hot(np.where(m, a, 0), d, name="X")
    steps = _in_range(steps, a.shape[0])
    out = np.where(m[..., None], a, 0.0)
    out[steps] = 0.0
    return out


def permute_inputs(X, mask, steps, seed=0):
    """A new X (same kind: ids stay ids) whose inputs at each of `steps` are permuted among
    the sequences valid there, by rng = np.random.default_rng(seed), one draw per step in
    increasing order. A permutation may leave a sequence its own input (B = 2: half the time)."""
    rng = np.random.default_rng(checks.seed("seed", seed))
    a, m = _inputs(X, mask)
    out = a.copy()
    for t in _in_range(steps, a.shape[0]):
        valid = np.flatnonzero(m[t])
        out[t, valid] = a[t, valid[rng.permutation(valid.size)]]
    return out
