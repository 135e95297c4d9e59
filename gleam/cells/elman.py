"""The Elman cell (vanilla RNN): h' = tanh(W_x x + W_h h + b).

Its step returns `(h_next, cache)`; its backward `(dx, dh_prev, grads)`, as every cell's does
(gleam.cells).
"""
import numpy as np

from gleam.cells.common import (batch_sum, check_cell_params, check_sizes, check_step_inputs, column,
                                guarded, init_weights, outer_sum)

__all__ = ["elman_shapes", "init_elman", "elman_step", "elman_step_backward", "elman_jacobian"]

def elman_shapes(d, n):
    """Parameter name -> shape for the Elman cell."""
    check_sizes(d, n)
    return {"Wx": (n, d), "Wh": (n, n), "b": (n,)}


def init_elman(d, n, rng, scale=None):
    """Weights ~ U(−scale, scale) (default 1/√n), bias 0."""
    check_sizes(d, n)
    return init_weights(elman_shapes(d, n), rng, scale, n)


def _elman_params(p):
    return check_cell_params(p, "elman", "Wx", "Wh", elman_shapes)


@guarded(_elman_params)
def elman_step(x, h, p):
    """One Elman step. Returns (h_next, cache)."""
    x, h = check_step_inputs(x, h, p["Wx"].shape[1], p["Wh"].shape[0])
    # W_x x: for a one-hot x this is one column of W_x (an embedding lookup)
    Wx_x = x @ p["Wx"].T
    # W_h h: the only channel from the past
    Wh_h = h @ p["Wh"].T
    # a = W_x x + W_h h + b
    a = Wx_x + Wh_h + p["b"]
    # h' = tanh(a)
    h_next = np.tanh(a)
    return h_next, {"x": x, "h_prev": h, "Wx_x": Wx_x, "Wh_h": Wh_h, "a": a, "h": h_next}


@guarded(_elman_params, backward="other")
def elman_step_backward(dh_next, cache, p):
    """Backward of elman_step: ∂L/∂h' -> (dx, dh_prev, grads)."""
    # ∂L/∂a = ∂L/∂h' ⊙ (1 − h'²)
    da = dh_next * (1 - cache["h"] ** 2)
    grads = {"Wx": outer_sum(da, cache["x"]), "Wh": outer_sum(da, cache["h_prev"]),
             "b": batch_sum(da)}
    return da @ p["Wx"], da @ p["Wh"], grads


@guarded(_elman_params)
def elman_jacobian(cache, p):
    """∂h_t/∂h_{t−1} = diag(1 − h_t²) W_h, (n, n) (or (B, n, n) for a batched cache)."""
    return column(1 - cache["h"] ** 2) * p["Wh"]
