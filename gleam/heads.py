"""Output heads on a hidden state: linear readout, then a loss.

Readout  y = Wo h + bo,  Wo (n_out, n), bo (n_out,).
- classify: softmax cross-entropy over n_out classes, in nats; dL/dy = p - onehot
  (per position from gleam.losses.softmax_cross_entropy, as gleam.losses.cross_entropy is).
- regress:  squared error L = ½ (y - target)² per output; dL/dy = y - target.
Losses are averaged over the positions that carry a target (`weights`), so a padded
position (weight 0) adds nothing to the loss and nothing to any gradient.
"""
import numpy as np

from gleam.losses import softmax_cross_entropy

HEADS = ("classify", "regress")


def readout(h, Wo, bo):
    """y = Wo h + bo for h (..., n) -> (..., n_out)."""
    return h @ Wo.T + bo


def classify_loss(logits, targets, weights):
    """Mean cross-entropy over weighted positions -> (loss, dlogits, n_correct).

    logits (..., C); targets (...) class ids; weights (...) of 0/1.
    L = Σ w · (−log p_target) / Σ w;  dL/dlogits = w · (p − onehot) / Σ w.
    """
    C = logits.shape[-1]
    targets = np.asarray(targets)
    w = weights.astype(np.float64)
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
    targets = np.asarray(targets, dtype=np.float64)
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


def regression_bound(Wo, bo):
    """Largest |y_k| a regression readout can reach when every |h_i| <= 1: |bo_k| + ‖Wo[k]‖₁.

    |y_k| = |bo_k + Σ_i Wo[k, i] h_i| <= |bo_k| + Σ_i |Wo[k, i]| for h in [−1, 1]^n, which
    holds for Elman, GRU (from h_0 in [−1, 1]^n) and LSTM hidden states. So the head cannot
    follow a target that grows without bound; it says nothing about where extrapolation
    first fails. Returns (n_out,), or a float for a scalar head.
    """
    Wo = np.asarray(Wo, dtype=np.float64)
    bo = np.asarray(bo, dtype=np.float64)
    if Wo.ndim == 1:
        Wo = Wo[None, :]
    bound = np.abs(bo).reshape(-1) + np.abs(Wo).sum(axis=1)
    return float(bound[0]) if bound.size == 1 else bound
