"""The registry of cells: `CELLS[name]` is a Cell(step, step_backward, init, jacobian), keyed by
exactly gleam.cells.names.CELL_NAMES; `check_params(cell, p, d, n)` validates a parameter dict
once, outside the per-step loop."""
from typing import Callable, NamedTuple

import numpy as np

from gleam.cells.common import check_shapes, check_sizes
from gleam.cells.elman import elman_jacobian, elman_shapes, elman_step, elman_step_backward, init_elman
from gleam.cells.gru import (gru_textbook_jacobian, gru_textbook_shapes, gru_textbook_step,
                             gru_textbook_step_backward, gru_torch_jacobian, gru_torch_shapes,
                             gru_torch_step, gru_torch_step_backward, init_gru_textbook,
                             init_gru_torch)
from gleam.cells.lstm import init_lstm, lstm_jacobian, lstm_shapes, lstm_step, lstm_step_backward
from gleam.cells.names import check_cell

__all__ = ["Cell", "CELLS", "get_cell", "param_shapes", "count_params", "check_params"]

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
