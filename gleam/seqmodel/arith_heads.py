"""Arithmetic heads on a hidden state: NAU and NMU (Madsen & Johansen 2020), NALU (Trask et al.
2018). Each reads h (..., n) and gives y (..., n_out); `gleam.seqmodel` scores y with the
regression loss (½ squared error, gleam.seqmodel.heads.regress_loss) plus `arith_reg` · R.

Parameters, all (n_out, n), named apart from the linear readout's Wo, bo:
    NAU   W_nau      y = W h  (no bias)
                     R = mean(min(|W|, 1 − |W|)), 0 exactly at W in {−1, 0, 1};
                     projection W ← clip(W, −1, 1)
    NMU   W_nmu      y_k = Π_i (W_ki h_i + 1 − W_ki)   (W_ki = 1 passes h_i, 0 passes a 1)
                     R = mean(min(W, 1 − W)), 0 exactly at W in {0, 1};
                     projection W ← clip(W, 0, 1)
    NALU  W_hat, M_hat, G
                     W = tanh(Ŵ) ⊙ σ(M̂),  a = W h,  m = exp(W log(|h| + ε)),  g = σ(G h),
                     y = g ⊙ a + (1 − g) ⊙ m,  ε = NALU_EPS = 1e-7 (a constant);
                     no penalty (R = 0), no projection.
Init, from `rng` (np.random.default_rng):
    NAU   W ~ U(−r, r), r = min(0.5, √3 · √(2 / (n + n_out))): Glorot's variance 2/(n + n_out),
          capped at 0.5 as Madsen & Johansen's code does (stable-nalu, ReRegualizedLinearNAC)
    NMU   W ~ U(0.25, 0.75): mean ½, as in the same code (ReRegualizedLinearMNAC)
    NALU  Ŵ, M̂, G ~ U(−r, r), r = √(6 / (n + n_out)): Xavier (Glorot uniform), as Trask et al.
Gradients, with dy = ∂L/∂y (..., n_out) and Σ over the leading (batch, time) axes:
    NAU   ∂L/∂W = Σ dy ⊗ h;  ∂L/∂h = dy W
    NMU   with F_ki = W_ki h_i + 1 − W_ki and P_ki = Π_{j≠i} F_kj (prefix × suffix products, no
          division, so a zero factor is no trouble):
          ∂y_k/∂W_ki = (h_i − 1) P_ki,  ∂y_k/∂h_i = W_ki P_ki
    NALU  da = g dy, dm = (1 − g) dy, dz = g (1 − g) (a − m) dy for z = G h;
          ∂L/∂W = Σ da ⊗ h + Σ (dm m) ⊗ log(|h| + ε);  ∂L/∂Ŵ = ∂L/∂W ⊙ σ(M̂) (1 − tanh² Ŵ),
          ∂L/∂M̂ = ∂L/∂W ⊙ tanh Ŵ σ(M̂)(1 − σ(M̂));  ∂L/∂G = Σ dz ⊗ h;
          ∂L/∂h = da W + dz G + ((dm m) W) ⊙ sign(h) / (|h| + ε)   (0 through m at h_i = 0)
    R     ∂R/∂W = sign(W) sign(½ − |W|) / W.size (NAU), sign(½ − W) / W.size (NMU): 0 at the kinks
Non-finite values: a NaN or inf in h or the weights propagates (as in the cells' kernels). The
NALU's m = exp(·) may overflow to +inf (states near 0 with negative weights, or a large n): y is
then +inf, never NaN (where 1 − g or ∂L/∂y is 0 the term is 0, in the gradients too), the
loss is inf, and gleam.seqmodel reports the step as divergence and undoes it.
"""
import numpy as np

from gleam import checks
from gleam.cells.common import sigmoid

ARITH_HEADS = ("nau", "nmu", "nalu")
NALU_EPS = 1e-7
_KEYS = {"nau": ("W_nau",), "nmu": ("W_nmu",), "nalu": ("W_hat", "M_hat", "G")}


