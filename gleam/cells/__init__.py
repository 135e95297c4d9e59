"""Recurrent cells: one small pure forward per cell, paired with its hand-written backward.

Every `*_step(x, h, p)` returns `(h_next, cache)`; the cache dict holds every intermediate
(gate values under their usual names) plus the inputs x and h_prev, and h (= h_next).
Every `*_step_backward(dh_next, cache, p)` returns `(dx, dh_prev, grads)`, grads keyed like
the cell's parameters and summed over the batch.
Inputs are unbatched (x: (d,), h: (n,)) or batched (x: (B, d), h: (B, n)).

    elman         h' = tanh(W_x x + W_h h + b)                                (elman.py)
    gru_textbook  reset before U_h, z writes                                  (gru.py)
    gru_torch     torch.nn.GRU: reset after the matmul, blocks r, z, n, z keeps (gru.py)
    lstm          torch.nn.LSTM: blocks i, f, g, o, state (h, c)              (lstm.py)

`CELLS[name]` is a Cell(step, step_backward, init, jacobian), keyed by exactly
`gleam.cells.names.CELL_NAMES`; `check_params(cell, p, d, n)` validates a parameter dict once,
outside the per-step loop. `pin_gates(cell, p, z, r)` (gru.py) turns a GRU's gates into
constants, as chapter 4's sliders do.
"""
from gleam.cells.common import logit, sigmoid
from gleam.cells.elman import elman_jacobian, elman_step, elman_step_backward, init_elman
from gleam.cells.gru import (gru_textbook_jacobian, gru_textbook_step, gru_textbook_step_backward,
                             gru_torch_jacobian, gru_torch_step, gru_torch_step_backward,
                             init_gru_textbook, init_gru_torch, pin_gates)
from gleam.cells.lstm import init_lstm, lstm_jacobian, lstm_step, lstm_step_backward
from gleam.cells.names import CELL_NAMES
from gleam.cells.registry import CELLS, Cell, check_params, count_params, get_cell, param_shapes

__all__ = [
    "CELLS", "CELL_NAMES", "Cell", "check_params", "count_params", "get_cell", "param_shapes",
    "logit", "sigmoid", "pin_gates",
    "elman_step", "elman_step_backward", "elman_jacobian", "init_elman",
    "gru_textbook_step", "gru_textbook_step_backward", "gru_textbook_jacobian",
    "init_gru_textbook",
    "gru_torch_step", "gru_torch_step_backward", "gru_torch_jacobian", "init_gru_torch",
    "lstm_step", "lstm_step_backward", "lstm_jacobian", "init_lstm",
]
