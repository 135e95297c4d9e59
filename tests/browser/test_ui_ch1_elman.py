"""Chapter 1 in the browser: stepping the Elman cell through "abc" shows, at each step, what
gleam.cells.elman_step computes on the hand example (through gleam.examples.chapter1_hand_example);
Reset goes back to h_0 = 0; the W_h scale slider at 0 removes the recurrent term; the input box
and the saturation preset run the cell on other inputs; Step stops, and says so, at the end."""
import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

VOCAB = examples.VOCAB_ABC


def expected_run(text="abc", wh_scale=1.0):
    """gleam's Elman steps over `text` from h_0 = 0 (gleam.examples.chapter1_hand_example)."""
    return examples.chapter1_hand_example(text=text, wh_scale=wh_scale)["steps"]


def open_ch1(lab):
    if lab.chapter_in_url() != "1" or lab.page.locator(".gl-ch1-step").count() == 0:
        lab.show("1")


def reset(lab):
    lab.click("gl-ch1-reset")
    lab.wait_text("ch1.step", lambda t: t == "0", what="== 0 after Reset")


def check_state_shown(lab, step, t, ch):
    """All of step t's numbers on the page equal gleam's, to the 4 decimals shown."""
    assert lab.text("ch1.input") == ch
    for i in range(2):
        assert_shown(lab.text(f"ch1.x.{i}"), step["input_column"][i], 4, f"step {t} ch1.x.{i}")
        assert_shown(lab.text(f"ch1.rec.{i}"), step["recurrent_term"][i], 4, f"step {t} ch1.rec.{i}")
        assert_shown(lab.text(f"ch1.pre.{i}"), step["pre_activation"][i], 4, f"step {t} ch1.pre.{i}")
        assert_shown(lab.text(f"ch1.h.{i}"), step["state"][i], 4, f"step {t} ch1.h.{i}")


def step_through(lab, run, text="abc"):
    for t, (cache, ch) in enumerate(zip(run, text), start=1):
        lab.click("gl-ch1-step")
        lab.wait_text("ch1.step", lambda s, t=t: s == str(t), what=f"== {t}")
        check_state_shown(lab, cache, t, ch)


def test_step_and_reset(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    if abs(lab.model_value("gl-ch1-scale") - 1.0) > 1e-9:
        lab.set_slider("gl-ch1-scale", 1.0)
    reset(lab)
    for i in range(2):
        assert_shown(lab.text(f"ch1.h.{i}"), 0.0, 4, f"h_0 ch1.h.{i}")
    run = expected_run()
    step_through(lab, run)
    # the syllabus's states, through gleam, not typed: the last one is h_3
    reset(lab)
    for i in range(2):
        assert_shown(lab.text(f"ch1.h.{i}"), 0.0, 4, f"after Reset ch1.h.{i}")
    # after Reset the first step starts again from h_0 = 0
    step_through(lab, run[:1], "a")


def test_wh_scale_zero_is_memoryless(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    lab.set_slider("gl-ch1-scale", 0.0)
    reset(lab)
    run = expected_run(wh_scale=0.0)
    for step in run:
        assert step["recurrent_term"] == [0.0, 0.0]
    step_through(lab, run)
    for i in range(2):
        assert_shown(lab.text(f"ch1.rec.{i}"), 0.0, 4, f"ch1.rec.{i} at scale 0")
    # back to the default weights: the same three characters give the hand example again
    lab.set_slider("gl-ch1-scale", 1.0)
    reset(lab)
    step_through(lab, expected_run())


def set_text(lab, text):
    lab.fill("gl-ch1-text", text, selector="input")
    wait_until(lambda: lab.model_value("gl-ch1-text") == text, page=lab.page,
               message=f"for the input box to hold {text!r}")


def test_the_end_of_the_input_is_said_and_step_disabled(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    reset(lab)
    step_through(lab, expected_run(wh_scale=lab.model_value("gl-ch1-scale")))
    lab.wait_text("ch1.message", lambda t: "End of the input" in t, what="the end-of-input message")
    wait_until(lambda: lab.model_value("gl-ch1-step", "disabled") is True, page=lab.page,
               message="for Step to be disabled")
    reset(lab)
    wait_until(lambda: lab.model_value("gl-ch1-step", "disabled") is False, page=lab.page,
               message="for Step to be enabled again")


def test_own_input_and_the_saturation_preset(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    lab.set_slider("gl-ch1-scale", 1.0)
    reset(lab)
    set_text(lab, "cab")
    step_through(lab, expected_run("cab"), "cab")
    set_text(lab, "abd")                                   # refused: the last input stays in use
    lab.wait_text("ch1.message", lambda t: t.startswith("Input not used"), what="a refusal")
    assert lab.text("ch1.step") == "3"
    lab.click("gl-ch1-saturate")
    wait_until(lambda: lab.model_value("gl-ch1-text") == "aaaaaaaa" and lab.model_value("gl-ch1-scale") == 2.0,
               page=lab.page, message="for the saturation preset's input and scale")
    lab.wait_text("ch1.step", lambda t: t == "0", what="0 for a new input")
    step_through(lab, expected_run("aaaaaaaa", 2.0)[:3], "aaa")
    set_text(lab, "abc")
    lab.set_slider("gl-ch1-scale", 1.0)
    reset(lab)


def test_a_long_paste_is_refused_with_its_length_not_cut(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    reset(lab)
    pasted = "abc" * 20
    field = lab.page.locator(".gl-ch1-text input").first
    field.select_text()
    lab.page.keyboard.insert_text(pasted)                                # as a paste does
    field.press("Enter")
    wait_until(lambda: lab.model_value("gl-ch1-text") == pasted, page=lab.page, message="for the whole paste")
    message = lab.wait_text("ch1.message", lambda t: "Input not used" in t, what="the refusal")
    assert f"got {len(pasted)}" in message and str(examples.MAX_TEXT) in message
    lab.click("gl-ch1-step")                                             # the last input still steps
    lab.wait_text("ch1.input", lambda t: t == "a", what="the first character of the input in use")
    set_text(lab, "abc")
    lab.wait_text("ch1.message", lambda t: t == "", what="the message to clear")
