"""Chapter 0: one number of memory — the scalar recurrence h_t = tanh(a h_{t−1})."""
import math

import numpy as np

from gleam import checks, dynamics, sequence
from gleam.examples.data import plain

__all__ = ['chapter0_scalar_memory', 'chapter0_recurrence', 'chapter0_presets', 'chapter0_preset_runs']

HORIZON = 64          # steps the widget follows (0.9^64 is the syllabus's example)


def chapter0_scalar_memory():
    # a per-step factor q kept for T steps leaves q^T; half-life ln 0.5 / ln q
    hl = {q: dynamics.half_life(q) for q in (0.90, 0.99)}
    # local sensitivity ∂h_t/∂h_{t−1} = a (1 − tanh²(a h_{t−1})): a weight of one, saturated
    sens = {h: 1.0 * (1 - math.tanh(1.0 * h) ** 2) for h in (0.0, 2.0)}
    return {"retained_0.9_over_64": 0.9 ** 64, "half_life_0.90": hl[0.90], "half_life_0.99": hl[0.99],
            "half_life_ratio_0.99_over_0.90": hl[0.99] / hl[0.90],
            "sensitivity_a1_h0": sens[0.0], "sensitivity_a1_h2": sens[2.0]}


def _measured_half_life(retained):
    """The first t with R_t <= 1/2, refined between steps t−1 and t by a straight line in
    log R (R_t = 0, as for a = 0, gives t itself). None if R never gets there."""
    below = np.flatnonzero(retained <= 0.5)
    if not len(below):
        return None, None
    t = int(below[0])                        # t >= 1: R_0 = 1
    before, after = retained[t - 1], retained[t]
    if after == 0:
        return float(t), t
    # log R linear between the two steps: t½ = (t − 1) + (ln R_{t−1} − ln ½) / (ln R_{t−1} − ln R_t)
    frac = (math.log(before) - math.log(0.5)) / (math.log(before) - math.log(after))
    return (t - 1) + frac, t


def chapter0_recurrence(a=0.9, h0=0.01, T=HORIZON):
    """The widget's run: h_t = tanh(a h_{t−1}) from h_0 for T steps (gleam's Elman cell with one
    unit, no input: W_x = 0, W_h = a, b = 0) and what survives of a nudge to h_0.

    states            h_0 … h_T (T + 1 values)
    sensitivities     ∂h_t/∂h_{t−1} = a (1 − h_t²) = a (1 − tanh²(a h_{t−1})), t = 1 … T
    retained          |∂h_t/∂h_0| = ∏_{s<=t} |a (1 − h_s²)|, t = 0 … T (1 at t = 0)
    pure              |a|^t: the same product for a unit that never saturates
    half_life         the first t with retained <= 1/2, interpolated between steps on the log
                      scale (None: not within T steps); half_life_step the whole step
    factor_half_life  ln 0.5 / ln a, the half-life of a constant factor a (0 < a < 1 only; None
                      otherwise, factor_never_halves says why)
    """
    a = checks.number("a", a, minimum=0)
    h0 = checks.number("h0", h0)
    T = checks.integer("T", T, minimum=1)
    p = {"Wx": np.zeros((1, 1)), "Wh": np.array([[a]]), "b": np.zeros(1)}
    hs, caches = sequence.forward("elman", np.zeros((T, 1)), np.array([h0]), p)
    jac = sequence.jacobians("elman", caches, p)                       # (T, 1, 1)
    # |∂h_t/∂h_0| = ‖J_t … J_1‖, accumulated in log10 (no underflow)
    log10 = dynamics.jacobian_product(jac)["log10_norms"]
    retained = np.concatenate([[1.0], 10.0 ** log10])
    t = np.arange(T + 1)
    half, half_step = _measured_half_life(retained)
    factor = dynamics.half_life(a) if 0 < a < 1 else None
    return plain({"a": a, "h0": h0, "T": T, "t": t, "states": np.concatenate([[h0], hs[:, 0]]),
                  "sensitivities": jac[:, 0, 0], "first_sensitivity": jac[0, 0, 0],
                  "retained": retained, "retained_T": retained[-1], "pure": a ** t.astype(float),
                  "half_life": half, "half_life_step": half_step, "factor_half_life": factor,
                  "factor_never_halves": a >= 1, "h_T": hs[-1, 0]})


def chapter0_presets():
    """The widget's presets: name -> (a, h_0). A weight of one on a saturated start, and the two
    factors of the syllabus's half-lives from a small start (nearly linear: the retained
    fraction follows a^t)."""
    return {"saturated": {"a": 1.0, "h0": 2.0}, "0.90": {"a": 0.90, "h0": 0.01},
            "0.99": {"a": 0.99, "h0": 0.01}}


def chapter0_preset_runs():
    """chapter0_recurrence at each preset, and "0.99_from_0.1": the 0.99 preset started from
    h_0 = 0.1 instead (the prose compares the two starts)."""
    runs = {name: chapter0_recurrence(**p) for name, p in chapter0_presets().items()}
    runs["0.99_from_0.1"] = chapter0_recurrence(a=0.99, h0=0.1)
    return runs


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    keys = ("a", "h0", "T", "first_sensitivity", "retained_T", "half_life", "factor_half_life", "h_T")
    return {"chapter0_scalar_memory": chapter0_scalar_memory(),
            "chapter0_preset_runs": {name: {k: r[k] for k in keys} for name, r in chapter0_preset_runs().items()}}
