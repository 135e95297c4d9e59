"""Stability of a SeqModel's recurrence along one sequence: Jacobians, their products, and
the perturbations that check them.

h_t is the state of sequence b after step t (t = 0 … T−1), the one `intervene={t: fn}`
replaces. For an LSTM it is the pair (h_t, c_t) as one vector of m = 2n (h first), so every
matrix here is m × m (m = n for the others); c is unbounded, and its scale enters the norms.

    J_s = ∂h_{s+1}/∂h_s, s = 0 … T−2      from CELLS[cell].jacobian on step s+1's cache;
                                          I where step s+1 is padding (h_{s+1} = h_s)
(step 0's Jacobian, from the start state h0, is not among them: no hook replaces h0)
    span_product(J, s, e) = J_{e−1} … J_s = ∂h_e/∂h_s          (I when s = e)
The product is accumulated renormalised (as gleam.dynamics does): P ← (J / max|J|) P, then its
spectral norm is split off into a running log10 and P divided by it, so spans of any length
stay in range. It comes back as a matrix of spectral norm 1 and that log10 norm.

perturbation_growth: h_step ← h_step ± eps v (v a unit vector) through the intervene hook;
    response_t = (h_t(+) − h_t(−)) / (2 eps) ≈ span_product(J, step, t) v  (central
    differences, error ~ eps²) and growth_t = ‖response_t‖, for t > step.
growth_profile(J, start): for each later state e, σ_max(∂h_e/∂h_start) = ‖J_{e−1} … J_start‖₂
    (gleam.dynamics.jacobian_product): a perturbation of h_start in its worst direction has
    grown by step e if σ_max > 1 + tol and shrunk in every direction if σ_max < 1 − tol; and
    each single step's σ_max(J_{e−1}).
"""
import math
from dataclasses import dataclass

import numpy as np

from gleam import checks, dynamics
from gleam.cells import get_cell
from gleam.instruments.interventions import add_along
from gleam.seqmodel import SeqModel

__all__ = ["state_jacobians", "SpanProduct", "span_product", "singular_values", "Perturbation",
           "perturbation_growth", "GrowthProfile", "growth_profile"]


def _model(model):
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    return model


def _width(model):
    return 2 * model.config.n if model.lstm else model.config.n


def _stack(jacobians):
    Js = checks.array("jacobians", jacobians, ndim=3)
    if Js.shape[1] != Js.shape[2] or Js.shape[1] == 0:
        raise ValueError(f"jacobians have shape {Js.shape}, expected (k, m, m) with m >= 1")
    return Js


def state_jacobians(model, X, mask=None, b=0, h0=None):
    """J_s = ∂h_{s+1}/∂h_s along sequence b, (T−1, m, m). X, mask, h0 as for SeqModel.forward."""
    _, hs, caches = _model(model).forward(X, mask, h0)
    T, B, _ = hs.shape
    b = checks.integer("b", b, minimum=0, maximum=B - 1)
    m = _width(model)
    checks.entries("X", np.shape(X), (T - 1, m, m))
    jacobian = get_cell(model.config.cell).jacobian
    Js = np.empty((T - 1, m, m))
    for s in range(T - 1):
        if caches["mask"][s + 1, b]:
            # the cache of step s+1, row b: the gate values at h_s
            Js[s] = jacobian({k: v[b] for k, v in caches["steps"][s + 1].items()}, model.params)
        else:
            Js[s] = np.eye(m)                   # padding: h_{s+1} = h_s
    if not np.all(np.isfinite(Js)):
        raise ValueError("model: its Jacobians on X are not finite (weights or X too large)")
    return Js


@dataclass
class SpanProduct:
    """J_{e−1} … J_s = matrix · 10^log10_norm."""
    matrix: np.ndarray   # the product over its spectral norm (zeros if the product is 0)
    log10_norm: float    # log10 ‖J_{e−1} … J_s‖₂ (−inf if the product is exactly 0)
    s: int
    e: int

    def value(self):
        """The product itself; ValueError if its entries are beyond the float range."""
        with np.errstate(over="ignore"):
            P = self.matrix * np.power(10.0, self.log10_norm)
        if not np.all(np.isfinite(P)):
            raise ValueError(f"SpanProduct.value: the norm 10^{self.log10_norm:.4g} is beyond "
                             "the float range: use matrix and log10_norm")
        return P


def span_product(jacobians, s=0, e=None):
    """J_{e−1} … J_s = ∂h_e/∂h_s of a (k, m, m) stack, 0 <= s <= e <= k (e=None: k)."""
    Js = _stack(jacobians)
    k, m = Js.shape[:2]
    s = checks.integer("s", s, minimum=0, maximum=k)
    e = k if e is None else checks.integer("e", e, minimum=s, maximum=k)
    P, log10_norm = np.eye(m), 0.0
    for J in Js[s:e]:
        a = float(np.max(np.abs(J)))
        # P ← (J / a) P, then P ← P / ‖P‖₂; log10 of both factors into the running sum
        P = (J / a) @ P if a > 0 else np.zeros((m, m))
        norm = float(np.linalg.norm(P, 2))
        if norm == 0:
            return SpanProduct(np.zeros((m, m)), -math.inf, s, e)
        P /= norm
        log10_norm += math.log10(a) + math.log10(norm)
    return SpanProduct(P, log10_norm, s, e)


def _log10_sv(M):
    """log10 of M's singular values, largest first (−inf for zeros), without overflow."""
    a = float(np.max(np.abs(M)))
    if a == 0:
        return np.full(M.shape[0], -math.inf)
    with np.errstate(divide="ignore"):
        return np.log10(np.linalg.svd(M / a, compute_uv=False)) + math.log10(a)


