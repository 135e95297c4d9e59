"""Chapter 7 without a browser: the live lab's controls, read from what its page shows."""
import asyncio
import base64
import codecs
import json
import html
import re

import numpy as np
import pytest

from gleam_lab.app.chapters.ch7_live import LiveLabChapter
from gleam_lab.app.widgets import streaming
from gleam_lab.content import fmt_fixed, fmt_sig
from gleam import chargru, examples
from surface import click, exact, figure, figure_data, find, html_with, set_value, shown

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
    set_value(c, "gl-ch7-draft", bad)
    click(c, "gl-ch7-apply")
    assert c.model is model and c.values()["ch7.steps"] == "1"
    assert str(err.value) in c.values()["ch7.error"]
    assert shown(c)["ch7.error"] == c.values()["ch7.error"]
    set_value(c, "gl-ch7-draft", chargru.DEFAULT_CORPUS)
    click(c, "gl-ch7-apply")
    assert c.values()["ch7.error"] == "" and c.model is not model


def test_corpus_text_is_escaped():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-draft", XSS * 2)
    click(c, "gl-ch7-apply")
    assert c.values()["ch7.error"] == ""
    assert set(c.model.vocab) == set(XSS)
    page = html_with(c, 'class="gl-ch7-sample"')
    assert "<img" not in page and "<script" not in page
    assert html.unescape(re.sub(r"^<div[^>]*>|</div>$", "", page)) == c.sample_text()
    # an error message quoting the corpus is escaped too
    set_value(c, "gl-ch7-draft", "<" * 40)
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


def test_a_long_run_pushed_at_once_is_still_bounded(monkeypatch):
    """A tab the browser throttles pushes many steps at once: they are merged as often as needed
    (one halving of 143 points left 72 of at most 40)."""
    monkeypatch.setattr(streaming, "MAX_POINTS", 40)
    c = LiveLabChapter()
    c.loop.tick(n=143)
    click(c, "gl-ch7-pause")
    data = figure_data(c, "gl-ch7-loss")
    assert 20 < len(data["step"]) <= 40 and data["step"][-1] == 143
    assert "mean of 4 steps" in figure(c, "gl-ch7-loss").xaxis[0].axis_label     # 143 -> 72 -> 36


def test_while_training_no_view_is_pushed_more_often_than_the_page_can_draw_it_cheaply(monkeypatch):
    """Ten seconds of 45 ms ticks on a clock of the test's own: the loss curve goes out at most 10
    times a second (each redraw costs the page's main thread ~13 ms; every tick, ~22 a second, took
    ~0.3 of a core on the 2-core machine, docs/performance.md), the gates and the figures line
    about 4 times, the sample about once; every view is pushed, and Pause pushes each once more."""
    from gleam_lab.app.widgets import live_loop

    class Clock:
        now = 1000.0

        @classmethod
        def perf_counter(cls):
            return cls.now

    monkeypatch.setattr(live_loop, "time", Clock)
    c = LiveLabChapter()
    loop = c.loop
    counts = {}
    for name, view in zip(("stats", "curve", "gates", "sample"), loop.views):
        view.push = (lambda push, name: lambda final: (counts.__setitem__(name, counts.get(name, 0) + 1),
                                                        push(final)))(view.push, name)
    for _ in range(round(10 / 0.045)):
        loop.tick(n=1)
        Clock.now += 0.045
        loop.push()
    assert counts["curve"] <= 10 * 10 + 1 and counts["stats"] <= 10 * 4.5 and counts["gates"] <= 10 * 4.5
    assert counts["sample"] <= 11
    assert min(counts["curve"], counts["stats"], counts["gates"]) >= 30 and counts["sample"] >= 8
    before = dict(counts)
    click(c, "gl-ch7-pause")
    assert {k: counts[k] - before[k] for k in counts} == {"stats": 1, "curve": 1, "gates": 1, "sample": 1}
    assert shown(c)["ch7.steps"] == str(c.model.steps) == str(round(10 / 0.045))


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
    set_value(c, "gl-ch7-draft", "a new text, typed but not applied yet. " * 2)
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
    assert c.model.corpus == (x["corpus"] or chargru.DEFAULT_CORPUS) == find(c, "gl-ch7-draft").value
    assert x["symptom"] in c.values()["ch7.experiment"] and x["cause"] in c.values()["ch7.experiment"]
    assert c.values()["ch7.pending"] == "" and shown(c) == c.values()


