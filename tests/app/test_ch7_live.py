"""Chapter 7 without a browser: the live lab's controls, read from what its page shows."""
import asyncio
import html
import re

import numpy as np
import pytest

from app.chapters.ch7_live import LiveLabChapter
from app.widgets import streaming
from content import fmt_fixed
from gleam import chargru, examples
from surface import click, figure, figure_data, find, html_with, set_value, shown

XSS = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def train_toggle(c):
    return find(c, "gl-ch7-train").value


def test_step_increments_and_reports():
    c = LiveLabChapter()
    assert c.values()["ch7.status"] == "ready" and c.values()["ch7.steps"] == "0"
    for _ in range(3):
        click(c, "gl-ch7-step")
    v = c.values()
    assert v["ch7.steps"] == "3" and v["ch7.status"] == "paused"
    assert float(v["ch7.loss"]) > 0
    assert v["ch7.chance"] == fmt_fixed(np.log(c.model.V), 3)
    assert v["ch7.unigram"] == fmt_fixed(c.model.unigram_loss, 3)
    assert list(figure_data(c, "gl-ch7-loss")["step"]) == [1, 2, 3]
    assert figure_data(c, "gl-ch7-gate-z")["z"][0].shape == (c.model.H, c.model.K)
    assert shown(c) == v


