"""Small pieces every cell shares: the sigmoid and its inverse, shape checks, weight init,
gradient sums.

Shapes: x is (d,) or (B, d), h is (n,) or (B, n); a weight matrix W of shape (k, m) is applied
as `v @ W.T`, so the same line serves one example and a batch.
"""
import functools

import numpy as np

from gleam import checks

# what a malformed argument raises inside a kernel before guarded() explains it
_KERNEL_ERRORS = (TypeError, KeyError, IndexError, AttributeError, ValueError)


def sigmoid(a):
    """σ(a) = 1 / (1 + e^(−a)), computed as exp(−log(1 + e^(−a))) so no |a| can overflow."""
    try:
        return np.exp(-np.logaddexp(0.0, -a))
    except TypeError:
        raise ValueError(f"a must be a number or an array of numbers, got {a!r:.80}") from None


def logit(v):
    """σ⁻¹(v) for v in [0, 1]: ±inf at the ends, where sigmoid(±inf) is exactly 1 or 0."""
    # σ⁻¹(v) = log v − log(1 − v)
    try:
        with np.errstate(divide="ignore"):
            return np.log(v) - np.log1p(-v)
    except (TypeError, ValueError):
        raise ValueError(f"v must be a number or an array of numbers, got {v!r:.80}") from None


def outer_sum(da, v):
    """Gradient of W in `v @ W.T` given da = ∂L/∂(v @ W.T): Σ_batch da ⊗ v, shape (k, m)."""
    try:
        return np.atleast_2d(da).T @ np.atleast_2d(v)
    except (TypeError, ValueError):
        raise ValueError("da and v must be (k,) and (m,) or (B, k) and (B, m) arrays of "
                         f"numbers, got {da!r:.60} and {v!r:.60}") from None


def batch_sum(da):
    """Gradient of a bias added to every example: Σ_batch da, shape (k,). Always a new array."""
    try:
        return np.atleast_2d(da).sum(axis=0)
    except (TypeError, ValueError):
        raise ValueError(f"da must be an array of numbers, got {da!r:.80}") from None


def column(v):
    """v as a column, (..., k) -> (..., k, 1): `column(v) * M` is diag(v) @ M, batched."""
    try:
        return v[..., :, None]
    except (TypeError, IndexError):
        raise ValueError(f"v must be an array with at least one axis, got {v!r:.80}") from None


def _shape_text(names, values):
    """(['B', 'n'], [4, 2]) -> "(B, n) = (4, 2)"; one entry -> "(n,) = (2,)"."""
    return f"{tuple(names)} = {tuple(int(v) for v in values)}".replace("'", "")