# --- the seed, your own text, keeping the model, taking the code home -------------------------------

TEXT = "Über den Wassern: the river runs «fast» — and the wheel turns faster.\n" * 3


def offer(c, cls, data, name="mine.txt"):
    """What choosing a file does (app.widgets.file_pick): the page writes its name, size and bytes
    (base64) to the picker's hidden sink; None for the bytes of a file over the picker's limit."""
    global NEWS
    NEWS += 1
    encoded = None if data is None else base64.b64encode(data).decode()
    find(c, f"{cls}-sink").value = json.dumps([str(NEWS), name, len(data) if data is not None else 10 ** 9, encoded])


NEWS = 0


def steps(c, n):
    for _ in range(n):
        click(c, "gl-ch7-step")


def test_the_seed_is_a_control_that_makes_a_new_model():
    c = LiveLabChapter()
    steps(c, 2)
    assert c.values()["ch7.seed"] == "0" and find(c, "gl-ch7-seed").value == 0
    set_value(c, "gl-ch7-seed", 5)
    assert c.model.seed == 5 and c.values()["ch7.steps"] == "0" and shown(c)["ch7.seed"] == "5"
    click(c, "gl-ch7-step")
    assert exact(c, "ch7.last_loss") == fmt_sig(chargru.CharGRU(seed=5).step(1).loss[0], 12)
    set_value(c, "gl-ch7-seed", None)                    # the learner emptied the box
    assert "the box was empty" in c.values()["ch7.error"] and find(c, "gl-ch7-seed").value == 5
    assert c.model.seed == 5 and c.values()["ch7.steps"] == "1"
    assert find(c, "gl-ch7-seed").end == 2**31 - 1


def test_the_last_chunks_loss_is_shown_to_4_significant_digits_with_12_in_its_tooltip():
    c = LiveLabChapter()
    assert c.values()["ch7.last_loss"] == "—" and 'data-key="ch7.last_loss">' in html_with(c, "ch7.last_loss")
    steps(c, 3)
    want = chargru.CharGRU().step(3).loss[-1]
    assert c.values()["ch7.last_loss"] == shown(c)["ch7.last_loss"] == fmt_sig(want, 4)
    assert len(re.sub(r"\D", "", c.values()["ch7.last_loss"]).lstrip("0")) == 4   # 3.912, not 3.91173481052
    assert exact(c, "ch7.last_loss") == fmt_sig(want, 12) and abs(float(exact(c, "ch7.last_loss")) - want) < 1e-11
    assert f'title="{fmt_sig(want, 12)}"' in html_with(c, "ch7.last_loss")


