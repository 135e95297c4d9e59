"""Chapter 3 without a browser: the ρ and γ sliders (bound, regime, measured decay) and the
clipping sliders, read from the page's values and figures against gleam.examples."""
import math

import param
from bokeh.models import Arrow

from gleam_lab.app.chapters.ch3_vanishing import VanishingChapter
from gleam_lab.content import fmt_fixed, fmt_num
from gleam import examples
from surface import figure, figure_data, find, html_with, set_value, shown


def arrows(c):
    """The arrow heads' data: one row per arrow drawn (gradient, then clipped)."""
    heads = [m for m in figure(c, "gl-ch3-arrows").center if isinstance(m, Arrow)]
    assert len(heads) == 1
    return heads[0].source.data


def release_rho(c, rho):
    """What the browser sends when the ρ slider comes to rest at rho: value, then value_throttled."""
    slider = find(c, "gl-ch3-rho")
    slider.value = rho
    with param.edit_constant(slider):               # as Panel does for a change from the browser
        slider.value_throttled = rho


def test_opens_on_the_syllabus_example():
    c = VanishingChapter()
    v = c.values()
    assert (find(c, "gl-ch3-rho").value, find(c, "gl-ch3-gamma").value) == (0.9, 0.5)
    assert (v["ch3.product"], v["ch3.bound20"], v["ch3.regime"]) == ("0.4500", "1.16×10⁻⁷", "vanishing")
    b = examples.chapter3_bound_curve(0.9, 0.5)
    assert v["ch3.bound20"] == fmt_num(b["bound_at"], text=True) and v["ch3.eps"] == fmt_num(b["float32_epsilon"], text=True)
    m = examples.chapter3_decay_curve(0.9)
    for s, x, a in zip(m["read_at"], m["log10_norm_at"], m["log10_rho_power_at"]):
        assert v[f"ch3.decay.{s}"] == fmt_fixed(x, 2) and v[f"ch3.alone.{s}"] == fmt_fixed(a, 2)
    assert v["ch3.decay.50"] == fmt_fixed(examples.chapter3_measured_decay()["log10_norm"][1][3], 2)
    assert (v["ch3.clip.scale"], v["ch3.clip.after.0"], v["ch3.clip.after.1"]) == ("0.1057", "1.2685", "-0.0423")
    assert (v["ch3.clip.norm"], v["ch3.clip.cos"], v["ch3.clip.error"]) == ("47.30", "1.0000", "")
    assert shown(c) == v
    bound = figure_data(c, "gl-ch3-bound")
    assert list(bound["x"]) == b["T"] and list(bound["y"]) == b["bound"]
    decay = figure_data(c, "gl-ch3-decay")
    assert list(decay["y"]) == m["log10_norm"]


def test_sliders_move_the_bound_and_the_regime():
    c = VanishingChapter()
    for rho, gamma, regime in ((1.0, 1.0, "critical"), (2.0, 0.5, "critical"), (1.5, 1.0, "exploding"),
                               (3.0, 0.34, "exploding"), (2.0, 0.2, "vanishing")):
        set_value(c, "gl-ch3-rho", rho)
        set_value(c, "gl-ch3-gamma", gamma)
        b = examples.chapter3_bound_curve(rho, gamma)
        v = c.values()
        assert v["ch3.regime"] == regime == b["regime"]
        assert v["ch3.product"] == fmt_fixed(rho * gamma, 4)
        assert v["ch3.bound20"] == fmt_num((rho * gamma) ** 20, text=True)
        assert list(figure_data(c, "gl-ch3-bound")["y"]) == b["bound"]
        assert f"gl-ch3-{regime}" in html_with(c, 'data-key="ch3.regime"')
        assert shown(c) == v
    assert c.values()["ch3.bound20"] == "1.10×10⁻⁸"          # 0.4 over 20 steps, 3 significant digits


