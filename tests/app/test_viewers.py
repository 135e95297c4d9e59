"""Viewer logic without a browser: set a widget's parameter, read what the page would show.

Each Viewer's `values()` returns exactly the texts of its `gv` spans; the tests also check that the
spans in the HTML carry those texts.
"""
import asyncio
import html
import re
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import app  # noqa: F401
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import panel as pn

from app.ch1 import ElmanChapter
from app.ch4 import GRUChapter
from app import ch7_plots
from app.ch7 import LiveLabChapter
from app.common import gv, markdown_to_html
from app.lab import Lab
from content import chapter_ids, fmt_fixed, fmt_gate
from gleam import chargru, examples

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def spans(html_text):
    """data-key -> text of every gv span in an HTML string (unescaped)."""
    return {k: html.unescape(v) for k, v in
            re.findall(r'<span class="gv[^"]*" data-key="([^"]+)">(.*?)</span>', html_text)}


# ---------------------------------------------------------------- common

def test_gv_escapes_everything():
    out = gv('a"<b>', "<script>x</script>")
    assert "<script>" not in out and "&lt;script&gt;" in out and 'data-key="a&quot;&lt;b&gt;"' in out


def test_markdown_keeps_math_for_mathjax():
    out = markdown_to_html("Text *em* \\(a_{1} * b_{2}\\) and\n\n$$\n\\begin{bmatrix} 1 & 2 \\end{bmatrix} < 3\n$$\n")
    assert "<em>em</em>" in out
    assert "\\(a_{1} * b_{2}\\)" in out                 # untouched by the Markdown parser
    assert "1 & 2" in out and "\\lt" in out and "< 3" not in out


# ---------------------------------------------------------------- chapter 1

def test_ch1_step_three_times_gives_gleams_states():
    c = ElmanChapter()
    assert c.values()["ch1.step"] == "0"
    run = examples.chapter1_hand_example()
    for t in range(3):
        c.param.trigger("advance")
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
    assert spans(c._values.object) == v
    c.param.trigger("advance")                          # nothing after the last character
    assert c.values()["ch1.step"] == "3"
    c.param.trigger("reset")
    assert c.values()["ch1.step"] == "0" and c.values()["ch1.h.0"] == "0.0000"


def test_ch1_scale_zero_is_memoryless():
    c = ElmanChapter()
    for _ in range(3):
        c.param.trigger("advance")
    c.scale = 0.0
    v = c.values()
    assert v["ch1.rec.0"] == v["ch1.rec.1"] == "0.0000"
    # the state is tanh(column c of W_x + b) alone
    p = examples.chapter1_params()
    expect = np.tanh(p["Wx"][:, 2] + p["b"])
    assert (v["ch1.h.0"], v["ch1.h.1"]) == tuple(fmt_fixed(x, 4) for x in expect)
    assert c._source.data["top"][2:4] == [0.0, 0.0]    # the recurrent bars are patched to zero


def test_ch1_scale_two_changes_the_recurrent_term():
    c = ElmanChapter()
    for _ in range(2):
        c.param.trigger("advance")
    before = c.values()["ch1.rec.0"]
    c.scale = 2.0
    assert c.values()["ch1.rec.0"] == fmt_fixed(2 * float(before), 4)


# ---------------------------------------------------------------- chapter 4

def _textbook(z, r):
    """Independent textbook GRU step on the hand example with gates z, r given."""
    p, x, h = examples.gru_hand_params(), np.array([0.0, 1.0, 0.0]), np.array([0.5, -0.2])
    cand = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])
    return cand, (1 - z) * h + z * cand


def _torch(z, r):
    p, x, h = examples.gru_hand_params_torch(), np.array([0.0, 1.0, 0.0]), np.array([0.5, -0.2])
    n = np.tanh(p["W_ih"][4:] @ x + p["b_ih"][4:] + r * (p["W_hh"][4:] @ h + p["b_hh"][4:]))
    return n, (1 - z) * n + z * h


def test_ch4_opens_on_the_hand_example():
    c = GRUChapter()
    v = c.values()
    e = examples.chapter4_gru_hand_example()
    for i in range(2):
        assert v[f"ch4.z.{i}"] == fmt_gate(e["z"][i]) and v[f"ch4.h.{i}"] == fmt_gate(e["h"][i])
        assert v[f"ch4.htilde.{i}"] == fmt_gate(e["candidate"][i])
        assert v[f"ch4.keep20.{i}"] == fmt_gate(e["carry_multiplier_20"][i])
    assert (v["ch4.h.0"], v["ch4.h.1"]) == ("0.5508", "-0.0306")
    assert spans(c._values.object) == v


