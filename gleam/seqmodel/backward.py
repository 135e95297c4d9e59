"""SeqModel's backward pass: the loss's gradient through the head and back through time.

`backward(model, ...)` is SeqModel.loss_and_grads (see its docstring). Going back from the last
step, each real step sends ∂L/∂h_t through the cell's step_backward and adds the step's share to
the shared weights' gradients; a padded step copies ∂L/∂h_t to h_{t−1} unchanged (the forward's
rule, h_t = h_{t−1} there). With a backward horizon k (truncate, many-to-one), nothing flows to a
sequence's states before its last k real steps.
"""
import numpy as np

from gleam import checks
from gleam.seqmodel.arith_heads import arith_backward
from gleam.seqmodel.inputs import as_tuple

__all__ = ["backward"]


def backward(model, X, mask, targets, h0=None, target_mask=None, truncate=None):
    """(loss, grads, info) of SeqModel.loss_and_grads."""
    c, p = model.config, model.params
    truncate = checks.integer("truncate", truncate, minimum=1, none_ok=True)
    if truncate is not None and c.many_to_many:
        raise ValueError("truncate is for many-to-one models (one loss per sequence, at its end)")
    outputs, hs, caches = model.forward(X, mask, h0)
    m = caches["mask"]
    T, B = m.shape
    # the step before each sequence's backward horizon: its gradient is cut there
    cut_at = None if truncate is None else (T - 1 - np.argmax(m[::-1], axis=0)) - truncate
    loss, dy, weights, metric = model._head_loss(outputs, m, targets, target_mask)
    grads = {k: np.zeros_like(p[k]) for k in model.cell_keys}
    if model.arith:
        # an arithmetic head (gleam.seqmodel.arith_heads), and arith_reg · ∂R/∂W of its penalty
        dH, head_grads = arith_backward(c.head, dy, hs if c.many_to_many else hs[-1], p)
        for k, g in model._penalty()[1].items():
            head_grads[k] = head_grads[k] + g
        grads.update(head_grads)
    else:
        # head: y = Wo h + bo
        if c.many_to_many:
            grads["Wo"] = np.einsum("tbk,tbn->kn", dy, hs)
            grads["bo"] = dy.sum(axis=(0, 1))
        else:
            grads["Wo"] = dy.T @ hs[-1]
            grads["bo"] = dy.sum(axis=0)
        dH = dy @ p["Wo"]  # ∂L/∂h_t from the head: (T, B, n) or (B, n)
    dstate = tuple(np.zeros((B, c.n)) for _ in caches["state0"])
    dX = np.zeros_like(caches["X"])
    full = m.all(axis=1)
    for t in range(T - 1, -1, -1):
        if c.many_to_many:
            dstate = (dstate[0] + dH[t],) + dstate[1:]
        elif t == T - 1:
            dstate = (dstate[0] + dH,) + dstate[1:]
        keep = m[t][:, None]
        # a real step sends ∂L/∂h_t through the cell; a padded step copies it to h_{t−1}
        dnew = dstate if full[t] else tuple(np.where(keep, a, 0.0) for a in dstate)
        dnew = dnew if model.lstm else dnew[0]
        dx, dprev, g = model._step_backward(dnew, caches["steps"][t], p)
        for k in model.cell_keys:
            grads[k] += g[k]  # shared weights: every step adds its share
        dstate = as_tuple(dprev) if full[t] else tuple(
            np.where(keep, a, b) for a, b in zip(as_tuple(dprev), dstate))
        if cut_at is not None:         # h_{t−1} is before the horizon: nothing flows to it
            stop = (t - 1 <= cut_at)[:, None]
            dstate = tuple(np.where(stop, 0.0, a) for a in dstate)
        dX[t] = dx
    info = {"outputs": outputs, "states": hs, "dh0": dstate if model.lstm else dstate[0],
            "dX": dX, "count": int(weights.sum()), **metric}
    return loss, grads, info
