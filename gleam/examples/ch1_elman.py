"""Chapter 1: the Elman cell stepped by hand on "abc", and what the scale of W_h does."""
import numpy as np

from gleam import dynamics
from gleam.cells import count_params, elman_step
from gleam.examples.data import VOCAB_ABC, onehot, plain

__all__ = ['chapter1_params', 'chapter1_hand_example', 'chapter1_wh_scale', 'MAX_TEXT', 'check_text']

MAX_TEXT = 16           # characters the widget steps through at most


def chapter1_params():
    return {"Wx": np.array([[1.0, -0.5, 0.2], [0.0, 0.8, -0.3]]),
            "Wh": np.array([[0.5, -0.2], [0.1, 0.6]]), "b": np.array([0.1, -0.1])}


def check_text(text):
    """text, or ValueError unless it is 1 to MAX_TEXT characters of the vocabulary a, b, c."""
    if not isinstance(text, str) or not 1 <= len(text) <= MAX_TEXT:
        raise ValueError(f"the input must be 1 to {MAX_TEXT} characters, got {len(text) if isinstance(text, str) else text!r}")
    unknown = sorted(set(text) - set(VOCAB_ABC))
    if unknown:
        raise ValueError(f"the input may only use a, b and c, not {', '.join(map(repr, unknown))}")
    return text


def chapter1_hand_example(text="abc", wh_scale=1.0):
    """Elman steps over `text` from h_0 = 0; wh_scale multiplies all of W_h (the widget's slider)."""
    check_text(text)
    p = chapter1_params()
    p["Wh"] = p["Wh"] * wh_scale
    h, steps = np.zeros(2), []
    for ch in text:
        x = onehot(ch)
        # pre-activation a = W_x x + W_h h + b; W_x x is column `ch` of W_x
        inp, rec = p["Wx"] @ x, p["Wh"] @ h
        h, _ = elman_step(x, h, p)
        steps.append({"input": ch, "input_column": inp, "recurrent_term": rec,
                      "pre_activation": inp + rec + p["b"], "state": h})
    d, n = p["Wx"].shape[1], p["Wx"].shape[0]
    return plain({"steps": steps, "states": [s["state"] for s in steps],
                  "param_count": count_params("elman", d, n), "max_text": MAX_TEXT})


def chapter1_wh_scale(low=0.0, high=2.0, saturating_text="aaaaaaaa"):
    """What the W_h scale slider does: the run at scale `low` (memoryless) and `high`, the
    spectral radius of W_h and the scale that makes it 1, and unit 1's pre-activation at the
    third character of `saturating_text` at scale `high` (where tanh saturates)."""
    rho = dynamics.spectral_radius(chapter1_params()["Wh"])
    saturating = chapter1_hand_example(text=saturating_text, wh_scale=high)
    return plain({"low": low, "high": high, "memoryless": chapter1_hand_example(wh_scale=low),
                  "doubled": chapter1_hand_example(wh_scale=high), "spectral_radius": rho,
                  "scale_for_radius_one": 1 / rho, "saturating_text": saturating_text,
                  "saturating_pre_activation": saturating["steps"][2]["pre_activation"][0]})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter1_hand_example": chapter1_hand_example(), "chapter1_wh_scale": chapter1_wh_scale()}
