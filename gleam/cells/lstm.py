"""The LSTM cell, packed as torch.nn.LSTM packs it: blocks i, f, g, o and two biases.

    [i, f, g, o] = W_ih x + b_ih + W_hh h + b_hh        (…, 4n), then
    i = σ(·)  input (write) gate     f = σ(·)  forget (keep) gate
    g = tanh(·) candidate             o = σ(·)  output gate
    c' = f ⊙ c + i ⊙ g                h' = o ⊙ tanh(c')

The state is the pair (h, c); c is unbounded, h stays in (−1, 1).
"""
import numpy as np

from gleam import checks
from gleam.cells.common import (batch_sum, check_cell_params, check_sizes, check_step_inputs,
                                column, gate_sigmoid, guarded, init_weights, outer_sum)


def lstm_shapes(d, n):
    """Parameter name -> shape for the LSTM (blocks i, f, g, o stacked)."""
    check_sizes(d, n)
    return {"W_ih": (4 * n, d), "W_hh": (4 * n, n), "b_ih": (4 * n,), "b_hh": (4 * n,)}


def init_lstm(d, n, rng, scale=None, forget_bias=1.0):
    """Weights ~ U(−scale, scale) (default 1/√n); biases 0 except b_ih's f block = forget_bias.

    A forget bias of 1 starts f near σ(1) = 0.73, so the cell begins by remembering
    (Jozefowicz, Zaremba & Sutskever 2015).
    """
    check_sizes(d, n)
    forget_bias = checks.number("forget_bias", forget_bias)
    p = init_weights(lstm_shapes(d, n), rng, scale, n)
    p["b_ih"][n:2 * n] = forget_bias
    return p


def _lstm_params(p):
    return check_cell_params(p, "lstm", "W_ih", "W_hh", lstm_shapes)


@guarded(_lstm_params)
def lstm_step(x, state, p):
    """One LSTM step. state = (h, c). Returns ((h_next, c_next), cache)."""
    if not isinstance(state, tuple) or len(state) != 2:
        raise ValueError("the LSTM state must be a tuple (h, c)")
    n = p["W_hh"].shape[1]
    x, h = check_step_inputs(x, state[0], p["W_ih"].shape[1], n)
    _, c = check_step_inputs(x, state[1], p["W_ih"].shape[1], n, h_name="c")
    # all four blocks in one matmul per side, (…, 4n): a = W_ih x + b_ih + W_hh h + b_hh
    a = x @ p["W_ih"].T
    a += p["b_ih"]            # in place: the same sums in the same order, fewer temporaries
    a += h @ p["W_hh"].T
    a += p["b_hh"]
    s = gate_sigmoid(a)           # σ of every block in one call (the g block's is not a gate)
    i, f, o = s[..., :n], s[..., n:2 * n], s[..., 3 * n:]
    g = np.tanh(a[..., 2 * n:3 * n])
    # c' = f ⊙ c + i ⊙ g
    c_next = f * c + i * g
    # h' = o ⊙ tanh(c')
    tanh_c = np.tanh(c_next)
    h_next = o * tanh_c
    cache = {"x": x, "h_prev": h, "c_prev": c, "i": i, "f": f, "g": g, "o": o,
             "c": c_next, "tanh_c": tanh_c, "h": h_next, "sigma": s}
    return (h_next, c_next), cache


@guarded(_lstm_params, backward="lstm")
def lstm_step_backward(dstate, cache, p):
    """Backward of lstm_step: (∂L/∂h', ∂L/∂c') -> (dx, (dh_prev, dc_prev), grads).

    ∂L/∂c' may be None (no loss on c' and nothing coming back from later steps).
    The cache is lstm_step's: "sigma" is σ of the whole packed pre-activation (i, f, o its blocks).
    """
    dh_next, dc_next = dstate
    x, h, c, i, f, g, o, tanh_c = (cache[k] for k in
                                   ("x", "h_prev", "c_prev", "i", "f", "g", "o", "tanh_c"))
    # h' = o ⊙ tanh(c'): c' receives its own gradient plus what flows through h'
    do = dh_next * tanh_c
    dc = dh_next * o * (1 - tanh_c ** 2)
    if dc_next is not None:
        dc = dc + dc_next
    # c' = f ⊙ c + i ⊙ g
    df, di, dg = dc * c, dc * g, dc * i
    dc_prev = dc * f
    # through σ (i, f, o: σ' = σ(1 − σ)) and tanh (g: 1 − g²) to the packed pre-activation
    da = np.concatenate([di, df, dg, do], axis=-1)               # ∂L/∂[i, f, g, o], (…, 4n)
    n = c.shape[-1]
    slope = cache["sigma"] * (1 - cache["sigma"])
    slope[..., 2 * n:3 * n] = 1 - g ** 2
    da *= slope
    dx = da @ p["W_ih"]
    dh_prev = da @ p["W_hh"]
    db = batch_sum(da)        # both biases add to the same pre-activation
    grads = {"W_ih": outer_sum(da, x), "W_hh": outer_sum(da, h), "b_ih": db, "b_hh": db.copy()}
    return dx, (dh_prev, dc_prev), grads


@guarded(_lstm_params)
def lstm_jacobian(cache, p):
    """∂(h_t, c_t)/∂(h_{t−1}, c_{t−1}), (2n, 2n) (or (B, 2n, 2n)), as the block matrix
        [[∂h'/∂h, ∂h'/∂c],        ∂c'/∂h = diag(c f(1−f)) W_hf + diag(g i(1−i)) W_hi + diag(i(1−g²)) W_hg
         [∂c'/∂h, ∂c'/∂c]]        ∂c'/∂c = diag(f)
    with ∂h'/∂h = diag(tanh(c') o(1−o)) W_ho + diag(o(1−tanh²c')) ∂c'/∂h and
    ∂h'/∂c = diag(o(1−tanh²c') f).
    """
    c, i, f, g, o, tanh_c = (cache[k] for k in ("c_prev", "i", "f", "g", "o", "tanh_c"))
    n = c.shape[-1]
    W_hi, W_hf, W_hg, W_ho = (p["W_hh"][k * n:(k + 1) * n] for k in range(4))
    eye = np.eye(n)
    dc_dh = (column(c * f * (1 - f)) * W_hf + column(g * i * (1 - i)) * W_hi
             + column(i * (1 - g ** 2)) * W_hg)
    dc_dc = column(f) * eye
    through_tanh = column(o * (1 - tanh_c ** 2))     # ∂h'/∂c' = diag(o (1 − tanh² c'))
    dh_dh = column(tanh_c * o * (1 - o)) * W_ho + through_tanh * dc_dh
    dh_dc = through_tanh * dc_dc
    return np.block([[dh_dh, dh_dc], [dc_dh, dc_dc]])
