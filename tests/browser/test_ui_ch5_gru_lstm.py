"""Chapter 5 in the browser: the input drive moves both cells' trajectories (LSTM c leaves
[−1, 1], the h's do not), the counter follows typed sizes and refuses bad ones with a message,
and the forget-bias slider gives σ(b)^30 and σ(b)^100 — all against gleam.examples at the
controls' exact values."""
import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui


def open_ch5(lab):
    if lab.chapter_in_url() != "5" or lab.page.locator(".gl-ch5-drive").count() == 0:
        lab.show("5")


def check(lab, want, what):
    def shown_equal():
        for key, (x, decimals) in want.items():
            assert_shown(lab.text(key), x, decimals, f"{what}: {key}")

    wait_until(shown_equal, page=lab.page, message=what)


def check_run(lab, what):
    drive = lab.model_value("gl-ch5-drive")
    r = examples.chapter5_trajectories(drive)
    check(lab, {"ch5.maxc": (r["max_abs_lstm_c"], 4), "ch5.maxh_lstm": (r["max_abs_lstm_h"], 4),
                "ch5.maxh_gru": (r["max_abs_gru_h"], 4), "ch5.gate.f": (r["gates"]["f"], 4),
                "ch5.gate.z": (r["gates"]["z"], 4), "ch5.gate.gru_keep": (r["gates"]["gru_keep"], 4)},
          f"{what} (drive {drive})")
    return r


def check_counts(lab, d, n, what):
    c = examples.chapter5_counts(d, n)
    check(lab, {"ch5.gru_params": (c["gru_params"], 0), "ch5.lstm_params": (c["lstm_params"], 0),
                "ch5.gru_macs": (c["gru_macs"], 0), "ch5.lstm_macs": (c["lstm_macs"], 0),
                "ch5.match_n": (c["gru_width_matching_lstm"], 0), "ch5.match_params": (c["gru_matching_params"], 0),
                "ch5.saving": (100 * c["gru_saving"], 0)}, what)
    assert lab.text("ch5.count_error") == ""


def check_keep(lab, what):
    bias = lab.model_value("gl-ch5-bias")
    k = examples.chapter5_forget_bias(bias)
    check(lab, {"ch5.forget": (k["forget_gate"], 4), "ch5.keep30": (k["retained"][0], None),
                "ch5.keep100": (k["retained"][1], None)}, f"{what} (bias {bias})")
    return k


def type_size(lab, name, text):
    lab.fill(f"gl-ch5-{name}", text, selector="input")


def test_opens_on_the_defaults(shared_lab):
    lab = shared_lab
    open_ch5(lab)
    lab.set_slider("gl-ch5-drive", 1.0)
    lab.set_slider("gl-ch5-bias", 1.0)
    r = check_run(lab, "first view")
    assert r["max_abs_lstm_c"] > 1 > r["max_abs_gru_h"]
    if (lab.model_value("gl-ch5-d"), lab.model_value("gl-ch5-n")) != (128, 256):
        type_size(lab, "d", "128")
        type_size(lab, "n", "256")
    check_counts(lab, 128, 256, "the syllabus's sizes")
    assert (lab.text("ch5.gru_params"), lab.text("ch5.lstm_params"), lab.text("ch5.match_n")) == \
           ("295,680", "394,240", "304")
    check_keep(lab, "first view")


def test_drive_slider(shared_lab):
    lab = shared_lab
    open_ch5(lab)
    lab.set_slider("gl-ch5-drive", 1.0)
    lab.slider_keys("gl-ch5-drive", *["ArrowRight"] * 10)          # 1.0 -> 1.5
    wait_until(lambda: abs(lab.model_value("gl-ch5-drive") - 1.5) < 1e-6, page=lab.page, message="drive 1.5")
    r = check_run(lab, "drive raised")
    assert r["max_abs_lstm_c"] > 5 and r["max_abs_gru_h"] < 1 and r["max_abs_lstm_h"] < 1
    lab.slider_keys("gl-ch5-drive", "Home")
    wait_until(lambda: lab.model_value("gl-ch5-drive") == 0.0, page=lab.page, message="drive 0")
    check_run(lab, "no input")
    assert lab.text("ch5.maxc") == "0.0000"
    lab.slider_keys("gl-ch5-drive", "End")
    wait_until(lambda: lab.model_value("gl-ch5-drive") == 3.0, page=lab.page, message="drive 3")
    check_run(lab, "full drive")
    lab.set_slider("gl-ch5-drive", 1.0)
    check_run(lab, "back to the default")


def test_counter_typed_sizes_and_bad_input(shared_lab):
    lab = shared_lab
    open_ch5(lab)
    type_size(lab, "d", "64")
    type_size(lab, "n", "1000")
    wait_until(lambda: (lab.model_value("gl-ch5-d"), lab.model_value("gl-ch5-n")) == (64, 1000),
               page=lab.page, message="for d = 64, n = 1000")
    check_counts(lab, 64, 1000, "d = 64, n = 1000")
    for name, text, word in (("n", "0", "got 0"), ("d", "-5", "got -5"), ("n", "1000000", "got 1000000"),
                             ("d", "", "got None")):
        type_size(lab, name, text)
        msg = lab.wait_text("ch5.count_error", lambda t, word=word: word in t, what=f"a message for {name} = {text!r}")
        assert msg.startswith("Not counted") and "100000" in msg
        assert lab.text("ch5.gru_params") == "—"
        type_size(lab, name, "64" if name == "d" else "1000")
        lab.wait_text("ch5.count_error", lambda t: t == "", what="cleared")
        check_counts(lab, 64, 1000, f"after {name} = {text!r} was corrected")
    type_size(lab, "d", "128")
    type_size(lab, "n", "256")
    check_counts(lab, 128, 256, "back to the syllabus's sizes")


def test_forget_bias_slider(shared_lab):
    lab = shared_lab
    open_ch5(lab)
    lab.set_slider("gl-ch5-bias", 1.0)
    lab.slider_keys("gl-ch5-bias", *["PageDown"] * 2)                # 1.0 -> 0.0
    wait_until(lambda: abs(lab.model_value("gl-ch5-bias")) < 1e-9, page=lab.page, message="bias 0")
    check_keep(lab, "bias 0")
    assert lab.text("ch5.keep30") == "9.31e-10"                      # the syllabus's 9.3e−10
    lab.set_slider("gl-ch5-bias", 3.0)
    k = check_keep(lab, "bias 3")
    assert lab.text("ch5.keep100") == "0.0078" and round(k["retained"][1], 4) == 0.0078
    lab.slider_keys("gl-ch5-bias", "Home")
    wait_until(lambda: lab.model_value("gl-ch5-bias") == -3.0, page=lab.page, message="bias -3")
    check_keep(lab, "bias -3")
    lab.set_slider("gl-ch5-bias", 1.0)
    check_keep(lab, "back to the default")
