"""The lab's one vocabulary of cell names.

A *cell* is an implementation with its own parameter layout (`gleam.cells.CELLS`); a *kind* is
the architecture that counts and comparisons speak of (`gleam.costs`, `gleam.labs.memory.carry`):

    cell           kind    blocks  parameters
    elman          elman   1       Wx, Wh, b
    gru_textbook   gru     3       Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh
    gru_torch      gru     3       W_ih, W_hh, b_ih, b_hh   (blocks r, z, n stacked)
    lstm           lstm    4       W_ih, W_hh, b_ih, b_hh   (blocks i, f, g, o stacked)
"""

CELL_NAMES = ("elman", "gru_textbook", "gru_torch", "lstm")
KINDS = ("elman", "gru", "lstm")
KIND_OF = {"elman": "elman", "gru_textbook": "gru", "gru_torch": "gru", "lstm": "lstm"}
# gated blocks per kind: Elman one tanh; GRU z, r and the candidate; LSTM i, f, g, o
BLOCKS = {"elman": 1, "gru": 3, "lstm": 4}


def check_cell(name):
    """name, or ValueError unless it is one of CELL_NAMES."""
    if not (isinstance(name, str) and name in KIND_OF):
        raise ValueError(f"unknown cell {name!r}; known cells: {', '.join(CELL_NAMES)}")
    return name


def kind(name):
    """The kind of a kind or a cell name: "gru_torch" -> "gru", "lstm" -> "lstm"."""
    if isinstance(name, str) and name in BLOCKS:
        return name
    if isinstance(name, str) and name in KIND_OF:
        return KIND_OF[name]
    known = KINDS + tuple(c for c in CELL_NAMES if c not in KINDS)
    raise ValueError(f"unknown cell {name!r}; known: {', '.join(known)}")