@pytest.mark.parametrize("bad", ["", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abc"])
def test_invalid_corpus_keeps_the_model(bad):
    c = LiveLabChapter()
    click(c, "gl-ch7-step")
    model = c.model
    with pytest.raises(ValueError) as err:
        chargru.check_corpus(bad, model.K)
    set_value(c, "gl-ch7-corpus", bad)
    click(c, "gl-ch7-apply")
    assert c.model is model and c.values()["ch7.steps"] == "1"
    assert str(err.value) in c.values()["ch7.error"]
    assert shown(c)["ch7.error"] == c.values()["ch7.error"]
    set_value(c, "gl-ch7-corpus", chargru.DEFAULT_CORPUS)
    click(c, "gl-ch7-apply")
    assert c.values()["ch7.error"] == "" and c.model is not model


def test_corpus_text_is_escaped():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-corpus", XSS * 2)
    click(c, "gl-ch7-apply")
    assert c.values()["ch7.error"] == ""
    assert set(c.model.vocab) == set(XSS)
    page = html_with(c, 'class="gl-ch7-sample"')
    assert "<img" not in page and "<script" not in page
    assert html.unescape(re.sub(r"^<div[^>]*>|</div>$", "", page)) == c.sample_text()
    # an error message quoting the corpus is escaped too
    set_value(c, "gl-ch7-corpus", "<" * 40)
    click(c, "gl-ch7-apply")
    assert "'<'" in c.values()["ch7.error"] and "&#x27;&lt;&#x27;" in html_with(c, 'data-key="ch7.error"')


def test_lr_5_diverges_without_exception_shows_why_and_reset_recovers():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-lr", 5.0)
    for _ in range(15):
        click(c, "gl-ch7-step")
    v = c.values()
    assert v["ch7.status"] == "diverged"
    assert "diverged" in html_with(c, 'data-key="ch7.status"')
    # the message shows the chunk that diverged (the EMA lags behind it) and the curve fits the run
    assert float(v["ch7.diverged_loss"]) > c.model.divergence_loss > float(v["ch7.loss"])
    assert shown(c) == v and figure(c, "gl-ch7-loss").x_range.end == 10
    steps = v["ch7.steps"]
    click(c, "gl-ch7-step")                      # refused until Reset
    click(c, "gl-ch7-train")
    assert c.values()["ch7.steps"] == steps and not train_toggle(c)
    set_value(c, "gl-ch7-lr", 0.1)
    click(c, "gl-ch7-reset")
    assert c.values()["ch7.status"] == "ready" and c.values()["ch7.steps"] == "0"
    click(c, "gl-ch7-step")
    assert c.values()["ch7.status"] == "paused"


def test_bad_lr_is_reported_not_raised():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-lr", -1.0)
    assert "lr must be a finite number > 0" in c.values()["ch7.error"]
    assert shown(c)["ch7.error"] == c.values()["ch7.error"]
    assert c.model.lr == 0.1


def test_hidden_size_rebuilds_and_temperature_resamples():
    c = LiveLabChapter()
    click(c, "gl-ch7-step")
    set_value(c, "gl-ch7-hidden", 64)
    assert c.model.H == 64 and c.values()["ch7.steps"] == "0"
    assert figure_data(c, "gl-ch7-gate-z")["z"][0].shape == (64, c.model.K)
    assert figure(c, "gl-ch7-gate-z").y_range.end == 64
    before = c.sample_text()
    set_value(c, "gl-ch7-temp", 0.5)
    assert c.sample_text() != before and c.values()["ch7.steps"] == "0"


def test_trains_in_an_asyncio_task_and_pauses():
    c = LiveLabChapter()

    async def run():
        click(c, "gl-ch7-train")
        await asyncio.sleep(0.4)
        assert c.values()["ch7.status"] == "training"
        click(c, "gl-ch7-pause")
        await asyncio.sleep(0.05)

    asyncio.run(run())
    v = c.values()
    assert v["ch7.status"] == "paused" and int(v["ch7.steps"]) > 10 and not train_toggle(c)
    # the whole run is on the curve (its last point is the last step), in at most MAX_POINTS points
    data = figure_data(c, "gl-ch7-loss")
    assert data["step"][-1] == int(v["ch7.steps"])
    assert len(data["step"]) <= streaming.MAX_POINTS
    assert fmt_fixed(data["smooth"][-1], 3) == v["ch7.loss"]
    assert not c.loop.running
    assert shown(c) == v


def test_loss_curve_keeps_the_whole_run_in_bounded_points(monkeypatch):
    monkeypatch.setattr(streaming, "MAX_POINTS", 40)
    c = LiveLabChapter()
    for _ in range(13):                           # 13 x 11 = 143 steps, pushed as while training
        c.loop.tick(n=11)
        c.loop.push()
    click(c, "gl-ch7-pause")                      # a stop pushes everything, the partial group too
    data = figure_data(c, "gl-ch7-loss")
    assert 20 < len(data["step"]) <= 40
    assert "a pale point is the mean of" in figure(c, "gl-ch7-loss").xaxis[0].axis_label
    assert list(data["step"]) == sorted(data["step"]) and data["step"][-1] == c.model.steps == 143
    assert fmt_fixed(data["smooth"][-1], 3) == c.values()["ch7.loss"]
    assert shown(c)["ch7.steps"] == "143"
    click(c, "gl-ch7-reset")
    assert len(figure_data(c, "gl-ch7-loss")["step"]) == 0
    assert "mean of" not in figure(c, "gl-ch7-loss").xaxis[0].axis_label


def test_an_emptied_or_refused_learning_rate_is_said_and_the_box_shows_the_rate_in_use():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-lr", None)                       # the learner emptied the box
    assert "the box was empty" in c.values()["ch7.error"] and "lr = 0.1" in c.values()["ch7.error"]
    assert find(c, "gl-ch7-lr").value == 0.1 == c.model.lr
    set_value(c, "gl-ch7-lr", 0.05)
    assert c.values()["ch7.error"] == "" and c.model.lr == 0.05
    set_value(c, "gl-ch7-lr", float("nan"))
    assert "lr must be a finite number > 0" in c.values()["ch7.error"] and find(c, "gl-ch7-lr").value == 0.05


def test_a_corpus_typed_but_not_applied_is_said():
    c = LiveLabChapter()
    assert c.values()["ch7.pending"] == ""
    set_value(c, "gl-ch7-corpus", "a new text, typed but not applied yet. " * 2)
    assert "not in use yet" in c.values()["ch7.pending"] and shown(c) == c.values()
    click(c, "gl-ch7-apply")
    assert c.values()["ch7.pending"] == "" and c.model.corpus.startswith("a new text")


def test_the_sampling_temperature_is_shown_with_the_sample():
    c = LiveLabChapter()
    assert c.values()["ch7.temperature"] == "1.00"
    set_value(c, "gl-ch7-temp", 0.5)
    click(c, "gl-ch7-reset")                              # a fresh model still samples at 0.5
    assert c.values()["ch7.temperature"] == "0.50" and shown(c)["ch7.temperature"] == "0.50"


@pytest.mark.parametrize("name", [x["name"] for x in examples.chapter7_experiments()])
def test_every_experiment_sets_its_controls_and_says_what_to_expect(name):
    x = {e["name"]: e for e in examples.chapter7_experiments()}[name]
    c = LiveLabChapter()
    click(c, "gl-ch7-step")
    set_value(c, "gl-ch7-experiment", name)
    assert (find(c, "gl-ch7-lr").value, find(c, "gl-ch7-hidden").value, find(c, "gl-ch7-temp").value) == \
        (x["lr"], x["hidden"], x["temperature"])
    assert (c.model.lr, c.model.H, c.model.steps) == (x["lr"], x["hidden"], 0)
    assert c.model.corpus == (x["corpus"] or chargru.DEFAULT_CORPUS) == find(c, "gl-ch7-corpus").value
    assert x["symptom"] in c.values()["ch7.experiment"] and x["cause"] in c.values()["ch7.experiment"]
    assert c.values()["ch7.pending"] == "" and shown(c) == c.values()
