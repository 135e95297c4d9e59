"""Chapter 3: vanishing and exploding gradients — the bound, the measured decay, clipping."""
import copy
import functools
import math

import numpy as np

from gleam import checks, dynamics, optim
from gleam.examples.data import plain

__all__ = ['chapter3_measured_decay', 'chapter3_vanishing', 'chapter3_clipping', 'chapter3_bound_curve',
           'chapter3_decay_curve', 'chapter3_saturation', 'bound_regime']

BOUND_STEPS = 100         # the bound is drawn for T = 1 … 100
BOUND_READ_AT = 20        # and read out at T = 20 (the syllabus's float32 example)
DECAY_STEPS = 50          # the measured curve: steps 1 … 50
DECAY_READ_AT = (5, 10, 20, 50)
CRITICAL_TOLERANCE = 1e-9  # |γρ − 1| below this counts as the critical product 1


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


def bound_regime(product):
    """"vanishing" below a per-step product of 1, "exploding" above, "critical" at 1."""
    product = checks.number("product", product, minimum=0)
    if abs(product - 1.0) <= CRITICAL_TOLERANCE:
        return "critical"
    return "vanishing" if product < 1.0 else "exploding"


def chapter3_bound_curve(rho=0.9, gamma=0.5, T=BOUND_STEPS, read_at=BOUND_READ_AT):
    """The widget's bound (γ ρ)^t for t = 1 … T, with ρ standing in for the per-step gain of W_h.

    (A single step is bounded by σ_max(W_h) >= ρ; over many steps ρ sets the growth rate.)
    product = γρ, bound_at = (γρ)^read_at, regime: see `bound_regime`.
    """
    rho = checks.number("rho", rho, minimum=0)
    gamma = checks.number("gamma", gamma, minimum=0, maximum=1)
    T = checks.integer("T", T, minimum=1)
    read_at = checks.integer("read_at", read_at, minimum=1, maximum=T)
    t = np.arange(1, T + 1)
    with np.errstate(over="ignore"):
        bound = dynamics.gradient_bound(gamma, rho, t.astype(float))
    return plain({"rho": rho, "gamma": gamma, "product": gamma * rho, "T": t, "bound": bound,
                  "read_at": read_at, "bound_at": dynamics.gradient_bound(gamma, rho, read_at),
                  "regime": bound_regime(gamma * rho), "float32_epsilon": float(np.finfo(np.float32).eps)})


@functools.lru_cache(maxsize=128)
def _decay_curve(rho, steps):
    # log10 ‖∂h_t/∂h_0‖₂ for t = 1 … steps: it depends on ρ only, so one run per slider value
    return tuple(dynamics.measured_decay(rho, steps=tuple(range(1, steps + 1))).values())


def chapter3_decay_curve(rho=0.9, steps=DECAY_STEPS, read_at=DECAY_READ_AT):
    """The measured decay of chapter 3's 64-unit network at spectral radius ρ, steps 1 … steps
    (dynamics.measured_decay, cached per ρ), beside log10 ρ^t, what W_h alone would do at its
    growth rate ρ without tanh's derivatives.

    zero: ρ = 0 (W_h = 0), the gradient is exactly zero after one step (log10 = −inf).
    """
    rho = round(checks.number("rho", rho, minimum=0), 9)      # one cache entry per slider value
    steps = checks.integer("steps", steps, minimum=max(read_at))
    log10 = list(_decay_curve(rho, steps))
    t = list(range(1, steps + 1))
    reference = [s * math.log10(rho) if rho > 0 else -math.inf for s in t]
    return {"rho": rho, "t": t, "log10_norm": log10, "log10_rho_power": reference, "zero": rho == 0,
            "read_at": list(read_at), "log10_norm_at": [log10[s - 1] for s in read_at],
            "log10_rho_power_at": [reference[s - 1] for s in read_at]}


def chapter3_saturation(rho=1.5):
    """The syllabus's observation: at ρ = 1.5 the measured curve stays nearly flat while ρ^t,
    W_h's growth rate alone, climbs (chapter3_decay_curve at ρ = 1.5)."""
    return chapter3_decay_curve(rho)


def chapter3_clipping(norm=47.3, max_norm=5.0, components=(12.0, -0.4)):
    """A gradient of global norm `norm` holding `components`, clipped at `max_norm`
    (optim.clip_global_norm). The rest of the gradient is one more entry that makes up the norm,
    so `norm` must be at least the length of `components`."""
    comps = np.array([checks.number("component", c) for c in components], dtype=float)
    norm = checks.number("the global norm", norm, minimum=0, strict_min=True)
    checks.number("the threshold c", max_norm, minimum=0, strict_min=True)
    shown = float(np.sqrt(comps @ comps))
    if shown > norm:
        raise ValueError(f"the global norm ({norm:g}) cannot be smaller than the length of the "
                         f"components it contains ({shown:.2f})")
    rest = math.sqrt(max(norm ** 2 - float(comps @ comps), 0.0))
    grads = {"W_shown": comps, "W_rest": np.array([rest])}
    clipped, pre = optim.clip_global_norm(grads, max_norm)
    flat = np.concatenate([g.ravel() for g in grads.values()])
    cflat = np.concatenate([g.ravel() for g in clipped.values()])
    post = optim.global_norm(clipped)
    return plain({"pre_clip_norm": pre, "max_norm": max_norm, "scale": post / pre, "clipped": pre > max_norm,
                  "components": comps, "clipped_components": clipped["W_shown"], "post_clip_norm": post,
                  "cosine_before_after": flat @ cflat / (np.linalg.norm(flat) * np.linalg.norm(cflat))})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter3_vanishing": chapter3_vanishing(), "chapter3_measured_decay": chapter3_measured_decay(),
            "chapter3_clipping": chapter3_clipping(), "chapter3_bound_curve": chapter3_bound_curve(),
            "chapter3_saturation": chapter3_saturation()}
