"""Chapter 2 without a browser: the backward pass walked step by step (Backward one step / Reset,
the w and u sliders) and the truncation window (u and k), read from the page's values and bars."""
import numpy as np
import pytest

from gleam_lab.app.chapters.ch2_bptt import BPTTChapter
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed, fmt_pct
from gleam import examples
from surface import click, figure_data, find, set_value, shown

FORWARD = {"x": "x", "hprev": "h_prev", "h": "h", "dtanh": "tanh_derivative"}
BACKWARD = {"delta": "delta", "dw": "dL_dw_term", "du": "dL_du_term"}


def check_walk(c, walked, w=0.8, u=0.9):
    """Every number of part 1 is gleam's; backward cells appear from the right as the pass goes."""
    r, v = examples.chapter2_backward_walk(w, u), c.values()
    for s in r["steps"]:
        t = s["t"]
        for key, field in FORWARD.items():
            assert v[f"ch2.{key}.{t}"] == fmt_fixed(s[field], 4)
        for key, field in BACKWARD.items():
            want = fmt_fixed(s[field], 4) if t > 3 - walked else "—"
            assert v[f"ch2.{key}.{t}"] == want, (key, t, walked)
    assert v["ch2.walked"] == str(walked) and v["ch2.loss"] == fmt_fixed(r["loss"], 4)
    assert v["ch2.sum_dw"] == fmt_fixed(r["running"][walked]["dL_dw"], 4)
    assert v["ch2.sum_du"] == fmt_fixed(r["running"][walked]["dL_du"], 4)
    assert shown(c) == v
    return v


def test_walks_the_backward_pass_right_to_left():
    c = BPTTChapter()
    assert (find(c, "gl-ch2-w").value, find(c, "gl-ch2-u").value) == (0.8, 0.9)
    v = check_walk(c, 0)
    assert (v["ch2.h.1"], v["ch2.h.2"], v["ch2.h.3"]) == ("0.6640", "0.8848", "0.9211")   # syllabus
    assert v["ch2.loss"] == "0.0887" and v["ch2.sum_dw"] == "0.0000"
    for walked in (1, 2, 3):
        click(c, "gl-ch2-back")
        v = check_walk(c, walked)
    assert (v["ch2.sum_dw"], v["ch2.sum_du"]) == ("0.0826", "0.0647")      # the full gradient
    assert v["ch2.du.1"] == "0.0000"                                       # h_0 = 0
    click(c, "gl-ch2-back")                                                # nothing left to walk
    check_walk(c, 3)
    click(c, "gl-ch2-reset")
    check_walk(c, 0)


def test_running_sum_after_two_steps_is_the_truncated_gradient():
    c = BPTTChapter()
    click(c, "gl-ch2-back")
    click(c, "gl-ch2-back")
    assert c.values()["ch2.sum_dw"] == fmt_fixed(examples.chapter2_bptt(k=2)["dL_dw_truncated"], 4)


@pytest.mark.parametrize("w, u", [(-0.5, 1.3), (1.5, 0.0), (0.8, -2.0)])
def test_weights_rerun_the_example_at_the_same_stage(w, u):
    c = BPTTChapter()
    click(c, "gl-ch2-back")
    set_value(c, "gl-ch2-w", w)
    set_value(c, "gl-ch2-u", u)
    check_walk(c, 1, w, u)
    click(c, "gl-ch2-back")
    click(c, "gl-ch2-back")
    v = check_walk(c, 3, w, u)
    # the full sums are the gradient written out: Σ_t δ_t (1 − h_t²) x_t and … h_{t−1}
    hs, h = [], 0.0
    for _ in range(3):
        h = np.tanh(w + u * h)
        hs.append(h)
    delta, dw, du = hs[-1] - 0.5, 0.0, 0.0
    for t in reversed(range(3)):
        da = delta * (1 - hs[t] ** 2)
        dw, du = dw + da, du + da * (hs[t - 1] if t else 0.0)
        delta = da * u
    assert (v["ch2.sum_dw"], v["ch2.sum_du"]) == (fmt_fixed(dw, 4), fmt_fixed(du, 4))
    if u == 0.0:                      # no recurrent weight: steps 1 and 2 reach the loss by no path
        assert v["ch2.dw.1"] == v["ch2.dw.2"] == "0.0000"


def check_window(c, u, k):
    r, v = examples.chapter2_truncation_window(u, k), c.values()
    assert v["ch2.share"] == fmt_pct(r["share_kept"])
    assert v["ch2.trunc_dw"] == fmt_fixed(r["dL_dw_truncated"], 4)
    assert v["ch2.full_dw"] == fmt_fixed(r["dL_dw"], 4)
    bars = figure_data(c, "gl-ch2-bars")
    assert list(bars["x"]) == [str(t) for t in range(1, 13)]
    assert np.allclose(bars["top"], r["abs_contributions"])
    assert list(bars["color"]) == [PALETTE.faint] * (12 - k) + [PALETTE.positive] * k
    assert shown(c) == v
    return v


def test_truncation_window():
    c = BPTTChapter()
    assert (find(c, "gl-ch2-tu").value, find(c, "gl-ch2-k").value) == (0.9, 4)
    assert check_window(c, 0.9, 4)["ch2.share"] == "54.9"         # the prose's 54.9 %
    set_value(c, "gl-ch2-tu", 0.3)
    assert check_window(c, 0.3, 4)["ch2.share"] == "99.4"         # far bars tiny at u = 0.3
    set_value(c, "gl-ch2-k", 12)
    v = check_window(c, 0.3, 12)
    assert v["ch2.share"] == "100.0" and v["ch2.trunc_dw"] == v["ch2.full_dw"]
    set_value(c, "gl-ch2-k", 1)
    set_value(c, "gl-ch2-tu", 0.0)                                # u = 0: only the last step counts
    assert check_window(c, 0.0, 1)["ch2.share"] == "100.0"
    set_value(c, "gl-ch2-tu", 1.2)
    check_window(c, 1.2, 1)


def test_far_bars_grow_with_u():
    c = BPTTChapter()
    set_value(c, "gl-ch2-tu", 0.3)
    low = figure_data(c, "gl-ch2-bars")["top"][0]
    set_value(c, "gl-ch2-tu", 0.9)
    assert figure_data(c, "gl-ch2-bars")["top"][0] > 100 * low


def test_the_two_parts_are_independent():
    c = BPTTChapter()
    before = {k: v for k, v in c.values().items() if k.startswith(("ch2.h.", "ch2.loss"))}
    set_value(c, "gl-ch2-tu", 0.5)
    set_value(c, "gl-ch2-k", 9)
    assert {k: v for k, v in c.values().items() if k in before} == before
    check_walk(c, 0)