def test_an_uploaded_text_file_fills_the_box_and_makes_the_new_model():
    c = LiveLabChapter()
    steps(c, 2)
    offer(c, "gl-ch7-upload", codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8"))
    v = c.values()
    assert c.model.corpus == TEXT == find(c, "gl-ch7-draft").value and v["ch7.pending"] == ""
    assert v["ch7.steps"] == "0" and v["ch7.error"] == "" and "Training on the text" in v["ch7.file"]
    assert v["ch7.chance"] == fmt_fixed(np.log(len(set(TEXT))), 3) and shown(c) == v
    assert find(c, "gl-ch7-upload-sink").value == ""      # read: the same file again is news
    assert "'mine.txt'" in c.values()["ch7.file"]
    set_value(c, "gl-ch7-draft", chargru.DEFAULT_CORPUS)
    click(c, "gl-ch7-apply")
    offer(c, "gl-ch7-upload", TEXT.encode("utf-8"))
    assert c.model.corpus == TEXT


@pytest.mark.parametrize("data", [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(1, 100)),
    "café, the river runs by the old mill".encode("latin-1"),
    TEXT.encode("utf-16"),
    b"x" * (chargru.MAX_FILE_BYTES + 1),
    b"too short",
    b"a" * 60,
    "".join(map(chr, range(0x4E00, 0x4E00 + chargru.MAX_VOCAB + 1))).encode("utf-8"),
], ids=["binary", "latin-1", "utf-16", "too-large", "too-short", "one-character", "too-many-characters"])
def test_a_refused_upload_says_why_and_keeps_the_model(data):
    c = LiveLabChapter()
    steps(c, 2)
    model = c.model
    with pytest.raises(ValueError) as err:
        chargru.check_corpus(chargru.decode_corpus(data), model.K)
    offer(c, "gl-ch7-upload", data)
    v = c.values()
    assert c.model is model and v["ch7.steps"] == "2" and find(c, "gl-ch7-draft").value == chargru.DEFAULT_CORPUS
    assert str(err.value) in v["ch7.error"] and "not used as the corpus" in v["ch7.error"]
    assert "previous model is kept" in v["ch7.error"] and shown(c)["ch7.error"] == v["ch7.error"]
    click(c, "gl-ch7-step")
    assert c.values()["ch7.steps"] == "3"


def saved(c):
    save = find(c, "gl-ch7-save")
    data = save.callback().getvalue()
    assert save.filename == f"chargru-{c.model.steps}-steps.npz" and f"after {c.model.steps} steps" in c.values()["ch7.file"]
    return data


def test_a_saved_model_loaded_into_a_fresh_chapter_continues_exactly():
    a = LiveLabChapter()
    set_value(a, "gl-ch7-hidden", 16)
    set_value(a, "gl-ch7-seed", 9)
    steps(a, 12)
    set_value(a, "gl-ch7-lr", 0.05)
    steps(a, 3)
    set_value(a, "gl-ch7-temp", 0.6)
    data = saved(a)
    b = LiveLabChapter()
    set_value(b, "gl-ch7-temp", 0.6)
    offer(b, "gl-ch7-load", data)
    va, vb = a.values(), b.values()
    for key in ("ch7.steps", "ch7.last_loss", "ch7.seed", "ch7.chance", "ch7.unigram"):
        assert va[key] == vb[key], key
    assert "loaded: the model after 15 steps" in vb["ch7.file"] and vb["ch7.error"] == ""
    assert (find(b, "gl-ch7-hidden").value, find(b, "gl-ch7-lr").value, find(b, "gl-ch7-seed").value) == (16, 0.05, 9)
    assert b.sample_text() == a.sample_text() and shown(b) == vb
    for _ in range(3):
        click(a, "gl-ch7-step")
        click(b, "gl-ch7-step")
        assert a.values()["ch7.last_loss"] == b.values()["ch7.last_loss"]
        assert a.model.last_loss == b.model.last_loss and a.sample_text() == b.sample_text()
    assert find(b, "gl-ch7-load-sink").value == ""        # read: the next file is news


def test_a_loaded_diverged_model_shows_the_divergence():
    a = LiveLabChapter()
    set_value(a, "gl-ch7-lr", 5.0)
    steps(a, 15)
    assert a.values()["ch7.status"] == "diverged"
    b = LiveLabChapter()
    offer(b, "gl-ch7-load", saved(a))
    v = b.values()
    assert v["ch7.status"] == "diverged" and v["ch7.diverged_loss"] == a.values()["ch7.diverged_loss"]
    assert shown(b) == v
    click(b, "gl-ch7-step")
    assert b.values()["ch7.steps"] == a.values()["ch7.steps"]


def other_model(**kwargs):
    return chargru.CharGRU(**kwargs).to_bytes()


