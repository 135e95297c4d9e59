"""Chapter 0: one number of memory — the scalar recurrence h_t = tanh(a h_{t−1})."""
import math

from gleam import dynamics

__all__ = ['chapter0_scalar_memory']


def chapter0_scalar_memory():
    # a per-step factor q kept for T steps leaves q^T; half-life ln 0.5 / ln q
    hl = {q: dynamics.half_life(q) for q in (0.90, 0.99)}
    # local sensitivity ∂h_t/∂h_{t−1} = a (1 − tanh²(a h_{t−1})): a weight of one, saturated
    sens = {h: 1.0 * (1 - math.tanh(1.0 * h) ** 2) for h in (0.0, 2.0)}
    return {"retained_0.9_over_64": 0.9 ** 64, "half_life_0.90": hl[0.90], "half_life_0.99": hl[0.99],
            "half_life_ratio_0.99_over_0.90": hl[0.99] / hl[0.90],
            "sensitivity_a1_h0": sens[0.0], "sensitivity_a1_h2": sens[2.0]}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter0_scalar_memory": chapter0_scalar_memory()}
