"""Chapter 5: GRU against LSTM — parameter and MAC counts, carry multipliers."""
from gleam import counting
from gleam.examples.data import sigmoid

__all__ = ['chapter5_counts', 'chapter5_carry_multipliers']


def chapter5_counts(d=128, n=256):
    gru, lstm = counting.param_count("gru", d, n), counting.param_count("lstm", d, n)
    return {"d": d, "n": n, "gru_params": gru, "lstm_params": lstm, "gru_over_lstm": gru / lstm,
            "gru_saving": 1 - gru / lstm,
            "gru_width_matching_lstm": counting.matching_width("gru", lstm, d),
            "gru_macs": counting.macs_per_step("gru", d, n), "lstm_macs": counting.macs_per_step("lstm", d, n)}


def chapter5_carry_multipliers():
    # retained fraction f^T for a constant keep factor f; f = σ(forget bias) at zero input
    s = {b: sigmoid(b) for b in (0.0, 1.0, 3.0)}
    return {"0.99^30": 0.99 ** 30, "sigmoid(0)^30": s[0.0] ** 30, "sigmoid(1)": s[1.0],
            "sigmoid(1)^30": s[1.0] ** 30, "0.99^100": 0.99 ** 100, "0.9^100": 0.9 ** 100,
            "0.5^100": 0.5 ** 100, "sigmoid(3)": s[3.0], "sigmoid(3)^100": s[3.0] ** 100}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter5_counts": chapter5_counts(), "chapter5_carry_multipliers": chapter5_carry_multipliers()}
