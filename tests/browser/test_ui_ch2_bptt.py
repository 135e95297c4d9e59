"""Chapter 2 in the browser: the hand example's backward pass walked with Backward one step /
Reset, its w and u sliders, and the truncation window's u and k sliders; every number the page
shows is gleam's (gleam.examples.chapter2_backward_walk / chapter2_truncation_window at the
widgets' exact values)."""
import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

FORWARD = {"x": "x", "hprev": "h_prev", "h": "h", "dtanh": "tanh_derivative"}
BACKWARD = {"delta": "delta", "dw": "dL_dw_term", "du": "dL_du_term"}


def open_ch2(lab):
    if lab.chapter_in_url() != "2" or lab.page.locator(".gl-ch2-back").count() == 0:
        lab.show("2")


def check_walk(lab, walked, what):
    """Part 1 equals gleam's walk at the sliders' w, u after `walked` backward steps."""
    def shown_equal():
        r = examples.chapter2_backward_walk(lab.model_value("gl-ch2-w"), lab.model_value("gl-ch2-u"))
        assert lab.text("ch2.walked") == str(walked)
        for s in r["steps"]:
            t = s["t"]
            for key, field in FORWARD.items():
                assert_shown(lab.text(f"ch2.{key}.{t}"), s[field], 4, f"{what}: {key}.{t}")
            for key, field in BACKWARD.items():
                if t > 3 - walked:
                    assert_shown(lab.text(f"ch2.{key}.{t}"), s[field], 4, f"{what}: {key}.{t}")
                else:
                    assert lab.text(f"ch2.{key}.{t}") == "—", f"{what}: {key}.{t} shown too early"
        assert_shown(lab.text("ch2.loss"), r["loss"], 4, f"{what}: loss")
        assert_shown(lab.text("ch2.sum_dw"), r["running"][walked]["dL_dw"], 4, f"{what}: dL/dw so far")
        assert_shown(lab.text("ch2.sum_du"), r["running"][walked]["dL_du"], 4, f"{what}: dL/du so far")
        return r

    wait_until(shown_equal, page=lab.page, message=what)
    return examples.chapter2_backward_walk(lab.model_value("gl-ch2-w"), lab.model_value("gl-ch2-u"))


def reset(lab):
    lab.click("gl-ch2-reset")
    lab.wait_text("ch2.walked", lambda t: t == "0", what="0 after Reset")


def back(lab, walked):
    lab.click("gl-ch2-back")
    lab.wait_text("ch2.walked", lambda t: t == str(walked), what=str(walked))


def test_backward_one_step_at_a_time(shared_lab):
    lab = shared_lab
    lab.show("2")
    reset(lab)
    check_walk(lab, 0, "before the backward pass")
    for walked in (1, 2, 3):
        back(lab, walked)
        r = check_walk(lab, walked, f"after {walked} backward steps")
    assert r["running"][3]["dL_dw"] == r["dL_dw"] and lab.text("ch2.du.1") == "0.0000"   # h_0 = 0
    reset(lab)
    check_walk(lab, 0, "after Reset")


def test_syllabus_example_at_the_defaults(shared_lab):
    lab = shared_lab
    open_ch2(lab)
    # every test here leaves the sliders where it found them: the page's defaults
    assert (lab.model_value("gl-ch2-w"), lab.model_value("gl-ch2-u")) == (0.8, 0.9)
    reset(lab)
    for walked in (1, 2, 3):
        back(lab, walked)
    assert (lab.text("ch2.sum_dw"), lab.text("ch2.sum_du"), lab.text("ch2.loss")) == ("0.0826", "0.0647", "0.0887")


UNDO = {"ArrowRight": "ArrowLeft", "ArrowLeft": "ArrowRight"}


@pytest.mark.parametrize("cls, keys", [("gl-ch2-u", ("ArrowRight",) * 4), ("gl-ch2-w", ("ArrowLeft",) * 3)])
def test_weight_sliders(shared_lab, cls, keys):
    lab = shared_lab
    open_ch2(lab)
    reset(lab)
    back(lab, 1)
    before = lab.model_value(cls)
    lab.slider_keys(cls, *keys)
    wait_until(lambda: abs(lab.model_value(cls) - before) > 1e-9, page=lab.page, message=f"for {cls} to move")
    check_walk(lab, 1, f"{cls} at {lab.model_value(cls)}")
    back(lab, 2)
    back(lab, 3)
    check_walk(lab, 3, f"{cls} at {lab.model_value(cls)}, walked through")
    reset(lab)
    lab.slider_keys(cls, *(UNDO[k] for k in keys))             # back where it was
    wait_until(lambda: abs(lab.model_value(cls) - before) < 1e-9, page=lab.page, message=f"for {cls} to return")
    check_walk(lab, 0, f"{cls} back at {before}")


def check_window(lab, what):
    def shown_equal():
        r = examples.chapter2_truncation_window(lab.model_value("gl-ch2-tu"), lab.model_value("gl-ch2-k"))
        assert_shown(lab.text("ch2.share"), 100 * r["share_kept"], 1, f"{what}: share kept")
        assert_shown(lab.text("ch2.trunc_dw"), r["dL_dw_truncated"], 4, f"{what}: truncated dL/dw")
        assert_shown(lab.text("ch2.full_dw"), r["dL_dw"], 4, f"{what}: full dL/dw")

    wait_until(shown_equal, page=lab.page, message=what)
    return examples.chapter2_truncation_window(lab.model_value("gl-ch2-tu"), lab.model_value("gl-ch2-k"))


def test_truncation_window(shared_lab):
    lab = shared_lab
    open_ch2(lab)
    check_window(lab, "as found")
    lab.slider_keys("gl-ch2-k", "End")                     # keep all 12 steps: nothing truncated
    wait_until(lambda: lab.model_value("gl-ch2-k") == 12, page=lab.page, message="for k = 12")
    check_window(lab, "k = 12")
    assert lab.text("ch2.trunc_dw") == lab.text("ch2.full_dw") and lab.text("ch2.share") == "100.0"
    lab.slider_keys("gl-ch2-k", "Home", "ArrowRight")      # k = 2
    wait_until(lambda: lab.model_value("gl-ch2-k") == 2, page=lab.page, message="for k = 2")
    check_window(lab, "k = 2")
    lab.slider_keys("gl-ch2-k", "ArrowRight", "ArrowRight")  # back to the default window, k = 4
    wait_until(lambda: lab.model_value("gl-ch2-k") == 4, page=lab.page, message="for k = 4")
    check_window(lab, "k = 4")


def test_far_bars_grow_with_u(shared_lab):
    lab = shared_lab
    open_ch2(lab)
    lab.slider_keys("gl-ch2-tu", "Home", *(["ArrowRight"] * 6))          # u = 0.30
    wait_until(lambda: abs(lab.model_value("gl-ch2-tu") - 0.3) < 1e-9, page=lab.page, message="for u = 0.3")
    low = check_window(lab, "u = 0.3")
    lab.slider_keys("gl-ch2-tu", *(["ArrowRight"] * 12))                 # u = 0.90
    wait_until(lambda: abs(lab.model_value("gl-ch2-tu") - 0.9) < 1e-9, page=lab.page, message="for u = 0.9")
    high = check_window(lab, "u = 0.9")
    assert high["share_kept"] < low["share_kept"]
    assert high["abs_contributions"][0] > 100 * low["abs_contributions"][0]