def arith_shapes(head, n_out, n):
    """Parameter name -> shape for an arithmetic head: every array is (n_out, n)."""
    checks.one_of("head", head, ARITH_HEADS)
    n_out = checks.integer("n_out", n_out, minimum=1)
    n = checks.integer("n", n, minimum=1)
    checks.entries("n_out", n_out, (n_out, n))
    return {k: (n_out, n) for k in _KEYS[head]}


def init_arith(head, n_out, n, rng):
    """Fresh parameters for `head` drawn from rng (a Generator or a seed), as the docstring says."""
    shapes = arith_shapes(head, n_out, n)
    rng = np.random.default_rng(checks.seed("rng", rng))
    shape = (n_out, n)
    if head == "nau":
        r = min(0.5, np.sqrt(3.0) * np.sqrt(2.0 / (n + n_out)))
        return {"W_nau": rng.uniform(-r, r, shape)}
    if head == "nmu":
        return {"W_nmu": rng.uniform(0.25, 0.75, shape)}
    r = np.sqrt(6.0 / (n + n_out))
    return {k: rng.uniform(-r, r, shape) for k in shapes}


def _params(head, p):
    """The head's arrays from p (extra keys, a cell's say, are left alone) -> (arrays, n_out, n)."""
    checks.one_of("head", head, ARITH_HEADS)
    if not isinstance(p, dict):
        raise ValueError(f"p (the {head} head's parameters) must be a dict, got "
                         f"{type(p).__name__}")
    out = {}
    for k in _KEYS[head]:
        if k not in p:
            raise ValueError(f"p lacks {k!r}: the {head} head needs {', '.join(_KEYS[head])}")
        out[k] = checks.array(k, p[k], ndim=2, finite=False)
        if out[k].shape != out[_KEYS[head][0]].shape or 0 in out[k].shape:
            raise ValueError(f"{k} has shape {out[k].shape}, expected (n_out, n) with both >= 1 "
                             f"and equal for {', '.join(_KEYS[head])}")
    return out, *out[_KEYS[head][0]].shape


def _states(h, n):
    h = checks.array("h", h, finite=False)
    if h.ndim == 0 or h.shape[-1] != n:
        raise ValueError(f"h has shape {h.shape}, expected (..., n) with n = {n}")
    return h


def _nalu_parts(h, q):
    """W, log(|h| + ε), a, m, g, 1 − g of the NALU (the backward needs them all)."""
    tanh_w, sig_m = np.tanh(q["W_hat"]), sigmoid(q["M_hat"])
    # W = tanh(Ŵ) ⊙ σ(M̂)
    W = tanh_w * sig_m
    log_h = np.log(np.abs(h) + NALU_EPS)
    # a = W h,  m = exp(W log(|h| + ε)),  g = σ(G h) (and 1 − g = σ(−G h), without cancelling)
    a = h @ W.T
    with np.errstate(over="ignore"):          # +inf: the loss reports it
        m = np.exp(log_h @ W.T)
    z = h @ q["G"].T
    return W, tanh_w, sig_m, log_h, a, m, sigmoid(z), sigmoid(-z)


def arith_forward(head, h, p):
    """y (..., n_out) of the arithmetic head `head` on states h (..., n)."""
    q, n_out, n = _params(head, p)
    h = _states(h, n)
    if head == "nau":
        return h @ q["W_nau"].T
    if head == "nmu":
        W = q["W_nmu"]
        y = np.empty(h.shape[:-1] + (n_out,))
        for k in range(n_out):
            # y_k = Π_i (W_ki h_i + 1 − W_ki)
            y[..., k] = np.prod(h * W[k] + (1 - W[k]), axis=-1)
        return y
    _, _, _, _, a, m, g, g_off = _nalu_parts(h, q)
    # y = g ⊙ a + (1 − g) ⊙ m
    return g * a + _times(g_off, m)


