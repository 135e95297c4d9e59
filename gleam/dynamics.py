"""Products of per-step Jacobians: vanishing and exploding (chapter 3).

A gradient sent back T steps is multiplied by J_T … J_1, with J_t = ∂h_t/∂h_{t−1}. The product
under- or overflows long before T = 1000, so it is accumulated renormalised: after each step
its spectral norm s_t is split off as log10 s_t into a running sum and the product is divided
by s_t. The running sum is then log10 ‖J_t … J_1‖₂ exactly.
"""
import math

import numpy as np

from gleam import checks

__all__ = ["spectral_radius", "scale_to_spectral_radius", "random_recurrent", "jacobian_product",
           "measured_decay", "gradient_bound", "half_life"]


# entries beyond this are scaled down before eigvals / products, which could overflow inside
_ORDINARY = 1e150


def _square(W, name="W"):
    W = checks.array(name, W, finite=False)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] == 0:
        raise ValueError(f"{name} has shape {W.shape}, expected a square (n, n) matrix")
    if not np.all(np.isfinite(W)):
        raise ValueError(f"{name} has non-finite entries")
    return W


def _radius(W):
    a = float(np.max(np.abs(W)))
    if a < _ORDINARY:
        return float(np.max(np.abs(np.linalg.eigvals(W))))
    # ρ(cW) = c ρ(W): compute on W / max|W| where eigvals cannot overflow
    with np.errstate(over="ignore"):
        return float(np.max(np.abs(np.linalg.eigvals(W / a)))) * a


def spectral_radius(W):
    # ρ(W) = max_i |λ_i(W)|: governs repeated products W^T (Gelfand: ‖W^T‖^(1/T) → ρ)
    r = _radius(_square(W))
    if not math.isfinite(r):
        raise ValueError("W has a spectral radius beyond the float range (entries near 1e308)")
    return r


def scale_to_spectral_radius(W, rho):
    # W · ρ / ρ(W)
    W = _square(W)
    checks.number("rho", rho, minimum=0)
    r = spectral_radius(W)
    if r == 0:
        raise ValueError("W has spectral radius 0 (nilpotent); it cannot be scaled to a radius")
    with np.errstate(over="ignore"):
        out = W * (rho / r)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"rho = {rho!r} over W's spectral radius {r:.3g} scales W beyond the "
                         "float range")
    return out


def random_recurrent(n, rho, rng):
    """A standard-normal (n, n) matrix from rng, scaled to spectral radius rho."""
    checks.generator("rng", rng)
    n = checks.integer("n", n, minimum=1, whole_floats=True)
    checks.entries("n", n, (n, n))
    checks.number("rho", rho, minimum=0)
    return scale_to_spectral_radius(rng.standard_normal((n, n)), rho)


def jacobian_product(jacobians):
    """Accumulate P_t = J_t P_{t−1} (P_0 = I) renormalised, for a (T, n, n) stack.

    Returns a dict:
      log10_norms           (T,) log10 ‖J_t … J_1‖₂ after each step (the running sum)
      log10_singular_values (n,) log10 of every singular value of the final, unnormalised
                            product, largest first (the first equals log10_norms[-1])
      singular_values       (n,) the same singular values normalised by the largest (so <= 1)
    A step whose product is exactly zero gives −inf from there on (and singular values 0).
    jacobians must be finite; entries near 1e308 are rescaled, so the result stays finite.
    """
    Js = checks.array("jacobians", jacobians)
    if Js.ndim != 3 or Js.shape[1] != Js.shape[2] or Js.shape[0] == 0:
        raise ValueError(f"jacobians have shape {Js.shape}, expected (T, n, n) with T >= 1")
    n = Js.shape[1]
    P = np.eye(n)
    total = 0.0
    log10_norms = np.empty(Js.shape[0])
    for t, J in enumerate(Js):
        # P ← J_t P, then s = ‖P‖₂, log ← log + log10 s, P ← P / s
        P_next = J @ P
        s = float(np.linalg.norm(P_next, 2))
        if not math.isfinite(s):
            # J's entries overflow the product: multiply by J / max|J| and count max|J| apart
            a = float(np.max(np.abs(J)))
            P_next = (J / a) @ P
            s = float(np.linalg.norm(P_next, 2))
            total += math.log10(a)
        P = P_next
        if s == 0:
            # the product is exactly zero from here on: every singular value is 0
            log10_norms[t:] = -math.inf
            return {"log10_norms": log10_norms, "log10_singular_values": np.full(n, -math.inf),
                    "singular_values": np.zeros(n)}
        total += math.log10(s)
        P /= s
        log10_norms[t] = total
    sv = np.linalg.svd(P, compute_uv=False)
    with np.errstate(divide="ignore"):
        log_sv = np.log10(sv) + total
    return {"log10_norms": log10_norms, "log10_singular_values": log_sv, "singular_values": sv / sv[0]}


