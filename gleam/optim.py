"""Gradient clipping and the three optimisers of the lab (chapters 3 and 6).

Parameters and gradients are plain dicts of float arrays with the same keys and shapes;
each optimiser keeps its memory in dicts keyed like the parameters and updates in place.
"""
import math

import numpy as np

from gleam import checks

__all__ = ["global_norm", "clip_global_norm", "clip_elementwise", "SGD", "Adagrad", "Adam"]


def _positive(value, name, allow_zero=False):
    return checks.number(name, value, minimum=0, strict_min=not allow_zero)


def _check_grads(grads):
    if not isinstance(grads, dict):
        raise ValueError(f"grads must be a dict of arrays, got {type(grads).__name__}")


def global_norm(grads):
    # ‖g‖ = sqrt(Σ_k Σ_i g_ki²) over every parameter's gradient
    _check_grads(grads)
    return math.sqrt(sum(float(np.sum(np.square(np.asarray(g, dtype=np.float64)))) for g in grads.values()))


def clip_global_norm(grads, max_norm):
    """Rescale all gradients together so ‖g‖ <= max_norm; return (new dict, pre-clip ‖g‖).

    g ← g · c/‖g‖ when ‖g‖ > c: the direction is kept. A non-finite norm is returned as is,
    with the gradients copied unscaled, so the caller can see the divergence and skip the step.
    """
    c = _positive(max_norm, "max_norm")
    norm = global_norm(grads)
    scale = c / norm if math.isfinite(norm) and norm > c else 1.0
    return {k: np.asarray(g, dtype=np.float64) * scale for k, g in grads.items()}, norm


def clip_elementwise(grads, limit):
    """Clip every gradient entry into [−limit, limit] (min-char-rnn's np.clip(g, −5, 5))."""
    _check_grads(grads)
    a = _positive(limit, "limit")
    return {k: np.clip(np.asarray(g, dtype=np.float64), -a, a) for k, g in grads.items()}


class _Optimizer:
    """Shared checks: a validated learning rate and memory dicts keyed like params."""

    def __init__(self, lr):
        self.lr = lr
        self.reset()

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = _positive(value, "lr", allow_zero=True)

    def reset(self):
        self.t = 0

    def _pairs(self, params, grads):
        _check_grads(grads)
        if set(params) != set(grads):
            raise ValueError(f"grads keys {sorted(grads)} do not match params keys {sorted(params)}")
        for k, p in params.items():
            if not (isinstance(p, np.ndarray) and np.issubdtype(p.dtype, np.floating)):
                raise ValueError(f"param {k} must be a float numpy array (updated in place)")
            g = np.asarray(grads[k], dtype=np.float64)
            if g.shape != np.shape(p):
                raise ValueError(f"grad {k} has shape {g.shape}, expected {np.shape(p)}")
            yield k, p, g

    def step(self, params, grads):
        pairs = list(self._pairs(params, grads))
        self.t += 1
        for k, p, g in pairs:
            self._update(k, p, g)

    def _memory(self, store, k, p):
        if k not in store:
            store[k] = np.zeros(np.shape(p), dtype=np.float64)
        return store[k]


class SGD(_Optimizer):
    """θ ← θ − lr · g"""

    def _update(self, k, p, g):
        p -= self.lr * g


class Adagrad(_Optimizer):
    """M ← M + g²;  θ ← θ − lr · g / (√M + eps)   (min-char-rnn, chapter 6)"""

    def __init__(self, lr, eps=1e-8):
        self.eps = _positive(eps, "eps")
        super().__init__(lr)

    def reset(self):
        super().reset()
        self.memory = {}

    def _update(self, k, p, g):
        M = self._memory(self.memory, k, p)
        M += g * g
        p -= self.lr * g / (np.sqrt(M) + self.eps)


class Adam(_Optimizer):
    """m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  θ ← θ − lr · m̂ / (√v̂ + eps),
    with bias corrections m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)   (Kingma & Ba 2015)."""

    def __init__(self, lr, betas=(0.9, 0.999), eps=1e-8):
        try:
            b1, b2 = (float(b) for b in betas)
        except (TypeError, ValueError):
            raise ValueError(f"betas must be a pair of numbers, got {betas!r}") from None
        if not (0 <= b1 < 1 and 0 <= b2 < 1):
            raise ValueError(f"betas must lie in [0, 1), got {betas!r}")
        self.betas = (b1, b2)
        self.eps = _positive(eps, "eps")
        super().__init__(lr)

    def reset(self):
        super().reset()
        self.m, self.v = {}, {}

    def _update(self, k, p, g):
        b1, b2 = self.betas
        m = self._memory(self.m, k, p)
        v = self._memory(self.v, k, p)
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        m_hat = m / (1 - b1 ** self.t)
        v_hat = v / (1 - b2 ** self.t)
        p -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