@pytest.mark.parametrize("data, message", [
    (b"garbage, not a model" * 5, "not an .npz archive"),
    (other_model()[:5000], "cannot be read"),
    (other_model(hidden=7), "its H = 7; this page trains H = 4, 16, 32, 64, 128"),
    (other_model(seed=2**40), "its seed 1099511627776 is outside this page's 0"),
], ids=["garbage", "truncated", "hidden-7", "huge-seed"])
def test_a_refused_model_file_says_why_and_keeps_the_model(data, message):
    c = LiveLabChapter()
    steps(c, 2)
    model = c.model
    offer(c, "gl-ch7-load", data)
    v = c.values()
    assert c.model is model and v["ch7.steps"] == "2" and find(c, "gl-ch7-hidden").value == 32
    assert re.search(message, v["ch7.error"]) and "current model is kept" in v["ch7.error"]
    assert shown(c)["ch7.error"] == v["ch7.error"]


def test_export_writes_the_script_of_this_run():
    c = LiveLabChapter()
    steps(c, 4)
    set_value(c, "gl-ch7-lr", 0.2)
    steps(c, 2)
    set_value(c, "gl-ch7-temp", 0.5)
    export = find(c, "gl-ch7-export")
    script = export.callback().getvalue().decode("utf-8")
    assert export.filename == "chargru_6_steps.py" and "Exported chargru_6_steps.py" in c.values()["ch7.file"]
    assert script == chargru.export_script(c.model, temperature=0.5)
    assert "LR_SCHEDULE = [(0, 0.1), (4, 0.2)]" in script and "STEPS = 6 " in script


def test_the_file_note_goes_with_the_model_it_was_about():
    c = LiveLabChapter()
    offer(c, "gl-ch7-upload", TEXT.encode("utf-8"))
    assert c.values()["ch7.file"] != ""
    click(c, "gl-ch7-reset")
    assert c.values()["ch7.file"] == ""


def test_a_file_name_is_shown_as_text():
    c = LiveLabChapter()
    offer(c, "gl-ch7-upload", b"\x00binary", XSS + ".txt")
    assert XSS in c.values()["ch7.error"] and shown(c)["ch7.error"] == c.values()["ch7.error"]
    page = html_with(c, 'data-key="ch7.error"')
    assert "<img" not in page and "<script" not in page
    offer(c, "gl-ch7-load", chargru.CharGRU().to_bytes(), XSS + ".npz")
    assert XSS in c.values()["ch7.file"] and "<img" not in html_with(c, 'data-key="ch7.file"')
    offer(c, "gl-ch7-load", None, XSS + ".npz")                       # refused in the browser
    assert XSS in c.values()["ch7.error"] and "<img" not in html_with(c, 'data-key="ch7.error"')


@pytest.mark.parametrize("cls, limit, kept", [("gl-ch7-upload", chargru.MAX_FILE_BYTES, "previous"),
                                              ("gl-ch7-load", 12 * 2 ** 20, "current")])
def test_a_file_over_the_limit_is_refused_in_the_browser_and_the_model_stays(cls, limit, kept):
    """A file over the picker's limit never reaches Python (under panel serve, Panel's FileInput
    sent any file whole, and one over the websocket's 20 MB closed the session)."""
    c = LiveLabChapter()
    steps(c, 2)
    model = c.model
    find(c, f"{cls}-sink").value = json.dumps(["1", "book.txt", 40_000_000, None])
    v = c.values()
    assert c.model is model and v["ch7.steps"] == "2" and "'book.txt'" in v["ch7.error"]
    assert f"the file is 40,000,000 bytes; the limit is {limit:,} bytes (none of it was read)" in v["ch7.error"]
    assert f"The {kept} model is kept" in v["ch7.error"] and shown(c)["ch7.error"] == v["ch7.error"]
    assert c.files._inputs[cls.removeprefix("gl-ch7-")].max_bytes == limit      # what the page checks


def test_the_same_file_chosen_twice_is_read_twice():
    c = LiveLabChapter()
    offer(c, "gl-ch7-upload", TEXT.encode("utf-8"))
    assert c.model.corpus == TEXT
    steps(c, 3)
    offer(c, "gl-ch7-upload", TEXT.encode("utf-8"))
    assert c.model.corpus == TEXT and c.values()["ch7.steps"] == "0"


