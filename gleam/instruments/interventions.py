"""Interventions on a SeqModel's recurrent state and inputs, measured by what they change.

A state intervention is an `intervene` dict for `SeqModel.forward/predict/loss`: {t: fn}, fn
replacing the state s_t after step t (h, or an LSTM's pair (h, c)). Steps count from 0 (no
negative steps here, so that `combine` can merge dicts by key). Each acts on every sequence of
the batch, on the part of the state named by `part`, one row per sequence:
    "h" the hidden state (n)    "c" an LSTM's cell state (n)
    "both" the whole state: h, or an LSTM's h and c side by side (2n, h first)
With d̂ = d / ‖d‖:
    clamp_unit(u, v, steps)           s[u] ← v
    clamp_direction(d, v, steps)      s ← s + (v − s·d̂) d̂     the component along d̂ becomes v
    add_along(d, α, steps)            s ← s + α d̂              (activation patching along d̂)
    swap_states(t, [(b1, b2), …])     s_b1 ↔ s_b2 at step t (all units, or only `units`)
A step that is padding for a sequence carries its state, so there the intervention acts on
the carried state. An intervention that makes the state non-finite raises a ValueError.

Input interventions (gleam.instruments.input_interventions, re-exported here) return a new X:
    zero_input(X, steps)  and  permute_inputs(X, mask, steps)  (the cue-erasure controls)

effect(model, X, mask, intervene) runs the batch with and without the intervention:
    changed          fraction of the compared positions whose prediction changed (classify:
                     another class; a head of values: |Δy| > tol (1 + |y|) in some output)
    mean_abs_change  mean |Δ output| (logits or values) over compared positions and outputs
The compared positions are every sequence (many-to-one) or every valid step (& target_mask,
many-to-many).
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.seqmodel.batching import check_mask
from gleam.instruments.input_interventions import as_array_or_object, check_indices, permute_inputs, zero_input  # noqa: F401
from gleam.seqmodel import SeqModel

__all__ = ["PARTS", "clamp_unit", "clamp_direction", "add_along", "swap_states", "combine",
           "zero_input", "permute_inputs", "Effect", "effect"]

PARTS = ("h", "c", "both")


# ---------------------------------------------------------------- argument checks
def _unit_vector(name, direction):
    # d̂ = d / ‖d‖, computed on d / max|d| so that no entry can overflow the norm
    d = checks.array(name, direction, ndim=1, allow_empty=False)
    a = float(np.max(np.abs(d)))
    if a == 0:
        raise ValueError(f"{name} must be a non-zero vector, got all zeros")
    d = d / a
    return d / np.linalg.norm(d)


def _pairs(pairs):
    """(b1, b2) or a list of such pairs -> a tuple of pairs, no sequence in two of them."""
    pairs = pairs.tolist() if isinstance(pairs, np.ndarray) else pairs
    if isinstance(pairs, (list, tuple)) and len(pairs) == 2 and not any(
            isinstance(b, (list, tuple)) for b in pairs):
        pairs = [pairs]
    if not (isinstance(pairs, (list, tuple)) and pairs and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs)):
        raise ValueError(f"pairs must be a pair (b1, b2) of sequence indices or a non-empty "
                         f"list of pairs, got {pairs!r:.80}")
    checks.entries("pairs", len(pairs), (len(pairs), 2))
    flat = [checks.integer(f"pairs[{i}]", b, minimum=0) for i, p in enumerate(pairs) for b in p]
    if len(set(flat)) != len(flat):
        raise ValueError(f"pairs = {pairs!r:.60}: each pair needs two sequences, and no "
                         "sequence may be in two pairs")
    return tuple(zip(flat[::2], flat[1::2]))


def _flat(state):
    """The state as (B, m) (an LSTM's h and c side by side) and whether it was a pair."""
    if isinstance(state, (tuple, list)):
        return np.concatenate([np.asarray(a, dtype=float) for a in state], axis=1), True
    return np.array(state, dtype=float), False


def _columns(part, lstm, m):
    """The columns of the flat state that `part` names."""
    if part == "c" and not lstm:
        raise ValueError("part = 'c' needs an LSTM (its cell state); this model's state is h")
    n = m // 2 if lstm else m
    return {"h": np.arange(n), "c": np.arange(n, m), "both": np.arange(m)}[part]


def _on_part(steps, part, name, value, edit):
    """{t: fn} for each of `steps`: fn replaces the columns s (B, k) of `part` by edit(s)."""
    steps = check_indices("steps", steps)
    part = checks.one_of("part", part, PARTS)

    def fn(state):
        flat, lstm = _flat(state)
        cols = _columns(part, lstm, flat.shape[1])
        with np.errstate(over="ignore", invalid="ignore"):
            flat[:, cols] = edit(flat[:, cols], part)
        if not np.all(np.isfinite(flat)):
            raise ValueError(f"{name} = {value!r:.40} makes the state non-finite")
        n = flat.shape[1] // 2
        return (flat[:, :n].copy(), flat[:, n:].copy()) if lstm else flat
    return {t: fn for t in steps}


def _fits(d, s, part):
    if d.size != s.shape[1]:
        raise ValueError(f"direction has {d.size} entries, part {part!r} of this state has "
                         f"{s.shape[1]}")


# ---------------------------------------------------------------- state interventions
def clamp_unit(unit, value, steps, part="h"):
    """{t: fn} setting unit `unit` of `part` to `value` after each of `steps`."""
    unit = checks.integer("unit", unit, minimum=0)
    value = checks.number("value", value)

    def edit(s, part):
        if unit >= s.shape[1]:
            raise ValueError(f"unit = {unit} is outside part {part!r}'s {s.shape[1]} units")
        # s[u] ← v
        s[:, unit] = value
        return s
    return _on_part(steps, part, "value", value, edit)


def clamp_direction(direction, value, steps, part="h"):
    """{t: fn} setting the component of `part` along the unit vector d̂ to `value`."""
    d = _unit_vector("direction", direction)
    value = checks.number("value", value)

    def edit(s, part):
        _fits(d, s, part)
        # s ← s + (v − s·d̂) d̂
        return s + (value - s @ d)[:, None] * d
    return _on_part(steps, part, "value", value, edit)


def add_along(direction, alpha, steps, part="h"):
    """{t: fn} adding alpha · d̂ to `part` (α = 0 changes nothing)."""
    d = _unit_vector("direction", direction)
    alpha = checks.number("alpha", alpha)

    def edit(s, part):
        _fits(d, s, part)
        # s ← s + α d̂
        return s + alpha * d
    return _on_part(steps, part, "alpha", alpha, edit)


def swap_states(step, pairs, mask=None, units=None, part="both"):
    """{step: fn} exchanging the states of sequences b1 and b2 of each pair after `step`.

    mask: the batch's (T, B) mask, to check that both sequences of every pair are valid at
      `step` (None: every step is taken as valid, as SeqModel does).
    units: None (every unit of `part`) or the units of `part` to exchange.
    part: "both" (default: h, and an LSTM's c too), "h" or "c".
    """
    step = checks.integer("step", step, minimum=0)
    pairs = _pairs(pairs)
    units = None if units is None else list(check_indices("units", units))
    if mask is not None:
        m = as_array_or_object(mask)
        if m.ndim != 2:
            raise ValueError(f"mask must be a (T, B) array of 0/1 or booleans, got {mask!r:.80}")
        m = check_mask(m, *m.shape)
        if step >= m.shape[0]:
            raise ValueError(f"step = {step} is outside the mask's T = {m.shape[0]} steps")
        for b1, b2 in pairs:
            if max(b1, b2) >= m.shape[1] or not (m[step, b1] and m[step, b2]):
                raise ValueError(f"pairs: sequences {b1} and {b2} must both be in the batch "
                                 f"(B = {m.shape[1]}) and valid at step {step}")

    def edit(s, part):
        if units is not None and units[-1] >= s.shape[1]:
            raise ValueError(f"units: unit {units[-1]} is outside part {part!r}'s "
                             f"{s.shape[1]} units")
        if max(max(p) for p in pairs) >= s.shape[0]:
            raise ValueError(f"pairs: a sequence index is outside the batch of B = {s.shape[0]}")
        cols = slice(None) if units is None else units
        out = s.copy()
        for b1, b2 in pairs:
            # s_b1 ↔ s_b2
            out[b1, cols], out[b2, cols] = s[b2, cols], s[b1, cols]
        return out
    return _on_part(step, part, "pairs", pairs, edit)


def _chain(fns):
    if len(fns) == 1:
        return fns[0]

    def chained(state):
        shapes = [np.shape(a) for a in (state if isinstance(state, tuple) else (state,))]
        for i, fn in enumerate(fns):
            state = fn(state)
            got = [np.shape(a) for a in (state if isinstance(state, tuple) else (state,))]
            if got != shapes and i < len(fns) - 1:   # the next one needs a state (SeqModel checks the last)
                raise ValueError(f"intervene: function {i} of a combined step returned shapes {got}, "
                                 f"expected the state's {shapes}")
        return state
    return chained


def combine(*intervenes):
    """One intervene dict from several; at a step more than one names, their functions run
    in the order given (so combine(swap, swap) swaps back)."""
    merged = {}
    for i, iv in enumerate(intervenes):
        if not isinstance(iv, dict):
            raise ValueError(f"intervenes[{i}] must be a dict {{step: function}}, got "
                             f"{type(iv).__name__}")
        for t, fn in iv.items():
            t = checks.integer(f"intervenes[{i}]'s step", t, minimum=0)
            if not callable(fn):
                raise ValueError(f"intervenes[{i}][{t}] must be a function of the state")
            merged.setdefault(t, []).append(fn)
    return {t: _chain(fns) for t, fns in sorted(merged.items())}


# ---------------------------------------------------------------- the effect
@dataclass
class Effect:
    """What an intervention did to a batch's answers."""
    before: np.ndarray          # predictions without it, as SeqModel.predict gives them
    after: np.ndarray           # predictions with it
    changed: float              # fraction of the compared positions whose prediction changed
    mean_abs_change: float      # mean |Δ output| over compared positions and outputs
    outputs_before: np.ndarray  # logits or values, (B, n_out) or (T, B, n_out)
    outputs_after: np.ndarray
    count: int                  # positions compared
    metric: str = None          # "accuracy" (classify) or "mse" (values), if targets were given
    accuracy_before: float = None   # that metric without the intervention (None: no targets)
    accuracy_after: float = None    # and with it


def _positions(model, m, target_mask):
    """The positions compared: (B,) all True, or (T, B) mask & target_mask."""
    if not model.config.many_to_many:
        if target_mask is not None:
            raise ValueError("target_mask is for many-to-many models")
        return np.ones(m.shape[1], dtype=bool)
    if target_mask is None:
        return m
    tm = as_array_or_object(target_mask)
    if (tm.shape != m.shape or tm.dtype.kind not in "biuf"
            or not np.all((tm == 0) | (tm == 1))):
        raise ValueError(f"target_mask must be a (T, B) = {m.shape} array of 0/1 or booleans")
    where = m & tm.astype(bool)
    if not where.any():
        raise ValueError("target_mask & mask leaves no position to compare")
    return where


def effect(model, X, mask=None, intervene=None, targets=None, target_mask=None, h0=None,
           tol=1e-9):
    """Run the batch without and with `intervene` (a dict from the builders above, or any
    SeqModel hook) -> Effect. targets (and target_mask) as for SeqModel.loss."""
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    tol = checks.number("tol", tol, minimum=0)
    out0, _, caches = model.forward(X, mask, h0)
    try:      # X, mask and h0 passed above: what fails now is the intervention's doing
        with np.errstate(over="ignore", invalid="ignore"):   # non-finite: refused below
            out1, _, _ = model.forward(X, mask, h0, intervene)
    except ValueError as e:
        if str(e).startswith("intervene"):
            raise
        raise ValueError(f"intervene: {e}") from None
    m = caches["mask"]
    if not np.all(np.isfinite(out0)):
        raise ValueError("model: its outputs on X are not finite (weights or X too large)")
    if not np.all(np.isfinite(out1)):
        raise ValueError("intervene drove the outputs beyond the float range")
    where = _positions(model, m, target_mask)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = np.abs(out1 - out0)[where]                      # (count, n_out)
        mean_abs = float(np.mean(diff))
        if model.config.head == "classify":
            moved = (out1.argmax(axis=-1) != out0.argmax(axis=-1))[where]
        else:
            moved = np.any(diff > tol * (1 + np.abs(out0[where])), axis=-1)
    if not np.isfinite(mean_abs):
        raise ValueError("intervene: the change in the outputs is beyond the float range")
    with np.errstate(over="ignore", invalid="ignore"):
        before, after = model.predict(X, mask, h0), model.predict(X, mask, h0, intervene)
    result = Effect(before, after, float(np.mean(moved)), mean_abs, out0, out1,
                    int(where.sum()))
    if targets is not None:
        result.metric = "accuracy" if model.config.head == "classify" else "mse"
        for field, name, iv in (("accuracy_before", "targets", None),
                                ("accuracy_after", "intervene", intervene)):
            with np.errstate(over="ignore", invalid="ignore"):
                _, info = model.loss(X, mask, targets, h0, target_mask, iv)
            if not np.isfinite(info[result.metric]):
                raise ValueError(f"{name}: the {result.metric} is beyond the float range")
            setattr(result, field, float(info[result.metric]))
    return result
