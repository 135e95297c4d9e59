"""Softmax, cross-entropy and sampling over a vocabulary (chapters 6 and 7).

Logits are (V,) for one step or (T, V) for a sequence; targets are an int or (T,) ints.
Losses are in nats; a sequence's loss is the mean over its T steps.
"""
import math

import numpy as np

from gleam import checks

__all__ = ["softmax", "log_softmax", "softmax_cross_entropy", "cross_entropy", "cross_entropy_grad",
           "nats_to_bits", "sample"]


def _check_temperature(temperature):
    checks.number("temperature", temperature, minimum=0, strict_min=True)


def _as_logits(logits):
    z = np.asarray(logits, dtype=np.float64)
    if z.ndim not in (1, 2) or z.shape[-1] == 0:
        raise ValueError(f"logits have shape {z.shape}, expected (V,) or (T, V) with V >= 1")
    return z


def _as_targets(z, target):
    t = np.asarray(target)
    expected = z.shape[:-1]
    if t.shape != expected:
        raise ValueError(f"target has shape {t.shape}, expected {expected} for logits of shape {z.shape}")
    if not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"target must be integer class indices, got dtype {t.dtype}")
    V = z.shape[-1]
    if np.any(t < 0) or np.any(t >= V):
        raise ValueError(f"target indices must lie in [0, {V}), got {t.tolist()}")
    return t


def log_softmax(logits, temperature=1.0):
    """Log-probabilities over the last axis; logits of any shape (..., V)."""
    # log p_k = z_k/T − log Σ_j exp(z_j/T), shifted by the max for stability
    _check_temperature(temperature)
    z = np.asarray(logits, dtype=np.float64)
    if z.ndim == 0 or z.shape[-1] == 0:
        raise ValueError(f"logits have shape {z.shape}, expected (..., V) with V >= 1")
    z = z / temperature
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def softmax(logits, temperature=1.0):
    # p_k = exp(z_k/T) / Σ_j exp(z_j/T): T < 1 sharpens, T > 1 flattens
    return np.exp(log_softmax(logits, temperature))


def softmax_cross_entropy(logits, targets):
    """Per position, before any averaging: (−log p_target, p − onehot(target)).

    logits (..., V); targets (...) class ids, assumed valid (callers check them). Shared by
    cross_entropy / cross_entropy_grad here and gleam.heads.classify_loss.
    """
    logp = log_softmax(logits)
    t = np.asarray(targets)[..., None]
    # −log p_target
    nll = -np.take_along_axis(logp, t, axis=-1)[..., 0]
    # ∂(−log p_target)/∂logits = p − onehot(target)
    grad = np.exp(logp)
    np.put_along_axis(grad, t, np.take_along_axis(grad, t, axis=-1) - 1.0, axis=-1)
    return nll, grad


def cross_entropy(logits, target):
    """−log p_target in nats (mean over T for (T, V) logits)."""
    z = _as_logits(logits)
    nll, _ = softmax_cross_entropy(z, _as_targets(z, target))
    return float(nll if z.ndim == 1 else nll.mean())


def cross_entropy_grad(logits, target):
    """∂CE/∂logits = p − onehot(target) (divided by T for the mean over a (T, V) sequence)."""
    z = _as_logits(logits)
    _, g = softmax_cross_entropy(z, _as_targets(z, target))
    return g if z.ndim == 1 else g / z.shape[0]


def nats_to_bits(nats):
    # 1 nat = 1/ln 2 bits
    return nats / math.log(2.0)


def sample(logits, rng, temperature=1.0):
    """Draw one index from softmax(logits / temperature) with the given Generator."""
    checks.generator("rng", rng)
    z = _as_logits(logits)
    if z.ndim != 1:
        raise ValueError(f"sample needs logits of shape (V,), got {z.shape}")
    p = softmax(z, temperature)
    return int(rng.choice(p.shape[0], p=p))
