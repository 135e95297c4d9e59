"""Gradient clipping and the three optimisers of the lab (chapters 3 and 6).

Parameters and gradients are plain dicts of float arrays with the same keys and shapes;
each optimiser keeps its memory in dicts keyed like the parameters and updates in place.
"""
import math

import numpy as np

from gleam import checks

__all__ = ["global_norm", "clip_global_norm", "clip_elementwise", "SGD", "Adagrad", "Adam",
           "Diverged"]


class Diverged(ValueError):
    """An optimiser step that would make a parameter or its memory non-finite: refused, and
    nothing (parameters, memory, step count) was changed. gleam.seqmodel reports it as divergence."""


def _positive(value, name, allow_zero=False):
    return checks.number(name, value, minimum=0, strict_min=not allow_zero)


def _check_grads(grads):
    if not isinstance(grads, dict):
        raise ValueError(f"grads must be a dict of arrays, got {type(grads).__name__}")
    return {k: checks.array(f"grads[{k!r}]", g, finite=False) for k, g in grads.items()}


def global_norm(grads):
    # ‖g‖ = sqrt(Σ_k Σ_i g_ki²) over every parameter's gradient
    grads = _check_grads(grads)
    with np.errstate(over="ignore"):     # overflow: an inf norm, which callers report
        return math.sqrt(sum(float(np.sum(np.square(g))) for g in grads.values()))


def clip_global_norm(grads, max_norm):
    """Rescale all gradients together so ‖g‖ <= max_norm; return (new dict, pre-clip ‖g‖).

    g ← g · c/‖g‖ when ‖g‖ > c: the direction is kept. A non-finite norm is returned as is,
    with the gradients copied unscaled, so the caller can see the divergence and skip the step.
    """
    c = _positive(max_norm, "max_norm")
    norm = global_norm(grads)
    scale = c / norm if math.isfinite(norm) and norm > c else 1.0
    return {k: checks.array(f"grads[{k!r}]", g, finite=False) * scale
            for k, g in grads.items()}, norm


def clip_elementwise(grads, limit):
    """Clip every gradient entry into [−limit, limit] (min-char-rnn's np.clip(g, −5, 5))."""
    grads = _check_grads(grads)
    a = _positive(limit, "limit")
    return {k: np.clip(g, -a, a) for k, g in grads.items()}


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
        if not isinstance(params, dict):
            raise ValueError(f"params must be a dict of arrays, got {type(params).__name__}")
        grads = _check_grads(grads)
        if set(params) != set(grads):
            raise ValueError(f"grads keys {sorted(grads, key=str)} do not match params keys "
                             f"{sorted(params, key=str)}")
        for k, p in params.items():
            if not (isinstance(p, np.ndarray) and np.issubdtype(p.dtype, np.floating)):
                raise ValueError(f"params[{k!r}] must be a float numpy array (updated in place)")
            g = grads[k]
            if g.shape != np.shape(p):
                raise ValueError(f"grads[{k!r}] has shape {g.shape}, expected {np.shape(p)}")
            yield k, p, g

    def step(self, params, grads):
        """One update of every parameter, in place. All or nothing: if any new parameter or
        memory entry would be NaN or inf (a non-finite gradient, or one whose square
        overflows), Diverged (a ValueError) names it and nothing is changed."""
        pairs = list(self._pairs(params, grads))
        self.t += 1
        new = {}
        with np.errstate(over="ignore", invalid="ignore"):
            for k, p, g in pairs:
                new[k] = self._update(k, p, g)
        for k, arrays in new.items():
            for what, a in arrays.items():
                if not np.all(np.isfinite(a)):
                    self.t -= 1
                    raise Diverged(f"grads[{k!r}] would make {what} non-finite "
                                   f"(max |grad| = {np.max(np.abs(grads[k])):.3g}); "
                                   "nothing was updated")
        for k, p, _ in pairs:
            for what, a in new[k].items():
                np.copyto(p if what == "the parameter" else self._stores[what][k], a)

    @property
    def _stores(self):
        """Name of each memory (as _update returns it) -> its dict keyed like the params."""
        return {}

    def _memory(self, store, k, p):
        """store[k] (zeros at first); _update reads it and returns its new value, unstored."""
        if k not in store:
            store[k] = np.zeros(np.shape(p), dtype=np.float64)
        return store[k]


class SGD(_Optimizer):
    """θ ← θ − lr · g"""

    def _update(self, k, p, g):
        return {"the parameter": p - self.lr * g}


class Adagrad(_Optimizer):
    """M ← M + g²;  θ ← θ − lr · g / (√M + eps)   (min-char-rnn, chapter 6)"""

    def __init__(self, lr, eps=1e-8):
        self.eps = _positive(eps, "eps")
        super().__init__(lr)

    def reset(self):
        super().reset()
        self.memory = {}

    @property
    def _stores(self):
        return {"the memory M": self.memory}

    def _update(self, k, p, g):
        M = self._memory(self.memory, k, p) + g * g
        return {"the memory M": M, "the parameter": p - self.lr * g / (np.sqrt(M) + self.eps)}


class Adam(_Optimizer):
    """m ← β₁m + (1−β₁)g;  v ← β₂v + (1−β₂)g²;  θ ← θ − lr · m̂ / (√v̂ + eps),
    with bias corrections m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)   (Kingma & Ba 2015)."""

    def __init__(self, lr, betas=(0.9, 0.999), eps=1e-8):
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise ValueError(f"betas must be a pair of numbers, got {betas!r}")
        try:
            b1, b2 = (checks.number("betas", b, minimum=0, maximum=1, strict_max=True)
                      for b in betas)
        except ValueError:
            raise ValueError(f"betas must be a pair of numbers in [0, 1), got {betas!r}") from None
        self.betas = (b1, b2)
        self.eps = _positive(eps, "eps")
        super().__init__(lr)

    def reset(self):
        super().reset()
        self.m, self.v = {}, {}

    @property
    def _stores(self):
        return {"the first moment m": self.m, "the second moment v": self.v}

    def _update(self, k, p, g):
        b1, b2 = self.betas
        m = self._memory(self.m, k, p) * b1
        m += (1 - b1) * g
        v = self._memory(self.v, k, p) * b2
        v += (1 - b2) * g * g
        m_hat = m / (1 - b1 ** self.t)
        v_hat = v / (1 - b2 ** self.t)
        return {"the first moment m": m, "the second moment v": v,
                "the parameter": p - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)}