def check_step_inputs(x, h, d, n, h_name="h"):
    """Return x and h as float arrays; ValueError naming the array if a shape is wrong.

    Cheap enough for the per-step path: a handful of integer comparisons. Complex values are
    refused (a cast to float would drop their imaginary parts without a word).
    """
    for name, a in (("x", x), (h_name, h)):
        if np.iscomplexobj(a):
            raise ValueError(f"{name} must hold real numbers, got complex values")
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"x must be an array of numbers, got {x!r:.80}") from None
    try:
        h = np.asarray(h, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{h_name} must be an array of numbers, got {h!r:.80}") from None
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


def check_cell_params(p, cell, w_in, w_rec, shapes):
    """Validate p for a cell whose input and recurrent matrices are p[w_in] and p[w_rec];
    shapes(d, n) gives every array's shape. Returns (d, n)."""
    if not isinstance(p, dict):
        raise ValueError(f"p (the parameters for {cell}) must be a dict, got {type(p).__name__}")
    for name in (w_in, w_rec):
        if name not in p:
            raise ValueError(f"{cell} parameters lack '{name}' (needs {', '.join(shapes(1, 1))})")
        if not isinstance(p[name], np.ndarray):
            raise ValueError(f"{name} must be a numpy array, got {type(p[name]).__name__}")
        if np.ndim(p[name]) != 2:
            raise ValueError(f"{name} must be a matrix, got shape {np.shape(p[name])}")
    d, n = np.shape(p[w_in])[1], np.shape(p[w_rec])[1]
    expected = shapes(d, n)
    check_shapes(p, {w_rec: expected[w_rec], **expected}, cell)
    for name in expected:
        if p[name].dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold numbers, got dtype {p[name].dtype}")
    return d, n


def _check_backward(dout, cache, lstm):
    """dout (∂L/∂h', or the LSTM's pair) must match the step's output in the cache."""
    if not isinstance(cache, dict) or "h" not in cache:
        raise ValueError("cache must be the dict a step returned")
    if lstm:
        if not (isinstance(dout, tuple) and len(dout) == 2):
            raise ValueError("dstate must be a pair (dh_next, dc_next), dc_next may be None")
        dh, dc = dout
        if dc is not None and np.shape(dc) != np.shape(cache.get("c")):
            raise ValueError(f"dstate's dc_next has shape {np.shape(dc)}, expected the shape "
                             f"of c {np.shape(cache.get('c'))}")
    else:
        dh = dout
    if np.shape(dh) != np.shape(cache["h"]):
        raise ValueError(f"dh_next has shape {np.shape(dh)}, expected the shape of h "
                         f"{np.shape(cache['h'])}")


def guarded(check_p, backward=None):
    """Wrap a cell kernel f(a, b, p) so that no malformed argument escapes as another exception
    type: on any failure inside, p is validated (check_p(p)) and the error re-raised as a
    ValueError that names the argument. The happy path pays one try block (nothing), and for
    a backward (backward = "lstm" or "other") a shape comparison of its gradient."""
    def wrap(fn):
        names = fn.__code__.co_varnames[:fn.__code__.co_argcount]

        @functools.wraps(fn)
        def kernel(*args):
            if len(args) != len(names):
                raise ValueError(f"{fn.__name__} takes {', '.join(names)}, got {len(args)} "
                                 "arguments")
            try:
                if backward is not None:
                    _check_backward(args[0], args[1], backward == "lstm")
                return fn(*args)
            except _KERNEL_ERRORS as e:
                check_p(args[-1])
                if isinstance(e, ValueError) and str(e).split(" ")[0] in names + (
                        "dstate's", "dh_next", "cache", "c", "the", "x", "h"):
                    raise
                raise ValueError(f"{fn.__name__}: {', '.join(names[:-1])} do not fit p "
                                 f"({type(e).__name__}: {e})") from None
        return kernel
    return wrap


def init_weights(shapes, rng, scale, n):
    """Matrices ~ U(−scale, scale) (default scale 1/√n, PyTorch's choice); vectors (biases) = 0.

    `rng` is a np.random.Generator or a seed for one.
    """
    rng = np.random.default_rng(checks.seed("rng", rng))
    n = checks.integer("n", n, minimum=1)
    for shape in shapes.values():
        checks.entries("d and n", shape, shape)
    scale = 1.0 / np.sqrt(n) if scale is None else checks.number("scale", scale, minimum=0)
    scale = abs(scale)          # −0.0 is 0, and U(0.0, −0.0) would be refused
    if scale > 1e100:           # U(−scale, scale) needs 2·scale to be a float
        raise ValueError(f"scale must be at most 1e100, got {scale!r}")
    return {name: rng.uniform(-scale, scale, shape) if len(shape) == 2 else np.zeros(shape)
            for name, shape in shapes.items()}


def gate_sigmoid(a):
    """σ(a) for the gates of the batched research cells (gru_torch, lstm): with
    e = e^(−|a|), which never overflows, σ = 1 / (1 + e) for a >= 0 and e / (1 + e) below.
    Exactly 1 and 0 at ±inf (a pinned gate), NaN stays NaN. Several times faster than
    cells_common.sigmoid's exp(−log(1 + e^(−a))) and no less exact (largest relative error
    against long double over 10⁶ points in [−800, 800]: 3.3e-16 here, 3.5e-15 there)."""
    try:
        e = np.exp(-np.abs(a))
        return np.where(a >= 0, 1.0, e) / (1.0 + e)
    except TypeError:
        raise ValueError(f"a must be a number or an array of numbers, got {a!r:.80}") from None
