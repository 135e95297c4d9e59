"""Chapter 4: the GRU by hand in both reset conventions, pinned gates, the carry meters.

Chapter 9's self-test is the same cell on another input (gleam.examples.ch9_cheatsheet)."""
import numpy as np

from gleam import cells
from gleam.examples.data import VOCAB_ABC, onehot, plain

__all__ = ['gru_hand_params', 'gru_hand_params_torch', 'CONVENTIONS', 'gru_example', 'chapter4_gru_hand_example', 'chapter4_pinned_gates', 'chapter4_torch_example', 'chapter4_gate_meters']


def gru_hand_params():
    """The chapter-4 weights (textbook layout). Column b is chapter 4's, column a chapter 9's
    self-test; column c is not given by the syllabus and is zero."""
    return {"Wz": np.array([[-0.2, 0.6, 0.0], [0.5, -0.4, 0.0]]), "Uz": np.array([[0.3, 0.1], [-0.2, 0.5]]),
            "bz": np.array([0.0, 0.1]),
            "Wr": np.array([[0.4, -0.3, 0.0], [-0.1, 0.7, 0.0]]), "Ur": np.array([[0.2, -0.4], [0.1, 0.3]]),
            "br": np.array([0.2, 0.0]),
            "Wh": np.array([[0.3, 0.5, 0.0], [-0.6, 0.4, 0.0]]), "Uh": np.array([[0.7, 0.2], [-0.1, 0.9]]),
            "bh": np.array([0.0, 0.0])}


def gru_hand_params_torch():
    """The same numbers in torch.nn.GRU's layout: blocks r, z, n; b_hh = 0."""
    p = gru_hand_params()
    return {"W_ih": np.vstack([p["Wr"], p["Wz"], p["Wh"]]), "W_hh": np.vstack([p["Ur"], p["Uz"], p["Uh"]]),
            "b_ih": np.concatenate([p["br"], p["bz"], p["bh"]]), "b_hh": np.zeros(6)}


CONVENTIONS = ("textbook", "torch")      # the GRU's two reset conventions (gleam.cells.gru)


def gru_example(ch, convention, h_prev=(0.5, -0.2), T=20, z=None, r=None):
    """One step of the chapter-4 GRU on input `ch` (a, b or c); z, r pin gates (gleam.cells.pin_gates)."""
    x, h = onehot(ch), np.array(h_prev)
    if convention == "textbook":
        p = cells.pin_gates("gru_textbook", gru_hand_params(), z=z, r=r)
        h_next, c = cells.gru_textbook_step(x, h, p)
        cand, keep = c["h_tilde"], 1 - c["z"]          # h' = (1 − z) h + z h̃: carry (1 − z)
    elif convention == "torch":
        p = cells.pin_gates("gru_torch", gru_hand_params_torch(), z=z, r=r)
        h_next, c = cells.gru_torch_step(x, h, p)
        cand, keep = c["n"], c["z"]                    # h' = (1 − z) n + z h: carry z
    else:
        raise ValueError(f"convention must be 'textbook' or 'torch', got {convention!r}")
    w, col = gru_hand_params(), VOCAB_ABC.index(ch)
    columns = {gate: w[f"W{gate}"][:, col] for gate in ("z", "r", "h")}   # W x for one-hot x
    return plain({"convention": convention, "input": ch, "h_prev": h, "input_columns": columns,
                  "z": c["z"], "r": c["r"], "candidate": cand, "h": h_next, "carry_multiplier": keep,
                  "T": T, f"carry_multiplier_{T}": keep ** T})


def chapter4_gru_hand_example(convention="textbook"):
    return gru_example("b", convention)


def chapter4_pinned_gates(z, r, convention="textbook"):
    """Chapter 4's widget: the hand example's step with its gates pinned (gleam.cells.pin_gates).

    z, r: the gates of units 1 and 2 (a pair each), or {unit: value} to pin some units only (the
    others keep the values their weights give); None pins nothing. Under "torch", z is
    PyTorch's keep gate. The keys are chapter4_gru_hand_example's: carry_multiplier is what
    survives of h_{t−1} on the carry path in one step (1 − z, or z under "torch"), and
    carry_multiplier_20 the same over 20 steps.
    """
    return gru_example("b", convention, z=z, r=r)


def chapter4_torch_example():
    """The hand example under PyTorch's convention (reset after the matmul, z keeps)."""
    return chapter4_gru_hand_example("torch")


def chapter4_gate_meters(zs=(0.1, 0.5, 0.9), T=20):
    # backward multiplier on the carry path over T steps: (1 − z)^T
    carry = [(1 - z) ** T for z in zs]
    return {"z": list(zs), "T": T, "carry_over_T": carry,
            "rows": [{"z": z, "carry_over_T": c} for z, c in zip(zs, carry)]}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter4_gru_hand_example": {c: chapter4_gru_hand_example(c) for c in CONVENTIONS},
            "chapter4_gate_meters": chapter4_gate_meters(),
            "chapter4_pinned_gates": chapter4_pinned_gates((0.5, 0.5), (0.5, 0.5))}
