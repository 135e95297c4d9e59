"""Recurrent cells: one small pure forward per cell, paired with its hand-written backward.

Every `*_step(x, h, p)` returns `(h_next, cache)`; the cache dict holds every intermediate
(gate values under their usual names) plus the inputs x and h_prev, and h (= h_next).
Every `*_step_backward(dh_next, cache, p)` returns `(dx, dh_prev, grads)`, grads keyed like
the cell's parameters and summed over the batch.
Inputs are unbatched (x: (d,), h: (n,)) or batched (x: (B, d), h: (B, n)).

    elman         h' = tanh(W_x x + W_h h + b)                                (this file)
    gru_textbook  reset before U_h, z writes                                  (cells_gru.py)
    gru_torch     torch.nn.GRU: reset after the matmul, blocks r, z, n, z keeps (cells_gru.py)
    lstm          torch.nn.LSTM: blocks i, f, g, o, state (h, c)              (cells_lstm.py)

`CELLS[name]` is a Cell(step, step_backward, init, jacobian), keyed by exactly
`gleam.cell_names.CELL_NAMES`; `check_params(cell, p, d, n)` validates a parameter dict once,
outside the per-step loop. `pin_gates(cell, p, z, r)` (cells_gru.py) turns a GRU's gates into
constants, as chapter 4's sliders do.
"""
from typing import Callable, NamedTuple

import numpy as np

from gleam.cell_names import CELL_NAMES, check_cell
from gleam.cells_common import (batch_sum, check_cell_params, check_shapes, check_sizes,
                                check_step_inputs, column, guarded, init_weights, logit,
                                outer_sum, sigmoid)
from gleam.cells_gru import (gru_textbook_jacobian, gru_textbook_shapes, gru_textbook_step,
                             gru_textbook_step_backward, gru_torch_jacobian, gru_torch_shapes,
                             gru_torch_step, gru_torch_step_backward, init_gru_textbook,
                             init_gru_torch, pin_gates)
from gleam.cells_lstm import (init_lstm, lstm_jacobian, lstm_shapes, lstm_step,
                              lstm_step_backward)


# ---------------------------------------------------------------- Elman (vanilla RNN)

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


# ---------------------------------------------------------------- the registry

class Cell(NamedTuple):
    """The four functions that make a cell; unpacks as (step, step_backward, init, jacobian)."""
    step: Callable
    step_backward: Callable
    init: Callable
    jacobian: Callable


CELLS = {
    "elman": Cell(elman_step, elman_step_backward, init_elman, elman_jacobian),
    "gru_textbook": Cell(gru_textbook_step, gru_textbook_step_backward, init_gru_textbook,
                         gru_textbook_jacobian),
    "gru_torch": Cell(gru_torch_step, gru_torch_step_backward, init_gru_torch,
                      gru_torch_jacobian),
    "lstm": Cell(lstm_step, lstm_step_backward, init_lstm, lstm_jacobian),
}

_SHAPES = {"elman": elman_shapes, "gru_textbook": gru_textbook_shapes,
           "gru_torch": gru_torch_shapes, "lstm": lstm_shapes}

# (input matrix, recurrent matrix): d is the input matrix's width, n the recurrent one's
_SIZE_FROM = {"elman": ("Wx", "Wh"), "gru_textbook": ("Wz", "Uz"),
              "gru_torch": ("W_ih", "W_hh"), "lstm": ("W_ih", "W_hh")}


def get_cell(cell):
    """CELLS[cell], or ValueError listing the known names."""
    return CELLS[check_cell(cell)]


def param_shapes(cell, d, n):
    """Parameter name -> shape for `cell` with input size d and width n."""
    get_cell(cell)
    check_sizes(d, n)
    return _SHAPES[cell](d, n)


def count_params(cell, d, n):
    """Number of trainable numbers, e.g. gru_textbook: 3(nd + n² + n)."""
    return sum(int(np.prod(shape)) for shape in param_shapes(cell, d, n).values())


def check_params(cell, p, d=None, n=None):
    """Validate p for `cell`; d and n default to the sizes p's matrices imply.

    Returns (d, n). Raises ValueError naming the first array that is missing or misshapen.
    Keys p has beyond the cell's (a readout, say) are left alone.
    """
    get_cell(cell)
    if not isinstance(p, dict):
        raise ValueError(f"p (the parameters for {cell}) must be a dict, got {type(p).__name__}")
    w_in, w_rec = _SIZE_FROM[cell]
    for name in (w_in, w_rec):
        if name not in p:
            raise ValueError(f"{cell} parameters lack '{name}' "
                             f"(needs {', '.join(_SHAPES[cell](1, 1))})")
        if not isinstance(p[name], np.ndarray):
            raise ValueError(f"{name} must be a numpy array, got {type(p[name]).__name__}")
        if np.ndim(p[name]) != 2:
            raise ValueError(f"{name} must be a matrix, got shape {np.shape(p[name])}")
    d = np.shape(p[w_in])[1] if d is None else d
    n = np.shape(p[w_rec])[1] if n is None else n
    expected = param_shapes(cell, d, n)
    # the recurrent matrix first: n was read from it, so a misshapen one is named as such
    check_shapes(p, {w_rec: expected[w_rec], **expected}, cell)
    for name in expected:
        if p[name].dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold numbers, got dtype {p[name].dtype}")
    return d, n


__all__ = [
    "CELLS", "CELL_NAMES", "Cell", "check_params", "count_params", "get_cell", "param_shapes",
    "logit", "sigmoid", "pin_gates",
    "elman_step", "elman_step_backward", "elman_jacobian", "init_elman",
    "gru_textbook_step", "gru_textbook_step_backward", "gru_textbook_jacobian",
    "init_gru_textbook",
    "gru_torch_step", "gru_torch_step_backward", "gru_torch_jacobian", "init_gru_torch",
    "lstm_step", "lstm_step_backward", "lstm_jacobian", "init_lstm",
]
