"""Softmax, cross-entropy and sampling over a vocabulary (chapters 6 and 7).

Logits are (V,) for one step or (T, V) for a sequence; targets are an int or (T,) ints.
Losses are in nats; a sequence's loss is the mean over its T steps.
"""
import math
import numbers

import numpy as np

from gleam import checks

__all__ = ["softmax", "log_softmax", "softmax_cross_entropy", "cross_entropy", "cross_entropy_grad",
           "nats_to_bits", "sample"]


def _check_temperature(temperature):
    return checks.number("temperature", temperature, minimum=0, strict_min=True)


def _as_logits(logits):
    z = _float_logits(logits)
    if z.ndim not in (1, 2) or z.shape[-1] == 0:
        raise ValueError(f"logits have shape {z.shape}, expected (V,) or (T, V) with V >= 1")
    return z


def _float_logits(logits):
    try:
        z = np.asarray(logits)
    except (TypeError, ValueError):
        raise ValueError(f"logits must be an array of numbers, got {logits!r:.80}") from None
    if z.dtype.kind not in "iuf" and z.size:
        raise ValueError(f"logits must be an array of numbers, got dtype {z.dtype}")
    return z.astype(np.float64, copy=False)


def _array_of(name, value):
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of class ids, got {value!r:.80}") from None


def _as_targets(z, target):
    t = _array_of("target", target)
    expected = z.shape[:-1]
    if t.shape != expected:
        raise ValueError(f"target has shape {t.shape}, expected {expected} for logits of shape {z.shape}")
    if not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"target must be integer class indices, got dtype {t.dtype}")
    V = z.shape[-1]
    if np.any(t < 0) or np.any(t >= V):
        raise ValueError(f"target indices must lie in [0, {V}), got {t.tolist()}")
    return t


def _log_softmax(z, temperature):
    """log softmax(z / T) over the last axis for float z; −inf where log p is below the float
    range (p = 0), NaN only from non-finite z. The ordinary formula first (its bits are pinned
    by tests and chapters), a scaled one only where that over- or underflows."""
    # log p_k = z_k/T − log Σ_j exp(z_j/T), shifted by the max for stability
    with np.errstate(over="ignore", invalid="ignore"):
        u = z / temperature
        u = u - u.max(axis=-1, keepdims=True)
        out = u - np.log(np.exp(u).sum(axis=-1, keepdims=True))
    if np.all(np.isfinite(out)) or not np.all(np.isfinite(z)):
        return out
    # z/T or its shift overflowed (T subnormal, |z| near 1e308): shift in units of s = max|z|,
    # d = (z − max z)/s in [−2, 0] exactly representable in range, then log p = d·(s/T) − log Σ
    s = np.abs(z).max(axis=-1, keepdims=True)
    s = np.where(s == 0, 1.0, s)
    d = z / s
    d = d - d.max(axis=-1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):     # 0·inf at the max, not selected
        shifted = np.where(d == 0, 0.0, d * (s / temperature))   # 0 at the max, ≤ 0 elsewhere
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _logits_and_log_p(logits, temperature):
    T = _check_temperature(temperature)
    z = _float_logits(logits)
    if z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(f"logits have shape {z.shape}, expected (..., V) with V >= 1")
    logp = _log_softmax(z, T)
    if not np.all(np.isfinite(z)):
        raise ValueError("logits must be finite numbers, got NaN or inf")
    return z, logp


def log_softmax(logits, temperature=1.0):
    """Log-probabilities over the last axis; logits of any shape (..., V).

    ValueError when a log-probability lies below the float range (it would be −inf): logits
    spread by more than about 1.8e308 · temperature. softmax takes them (that p is 0).
    """
    _, logp = _logits_and_log_p(logits, temperature)
    if not np.all(np.isfinite(logp)):
        raise ValueError("logits / temperature spread beyond the float range: some "
                         "log-probabilities are below -1.8e308 (use softmax, where they are 0)")
    return logp


def softmax(logits, temperature=1.0):
    # p_k = exp(z_k/T) / Σ_j exp(z_j/T): T < 1 sharpens, T > 1 flattens
    return np.exp(_logits_and_log_p(logits, temperature)[1])


def _softmax_cross_entropy(logp, t):
    # −log p_target
    nll = -np.take_along_axis(logp, t, axis=-1)[..., 0]
    # ∂(−log p_target)/∂logits = p − onehot(target)
    grad = np.exp(logp)
    np.put_along_axis(grad, t, np.take_along_axis(grad, t, axis=-1) - 1.0, axis=-1)
    return nll, grad


def softmax_cross_entropy(logits, targets):
    """Per position, before any averaging: (−log p_target, p − onehot(target)).

    logits (..., V); targets (...) class ids in [0, V). Shared by
    cross_entropy / cross_entropy_grad here and gleam.seqmodel.heads.classify_loss. Non-finite logits
    give non-finite losses here (a training step reads that as divergence); every other
    public function of this module refuses them.
    """
    z = _float_logits(logits)
    t = _array_of("targets", targets)
    if z.ndim == 0 or z.shape[-1] == 0 or t.shape != z.shape[:-1] or t.dtype.kind not in "iu":
        raise ValueError(f"logits (..., V) and targets (...) of class ids do not fit: shapes "
                         f"{z.shape} and {t.shape}, targets dtype {t.dtype}")
    if t.size and (t.min() < 0 or t.max() >= z.shape[-1]):
        raise ValueError(f"targets must lie in [0, {z.shape[-1]}), got range "
                         f"[{t.min()}, {t.max()}]")
    return _softmax_cross_entropy(_log_softmax(z, 1.0), t[..., None])


def _checked_cross_entropy(logits, target):
    z, logp = _logits_and_log_p(_as_logits(logits), 1.0)
    t = _as_targets(z, target)
    nll, grad = _softmax_cross_entropy(logp, t[..., None])
    if not np.all(np.isfinite(nll)):
        raise ValueError("logits spread beyond the float range: -log p of a target exceeds "
                         "1.8e308 nats")
    return z, nll, grad


def cross_entropy(logits, target):
    """−log p_target in nats (mean over T for (T, V) logits)."""
    z, nll, _ = _checked_cross_entropy(logits, target)
    if z.ndim == 1:
        return float(nll)
    mean = nll.mean()
    if not np.isfinite(mean):           # the sum overflowed: average the scaled terms
        mean = (nll / nll.size).sum()
    return float(mean)


def cross_entropy_grad(logits, target):
    """∂CE/∂logits = p − onehot(target) (divided by T for the mean over a (T, V) sequence)."""
    z, _, g = _checked_cross_entropy(logits, target)
    return g if z.ndim == 1 else g / z.shape[0]


def nats_to_bits(nats):
    # 1 nat = 1/ln 2 bits
    if isinstance(nats, (bool, np.bool_)) or not isinstance(nats, (numbers.Real, np.ndarray)):
        raise ValueError(f"nats must be a number or an array of numbers, got {nats!r:.80}")
    if isinstance(nats, np.ndarray):
        checks.array("nats", nats, finite=False)
    return nats / math.log(2.0)


def sample(logits, rng, temperature=1.0):
    """Draw one index from softmax(logits / temperature) with the given Generator."""
    checks.generator("rng", rng)
    z = _as_logits(logits)
    if z.ndim != 1:
        raise ValueError(f"sample needs logits of shape (V,), got {z.shape}")
    p = softmax(z, temperature)
    # rng.choice wants Σp = 1 to within its tolerance: p from exp(log_softmax) is, up to V ulps
    return int(rng.choice(p.shape[0], p=p))
