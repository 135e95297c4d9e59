"""Chapter 1 in the browser: stepping the Elman cell through "abc" shows, at each step, what
gleam.cells.elman_step computes on the hand example; Reset goes back to h_0 = 0; the W_h scale
slider at 0 removes the recurrent term."""
import numpy as np
import pytest

from gleam import cells, examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

VOCAB = examples.VOCAB_ABC


def expected_run(text="abc", wh_scale=1.0):
    """gleam's Elman steps over `text` from h_0 = 0: one cache per step (Wx_x, Wh_h, a, h)."""
    p = examples.chapter1_params()
    p["Wh"] = p["Wh"] * wh_scale
    h, out = np.zeros(2), []
    for ch in text:
        h, cache = cells.elman_step(np.eye(len(VOCAB))[VOCAB.index(ch)], h, p)
        out.append(cache)
    return out


def open_ch1(lab):
    if lab.chapter_in_url() != "1" or lab.page.locator(".gl-ch1-step").count() == 0:
        lab.show("1")


def set_slider(lab, cls, target):
    """Move a slider by keyboard (Home, then arrows of one step each) to `target`."""
    start, step = lab.model_value(cls, "start"), lab.model_value(cls, "step")
    presses = round((target - start) / step)
    assert abs(start + presses * step - target) < 1e-9, f"{target} is not on {cls}'s grid"
    lab.slider_keys(cls, "Home", *(["ArrowRight"] * presses))
    wait_until(lambda: abs(lab.model_value(cls) - target) < 1e-9, page=lab.page,
               message=f"for {cls} to reach {target}")


def reset(lab):
    lab.click("gl-ch1-reset")
    lab.wait_text("ch1.step", lambda t: t == "0", what="== 0 after Reset")


def check_state_shown(lab, cache, t, ch):
    """All of step t's numbers on the page equal gleam's, to the 4 decimals shown."""
    assert lab.text("ch1.input") == ch
    for i in range(2):
        assert_shown(lab.text(f"ch1.x.{i}"), cache["Wx_x"][i], 4, f"step {t} ch1.x.{i}")
        assert_shown(lab.text(f"ch1.rec.{i}"), cache["Wh_h"][i], 4, f"step {t} ch1.rec.{i}")
        assert_shown(lab.text(f"ch1.pre.{i}"), cache["a"][i], 4, f"step {t} ch1.pre.{i}")
        assert_shown(lab.text(f"ch1.h.{i}"), cache["h"][i], 4, f"step {t} ch1.h.{i}")


def step_through(lab, run, text="abc"):
    for t, (cache, ch) in enumerate(zip(run, text), start=1):
        lab.click("gl-ch1-step")
        lab.wait_text("ch1.step", lambda s, t=t: s == str(t), what=f"== {t}")
        check_state_shown(lab, cache, t, ch)


def test_step_and_reset(shared_lab):
    lab = shared_lab
    open_ch1(lab)
    if abs(lab.model_value("gl-ch1-scale") - 1.0) > 1e-9:
        set_slider(lab, "gl-ch1-scale", 1.0)
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
    set_slider(lab, "gl-ch1-scale", 0.0)
    reset(lab)
    run = expected_run(wh_scale=0.0)
    for cache in run:
        assert np.all(cache["Wh_h"] == 0)
    step_through(lab, run)
    for i in range(2):
        assert_shown(lab.text(f"ch1.rec.{i}"), 0.0, 4, f"ch1.rec.{i} at scale 0")
    # back to the default weights: the same three characters give the hand example again
    set_slider(lab, "gl-ch1-scale", 1.0)
    reset(lab)
    step_through(lab, expected_run())
