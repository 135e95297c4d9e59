"""Chapter 5 without a browser: the input drive, the live counter (with bad sizes) and the
forget-bias slider, read from the page's values and figures against gleam.examples."""
import math

from gleam_lab.app.chapters.ch5_gru_lstm import GRUvsLSTMChapter
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_gate
from gleam import examples
from gleam import costs as counting
from surface import figure_data, find, set_value, shown

COUNT_KEYS = ("ch5.gru_params", "ch5.lstm_params", "ch5.gru_macs", "ch5.lstm_macs", "ch5.match_n", "ch5.match_params")


def test_opens_on_the_defaults():
    c = GRUvsLSTMChapter()
    v = c.values()
    r = examples.chapter5_trajectories(1.0)
    assert find(c, "gl-ch5-drive").value == 1.0
    assert v["ch5.maxc"] == fmt_fixed(r["max_abs_lstm_c"], 4) and float(v["ch5.maxc"]) > 1
    assert v["ch5.maxh_gru"] == fmt_fixed(r["max_abs_gru_h"], 4) and float(v["ch5.maxh_gru"]) < 1
    assert v["ch5.maxh_lstm"] == fmt_fixed(r["max_abs_lstm_h"], 4)
    assert v["ch5.gate.f"] == v["ch5.gate.gru_keep"] == fmt_fixed(1 / (1 + math.exp(-2)), 4)
    assert (v["ch5.gru_params"], v["ch5.lstm_params"], v["ch5.match_n"]) == ("295,680", "394,240", "304")
    assert v["ch5.match_params"] == fmt_comma(counting.param_count("gru", 128, 304))
    assert v["ch5.saving"] == "25" and v["ch5.count_error"] == ""
    assert v["ch5.forget"] == fmt_fixed(1 / (1 + math.exp(-1)), 4)
    assert v["ch5.keep30"] == fmt_gate((1 / (1 + math.exp(-1))) ** 30) == "8.29e-05"
    assert shown(c) == v
    states = figure_data(c, "gl-ch5-states")                   # the first line: LSTM c
    assert list(states["x"]) == list(range(31)) and list(states["y"]) == r["lstm_c"]


def test_drive_moves_the_trajectories():
    c = GRUvsLSTMChapter()
    for drive in (0.0, 0.1, 2.5):
        set_value(c, "gl-ch5-drive", drive)
        r = examples.chapter5_trajectories(drive)
        v = c.values()
        assert v["ch5.maxc"] == fmt_fixed(r["max_abs_lstm_c"], 4)
        assert v["ch5.maxh_gru"] == fmt_fixed(r["max_abs_gru_h"], 4)
        assert list(figure_data(c, "gl-ch5-states")["y"]) == r["lstm_c"]
        assert shown(c) == v
    assert float(c.values()["ch5.maxc"]) > 7 and float(c.values()["ch5.maxh_gru"]) < 1
    set_value(c, "gl-ch5-drive", 0.0)
    assert c.values()["ch5.maxc"] == c.values()["ch5.maxh_gru"] == "0.0000"


def test_counter_follows_d_and_n():
    c = GRUvsLSTMChapter()
    set_value(c, "gl-ch5-d", 64)
    set_value(c, "gl-ch5-n", 1000)
    v = c.values()
    lstm = 4 * (1000 * 64 + 1000 ** 2 + 1000)
    assert v["ch5.gru_params"] == fmt_comma(3 * (1000 * 64 + 1000 ** 2 + 1000))
    assert v["ch5.lstm_params"] == fmt_comma(lstm)
    assert v["ch5.lstm_macs"] == fmt_comma(4 * (1000 * 64 + 1000 ** 2))
    assert v["ch5.match_n"] == str(examples.chapter5_counts(64, 1000)["gru_width_matching_lstm"])
    assert shown(c) == v


def test_bad_sizes_show_a_message_and_recover():
    c = GRUvsLSTMChapter()
    for key, bad, word in (("d", None, "None"), ("n", 0, "0"), ("d", -5, "-5"), ("n", 10 ** 7, "10000000"),
                           ("d", 100_001, "100001")):
        set_value(c, f"gl-ch5-{key}", bad)
        v = c.values()
        assert v["ch5.count_error"].startswith("Not counted:") and word in v["ch5.count_error"]
        assert "100000" in v["ch5.count_error"]
        assert all(v[k] == "—" for k in COUNT_KEYS)
        assert shown(c) == v
        set_value(c, f"gl-ch5-{key}", 128 if key == "d" else 256)
        assert c.values()["ch5.count_error"] == "" and c.values()["ch5.gru_params"] == "295,680"


def test_forget_bias_slider():
    c = GRUvsLSTMChapter()
    for bias, keep30, keep100 in ((0.0, "9.31e-10", None), (3.0, None, "0.0078"), (-3.0, None, None), (5.0, None, None)):
        set_value(c, "gl-ch5-bias", bias)
        r = examples.chapter5_forget_bias(bias)
        f = 1 / (1 + math.exp(-bias))
        v = c.values()
        assert v["ch5.forget"] == fmt_fixed(f, 4)
        assert v["ch5.keep30"] == fmt_gate(f ** 30) and v["ch5.keep100"] == fmt_gate(f ** 100)
        assert keep30 in (None, v["ch5.keep30"]) and keep100 in (None, v["ch5.keep100"])
        assert list(figure_data(c, "gl-ch5-kept")["y"]) == r["curve"]
        assert shown(c) == v
    assert "e-" in c.values()["ch5.keep100"] or c.values()["ch5.keep100"].startswith("0.")
