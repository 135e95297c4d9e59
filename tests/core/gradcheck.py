"""Central differences: the independent check every hand-written backward is held to.

    numerical_grad(f, array, eps=1e-6, order=2)   ∂f/∂array, one entry at a time
    rel_error(a, b)                               ‖a − b‖ / (‖a‖ + ‖b‖)
    random_params(shapes, rng, scale=0.5)         a parameter dict of N(0, scale²) entries
"""
import inspect

import numpy as np

# (offset in units of eps, weight): f'(a) ≈ Σ weight · f(a + offset · eps) / eps
_STENCILS = {
    # (f(a + ε) − f(a − ε)) / 2ε                               error ~ ε² f⁽³⁾/6
    2: [(1, 1 / 2), (-1, -1 / 2)],
    # (f(a − 2ε) − 8 f(a − ε) + 8 f(a + ε) − f(a + 2ε)) / 12ε    error ~ ε⁴ f⁽⁵⁾/30
    4: [(-2, 1 / 12), (-1, -8 / 12), (1, 8 / 12), (2, -1 / 12)],
}

# fourth-order differences with a larger step: resolves tiny gradients to 1e-6 relative error
PRECISE = {"eps": 1e-3, "order": 4}


def _takes_argument(f):
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):      # builtins without a signature: assume f(array)
        return True
    return any(q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD, q.VAR_POSITIONAL)
               for q in params)


def numerical_grad(f, array, eps=1e-6, order=2):
    """∂f/∂array by central differences, one entry at a time.

    order=2 is the familiar (f(a + ε) − f(a − ε)) / 2ε. Its error is ~ε² (truncation) plus
    ~1e-16/ε (round-off), about 1e-10 at best: too coarse to check a gradient of size 1e-5 to
    1e-6 relative error. order=4 cancels the ε² term, so a larger ε (1e-3) can be used and
    round-off falls a thousandfold.

    `array` is perturbed IN PLACE (so f can read it through a closure, e.g. a parameter dict)
    and restored exactly afterwards. f is called as f(array) if it takes an argument, else f();
    it must return a scalar. Returns a float64 array shaped like `array`.
    """
    if not isinstance(array, np.ndarray) or not np.issubdtype(array.dtype, np.floating):
        raise ValueError("numerical_grad needs a float numpy array to perturb in place")
    if order not in _STENCILS:
        raise ValueError(f"order must be 2 or 4, got {order!r}")
    call = (lambda: f(array)) if _takes_argument(f) else f
    grad = np.zeros(array.shape)
    flat, gflat = array.reshape(-1), grad.reshape(-1)
    if not np.shares_memory(flat, array):
        raise ValueError("numerical_grad needs a contiguous array (it perturbs it in place)")
    for j in range(flat.size):
        old = flat[j]
        total = 0.0
        for offset, weight in _STENCILS[order]:
            flat[j] = old + offset * eps
            total += weight * float(call())
        flat[j] = old
        gflat[j] = total / eps
    return grad


def rel_error(a, b):
    """Relative error of two arrays as wholes: ‖a − b‖ / (‖a‖ + ‖b‖); 0 when both are 0.

    Whole-array (not per-entry) so that entries near zero, where a central difference has
    only absolute accuracy, do not dominate.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    denominator = np.linalg.norm(a) + np.linalg.norm(b)
    return 0.0 if denominator == 0 else float(np.linalg.norm(a - b) / denominator)


def random_params(shapes, rng, scale=0.5):
    """A parameter dict with every entry ~ N(0, scale²), biases included (name -> shape)."""
    return {name: scale * rng.standard_normal(shape) for name, shape in shapes.items()}
