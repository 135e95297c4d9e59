"""Small pieces every cell shares: the sigmoid and its inverse, shape checks, weight init,
gradient sums.

Shapes: x is (d,) or (B, d), h is (n,) or (B, n); a weight matrix W of shape (k, m) is applied
as `v @ W.T`, so the same line serves one example and a batch.
"""
import numpy as np

from gleam import checks


def sigmoid(a):
    """σ(a) = 1 / (1 + e^(−a)), computed as exp(−log(1 + e^(−a))) so no |a| can overflow."""
    return np.exp(-np.logaddexp(0.0, -a))


def logit(v):
    """σ⁻¹(v) for v in [0, 1]: ±inf at the ends, where sigmoid(±inf) is exactly 1 or 0."""
    # σ⁻¹(v) = log v − log(1 − v)
    with np.errstate(divide="ignore"):
        return np.log(v) - np.log1p(-v)


def outer_sum(da, v):
    """Gradient of W in `v @ W.T` given da = ∂L/∂(v @ W.T): Σ_batch da ⊗ v, shape (k, m)."""
    return np.atleast_2d(da).T @ np.atleast_2d(v)


def batch_sum(da):
    """Gradient of a bias added to every example: Σ_batch da, shape (k,). Always a new array."""
    return np.atleast_2d(da).sum(axis=0)


def column(v):
    """v as a column, (..., k) -> (..., k, 1): `column(v) * M` is diag(v) @ M, batched."""
    return v[..., :, None]


def _shape_text(names, values):
    """(['B', 'n'], [4, 2]) -> "(B, n) = (4, 2)"; one entry -> "(n,) = (2,)"."""
    return f"{tuple(names)} = {tuple(int(v) for v in values)}".replace("'", "")


def check_step_inputs(x, h, d, n, h_name="h"):
    """Return x and h as float arrays; ValueError naming the array if a shape is wrong.

    Cheap enough for the per-step path: a handful of integer comparisons.
    """
    x = np.asarray(x, dtype=float)
    h = np.asarray(h, dtype=float)
    if x.ndim not in (1, 2) or x.shape[-1] != d:
        raise ValueError(
            f"x has shape {x.shape}, expected {_shape_text(['d'], [d])} or (B, d) = (B, {d})")
    if x.ndim == 1 and h.shape != (n,):
        raise ValueError(f"{h_name} has shape {h.shape}, expected {_shape_text(['n'], [n])}")
    if x.ndim == 2 and h.shape != (x.shape[0], n):
        raise ValueError(f"{h_name} has shape {h.shape}, expected "
                         f"{_shape_text(['B', 'n'], [x.shape[0], n])} to match x {x.shape}")
    return x, h


def check_shapes(p, expected, cell):
    """ValueError unless p has every key of `expected` (name -> shape) with that shape."""
    if not isinstance(p, dict):
        raise ValueError(f"parameters for {cell} must be a dict, got {type(p).__name__}")
    for name, shape in expected.items():
        if name not in p:
            raise ValueError(f"{cell} parameters lack '{name}' (needs {', '.join(expected)})")
        if not isinstance(p[name], np.ndarray):
            raise ValueError(f"{name} must be a numpy array, got {type(p[name]).__name__}")
        if p[name].shape != shape:
            raise ValueError(f"{name} has shape {p[name].shape}, expected {shape}")


def check_sizes(d, n):
    """ValueError unless d and n are integers >= 1."""
    checks.integer("d", d, minimum=1)
    checks.integer("n", n, minimum=1)


def init_weights(shapes, rng, scale, n):
    """Matrices ~ U(−scale, scale) (default scale 1/√n, PyTorch's choice); vectors (biases) = 0.

    `rng` is a np.random.Generator or a seed for one.
    """
    rng = np.random.default_rng(rng)
    scale = 1.0 / np.sqrt(n) if scale is None else checks.number("scale", scale, minimum=0)
    return {name: rng.uniform(-scale, scale, shape) if len(shape) == 2 else np.zeros(shape)
            for name, shape in shapes.items()}