def test_rho_moves_the_measured_curve_and_gamma_does_not():
    c = VanishingChapter()
    before = c.values()
    set_value(c, "gl-ch3-rho", 1.5)                 # dragging: the bound follows, the measured curve waits
    assert c.values()["ch3.product"] == "0.7500" and c.values()["ch3.decay.50"] == before["ch3.decay.50"]
    release_rho(c, 1.5)
    m = examples.chapter3_decay_curve(1.5)
    v = c.values()
    assert v["ch3.decay.50"] == fmt_fixed(m["log10_norm_at"][3], 2) == "-0.04"
    assert v["ch3.alone.50"] == fmt_fixed(50 * math.log10(1.5), 2) == "8.80"
    fig = figure(c, "gl-ch3-decay")
    assert list(figure_data(c, "gl-ch3-decay")["y"]) == m["log10_norm"]
    assert "1.50" in fig.title.text
    set_value(c, "gl-ch3-gamma", 0.2)
    assert {k: x for k, x in c.values().items() if k.startswith(("ch3.decay", "ch3.alone"))} == \
           {k: x for k, x in v.items() if k.startswith(("ch3.decay", "ch3.alone"))}


def test_zero_radius_shows_minus_infinity_and_no_curve():
    c = VanishingChapter()
    release_rho(c, 0.0)
    v = c.values()
    assert v["ch3.decay.5"] == v["ch3.alone.50"] == "−∞"
    assert v["ch3.bound20"] == "0" and v["ch3.regime"] == "vanishing"
    assert list(figure_data(c, "gl-ch3-decay")["y"]) == []
    assert "exactly zero" in html_with(c, 'data-key="ch3.decay.5"')
    assert shown(c) == v


def test_clipping_threshold_and_components():
    c = VanishingChapter()
    set_value(c, "gl-ch3-threshold", 12.0)
    r = examples.chapter3_clipping(47.3, 12.0, (12.0, -0.4))
    v = c.values()
    assert v["ch3.clip.scale"] == fmt_fixed(12.0 / 47.3, 4) == fmt_fixed(r["scale"], 4)
    assert v["ch3.clip.after.0"] == fmt_fixed(12.0 * 12.0 / 47.3, 4) and v["ch3.clip.post"] == "12.0000"
    heads = arrows(c)
    assert list(heads["x1"]) == [12.0, r["clipped_components"][0]]
    assert list(heads["y1"]) == [-0.4, r["clipped_components"][1]]
    set_value(c, "gl-ch3-g1", -7.5)
    set_value(c, "gl-ch3-g2", 3.0)
    r = examples.chapter3_clipping(47.3, 12.0, (-7.5, 3.0))
    v = c.values()
    assert (v["ch3.clip.before.0"], v["ch3.clip.before.1"]) == ("-7.5", "3.0")
    assert v["ch3.clip.after.1"] == fmt_fixed(3.0 * 12.0 / 47.3, 4) == fmt_fixed(r["clipped_components"][1], 4)
    assert v["ch3.clip.cos"] == "1.0000"
    set_value(c, "gl-ch3-threshold", 60.0)                  # above the norm: nothing happens
    v = c.values()
    assert v["ch3.clip.scale"] == "1.0000" and v["ch3.clip.after.0"] == "-7.5000"
    assert "passes unchanged" in html_with(c, 'data-key="ch3.clip.scale"')
    assert shown(c) == v


def test_a_norm_below_its_components_shows_a_message():
    c = VanishingChapter()
    set_value(c, "gl-ch3-norm", 5.0)                         # the shown entries alone have length 12.01
    v = c.values()
    assert "cannot be smaller" in v["ch3.clip.error"] and v["ch3.clip.error"].startswith("Not clipped")
    assert v["ch3.clip.scale"] == v["ch3.clip.after.0"] == "—"
    assert list(arrows(c)["x1"]) == [12.0]                    # only the gradient is drawn
    assert shown(c) == v
    set_value(c, "gl-ch3-norm", 47.3)
    assert c.values()["ch3.clip.error"] == "" and c.values()["ch3.clip.scale"] == "0.1057"
    assert len(arrows(c)["x1"]) == 2


def test_each_session_has_its_own_state():
    a, b = VanishingChapter(), VanishingChapter()
    release_rho(a, 2.5)
    assert b.values()["ch3.product"] == "0.4500" and a.values()["ch3.product"] == "1.2500"
    assert b.values()["ch3.decay.50"] != a.values()["ch3.decay.50"]