def test_ch4_sliders_pin_gates():
    c = GRUChapter()
    c.param.update(z1=0.2, r2=0.1)
    z, r = np.array([0.2, c.z2]), np.array([c.r1, 0.1])
    cand, h = _textbook(z, r)
    v = c.values()
    assert v["ch4.z.0"] == "0.2000" and v["ch4.r.1"] == "0.1000"
    for i in range(2):
        assert v[f"ch4.htilde.{i}"] == fmt_gate(cand[i])
        assert v[f"ch4.h.{i}"] == fmt_gate(h[i])
        assert v[f"ch4.keep.{i}"] == fmt_gate(1 - z[i])
        assert v[f"ch4.keep20.{i}"] == fmt_gate((1 - z[i]) ** 20)


def test_ch4_presets():
    c = GRUChapter()
    c.param.trigger("preset_hold")
    v = c.values()
    assert (v["ch4.z.0"], v["ch4.z.1"]) == ("1.0000", "0.0000")
    assert v["ch4.h.0"] == v["ch4.htilde.0"] and v["ch4.h.1"] == "-0.2000"   # writes / holds
    c.param.trigger("preset_hand")
    assert c.values()["ch4.h.0"] == "0.5508"


def test_ch4_convention_toggle_changes_the_numbers():
    c = GRUChapter()
    textbook = c.values()
    c.convention = "PyTorch"
    v = c.values()
    t = examples.chapter4_gru_hand_example("torch")
    assert v["ch4.z.0"] == textbook["ch4.z.0"]                   # same weights, same gates
    assert v["ch4.h.0"] != textbook["ch4.h.0"] and v["ch4.htilde.0"] != textbook["ch4.htilde.0"]
    for i in range(2):
        assert v[f"ch4.h.{i}"] == fmt_gate(t["h"][i])
        assert v[f"ch4.keep.{i}"] == fmt_gate(t["z"][i])        # z keeps under PyTorch's convention
    c.param.update(z1=0.3, r1=0.0)
    z, r = np.array([0.3, c.z2]), np.array([0.0, c.r2])
    n, h = _torch(z, r)
    assert c.values()["ch4.h.0"] == fmt_gate(h[0]) and c.values()["ch4.htilde.1"] == fmt_gate(n[1])
    c.param.trigger("preset_hold")                                # writing is z = 0 here
    assert c.values()["ch4.h.1"] == "-0.2000"


# ---------------------------------------------------------------- chapter 7

def test_ch7_step_increments_and_reports():
    c = LiveLabChapter()
    assert c.values()["ch7.status"] == "ready" and c.values()["ch7.steps"] == "0"
    for _ in range(3):
        c.param.trigger("step_once")
    v = c.values()
    assert v["ch7.steps"] == "3" and v["ch7.status"] == "paused"
    assert float(v["ch7.loss"]) > 0
    assert v["ch7.chance"] == fmt_fixed(np.log(c.model.V), 3)
    assert v["ch7.unigram"] == fmt_fixed(c.model.unigram_loss, 3)
    assert list(c._loss_src.data["step"]) == [1, 2, 3]
    assert c._gate_src.data["z"][0].shape == (c.model.H, c.model.K)
    assert spans(c._stats.object) == v


