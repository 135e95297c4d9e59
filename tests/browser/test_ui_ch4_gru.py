"""Chapter 4 in the browser: the GRU hand example's gates, pinned by sliders, against gleam.

Expected values come from gleam.examples.chapter4_pinned_gates: gleam's cell on the hand
example's weights with a gate pinned the way any GRU can be made to output a constant gate
(gleam.cells.pin_gates: zero its input and recurrent weights, give it the bias logit(value)).
"""
import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

H_PREV = examples.chapter4_gru_hand_example("textbook")["h_prev"]


def expected(convention="textbook", z=None, r=None):
    """gleam's step on the hand example with some units' gates pinned (z / r: dicts unit ->
    value; gleam.examples.chapter4_pinned_gates). Returns key -> value for every ch4.* number."""
    res = examples.chapter4_pinned_gates(z, r, convention)
    keep_T = res[f"carry_multiplier_{res['T']}"]
    out = {}
    for i in range(2):
        out.update({f"ch4.z.{i}": res["z"][i], f"ch4.r.{i}": res["r"][i], f"ch4.htilde.{i}": res["candidate"][i],
                    f"ch4.h.{i}": res["h"][i], f"ch4.keep.{i}": res["carry_multiplier"][i],
                    f"ch4.keep20.{i}": keep_T[i]})
    return out


def check_all(lab, want, what):
    """Every ch4 number on the page equals gleam's (waits for the page to catch up first)."""
    def shown_equal():
        for key, value in want.items():
            assert_shown(lab.text(key), value, 4, f"{what}: {key}")

    wait_until(shown_equal, page=lab.page, message=what)


def open_ch4(lab):
    if lab.chapter_in_url() != "4" or lab.page.locator(".gl-ch4-z1").count() == 0:
        lab.show("4")


def convention(lab):
    """The label of the convention toggle's active button (a Bokeh RadioButtonGroup)."""
    active = lab.model_value("gl-ch4-convention", "active")
    return lab.model_value("gl-ch4-convention", "labels")[active]


def textbook_hand_example(lab):
    """Back to the starting point: textbook convention, hand-example gates."""
    if convention(lab) != "textbook":
        lab.click("gl-ch4-convention", "textbook")
        wait_until(lambda: convention(lab) == "textbook", page=lab.page)
    lab.click("gl-ch4-preset-hand")
    check_all(lab, expected(), "hand example (textbook)")


def test_opens_on_hand_example(shared_lab):
    lab = shared_lab
    lab.show("4")
    assert convention(lab) == "textbook"
    check_all(lab, expected(), "first view")
    # the sliders open on the example's gate values
    want = expected()
    for name, key in (("z1", "ch4.z.0"), ("z2", "ch4.z.1"), ("r1", "ch4.r.0"), ("r2", "ch4.r.1")):
        assert abs(lab.model_value(f"gl-ch4-{name}") - want[key]) < 1e-12, name


@pytest.mark.parametrize("gate, unit, keys", [("z", 0, ("ArrowRight",) * 5), ("r", 1, ("ArrowLeft",) * 5)])
def test_slider_pins_gate(shared_lab, gate, unit, keys):
    lab = shared_lab
    open_ch4(lab)
    textbook_hand_example(lab)
    cls = f"gl-ch4-{gate}{unit + 1}"
    before = lab.model_value(cls)
    lab.slider_keys(cls, *keys)
    wait_until(lambda: abs(lab.model_value(cls) - before) > 1e-6, page=lab.page,
               message=f"for {cls} to move")
    page_value = lab.model_value(cls)          # the slider's exact value, as sent to Python
    want = expected(**{gate: {unit: page_value}})
    assert want != expected()
    check_all(lab, want, f"{gate}{unit + 1} pinned at {page_value}")
    textbook_hand_example(lab)


def test_convention_toggle(shared_lab):
    lab = shared_lab
    open_ch4(lab)
    textbook_hand_example(lab)
    lab.click("gl-ch4-convention", "PyTorch")
    torch = expected("torch")
    assert any(abs(torch[k] - expected()[k]) > 1e-3 for k in ("ch4.h.0", "ch4.h.1")), \
        "the two conventions should differ on the hand example"
    check_all(lab, torch, "PyTorch convention")
    lab.click("gl-ch4-convention", "textbook")
    check_all(lab, expected(), "back to textbook")


def test_presets(shared_lab):
    lab = shared_lab
    open_ch4(lab)
    textbook_hand_example(lab)
    lab.click("gl-ch4-preset-hold")
    # unit 1 writes (z = 1: h = h̃), unit 2 holds (z = 0: h = h_{t−1})
    hold = expected(z={0: 1.0, 1: 0.0})
    assert hold["ch4.h.0"] == hold["ch4.htilde.0"] and hold["ch4.h.1"] == H_PREV[1]
    check_all(lab, hold, "preset: unit 1 writes, unit 2 holds")
    assert lab.model_value("gl-ch4-z1") == 1.0 and lab.model_value("gl-ch4-z2") == 0.0
    lab.click("gl-ch4-preset-hand")
    check_all(lab, expected(), "preset: back to the hand example")


def test_a_preset_keeps_its_meaning_when_the_convention_changes(shared_lab):
    """"Unit 1 writes, unit 2 holds", then PyTorch's convention (where z keeps): the sliders flip
    to z = (0, 1) so that the units still do what the button says, and the labels say keep."""
    lab = shared_lab
    open_ch4(lab)
    textbook_hand_example(lab)
    lab.click("gl-ch4-preset-hold")
    check_all(lab, expected(z={0: 1.0, 1: 0.0}), "preset: unit 1 writes, unit 2 holds")
    lab.click("gl-ch4-convention", "PyTorch")
    wait_until(lambda: (lab.model_value("gl-ch4-z1"), lab.model_value("gl-ch4-z2")) == (0.0, 1.0),
               page=lab.page, message="for the z sliders to flip to PyTorch's keep gate")
    hold = expected("torch", z={0: 0.0, 1: 1.0})
    assert hold["ch4.h.0"] == hold["ch4.htilde.0"] and hold["ch4.h.1"] == H_PREV[1]
    check_all(lab, hold, "the same preset under PyTorch's convention")
    assert lab.model_value("gl-ch4-z1", "title") == "z₁ (keep)"
    assert lab.text("ch4.preset") == "unit 1 writes, unit 2 holds"
    lab.click("gl-ch4-convention", "textbook")
    wait_until(lambda: lab.model_value("gl-ch4-z1", "title") == "z₁ (write)", page=lab.page,
               message="for the slider to say write again")
    textbook_hand_example(lab)
