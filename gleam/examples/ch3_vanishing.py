"""Chapter 3: vanishing and exploding gradients — the bound, the measured decay, clipping."""
import copy
import functools
import math

import numpy as np

from gleam import dynamics, optim
from gleam.examples.data import plain

__all__ = ['chapter3_measured_decay', 'chapter3_vanishing', 'chapter3_clipping']


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


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter3_vanishing": chapter3_vanishing(), "chapter3_measured_decay": chapter3_measured_decay(),
            "chapter3_clipping": chapter3_clipping()}
