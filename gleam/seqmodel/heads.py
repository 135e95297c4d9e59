"""Output heads on a hidden state: linear readout, then a loss.

Readout  y = Wo h + bo,  Wo (n_out, n), bo (n_out,).
- classify: softmax cross-entropy over n_out classes, in nats; dL/dy = p - onehot
  (per position from gleam.losses.softmax_cross_entropy, as gleam.losses.cross_entropy is).
- regress:  squared error L = ½ (y - target)² per output; dL/dy = y - target.
Losses are averaged over the positions that carry a target (`weights`), so a padded
position (weight 0) adds nothing to the loss and nothing to any gradient.
The arithmetic heads (NAU, NMU, NALU), scored with regress_loss, are in gleam.seqmodel.arith_heads.
"""
import numpy as np

from gleam import checks
from gleam.losses import softmax_cross_entropy

HEADS = ("classify", "regress")


def readout(h, Wo, bo):
    """y = Wo h + bo for h (..., n) -> (..., n_out)."""
    ok = (isinstance(h, np.ndarray) and isinstance(Wo, np.ndarray) and isinstance(bo, np.ndarray)
          and Wo.ndim == 2 and h.ndim >= 1 and h.shape[-1] == Wo.shape[1]
          and bo.shape == Wo.shape[:1] and all(a.dtype.kind in "iuf" for a in (h, Wo, bo)))
    if not ok:
        h = checks.array("h", h, finite=False)
        Wo = checks.array("Wo", Wo, ndim=2, finite=False)
        bo = checks.array("bo", bo, ndim=1, finite=False)
        if h.ndim == 0 or h.shape[-1] != Wo.shape[1] or bo.shape != Wo.shape[:1]:
            raise ValueError(f"h {h.shape}, Wo {Wo.shape} and bo {bo.shape} must be (..., n), "
                             "(n_out, n) and (n_out,)")
    return h @ Wo.T + bo


def classify_loss(logits, targets, weights):
    """Mean cross-entropy over weighted positions -> (loss, dlogits, n_correct).

    logits (..., C); targets (...) class ids; weights (...) of 0/1.
    L = Σ w · (−log p_target) / Σ w;  dL/dlogits = w · (p − onehot) / Σ w.
    """
    logits, targets, w = _head_inputs(logits, targets, weights, "logits")
    if targets.shape != w.shape:
        raise ValueError(f"targets have shape {targets.shape}, expected {w.shape}")
    C = logits.shape[-1]
    valid = w > 0
    if not np.issubdtype(targets.dtype, np.integer):
        if np.any(targets[valid] != np.round(targets[valid])):
            raise ValueError("classification targets must be integer class ids")
        targets = np.where(valid, targets, 0).astype(np.int64)
    if np.any((targets[valid] < 0) | (targets[valid] >= C)):
        raise ValueError(f"class targets must lie in [0, {C}), got range "
                         f"[{targets[valid].min()}, {targets[valid].max()}]")
    t = np.where(valid, targets, 0)
    count = w.sum()
    nll, dlogits = softmax_cross_entropy(logits, t)
    loss = float(np.sum(np.where(valid, nll, 0.0)) / count)
    dlogits *= (w / count)[..., None]
    correct = int(np.sum(valid & (logits.argmax(axis=-1) == t)))
    return loss, dlogits, correct


def regress_loss(y, targets, weights):
    """Mean squared error over weighted positions -> (loss, dy, mse).

    y (..., k); targets (...) when k == 1, else (..., k).
    L = Σ w · ½‖y − target‖² / Σ w (so dL/dy = w (y − target) / Σ w); mse = 2 L / k.
    """
    y, targets, w = _head_inputs(y, targets, weights, "y")
    weights = w
    targets = targets.astype(np.float64)
    if targets.shape == y.shape[:-1] and y.shape[-1] == 1:
        targets = targets[..., None]
    if targets.shape != y.shape:
        raise ValueError(f"regression targets have shape {targets.shape}, expected {y.shape[:-1]} "
                         f"or {y.shape}")
    w = weights.astype(np.float64)[..., None]
    count = weights.sum()
    err = np.where(w > 0, y - targets, 0.0)  # padded targets may hold anything
    loss = float(0.5 * np.sum(err * err) / count)
    return loss, err / count, 2.0 * loss / y.shape[-1]


def _head_inputs(out, targets, weights, name):
    """(outputs (..., k) float, targets array, weights float (...)), or ValueError."""
    out = checks.array(name, out, finite=False)
    if out.ndim == 0 or out.shape[-1] == 0:
        raise ValueError(f"{name} has shape {out.shape}, expected (..., k) with k >= 1")
    targets = checks.numeric("targets", targets)
    w = weights.astype(np.float64) if isinstance(weights, np.ndarray) else weights
    w = checks.array("weights", w)
    if w.shape != out.shape[:-1]:
        raise ValueError(f"weights has shape {w.shape}, expected {out.shape[:-1]}")
    if not np.all((w == 0) | (w == 1)) or not w.any():
        raise ValueError("weights must be 0/1 with at least one position weighted 1")
    if targets.shape[:w.ndim] != w.shape:
        raise ValueError(f"targets have shape {targets.shape}, expected {w.shape} (+ (k,))")
    if targets.dtype.kind == "f" and not np.all(np.isfinite(targets[w > 0])):
        raise ValueError("targets must be finite where weights is 1")
    return out, targets, w


def regression_bound(Wo, bo):
    """Largest |y_k| a regression readout can reach when every |h_i| <= 1: |bo_k| + ‖Wo[k]‖₁.

    |y_k| = |bo_k + Σ_i Wo[k, i] h_i| <= |bo_k| + Σ_i |Wo[k, i]| for h in [−1, 1]^n, which
    holds for Elman, GRU (from h_0 in [−1, 1]^n) and LSTM hidden states. So the head cannot
    follow a target that grows without bound; it says nothing about where extrapolation
    first fails. Returns (n_out,), or a float for a scalar head.
    """
    Wo = checks.array("Wo", Wo, ndim=(1, 2))
    bo = checks.array("bo", bo, ndim=(0, 1))
    if Wo.ndim == 1:
        Wo = Wo[None, :]
    if bo.size != Wo.shape[0]:
        raise ValueError(f"bo has shape {bo.shape}, expected ({Wo.shape[0]},) to match Wo "
                         f"{Wo.shape}")
    with np.errstate(over="ignore"):
        bound = np.abs(bo).reshape(-1) + np.abs(Wo).sum(axis=1)
    if not np.all(np.isfinite(bound)):
        raise ValueError("Wo and bo: the bound |bo_k| + ‖Wo[k]‖₁ exceeds the float range")
    return float(bound[0]) if bound.size == 1 else bound
