"""Chapter 5's examples: the live counter, the two one-unit cells on one input, the forget
bias, against the syllabus's printed numbers and plain NumPy written out here."""
import math

import numpy as np
import pytest

from gleam import examples as ex


def sig(x, digits):
    return float(f"{x:.{digits - 1}e}")


def counts(k, d, n):
    return k * (n * d + n * n + n)


def test_counts_syllabus():
    c = ex.chapter5_counts()
    assert (c["gru_params"], c["lstm_params"]) == (295_680, 394_240)
    assert c["gru_width_matching_lstm"] == 304
    assert c["gru_matching_params"] == counts(3, 128, 304)
    assert (c["gru_macs"], c["lstm_macs"]) == (3 * (128 * 256 + 256 ** 2), 4 * (128 * 256 + 256 ** 2))
    assert c["gru_saving"] == 0.25 and c["max_width"] == 100_000


@pytest.mark.parametrize("d, n", [(1, 1), (7, 3), (65, 1000), (300, 64), (100_000, 100_000)])
def test_counts_against_the_formula(d, n):
    c = ex.chapter5_counts(d, n)
    lstm = counts(4, d, n)
    assert c["gru_params"] == counts(3, d, n) and c["lstm_params"] == lstm
    assert c["gru_macs"] == 3 * (n * d + n * n) and c["lstm_macs"] == 4 * (n * d + n * n)
    # the closest GRU width, found by walking n upwards (ties to the smaller width)
    best = min(range(1, 2 * n + 10), key=lambda m: (abs(counts(3, d, m) - lstm), m))
    assert c["gru_width_matching_lstm"] == best
    assert c["gru_matching_params"] == counts(3, d, best)


@pytest.mark.parametrize("d, n", [(0, 256), (128, 0), (-5, 256), (128, None), (None, 256),
                                  (100_001, 256), (128, 10 ** 9), (12.5, 256), (True, 256)])
def test_counts_refuse_bad_sizes(d, n):
    with pytest.raises(ValueError, match=r"must be an integer in \[1, 100000\]"):
        ex.chapter5_counts(d, n)


def test_counts_accept_whole_floats():
    assert ex.chapter5_counts(128.0, 256.0)["gru_params"] == 295_680


def one_unit_cells(drive, T=30, b=2.0, w=1.0):
    """The two one-unit cells written out: every gate is σ(±b), both candidates tanh(w x)."""
    s = 1 / (1 + math.exp(-b))
    cand = math.tanh(w * drive)
    c = h = g = 0.0
    cs, hs, gs = [0.0], [0.0], [0.0]
    for _ in range(T):
        c = s * c + s * cand                    # c' = f c + i g,   f = i = σ(b)
        h = s * math.tanh(c)                    # h' = o tanh(c'),  o = σ(b)
        g = s * g + (1 - s) * cand              # h' = (1 − z) h + z h̃,  z = σ(−b)
        cs.append(c), hs.append(h), gs.append(g)
    return np.array(cs), np.array(hs), np.array(gs)


@pytest.mark.parametrize("drive", [0.0, 0.1, 1.0, 2.35, 3.0])
def test_trajectories_against_the_cells_written_out(drive):
    r = ex.chapter5_trajectories(drive)
    c, h, g = one_unit_cells(drive)
    assert r["t"] == list(range(31)) and r["T"] == 30
    assert r["lstm_c"] == pytest.approx(list(c), abs=1e-12)
    assert r["lstm_h"] == pytest.approx(list(h), abs=1e-12)
    assert r["gru_h"] == pytest.approx(list(g), abs=1e-12)
    assert r["max_abs_lstm_c"] == pytest.approx(np.max(np.abs(c)), abs=1e-12)
    assert r["max_abs_gru_h"] == pytest.approx(np.max(np.abs(g)), abs=1e-12)
    s = 1 / (1 + math.exp(-2.0))
    assert r["gates"]["f"] == pytest.approx(s) and r["gates"]["z"] == pytest.approx(1 - s)
    assert r["gates"]["gru_keep"] == pytest.approx(r["gates"]["f"])          # the same keep factor


def test_cell_state_leaves_the_unit_interval_and_the_hs_cannot():
    for drive in (0.5, 1.0, 3.0):
        r = ex.chapter5_trajectories(drive)
        assert r["max_abs_lstm_c"] > 1.0
        assert r["max_abs_lstm_h"] < 1.0 and r["max_abs_gru_h"] < 1.0
    maxima = [ex.chapter5_trajectories(x)["max_abs_lstm_c"] for x in (0.0, 0.5, 1.0, 2.0, 3.0)]
    assert maxima[0] == 0.0 and all(np.diff(maxima) > 0)


def test_cell_params_are_stated_weights():
    p = ex.chapter5_cell_params()
    assert p["lstm"]["W_ih"].ravel().tolist() == [0.0, 0.0, 1.0, 0.0]          # blocks i, f, g, o
    assert p["lstm"]["b_ih"].tolist() == [2.0, 2.0, 0.0, 2.0] and not p["lstm"]["W_hh"].any()
    assert p["gru"]["bz"].tolist() == [-2.0] and p["gru"]["Wh"].tolist() == [[1.0]]


@pytest.mark.parametrize("bias", [-3.0, 0.0, 1.0, 2.5, 5.0])
def test_forget_bias_against_numpy(bias):
    f = 1 / (1 + math.exp(-bias))
    r = ex.chapter5_forget_bias(bias)
    assert r["forget_gate"] == pytest.approx(f, rel=1e-14)
    assert r["T"] == [30, 100]
    assert r["retained"] == pytest.approx([f ** 30, f ** 100], rel=1e-12)
    assert r["t"] == list(range(1, 101))
    assert r["curve"] == pytest.approx(list(f ** np.arange(1.0, 101.0)), rel=1e-12)


def test_forget_bias_syllabus():
    assert sig(ex.chapter5_forget_bias(0.0)["retained"][0], 2) == 9.3e-10
    assert sig(ex.chapter5_forget_bias(1.0)["retained"][0], 2) == 8.3e-5
    assert round(ex.chapter5_forget_bias(1.0)["forget_gate"], 3) == 0.731
    assert round(ex.chapter5_forget_bias(3.0)["retained"][1], 4) == 0.0078
    with pytest.raises(ValueError):
        ex.chapter5_forget_bias(float("nan"))
