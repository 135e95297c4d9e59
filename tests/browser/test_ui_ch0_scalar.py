"""Chapter 0 in the browser: the gain and start sliders moved by keyboard and the three presets
clicked; every number the page shows is gleam's (gleam.examples.chapter0_recurrence at the
sliders' exact values)."""
import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

T = examples.chapter0_recurrence()["T"]


def open_ch0(lab):
    if lab.chapter_in_url() != "0" or lab.page.locator(".gl-ch0-a").count() == 0:
        lab.show("0")


def sliders(lab):
    return lab.model_value("gl-ch0-a"), lab.model_value("gl-ch0-h0")


def check_numbers(lab, what):
    """Every ch0 number on the page equals gleam's at the sliders' values (waits for the page)."""
    def shown_equal():
        a, h0 = sliders(lab)
        r = examples.chapter0_recurrence(a, h0)
        assert_shown(lab.text("ch0.hT"), r["h_T"], what=f"{what}: h_T")
        assert_shown(lab.text("ch0.retained"), r["retained_T"], what=f"{what}: retained")
        assert_shown(lab.text("ch0.sens1"), r["first_sensitivity"], what=f"{what}: first sensitivity")
        if r["half_life"] is None:
            assert lab.text("ch0.halflife") == f"not within {T} steps"
        else:
            assert_shown(lab.text("ch0.halflife"), r["half_life"], 1, f"{what}: half-life")
        if r["factor_half_life"] is not None:
            assert_shown(lab.text("ch0.factor"), r["factor_half_life"], 1, f"{what}: ln 0.5 / ln a")
        else:
            assert "never halves" in lab.text("ch0.factor") or "a = 0" in lab.text("ch0.factor")
        assert lab.text("ch0.error") == ""
        return r

    wait_until(shown_equal, page=lab.page, message=what)
    return examples.chapter0_recurrence(*sliders(lab))


def preset(lab, cls, a, h0):
    lab.click(cls)
    wait_until(lambda: sliders(lab) == (a, h0), page=lab.page, message=f"for {cls} to set the sliders")


def test_opens_on_factor_090_from_a_small_start(shared_lab):
    lab = shared_lab
    lab.show("0")
    p = examples.chapter0_presets()["0.90"]
    preset(lab, "gl-ch0-p090", p["a"], p["h0"])       # the first view, whatever ran before
    r = check_numbers(lab, "first view")
    assert lab.text("ch0.retained") == "0.00118" and lab.text("ch0.halflife") == "6.6"
    assert r["half_life"] is not None


@pytest.mark.parametrize("cls, keys", [("gl-ch0-a", ("ArrowLeft",) * 7), ("gl-ch0-h0", ("ArrowRight",) * 12),
                                       ("gl-ch0-a", ("End",))])
def test_sliders(shared_lab, cls, keys):
    lab = shared_lab
    open_ch0(lab)
    before_values = sliders(lab)
    before = lab.model_value(cls)
    lab.slider_keys(cls, *keys)
    wait_until(lambda: abs(lab.model_value(cls) - before) > 1e-9, page=lab.page, message=f"for {cls} to move")
    assert sliders(lab) != before_values
    check_numbers(lab, f"{cls} moved to {lab.model_value(cls)}")


def test_presets(shared_lab):
    lab = shared_lab
    open_ch0(lab)
    presets = examples.chapter0_presets()
    preset(lab, "gl-ch0-saturated", **presets["saturated"])
    r = check_numbers(lab, "a weight of one, saturated")
    assert round(r["first_sensitivity"], 2) == 0.07 and lab.text("ch0.sens1") == "0.0707"
    assert lab.text("ch0.factor") == "never halves (a = 1)"
    preset(lab, "gl-ch0-p099", **presets["0.99"])
    check_numbers(lab, "factor 0.99")
    assert lab.text("ch0.factor") == "69.0"
    preset(lab, "gl-ch0-p090", **presets["0.90"])
    check_numbers(lab, "factor 0.90")
    assert lab.text("ch0.factor") == "6.6"


def test_a_zero_gain_says_so(shared_lab):
    lab = shared_lab
    open_ch0(lab)
    lab.slider_keys("gl-ch0-a", "Home")
    wait_until(lambda: lab.model_value("gl-ch0-a") == 0.0, page=lab.page, message="for a = 0")
    check_numbers(lab, "a = 0")
    assert "a = 0" in lab.text("ch0.factor")
    p = examples.chapter0_presets()["0.90"]
    preset(lab, "gl-ch0-p090", p["a"], p["h0"])