# ---------------------------------------------------------------- Undo: nothing trained is lost by one key
def _trained(steps=4, **settings):
    c = LiveLabChapter()
    for cls, value in settings.items():
        set_value(c, f"gl-ch7-{cls}", value)
    for _ in range(steps):
        click(c, "gl-ch7-step")
    return c


def _state(c):
    """What must come back exactly: weights, Adagrad memory, steps, curve, EMA, the settings shown."""
    m = c.model
    return (m.to_bytes(), c.values(), list(figure_data(c, "gl-ch7-loss")["raw"]),
            [find(c, f"gl-ch7-{k}").value for k in ("hidden", "seed", "lr", "draft")])


@pytest.mark.parametrize("change", [
    lambda c: set_value(c, "gl-ch7-hidden", 64),                 # one arrow key on the focused select
    lambda c: set_value(c, "gl-ch7-seed", 5),
    lambda c: click(c, "gl-ch7-reset"),                          # re-initialises the same model
    lambda c: click(c, "gl-ch7-defaults"),                       # (trained with seed 3, see below)
    lambda c: set_value(c, "gl-ch7-experiment", next(iter(examples.chapter7_experiments()))["name"]),
    lambda c: (set_value(c, "gl-ch7-draft", "another text to train on, quite different. " * 2),
               click(c, "gl-ch7-apply")),
    lambda c: set_value(c, "gl-ch7-B", 4),                       # parallel streams
], ids=["hidden", "seed", "reset", "defaults", "experiment", "corpus", "streams"])
def test_a_change_that_discards_the_model_can_be_undone(change):
    c = _trained(seed=3)
    before, undo = _state(c), find(c, "gl-ch7-undo")
    assert not undo.visible
    change(c)
    assert c.values()["ch7.steps"] == "0" or _state(c)[0] != before[0]
    assert undo.visible and "4 steps" in undo.label
    click(c, "gl-ch7-undo")
    after = _state(c)
    assert after[0] == before[0] and after[2] == before[2] and after[3] == before[3]
    assert {k: v for k, v in after[1].items() if k != "ch7.file"} == \
        {k: v for k, v in before[1].items() if k != "ch7.file"}
    assert "Brought back the model trained for 4 steps" in c.values()["ch7.file"]
    click(c, "gl-ch7-step")                                      # and it goes on as if never replaced
    twin = _trained(5, seed=3)
    assert c.model.last_loss == twin.model.last_loss and c.model.to_bytes() == twin.model.to_bytes()


def test_undo_swaps_and_an_untrained_model_is_not_kept():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-hidden", 16)                            # nothing trained: nothing to undo
    assert not find(c, "gl-ch7-undo").visible
    c = _trained(3)
    set_value(c, "gl-ch7-hidden", 16)
    click(c, "gl-ch7-step")
    click(c, "gl-ch7-undo")                                      # back to H = 32 after 3 steps
    assert c.model.H == 32 and c.values()["ch7.steps"] == "3"
    undo = find(c, "gl-ch7-undo")
    assert undo.visible and "1 steps" in undo.label and "H = 16" in undo.label
    click(c, "gl-ch7-undo")
    assert c.model.H == 16 and c.values()["ch7.steps"] == "1"