def singular_values(jacobians, log10=False):
    """Singular values, largest first, of a SpanProduct, of one (m, m) matrix, or of the
    product J_{k−1} … J_0 of a (k, m, m) stack (gleam.dynamics.jacobian_product; k = 0: I).

    log10=True: their log10 (−inf for an exact 0), for products beyond the float range.
    """
    log10 = checks.flag("log10", log10)
    if isinstance(jacobians, SpanProduct):
        M = checks.array("jacobians.matrix", jacobians.matrix, ndim=2)
        if M.shape[0] != M.shape[1] or M.shape[0] == 0:
            raise ValueError(f"jacobians.matrix has shape {M.shape}, expected (m, m)")
        scale = checks.number("jacobians.log10_norm", jacobians.log10_norm, allow_inf=True)
        if scale == math.inf:
            raise ValueError("jacobians.log10_norm must be a finite number or −inf, got inf")
        logs = np.full(M.shape[0], -math.inf) if scale == -math.inf else _log10_sv(M) + scale
    else:
        a = checks.array("jacobians", jacobians, ndim=(2, 3))
        if a.shape[-1] != a.shape[-2] or a.shape[-1] == 0:
            raise ValueError(f"jacobians have shape {a.shape}, expected (m, m) or (k, m, m)")
        if a.ndim == 2:
            logs = _log10_sv(a)
        elif len(a) == 0:
            logs = np.zeros(a.shape[-1])
        else:
            logs = dynamics.jacobian_product(a)["log10_singular_values"]
    if log10:
        return logs
    with np.errstate(over="ignore"):
        values = np.power(10.0, logs)
    if not np.all(np.isfinite(values)):
        raise ValueError("the singular values are beyond the float range: ask for log10=True")
    return values


@dataclass
class Perturbation:
    """A unit perturbation v of h_step, followed to the end of the sequence."""
    step: int
    steps: np.ndarray      # (k,) the later steps t = step+1 … T−1
    growth: np.ndarray     # (k,) ‖response_t‖: its size at t (1 = neither grown nor shrunk)
    response: np.ndarray   # (k, m) (h_t(+) − h_t(−)) / (2 eps) ≈ (∂h_t/∂h_step) v
    direction: np.ndarray  # (m,) v
    eps: float


def _path(model, X, mask, h0, b, intervene):
    """h_t of sequence b, (T, m) (an LSTM's h and c side by side)."""
    _, hs, caches = model.forward(X, mask, h0, intervene)
    return np.hstack([hs[:, b], caches["c"][:, b]]) if model.lstm else hs[:, b]


def perturbation_growth(model, X, mask=None, b=0, step=0, direction=None, seed=0, eps=1e-6,
                        h0=None):
    """Perturb h_step of sequence b by ±eps v and measure ‖Δh_t‖ / eps for t > step.

    direction: an m-vector (normalised to v), or None for a random one:
      v = z / ‖z‖, z = np.random.default_rng(seed).standard_normal(m).
    eps in [1e-12, 1]: the finite-difference step.
    """
    _model(model)
    eps = checks.number("eps", eps, minimum=1e-12, maximum=1)
    seed = checks.seed("seed", seed)
    _, hs, _ = model.forward(X, mask, h0)
    T, B, _ = hs.shape
    b = checks.integer("b", b, minimum=0, maximum=B - 1)
    step = checks.integer("step", step, minimum=0, maximum=T - 1)
    m = _width(model)
    if direction is None:
        direction = np.random.default_rng(seed).standard_normal(m)
    v = checks.array("direction", direction, ndim=1)
    if v.size != m or not np.any(v):
        raise ValueError(f"direction must be a non-zero vector of m = {m} entries, "
                         f"got shape {v.shape}")
    v = v / np.max(np.abs(v))
    v = v / np.linalg.norm(v)
    # every sequence is nudged (they do not interact); only b is read
    plus = _path(model, X, mask, h0, b, add_along(v, eps, step, part="both"))
    minus = _path(model, X, mask, h0, b, add_along(v, -eps, step, part="both"))
    response = (plus[step + 1:] - minus[step + 1:]) / (2 * eps)
    return Perturbation(step, np.arange(step + 1, T), np.linalg.norm(response, axis=1),
                        response, v, eps)


@dataclass
class GrowthProfile:
    """Where a perturbation of h_start grows or shrinks."""
    start: int
    steps: np.ndarray            # (k,) the later states e = start+1 … len(J)
    log10_gain: np.ndarray       # (k,) log10 σ_max(∂h_e/∂h_start)
    grows: np.ndarray            # (k,) bool: σ_max > 1 + tol (some direction has grown)
    shrinks: np.ndarray          # (k,) bool: σ_max < 1 − tol (every direction has shrunk)
    log10_step_gain: np.ndarray  # (k,) log10 σ_max(J_{e−1}), the one step into h_e
    step_grows: np.ndarray       # (k,) bool: that step alone stretches some direction


def growth_profile(jacobians, start=0, tol=1e-9):
    """For each state e after h_start: the gain σ_max of the span, and of its last step."""
    Js = _stack(jacobians)
    start = checks.integer("start", start, minimum=0, maximum=len(Js))
    tol = checks.number("tol", tol, minimum=0, maximum=1, strict_max=True)
    span = Js[start:]
    gains = dynamics.jacobian_product(span)["log10_norms"] if len(span) else np.zeros(0)
    step_gains = np.array([_log10_sv(J)[0] for J in span])
    up, down = math.log10(1 + tol), math.log10(1 - tol)
    return GrowthProfile(start, np.arange(start + 1, len(Js) + 1), gains, gains > up,
                         gains < down, step_gains, step_gains > up)
