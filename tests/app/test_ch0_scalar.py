"""Chapter 0 without a browser: the gain and start sliders, the presets, the two plots, read
through the chapter's controls and values (never its private attributes)."""
import math

import numpy as np
import pytest

from gleam_lab.app.chapters.ch0_scalar import ScalarChapter
from gleam_lab.content import fmt_fixed, fmt_gate, fmt_num
from gleam import examples
from surface import click, figure, figure_data, find, set_value, shown


def expected(a, h0):
    """The texts the page must show for (a, h0), from gleam's run formatted as the page does."""
    r = examples.chapter0_recurrence(a, h0)
    return r, {"ch0.hT": fmt_gate(r["h_T"]), "ch0.retained": fmt_num(r["retained_T"], text=True),
               "ch0.sens1": fmt_gate(r["first_sensitivity"])}


def sliders(c):
    return find(c, "gl-ch0-a").value, find(c, "gl-ch0-h0").value


def test_opens_on_factor_090_from_a_small_start():
    c = ScalarChapter()
    assert sliders(c) == (0.9, 0.01)
    r, want = expected(0.9, 0.01)
    v = c.values()
    assert {k: v[k] for k in want} == want
    assert v["ch0.halflife"] == fmt_fixed(r["half_life"], 1) == "6.6"        # the syllabus's 6.6
    assert v["ch0.factor"] == fmt_fixed(r["factor_half_life"], 1) == "6.6"
    assert v["ch0.retained"] == "0.00118" and v["ch0.error"] == ""           # 0.9^64 ≈ 0.00118
    assert shown(c) == v


def test_plots_show_gleams_curves():
    c = ScalarChapter()
    set_value(c, "gl-ch0-a", 1.3)
    set_value(c, "gl-ch0-h0", -0.4)
    r, _ = expected(1.3, -0.4)
    state = figure_data(c, "gl-ch0-state")
    assert list(state["x"]) == r["t"] and np.allclose(state["y"], r["states"])
    lines = [g.data_source.data for g in figure(c, "gl-ch0-memory").renderers]
    assert np.allclose(lines[0]["y"], r["retained"]) and np.allclose(lines[1]["y"], r["pure"])
    # the half-life marker sits at the measured half-life
    fig = figure(c, "gl-ch0-memory")
    spans = [m for m in fig.center if type(m).__name__ == "Span" and m.dimension == "height"]
    assert len(spans) == 1 and spans[0].visible and spans[0].location == pytest.approx(r["half_life"])
    # the axes hold the curves: the state inside the y range, the log range spans the retained
    assert fig.y_range.start <= min(r["retained"]) and fig.y_range.end >= max(r["pure"])
    sfig = figure(c, "gl-ch0-state")
    assert sfig.y_range.start <= min(r["states"]) and sfig.y_range.end >= max(r["states"])


@pytest.mark.parametrize("a, h0", [(0.5, 0.3), (2.0, -3.0), (0.99, 0.1), (0.01, 1.5)])
def test_sliders_change_every_number(a, h0):
    c = ScalarChapter()
    set_value(c, "gl-ch0-a", a)
    set_value(c, "gl-ch0-h0", h0)
    r, want = expected(a, h0)
    v = c.values()
    assert {k: v[k] for k in want} == want
    assert v["ch0.halflife"] == (fmt_fixed(r["half_life"], 1) if r["half_life"] is not None
                                 else "not within 64 steps")
    # the first step's sensitivity, written out: a (1 − tanh²(a h_0))
    assert v["ch0.sens1"] == fmt_gate(a * (1 - math.tanh(a * h0) ** 2))
    assert shown(c) == v


def test_presets():
    c = ScalarChapter()
    click(c, "gl-ch0-saturated")
    assert sliders(c) == (1.0, 2.0)
    v = c.values()
    assert v["ch0.sens1"] == fmt_gate(1 - math.tanh(2.0) ** 2) == "0.0707"   # weight one, saturated
    assert v["ch0.factor"] == "never halves (a = 1)"
    assert v["ch0.halflife"] == fmt_fixed(examples.chapter0_recurrence(1.0, 2.0)["half_life"], 1)
    click(c, "gl-ch0-p099")
    assert sliders(c) == (0.99, 0.01)
    v = c.values()
    assert v["ch0.factor"] == "69.0" and v["ch0.halflife"] == "not within 64 steps"
    click(c, "gl-ch0-p090")
    assert sliders(c) == (0.9, 0.01) and c.values()["ch0.halflife"] == "6.6"
    assert shown(c) == c.values()


def test_edge_gains_show_words_not_inf_or_nan():
    c = ScalarChapter()
    for a, h0, factor in [(0.0, 0.5, "none (a = 0 erases h₀ at once)"), (1.0, 0.0, "never halves (a = 1)"),
                          (3.0, 0.0, "never halves (a > 1 grows)"), (3.0, 3.0, "never halves (a > 1 grows)")]:
        set_value(c, "gl-ch0-a", a)
        set_value(c, "gl-ch0-h0", h0)
        v = c.values()
        assert v["ch0.factor"] == factor
        assert not any(word in text.lower() for text in v.values() for word in ("nan", "inf"))
        assert shown(c) == v
    assert c.values()["ch0.retained"] == fmt_num(examples.chapter0_recurrence(3.0, 3.0)["retained_T"], text=True)
    set_value(c, "gl-ch0-h0", 0.0)
    assert c.values()["ch0.retained"] == "3.43×10³⁰" and c.values()["ch0.halflife"] == "not within 64 steps"
    set_value(c, "gl-ch0-a", 0.0)
    assert c.values()["ch0.halflife"] == "1.0" and c.values()["ch0.retained"] == "0"


def test_sessions_do_not_share_state():
    a, b = ScalarChapter(), ScalarChapter()
    click(a, "gl-ch0-saturated")
    assert sliders(b) == (0.9, 0.01) and b.values()["ch0.sens1"] != a.values()["ch0.sens1"]