def test_a_link_shares_the_corpus_in_use_not_a_draft():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-draft", "a draft that is never applied, typed only. " * 2)
    assert dict(c.url_query()).get("corpus") is None
    text = "the text a teacher chose for the class to train on. " * 3
    set_value(c, "gl-ch7-draft", text)
    click(c, "gl-ch7-apply")
    assert dict(c.url_query())["corpus"] == text
    other = LiveLabChapter()
    assert other.apply_url(c.url_query()) == []
    assert other.model.corpus == text and find(other, "gl-ch7-draft").value == text
    assert other.values() == c.values()
    bad = LiveLabChapter()                                       # a link whose corpus gleam refuses
    assert bad.apply_url([("corpus", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]) == []
    v = bad.values()
    assert "Corpus not applied" in v["ch7.error"] and bad.model.corpus == chargru.DEFAULT_CORPUS
    assert bad.corpus == chargru.DEFAULT_CORPUS and dict(bad.url_query()).get("corpus") is None


def test_a_corpus_too_long_for_a_link_is_said_under_it():
    c = LiveLabChapter()
    c.__panel__()
    note = find(c, "gl-ch7-left-out")
    text = ("a longer text than any link can carry, line after line of it. " * 60)[:3000]
    set_value(c, "gl-ch7-draft", text)
    click(c, "gl-ch7-apply")
    assert c.model.corpus == text and "corpus" not in dict(c.url_query())
    c.share.set_link("http://127.0.0.1/app", [("chapter", "7")] + c.url_query())
    assert note.visible and "corpus (3,000 characters; a link holds at most 2,000)" in note.object
    click(c, "gl-ch7-defaults")
    c.share.set_link("http://127.0.0.1/app", [("chapter", "7")] + c.url_query())
    assert not note.visible


# ---------------------------------------------------------------- parallel streams B
def test_one_stream_is_the_default_and_b_makes_a_new_model_of_b_streams():
    c = LiveLabChapter()
    assert c.streams == 1 and c.model.B == 1 and c.values()["ch7.streams"] == "1"
    assert c.url_controls()["streams"] == "B" and "B" not in dict(c.url_query())
    click(c, "gl-ch7-step")
    old = c.model
    set_value(c, "gl-ch7-B", 4)
    m = c.model
    assert m is not old and (m.B, m.H, m.seed, m.steps) == (4, 32, 0, 0)
    click(c, "gl-ch7-step")
    twin = chargru.CharGRU(batch=4)
    assert m.last_loss == twin.step(1).loss[0]               # one step: 4 chunks, their mean loss
    v = c.values()
    assert v["ch7.streams"] == "4" and shown(c) == v
    assert "4 parallel chunks of 25 characters" in figure(c, "gl-ch7-loss").xaxis.axis_label
    assert "stream 0 of 4" in figure(c, "gl-ch7-gate-z").xaxis.axis_label
    assert figure_data(c, "gl-ch7-gate-z")["z"][0].shape == (m.H, m.K)
    assert dict(c.url_query())["B"] == "4"
    other = LiveLabChapter()                                     # a link carries B
    assert other.apply_url(c.url_query()) == [] and other.model.B == 4


def test_undo_brings_back_the_one_stream_model_and_its_b():
    c = _trained(3)
    set_value(c, "gl-ch7-B", 8)
    click(c, "gl-ch7-step")
    undo = find(c, "gl-ch7-undo")
    assert "3 steps" in undo.label and "B =" not in undo.label
    click(c, "gl-ch7-undo")
    assert (c.model.B, c.model.steps, find(c, "gl-ch7-B").value, c.streams) == (1, 3, 1, 1)
    undo = find(c, "gl-ch7-undo")
    assert "1 steps" in undo.label and "B = 8" in undo.label
    click(c, "gl-ch7-undo")
    assert (c.model.B, c.model.steps, find(c, "gl-ch7-B").value) == (8, 1, 8)


def test_a_loaded_file_sets_b_and_one_of_another_b_is_refused():
    a = _trained(0)
    set_value(a, "gl-ch7-B", 2)
    steps(a, 5)
    b = LiveLabChapter()
    offer(b, "gl-ch7-load", saved(a))
    assert (b.model.B, find(b, "gl-ch7-B").value, b.values()["ch7.streams"]) == (2, 2, "2")
    click(a, "gl-ch7-step")
    click(b, "gl-ch7-step")
    assert a.model.last_loss == b.model.last_loss
    odd = chargru.CharGRU(batch=3)
    odd.step(1)
    offer(b, "gl-ch7-load", odd.to_bytes())
    assert "its B = 3 parallel streams; this page trains B = 1, 2, 4, 8, 16" in b.values()["ch7.error"]
    assert b.model.B == 2


def test_a_corpus_too_short_for_b_streams_is_refused_and_the_model_kept():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-B", 16)
    model = c.model
    set_value(c, "gl-ch7-draft", "a short text of thirty chars.")
    click(c, "gl-ch7-apply")
    assert c.model is model and "batch = 16 streams need" in c.values()["ch7.error"]


def test_a_paste_over_the_limit_reaches_gleam_whole_and_is_refused_with_its_length():
    """The corpus box lets through far more than the corpus limit (Panel's own default, 5,000,
    cut a long paste without a word): gleam refuses it, naming its length and the limit."""
    c = LiveLabChapter()
    box = find(c, "gl-ch7-draft")
    assert box.max_length >= 10 * chargru.MAX_CORPUS_CHARS
    model = c.model
    pasted = (chargru.DEFAULT_CORPUS * (chargru.MAX_CORPUS_CHARS // len(chargru.DEFAULT_CORPUS) + 2))
    set_value(c, "gl-ch7-draft", pasted)
    click(c, "gl-ch7-apply")
    error = c.values()["ch7.error"]
    assert f"{len(pasted):,} characters" in error and f"{chargru.MAX_CORPUS_CHARS:,}" in error
    assert c.model is model and box.value == pasted               # the model kept, the paste not cut


def test_a_shared_server_refuses_a_model_whose_update_is_too_much_work_and_keeps_the_one_in_use():
    """Under panel serve (a session of a shared server) an update may do at most
    limits.UPDATE_MACS multiply-adds; the size controls show the model in use again."""
    from gleam_lab.app.chapters.ch7_live import limits
    from gleam import costs as counting
    c = LiveLabChapter()
    assert not c.shared                                    # no server session here
    c.shared = True
    model = c.model
    V, K = model.V, model.K
    # the count, by hand: 3 GRU blocks (V·H + H²) and the readout H·V, forward + 2× backward
    assert limits.update_macs(128, V, 16, K) == 3 * 16 * K * (3 * (V * 128 + 128 ** 2) + 128 * V)
    assert limits.update_macs(32, V, 1, K) == counting.train_chunk_macs("gru", V, 32, K) + 3 * K * 32 * V
    fits = [(H, B) for H in c.param.hidden.objects for B in c.param.streams.objects
            if limits.update_macs(H, V, B, K) <= limits.UPDATE_MACS]
    assert (32, 16) in fits and (128, 16) not in fits
    set_value(c, "gl-ch7-hidden", 128)
    assert c.model.H == 128
    set_value(c, "gl-ch7-B", 16)
    error = c.values()["ch7.error"]
    assert c.model.B == 1 and c.streams == 1 and find(c, "gl-ch7-B").value == 1, error
    assert "H = 128 with B = 16 streams" in error and "shared server allows 16 million" in error
    step = c.model.steps
    c.loop.param.trigger("step_once")
    assert c.model.steps == step + 1                       # the model in use trains on
    set_value(c, "gl-ch7-B", 2)                            # 128 × 2 fits on the default corpus
    assert (128, 2) in fits and c.model.B == 2 and c.values()["ch7.error"] == ""


def test_the_static_site_and_a_script_have_no_update_limit():
    c = LiveLabChapter()
    set_value(c, "gl-ch7-hidden", 128)
    set_value(c, "gl-ch7-B", 16)
    assert (c.model.H, c.model.B) == (128, 16) and c.values()["ch7.error"] == ""


def test_the_loss_curve_keeps_the_early_stages_on_a_log_step_axis():
    """The loss falls from chance past the unigram line within the first hundred or so steps; on a
    linear axis that grows past 10,000 steps those stages are one vertical line."""
    from bokeh.models import LogScale
    c = LiveLabChapter()
    c.__panel__()
    fig = figure(c, "gl-ch7-loss")
    assert isinstance(fig.x_scale, LogScale) and fig.x_range.start == 1
    assert "log scale" in fig.xaxis.axis_label
    click(c, "gl-ch7-step")
    c._push_curve(final=True)
    assert fig.x_range.start == 1 and min(c._curve.source.data["step"]) >= 1