def _times(c, v):
    """c ⊙ v, 0 wherever c is 0 (v may be ±inf there: the NALU's overflowed m)."""
    return np.multiply(c, v, out=np.zeros(np.broadcast_shapes(c.shape, v.shape)), where=c != 0)


def _leave_one_out(F):
    """P_i = Π_{j≠i} F_j along the last axis, from prefix and suffix products."""
    ones = np.ones(F.shape[:-1] + (1,))
    before = np.concatenate([ones, np.cumprod(F[..., :-1], axis=-1)], axis=-1)
    after = np.concatenate([np.cumprod(F[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return before * after


def _outer(d, v):
    """Σ over the leading axes of d ⊗ v: (..., k), (..., m) -> (k, m)."""
    return d.reshape(-1, d.shape[-1]).T @ v.reshape(-1, v.shape[-1])


def arith_backward(head, dy, h, p):
    """Backward of arith_forward: ∂L/∂y (..., n_out) -> (∂L/∂h (..., n), {name: ∂L/∂param})."""
    q, n_out, n = _params(head, p)
    h = _states(h, n)
    dy = checks.array("dy", dy, finite=False)
    if dy.shape != h.shape[:-1] + (n_out,):
        raise ValueError(f"dy has shape {dy.shape}, expected {h.shape[:-1] + (n_out,)} "
                         f"(h's leading axes, then n_out)")
    if head == "nau":
        return dy @ q["W_nau"], {"W_nau": _outer(dy, h)}
    if head == "nmu":
        W = q["W_nmu"]
        dh, dW = np.zeros_like(h), np.empty_like(W)
        for k in range(n_out):
            # P_ki = Π_{j≠i} F_kj,  F_ki = W_ki h_i + 1 − W_ki
            P = dy[..., k:k + 1] * _leave_one_out(h * W[k] + (1 - W[k]))
            dW[k] = (P * (h - 1)).reshape(-1, n).sum(axis=0)
            dh += P * W[k]
        return dh, {"W_nmu": dW}
    W, tanh_w, sig_m, log_h, a, m, g, g_off = _nalu_parts(h, q)
    da = g * dy
    dpre_m = _times(g_off * dy, m)              # ∂L/∂(W log(|h| + ε))
    dz = _times(g * g_off * dy, a - m)          # ∂L/∂(G h)
    dW = _outer(da, h) + _outer(dpre_m, log_h)
    grads = {"W_hat": dW * sig_m * (1 - tanh_w ** 2),
             "M_hat": dW * tanh_w * sig_m * (1 - sig_m),
             "G": _outer(dz, h)}
    dh = da @ W + dz @ q["G"] + (dpre_m @ W) * np.sign(h) / (np.abs(h) + NALU_EPS)
    return dh, grads


def arith_penalty(head, p):
    """(R, {name: ∂R/∂param}) of the head's penalty (the docstring's R; NALU: (0.0, {}))."""
    q, _, _ = _params(head, p)
    if head == "nalu":
        return 0.0, {}
    k = _KEYS[head][0]
    W = q[k]
    if head == "nau":
        # R = mean(min(|W|, 1 − |W|)),  ∂R/∂W = sign(W) sign(½ − |W|) / size
        u = np.abs(W)
        return float(np.mean(np.minimum(u, 1 - u))), {k: np.sign(W) * np.sign(0.5 - u) / W.size}
    # R = mean(min(W, 1 − W)),  ∂R/∂W = sign(½ − W) / size
    return float(np.mean(np.minimum(W, 1 - W))), {k: np.sign(0.5 - W) / W.size}


def arith_project(head, p):
    """The head's parameters after the projection (new arrays; p is not modified):
    NAU W clipped to [−1, 1], NMU W to [0, 1], NALU unchanged."""
    q, _, _ = _params(head, p)
    if head == "nau":
        return {"W_nau": np.clip(q["W_nau"], -1.0, 1.0)}
    if head == "nmu":
        return {"W_nmu": np.clip(q["W_nmu"], 0.0, 1.0)}
    return {k: v.copy() for k, v in q.items()}
