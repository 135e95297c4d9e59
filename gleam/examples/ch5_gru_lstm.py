"""Chapter 5: GRU against LSTM — parameter and MAC counts, carry multipliers, one unit of each
cell driven by the same input, the forget bias's retained fraction."""
import numpy as np

from gleam import cells, checks
from gleam import costs as counting
from gleam.examples.data import plain, sigmoid

__all__ = ['chapter5_counts', 'chapter5_carry_multipliers', 'chapter5_cell_params', 'chapter5_trajectories',
           'chapter5_forget_bias', 'MAX_WIDTH']

MAX_WIDTH = 100_000        # the live counter refuses d or n above this
STEPS = 30                 # the trajectories' length
GATE_BIAS = 2.0            # every gate's bias in the trajectory cells: σ(2) = 0.881 (open / keeping)
INPUT_WEIGHT = 1.0         # the candidate's input weight in both cells


def chapter5_counts(d=128, n=256):
    """Parameters and MACs per token of a GRU and an LSTM of input width d, state width n, and
    the GRU width whose count is closest to the LSTM's (with that GRU's own count).
    d and n must be whole numbers in [1, MAX_WIDTH]."""
    d = checks.integer("d", d, minimum=1, maximum=MAX_WIDTH, whole_floats=True)
    n = checks.integer("n", n, minimum=1, maximum=MAX_WIDTH, whole_floats=True)
    gru, lstm = counting.param_count("gru", d, n), counting.param_count("lstm", d, n)
    match = counting.matching_width("gru", lstm, d)
    return {"d": d, "n": n, "max_width": MAX_WIDTH, "gru_params": gru, "lstm_params": lstm, "gru_over_lstm": gru / lstm,
            "gru_saving": 1 - gru / lstm,
            "gru_width_matching_lstm": match, "gru_matching_params": counting.param_count("gru", d, match),
            "gru_macs": counting.macs_per_step("gru", d, n), "lstm_macs": counting.macs_per_step("lstm", d, n)}


def chapter5_carry_multipliers():
    # retained fraction f^T for a constant keep factor f; f = σ(forget bias) at zero input
    s = {b: sigmoid(b) for b in (0.0, 1.0, 3.0)}
    return {"0.99^30": 0.99 ** 30, "sigmoid(0)^30": s[0.0] ** 30, "sigmoid(1)": s[1.0],
            "sigmoid(1)^30": s[1.0] ** 30, "0.99^100": 0.99 ** 100, "0.9^100": 0.9 ** 100,
            "0.5^100": 0.5 ** 100, "sigmoid(3)": s[3.0], "sigmoid(3)^100": s[3.0] ** 100}


def chapter5_cell_params(gate_bias=GATE_BIAS, input_weight=INPUT_WEIGHT):
    """One unit of each cell (d = n = 1) with the same, stated weights: the candidate reads the
    input with `input_weight`, every recurrent weight is 0, every gate is its bias alone.

    LSTM (blocks i, f, g, o): i = f = o = σ(gate_bias), g = tanh(input_weight · x).
    GRU (textbook): z = σ(−gate_bias), so its keep factor 1 − z equals the LSTM's f; r = σ(gate_bias);
    h̃ = tanh(input_weight · x). Both keep the same fraction per step; only the LSTM can also write
    a large share (i) while keeping, because its i is not tied to 1 − f.
    """
    b, w = checks.number("gate_bias", gate_bias), checks.number("input_weight", input_weight)
    lstm = {"W_ih": np.array([[0.0], [0.0], [w], [0.0]]), "W_hh": np.zeros((4, 1)),
            "b_ih": np.array([b, b, 0.0, b]), "b_hh": np.zeros(4)}
    gru = {"Wz": np.zeros((1, 1)), "Uz": np.zeros((1, 1)), "bz": np.array([-b]),
           "Wr": np.zeros((1, 1)), "Ur": np.zeros((1, 1)), "br": np.array([b]),
           "Wh": np.array([[w]]), "Uh": np.zeros((1, 1)), "bh": np.zeros(1)}
    return {"lstm": lstm, "gru": gru, "gate_bias": b, "input_weight": w}


def chapter5_trajectories(drive=1.0, T=STEPS):
    """Both one-unit cells of `chapter5_cell_params` on the same constant input x_t = drive,
    t = 1 … T, from zero state (gleam.cells.lstm_step, gleam.cells.gru_textbook_step).

    Returns the trajectories (t = 0 … T, starting at 0) and max |·| of each over the run, plus
    the gates the cells used (constant here: they read only their biases).
    """
    drive = checks.number("drive", drive)
    T = checks.integer("T", T, minimum=1)
    p = chapter5_cell_params()
    x = np.array([drive])
    h, c, g = np.zeros(1), np.zeros(1), np.zeros(1)
    out = {"lstm_c": [0.0], "lstm_h": [0.0], "gru_h": [0.0]}
    for _ in range(T):
        (h, c), lc = cells.lstm_step(x, (h, c), p["lstm"])
        g, gc = cells.gru_textbook_step(x, g, p["gru"])
        out["lstm_c"].append(float(c[0]))      # plain floats as we go (cheaper than plain() after)
        out["lstm_h"].append(float(h[0]))
        out["gru_h"].append(float(g[0]))
    gates = {"f": lc["f"][0], "i": lc["i"][0], "o": lc["o"][0], "z": gc["z"][0], "gru_keep": 1 - gc["z"][0]}
    return {"drive": drive, "T": T, "t": list(range(T + 1)), **out, "gates": {k: float(v) for k, v in gates.items()},
            **{f"max_abs_{k}": max(abs(x) for x in v) for k, v in out.items()}}


def chapter5_forget_bias(bias=1.0, T=(30, 100), curve_steps=100):
    """The fraction an LSTM keeps with the input ignored, f = σ(b_f) per step: f^T for each T,
    and the curve f^t for t = 1 … curve_steps."""
    b = checks.number("bias", bias)
    f = float(cells.sigmoid(b))
    t = np.arange(1, checks.integer("curve_steps", curve_steps, minimum=1) + 1)
    return plain({"bias": b, "forget_gate": f, "T": list(T), "retained": [f ** s for s in T],
                  "t": t, "curve": f ** t.astype(float)})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter5_counts": chapter5_counts(), "chapter5_carry_multipliers": chapter5_carry_multipliers(),
            "chapter5_forget_bias": {str(b): chapter5_forget_bias(b) for b in (0.0, 1.0, 3.0)}}