def measured_decay(rho, n=64, steps=(5, 10, 20, 50), w_seed=0, x_seed=1, x_scale=0.5):
    """log10 ‖∂h_t/∂h_0‖₂ of a tanh RNN with spectral radius rho, reported at `steps`.

    W_h = default_rng(w_seed).standard_normal((n, n)) scaled to spectral radius rho.
    Inputs enter additively, one n-vector per step, as the pre-activation's input term:
        x = default_rng(x_seed).standard_normal((T, n)) · x_scale,  T = max(steps)
        h_0 = 0,  h_t = tanh(W_h h_{t−1} + x_t)
    and the Jacobian accumulates as J ← diag(1 − h_t²) W_h J (renormalised, see
    jacobian_product). Returns {step: log10 norm} for each requested step.
    """
    if not isinstance(steps, (tuple, list)) or not steps:
        raise ValueError(f"steps must be a non-empty tuple of integers >= 1, got {steps!r:.80}")
    steps = tuple(checks.integer("steps", s, minimum=1) for s in steps)
    T = max(steps)
    n = checks.integer("n", n, minimum=1)
    checks.entries("steps", T, (T, n, n))
    checks.number("rho", rho, minimum=0)
    checks.number("x_scale", x_scale)
    checks.seed("w_seed", w_seed)
    checks.seed("x_seed", x_seed)
    W = scale_to_spectral_radius(np.random.default_rng(w_seed).standard_normal((n, n)), rho)
    X = np.random.default_rng(x_seed).standard_normal((T, n)) * x_scale
    h = np.zeros(n)
    Js = np.empty((T, n, n))
    for t in range(T):
        h = np.tanh(W @ h + X[t])
        # J_t = D_t W_h,  D_t = diag(1 − h_t²)
        Js[t] = (1.0 - h * h)[:, None] * W
    norms = jacobian_product(Js)["log10_norms"]
    return {s: float(norms[s - 1]) for s in steps}


def gradient_bound(gamma, sigma, T):
    # ‖∂h_T/∂h_0‖ <= (γ σ_max)^T, γ = bound on the tanh derivative, σ_max = ‖W_h‖₂
    gamma = checks.number("gamma", gamma, minimum=0)
    sigma = checks.number("sigma", sigma, minimum=0)
    if isinstance(T, np.ndarray) or isinstance(T, (list, tuple)):
        T = checks.array("T", T)
        if np.any(T < 0):
            raise ValueError("T must hold numbers >= 0, got a negative one")
    else:
        T = checks.number("T", T, minimum=0)
    try:
        with np.errstate(over="raise"):
            bound = (gamma * sigma) ** T
    except (OverflowError, FloatingPointError):
        bound = math.inf
    if not np.all(np.isfinite(bound)):
        raise ValueError(f"T is too large: (gamma * sigma)^T = ({gamma * sigma:.3g})^T "
                         "overflows a float (compare log10 instead)")
    return bound


def half_life(q):
    # steps until q^t = 1/2:  t = ln 0.5 / ln q   (0 < q < 1; q = 1 never halves: inf)
    checks.number("q", q, minimum=0, maximum=1, strict_min=True)
    if q == 1:
        return math.inf
    return math.log(0.5) / math.log(q)