@pytest.mark.parametrize("bad", ["", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abc"])
def test_ch7_invalid_corpus_keeps_the_model(bad):
    c = LiveLabChapter()
    c.param.trigger("step_once")
    model = c.model
    with pytest.raises(ValueError) as err:
        chargru.check_corpus(bad, model.K)
    c.corpus = bad
    c.param.trigger("apply_corpus")
    assert c.model is model and c.values()["ch7.steps"] == "1"
    assert str(err.value) in c.values()["ch7.error"]
    assert spans(c._stats.object)["ch7.error"] == c.values()["ch7.error"]
    c.corpus = chargru.DEFAULT_CORPUS
    c.param.trigger("apply_corpus")
    assert c.values()["ch7.error"] == "" and c.model is not model


def test_ch7_corpus_text_is_escaped():
    c = LiveLabChapter()
    c.corpus = XSS * 2
    c.param.trigger("apply_corpus")
    assert c.values()["ch7.error"] == ""
    assert set(c.model.vocab) == set(XSS)
    page = c._sample.object
    assert "<img" not in page and "<script" not in page
    assert html.unescape(re.sub(r"^<div[^>]*>|</div>$", "", page)) == c.sample_text()
    # an error message quoting the corpus is escaped too
    c.corpus = "<" * 40
    c.param.trigger("apply_corpus")
    assert "'<'" in c.values()["ch7.error"] and "&#x27;&lt;&#x27;" in c._stats.object


def test_ch7_lr_5_diverges_without_exception_and_reset_recovers():
    c = LiveLabChapter()
    c.lr = 5.0
    for _ in range(15):
        c.param.trigger("step_once")
    v = c.values()
    assert v["ch7.status"] == "diverged"
    assert "diverged" in c._stats.object
    steps = v["ch7.steps"]
    c.param.trigger("step_once")                 # refused until Reset
    c.training = True
    assert c.values()["ch7.steps"] == steps and not c.training
    c.lr = 0.1
    c.param.trigger("reset")
    assert c.values()["ch7.status"] == "ready" and c.values()["ch7.steps"] == "0"
    c.param.trigger("step_once")
    assert c.values()["ch7.status"] == "paused"


def test_ch7_bad_lr_is_reported_not_raised():
    c = LiveLabChapter()
    c.lr = -1.0
    assert "lr must be positive" in c.values()["ch7.error"]
    assert c.model.lr == 0.1


def test_ch7_hidden_size_rebuilds_and_temperature_resamples():
    c = LiveLabChapter()
    c.param.trigger("step_once")
    c.hidden = 64
    assert c.model.H == 64 and c.values()["ch7.steps"] == "0"
    assert c._gate_src.data["z"][0].shape == (64, c.model.K) and c._z_fig.y_range.end == 64
    before = c.sample_text()
    c.temperature = 0.5
    assert c.sample_text() != before and c.values()["ch7.steps"] == "0"


def test_ch7_trains_in_an_asyncio_task_and_pauses():
    c = LiveLabChapter()

    async def run():
        c.training = True
        await asyncio.sleep(0.4)
        assert c.values()["ch7.status"] == "training"
        c.param.trigger("pause")
        await asyncio.sleep(0.05)

    asyncio.run(run())
    v = c.values()
    assert v["ch7.status"] == "paused" and int(v["ch7.steps"]) > 10
    # the whole run is on the curve (its last point is the last step), in at most MAX_POINTS points
    assert c._loss_src.data["step"][-1] == int(v["ch7.steps"])
    assert len(c._loss_src.data["step"]) <= ch7_plots.MAX_POINTS
    assert not c._task_running


def test_ch7_loss_curve_keeps_the_whole_run_in_bounded_points(monkeypatch):
    monkeypatch.setattr(ch7_plots, "MAX_POINTS", 40)
    c = LiveLabChapter()
    for _ in range(13):                           # 13 x 11 = 143 steps, pushed as while training
        c._train_for(n=11)
        c._push()
    c.param.trigger("pause")                      # a stop pushes everything, the partial group too
    data, points = c._loss_src.data, c._loss._points
    assert len(data["step"]) <= 40 and c._loss.stride > 1
    assert list(data["step"]) == sorted(data["step"]) and data["step"][-1] == c.model.steps == 143
    assert sum(p[3] for p in points) == 143       # every step counted once
    assert data["ema"][-1] == pytest.approx(c._ema)
    assert spans(c._stats.object)["ch7.steps"] == "143"
    c.param.trigger("reset")
    assert len(c._loss_src.data["step"]) == 0 and c._loss.stride == 1


# ---------------------------------------------------------------- the lab

def test_lab_navigation_caches_viewers():
    lab = Lab()
    assert lab.chapter == "0" and len(lab._nav) == len(chapter_ids())
    assert all("gl-nav" in b.css_classes for b in lab._nav.values())
    lab._nav["7"].clicks += 1                     # a click on the TOC
    assert lab.chapter == "7"
    ch7 = lab.view("7")
    assert lab._main.objects[0] is ch7.__panel__()
    ch7.param.trigger("step_once")
    lab.chapter = "4"
    assert lab._main.objects[0] is lab.view("4").__panel__()
    lab.chapter = "7"
    assert lab.view("7") is ch7 and ch7.values()["ch7.steps"] == "1"


def test_two_labs_do_not_share_a_model():
    a, b = Lab(chapter="7"), Lab(chapter="7")
    assert a.view("7").model is not b.view("7").model
    a.view("7").param.trigger("step_once")
    assert a.view("7").values()["ch7.steps"] == "1" and b.view("7").values()["ch7.steps"] == "0"


@pytest.mark.parametrize("cid", chapter_ids())
def test_every_chapter_builds_with_prose(cid):
    lab = Lab(chapter=cid)
    layout = lab.view(cid).__panel__()
    prose = [o for o in layout.objects if "gl-prose" in getattr(o, "css_classes", [])]
    assert len(prose) == 1 and len(prose[0].object) > 500


def test_main_builds_a_lab():
    namespace = runpy.run_path(str(Path(app.__file__).parent / "main.py"))
    assert namespace["Lab"] is Lab
    assert "mathjax" in pn.extension._loaded_extensions
