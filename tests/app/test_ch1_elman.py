"""Chapter 1 without a browser: Step / Reset and the W_h scale, read from the page's values."""
import numpy as np
import pytest

from gleam_lab.app.chapters.ch1_elman import ElmanChapter
from gleam_lab.content import fmt_fixed
from gleam import examples
from surface import click, figure_data, find, html_with, set_value, shown


def test_step_three_times_gives_gleams_states():
    c = ElmanChapter()
    assert c.values()["ch1.step"] == "0"
    run = examples.chapter1_hand_example()
    for t in range(3):
        click(c, "gl-ch1-step")
        v = c.values()
        s = run["steps"][t]
        assert v["ch1.step"] == str(t + 1) and v["ch1.input"] == "abc"[t]
        for i in range(2):
            assert v[f"ch1.h.{i}"] == fmt_fixed(s["state"][i], 4)
            assert v[f"ch1.x.{i}"] == fmt_fixed(s["input_column"][i], 4)
            assert v[f"ch1.rec.{i}"] == fmt_fixed(s["recurrent_term"][i], 4)
            assert v[f"ch1.pre.{i}"] == fmt_fixed(s["pre_activation"][i], 4)
    # the syllabus's printed states
    assert (v["ch1.h.0"], v["ch1.h.1"]) == ("0.1845", "-0.0277")
    # the page shows exactly these texts
    assert shown(c) == v
    click(c, "gl-ch1-step")                             # nothing after the last character
    assert c.values()["ch1.step"] == "3"
    click(c, "gl-ch1-reset")
    assert c.values()["ch1.step"] == "0" and c.values()["ch1.h.0"] == "0.0000"
    assert shown(c) == c.values()


def test_scale_zero_is_memoryless():
    c = ElmanChapter()
    for _ in range(3):
        click(c, "gl-ch1-step")
    set_value(c, "gl-ch1-scale", 0.0)
    v = c.values()
    assert v["ch1.rec.0"] == v["ch1.rec.1"] == "0.0000"
    # the state is tanh(column c of W_x + b) alone
    p = examples.chapter1_params()
    expect = np.tanh(p["Wx"][:, 2] + p["b"])
    assert (v["ch1.h.0"], v["ch1.h.1"]) == tuple(fmt_fixed(x, 4) for x in expect)
    bars = figure_data(c, "gl-ch1-bars")
    assert bars["top"][2:4] == [0.0, 0.0]               # the recurrent bars are patched to zero
    assert [fmt_fixed(x, 4) for x in bars["top"][6:8]] == [v["ch1.h.0"], v["ch1.h.1"]]


def test_scale_two_changes_the_recurrent_term():
    c = ElmanChapter()
    for _ in range(2):
        click(c, "gl-ch1-step")
    before = c.values()["ch1.rec.0"]
    set_value(c, "gl-ch1-scale", 2.0)
    assert c.values()["ch1.rec.0"] == fmt_fixed(2 * float(before), 4)
    assert shown(c) == c.values()


def test_the_end_of_the_input_disables_step_and_says_so():
    c = ElmanChapter()
    for _ in range(3):
        click(c, "gl-ch1-step")
    assert find(c, "gl-ch1-step").disabled
    assert "End of the input" in c.values()["ch1.message"] and shown(c) == c.values()
    click(c, "gl-ch1-reset")
    assert not find(c, "gl-ch1-step").disabled and c.values()["ch1.message"] == ""


def test_an_input_of_ones_own_and_the_saturation_case():
    c = ElmanChapter()
    set_value(c, "gl-ch1-text", "cab")
    for _ in range(3):
        click(c, "gl-ch1-step")
    want = examples.chapter1_hand_example("cab")["states"][2]
    assert (c.values()["ch1.h.0"], c.values()["ch1.h.1"]) == tuple(fmt_fixed(x, 4) for x in want)
    click(c, "gl-ch1-saturate")                          # aaaaaaaa at twice W_h: the prose's case
    assert (find(c, "gl-ch1-text").value, find(c, "gl-ch1-scale").value) == ("aaaaaaaa", 2.0)
    assert c.values()["ch1.step"] == "0"
    for _ in range(3):
        click(c, "gl-ch1-step")
    sat = examples.chapter1_wh_scale()
    assert c.values()["ch1.pre.0"] == fmt_fixed(sat["saturating_pre_activation"], 4)
    assert float(c.values()["ch1.h.0"]) > 0.95                   # on tanh's flat tail


@pytest.mark.parametrize("bad", ["abd", "", "a" * 17, "<b>"])
def test_a_refused_input_keeps_the_last_one_and_says_why(bad):
    c = ElmanChapter()
    click(c, "gl-ch1-step")
    set_value(c, "gl-ch1-text", bad)
    v = c.values()
    assert v["ch1.message"].startswith("Input not used") and v["ch1.step"] == "1" and v["ch1.input"] == "a"
    if bad == "<b>":                                              # shown as typed, not as markup
        assert "&#x27;&lt;&#x27;" in html_with(c, 'data-key="ch1.message"')
    set_value(c, "gl-ch1-text", "abc")
    assert c.values()["ch1.message"] == ""


def test_a_long_paste_is_refused_with_its_length_and_the_limit_not_cut():
    c = ElmanChapter()
    assert find(c, "gl-ch1-text").max_length > 1000 * examples.MAX_TEXT   # the browser cuts no paste
    pasted = "ab" * 30
    set_value(c, "gl-ch1-text", pasted)
    message = c.values()["ch1.message"]
    assert f"1 to {examples.MAX_TEXT} characters, got {len(pasted)}" in message and "'abc'" in message
    assert find(c, "gl-ch1-text").value == pasted                        # what was pasted, to shorten
