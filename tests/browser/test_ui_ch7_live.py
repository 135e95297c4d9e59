"""Chapter 7 in the browser: the char-level GRU trains live. Train beats the unigram plateau
(checked against gleam's own value for the default corpus), Pause stops, Step steps once,
lr = 5 shows as divergence (never a crash), a bad corpus is refused without breaking training,
and a corpus full of HTML is shown as the characters typed, never run. Files: a text file
becomes the corpus (a malformed one is refused); a model saved after N steps and loaded into a
fresh page (a new browser context) continues with the same loss and sample; the exported script,
run with this Python, prints the page's loss; a malformed model file is refused. B = 4 parallel
streams train what gleam's CharGRU(batch=4) trains, and the link says so."""
import codecs
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gleam_lab.content import fmt_sig
from gleam import examples
from gleam.chargru import DEFAULT_CORPUS, MAX_CORPUS_CHARS, MAX_FILE_BYTES, CharGRU
from helpers import ACTION_TIMEOUT, assert_shown, parse_shown, wait_until

pytestmark = pytest.mark.ui

# The EMA (decay 0.97) of gleam's model falls below the unigram plateau after a few dozen steps;
# this bound leaves room for the page's polling lag, not for a model that fails to learn.
STEP_BOUND = 1500
TRAIN_TIMEOUT = 120.0
XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>'
XSS_CORPUS = XSS + " the corpus is shown as text: " + XSS


def steps(lab):
    return int(lab.number("ch7.steps"))


def status(lab):
    return lab.text("ch7.status")


def wait_status(lab, want, timeout=30.0):
    lab.wait_text("ch7.status", lambda s: s == want, timeout=timeout, what=repr(want))


def open_ch7(lab):
    if lab.chapter_in_url() != "7" or lab.page.locator(".gl-ch7-train").count() == 0:
        lab.show("7")


def training_on(lab):
    return bool(lab.model_value("gl-ch7-train", "active"))


def pause(lab):
    lab.click("gl-ch7-pause")

    def stopped():
        state = (training_on(lab), status(lab), lab.text("ch7.steps"))
        assert not state[0] and state[1] in ("paused", "ready", "diverged"), \
            f"after Pause: Train toggle on = {state[0]}, status {state[1]!r}, steps {state[2]}"

    wait_until(stopped, page=lab.page, message="for training to stop")


def set_lr(lab, lr):
    if lab.model_value("gl-ch7-lr") != lr:
        lab.fill("gl-ch7-lr", repr(lr), selector="input")
        wait_until(lambda: lab.model_value("gl-ch7-lr") == lr, page=lab.page,
                   message=f"for the learning rate to become {lr}")


def apply_corpus(lab, text):
    lab.fill("gl-ch7-draft", text, selector="textarea")
    wait_until(lambda: lab.model_value("gl-ch7-draft") == text, page=lab.page,
               message="for the corpus box to hold the text")
    lab.click("gl-ch7-apply")


def set_seed(lab, seed):
    lab.fill("gl-ch7-seed", str(seed), selector="input")
    lab.wait_text("ch7.seed", lambda t: t == str(seed), what=str(seed))


def set_streams(lab, streams):
    lab.page.locator(".gl-ch7-B select").select_option(str(streams))
    wait_until(lambda: lab.model_value("gl-ch7-B") == str(streams) and lab.text("ch7.streams") == str(streams)
               and lab.text("ch7.steps") == "0", page=lab.page, message=f"for a model with B = {streams}")


def fresh_default(lab):
    """Paused, default corpus and learning rate, weights reset: steps 0, status ready."""
    open_ch7(lab)
    if training_on(lab):
        pause(lab)
    set_lr(lab, 0.1)
    if lab.model_value("gl-ch7-hidden") != "32":
        lab.page.locator(".gl-ch7-hidden select").select_option("32")
        wait_until(lambda: lab.model_value("gl-ch7-hidden") == "32" and lab.text("ch7.steps") == "0",
                   page=lab.page, message="for a model with H = 32")
    if lab.model_value("gl-ch7-B") != "1":
        set_streams(lab, 1)
    if lab.model_value("gl-ch7-seed") != 0:
        set_seed(lab, 0)
    if lab.model_value("gl-ch7-draft") != DEFAULT_CORPUS or lab.text("ch7.error"):
        apply_corpus(lab, DEFAULT_CORPUS)
        lab.wait_text("ch7.error", lambda t: t == "", what="empty")
    lab.click("gl-ch7-reset")
    lab.wait_text("ch7.steps", lambda t: t == "0", what="0 after Reset")
    wait_status(lab, "ready")


def test_baselines_are_gleams(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    model = CharGRU(DEFAULT_CORPUS)
    assert_shown(lab.text("ch7.chance"), model.chance_loss, 3, "ch7.chance")
    assert_shown(lab.text("ch7.chance"), math.log(len(set(DEFAULT_CORPUS))), 3, "ch7.chance = ln V")
    assert_shown(lab.text("ch7.unigram"), model.unigram_loss, 3, "ch7.unigram")
    assert lab.text("ch7.steps") == "0"
    assert status(lab) == "ready"
    assert lab.text("ch7.error") == ""


def test_train_falls_below_unigram(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    unigram = lab.number("ch7.unigram")
    assert_shown(lab.text("ch7.unigram"), CharGRU(DEFAULT_CORPUS).unigram_loss, 3, "ch7.unigram")
    lab.click("gl-ch7-train")
    wait_status(lab, "training")
    seen = {}

    def below_plateau():
        n, loss = steps(lab), lab.text("ch7.loss")
        seen.update(steps=n, loss=loss)
        if n > STEP_BOUND:
            pytest.fail(f"EMA loss still {loss} (unigram {unigram}) after {n} steps")
        return n > 0 and re.fullmatch(r"[-\d.]+", loss) is not None and parse_shown(loss)[0] < unigram

    wait_until(below_plateau, timeout=TRAIN_TIMEOUT, interval=0.1, page=lab.page,
               message=f"for the EMA loss to fall below the unigram plateau {unigram}")
    assert status(lab) == "training"
    pause(lab)
    wait_status(lab, "paused")


def test_pause_stops_and_step_steps_once(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    lab.click("gl-ch7-train")
    wait_status(lab, "training")
    lab.wait_number("ch7.steps", lambda n: n >= 5, what=">= 5")
    pause(lab)
    wait_status(lab, "paused")
    n = steps(lab)
    loss = lab.text("ch7.loss")
    lab.page.wait_for_timeout(2000)
    assert steps(lab) == n, "steps went on after Pause"
    assert lab.text("ch7.loss") == loss
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t != str(n), what=f"!= {n} after Step")
    assert steps(lab) == n + 1
    lab.page.wait_for_timeout(1000)
    assert steps(lab) == n + 1, "Step ran more than one step"
    assert status(lab) == "paused"


def test_two_clicks_in_one_go_both_apply(shared_lab):
    """Reset then Step sent back to back (one browser task) must give 1 step: each message to
    the server or the worker is applied, once, in order."""
    lab = shared_lab
    fresh_default(lab)
    for n in ("1", "2"):
        lab.click("gl-ch7-step")
        lab.wait_text("ch7.steps", lambda t, n=n: t == n, what=n)
    buttons = [lab.page.locator(f".{cls} button").element_handle()
               for cls in ("gl-ch7-reset", "gl-ch7-step")]
    lab.page.evaluate("([reset, step]) => { reset.click(); step.click(); }", buttons)
    lab.page.wait_for_timeout(1000)
    lab.wait_text("ch7.steps", lambda t: t == "1", timeout=10, what="1 (Reset, then one Step)")


def test_divergence_is_shown_not_crashed(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    set_lr(lab, 5.0)
    lab.click("gl-ch7-train")
    wait_status(lab, "diverged", timeout=TRAIN_TIMEOUT)
    wait_until(lambda: not training_on(lab), page=lab.page, message="for Train to switch off")
    body = lab.all_text()
    assert "Traceback" not in body
    lab.guard.assert_clean()
    # lower the rate and Reset: training works again
    set_lr(lab, 0.1)
    lab.click("gl-ch7-reset")
    wait_status(lab, "ready")
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    assert status(lab) == "paused"


@pytest.mark.parametrize("bad", ["a" * 40, "ab"], ids=["one-character", "too-short"])
def test_invalid_corpus_keeps_training_possible(shared_lab, bad):
    lab = shared_lab
    fresh_default(lab)
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    apply_corpus(lab, bad)
    message = lab.wait_text("ch7.error", lambda t: t != "", what="a message")
    assert "Traceback" not in message
    assert status(lab) != "diverged"
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "2", what="2 (the old model trains on)")
    lab.click("gl-ch7-train")
    wait_status(lab, "training")
    lab.wait_number("ch7.steps", lambda n: n > 2, what="> 2")
    pause(lab)


def test_a_paste_over_the_corpus_limit_arrives_whole_and_is_refused(shared_lab):
    """Over 5,000 characters (Panel's default box limit, which cut a paste silently) and over the
    corpus limit: the whole paste reaches gleam, which refuses it with its length and the limit."""
    lab = shared_lab
    fresh_default(lab)
    pasted = DEFAULT_CORPUS * (MAX_CORPUS_CHARS // len(DEFAULT_CORPUS) + 2)
    apply_corpus(lab, pasted)
    message = lab.wait_text("ch7.error", lambda t: t != "", what="a message")
    assert f"{len(pasted):,} characters" in message and f"{MAX_CORPUS_CHARS:,}" in message
    lab.click("gl-ch7-step")                                       # the model in use is kept
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1 (the old model trains on)")
    apply_corpus(lab, DEFAULT_CORPUS)
    lab.wait_text("ch7.error", lambda t: t == "", what="empty")


def test_values_a_client_sends_past_the_widgets_are_refused_beside_them(shared_lab):
    """A client that sets the widgets' models directly can send what no widget offers: a hidden
    size not among the options (0, 100000), a temperature out of range or NaN, a negative
    learning rate, a corpus past the box's maxlength or with 20,000 distinct characters. Each is
    refused with a message, the control shows the value in force again, and the model in use is
    kept and trains on."""
    lab = shared_lab
    fresh_default(lab)
    for bad in ("0", "100000"):
        lab.set_model("gl-ch7-hidden", "value", bad)
        message = lab.wait_text("ch7.refused.hidden", lambda t: bad in t, what=f"{bad} refused")
        assert message == (f"Hidden size H: {bad} was not applied (not one of 4, 16, 32, 64, 128); "
                           "it stays at 32.")
        wait_until(lambda: lab.model_value("gl-ch7-hidden") == "32", page=lab.page,
                   message="for the select to show 32 again")
    for bad, why in ((0.05, "out of bounds [0.1, 2.0]"), ("NaN", "not a finite number"), (7.5, "out of bounds")):
        lab.set_model("gl-ch7-temp", "value", bad)
        shown = "nan" if bad == "NaN" else repr(bad)
        message = lab.wait_text("ch7.refused.temp", lambda t: t.startswith(f"Temperature: {shown} "),
                                what=f"{shown} refused")
        assert why in message and message.endswith("it stays at 1.0."), message
        wait_until(lambda: lab.model_value("gl-ch7-temp") == 1.0, page=lab.page,
                   message="for the slider to show 1.0 again")
    assert lab.text("ch7.temperature") == "1.00"
    lab.set_model("gl-ch7-lr", "value", -1)                        # a rate gleam refuses
    message = lab.wait_text("ch7.error", lambda t: t.startswith("Learning rate not applied"),
                            what="the rate refused")
    assert "lr = 0.1" in message, message
    wait_until(lambda: lab.model_value("gl-ch7-lr") == 0.1, page=lab.page,
               message="for the box to show the rate in use again")
    many = "".join(chr(0x4E00 + i) for i in range(20_000))        # 20,000 distinct characters
    lab.set_model("gl-ch7-draft", "value", many)
    lab.click("gl-ch7-apply")
    message = lab.wait_text("ch7.error", lambda t: t.startswith("Corpus not applied"), what="a message")
    assert "20,000 distinct characters" in message and "256" in message, message
    lab.click("gl-ch7-step")                                       # the model in use trains on
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1 (the old model trains on)")
    assert lab.text("ch7.refused.hidden") != "" and lab.model_value("gl-ch7-hidden") == "32"
    lab.page.locator(".gl-ch7-hidden select").select_option("16")   # a real choice clears it
    wait_until(lambda: lab.page.locator('span.gv[data-key="ch7.refused.hidden"]:visible').count() == 0
               and lab.text("ch7.steps") == "0", page=lab.page, message="for H = 16 to clear the message")
    apply_corpus(lab, DEFAULT_CORPUS)
    lab.wait_text("ch7.error", lambda t: t == "", what="empty")


def test_a_shared_server_limits_one_update_and_the_static_site_does_not(shared_lab):
    """Under panel serve H = 128 with B = 16 streams is refused (one update would make another
    session's click wait too long) and the select shows the model in use again; the limit is
    stated under the control. The static site trains on the learner's machine: no limit."""
    from gleam_lab.app.chapters.ch7_live import limits
    lab = shared_lab
    fresh_default(lab)
    lab.page.locator(".gl-ch7-hidden select").select_option("128")
    wait_until(lambda: lab.text("ch7.steps") == "0" and lab.model_value("gl-ch7-hidden") == "128",
               page=lab.page, message="for a model with H = 128")
    lab.page.locator(".gl-ch7-B select").select_option("16")
    if lab.mode == "serve":
        message = lab.wait_text("ch7.error", lambda t: t != "", what="a message")
        assert "H = 128 with B = 16 streams" in message and "shared server allows 16 million" in message
        wait_until(lambda: lab.model_value("gl-ch7-B") == "1" and lab.text("ch7.streams") == "1",
                   page=lab.page, message="for the select to show B = 1 again")
        assert limits.NOTE in lab.pane_text("gl-ch7-limit")
    else:
        wait_until(lambda: lab.text("ch7.streams") == "16", page=lab.page, message="for B = 16")
        assert lab.text("ch7.error") == "" and lab.page.locator(".gl-ch7-limit").count() == 0
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    fresh_default(lab)


def test_corpus_html_is_text(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    apply_corpus(lab, XSS_CORPUS)
    # the new model is in place when the chance line is ln V of the new vocabulary
    wait_until(lambda: assert_shown(lab.text("ch7.chance"), math.log(len(set(XSS_CORPUS))), 3,
                                    "ch7.chance of the new corpus"), page=lab.page)
    assert lab.text("ch7.error") == ""
    # train a little so that the sample imitates the corpus's tags
    lab.click("gl-ch7-train")
    lab.wait_number("ch7.steps", lambda n: n >= 100, timeout=60, what=">= 100")
    pause(lab)
    sample = lab.page.locator(".gl-ch7-sample")
    wait_until(lambda: sample.count() == 1, page=lab.page)
    text = sample.text_content()
    assert set(text) <= set(XSS_CORPUS) | {"\n"}, f"sample has characters not in the corpus: {text!r}"
    assert "<" in text or ">" in text, f"the sample shows no typed tag characters: {text!r}"
    assert sample.locator("img, script").count() == 0
    assert lab.page.locator("img[src='x'], img[onerror]").count() == 0
    assert lab.page.locator(".gl-ch7-draft textarea").input_value() == XSS_CORPUS
    assert lab.page.evaluate("() => typeof window.__xss") == "undefined"
    # back to the default corpus
    apply_corpus(lab, DEFAULT_CORPUS)
    lab.wait_text("ch7.error", lambda t: t == "", what="empty")
    assert lab.page.evaluate("() => typeof window.__xss") == "undefined"


def choose_experiment(lab, name):
    lab.page.locator(".gl-ch7-experiment select").select_option(label=name)


def test_experiments_set_the_controls_and_say_what_to_expect(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    presets = {x["name"]: x for x in examples.chapter7_experiments()}
    for name in ("Tiny: H 4", "One repeated word", "Default: lr 0.1, H 32"):
        x = presets[name]
        choose_experiment(lab, name)
        lab.wait_text("ch7.experiment", lambda t, x=x: x["symptom"] in t and x["cause"] in t,
                      what=f"the note of {name!r}")
        wait_until(lambda: (lab.model_value("gl-ch7-lr"), lab.model_value("gl-ch7-hidden"),
                            lab.model_value("gl-ch7-temp")) == (x["lr"], str(x["hidden"]), x["temperature"]),
                   page=lab.page, message=f"for {name!r}'s controls")
        corpus = x["corpus"] or DEFAULT_CORPUS
        model = CharGRU(corpus, hidden=x["hidden"])
        wait_until(lambda: assert_shown(lab.text("ch7.chance"), model.chance_loss, 3, "ch7.chance"), page=lab.page)
        assert lab.text("ch7.steps") == "0" and lab.text("ch7.pending") == ""
        assert_shown(lab.text("ch7.temperature"), x["temperature"], 2, "ch7.temperature")
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1 after a Step")


def test_an_emptied_learning_rate_keeps_the_rate_in_use(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    lab.fill("gl-ch7-lr", "", selector="input")
    lab.wait_text("ch7.error", lambda t: "the box was empty" in t, what="a message about the empty box")
    wait_until(lambda: lab.model_value("gl-ch7-lr") == 0.1, page=lab.page,
               message="for the box to show the rate in use")
    lab.fill("gl-ch7-draft", "typed, not applied: the river runs fast.", selector="textarea")
    lab.wait_text("ch7.pending", lambda t: "not in use yet" in t, what="the not-applied hint")
    apply_corpus(lab, DEFAULT_CORPUS)
    lab.wait_text("ch7.pending", lambda t: t == "", what="no hint once applied")


# ---------------------------------------------------------------- the seed and the files

TEXT = "Über den Wassern: the river runs «fast» — and the wheel turns faster (1, 2, 3)!\n" * 3
assert len(set(TEXT)) != len(set(DEFAULT_CORPUS))     # its chance line says that it is in use


def step_n(lab, n):
    """n clicks on Step sent in one go (each is applied, once, in order); waits for them all."""
    want = steps(lab) + n
    button = lab.page.locator(".gl-ch7-step button").element_handle()
    lab.page.evaluate("([b, n]) => { for (let i = 0; i < n; i++) b.click(); }", [button, n])
    lab.wait_text("ch7.steps", lambda t: t == str(want), timeout=60, what=str(want))


def upload(lab, cls, name, data, mime="text/plain"):
    """Choose a file with the picker's button (app.widgets.file_pick opens the browser's chooser)."""
    with lab.page.expect_file_chooser(timeout=ACTION_TIMEOUT * 1000) as chooser:
        lab.page.locator(f".{cls} button").click()
    chooser.value.set_files({"name": name, "mimeType": mime, "buffer": data})


def download(lab, cls):
    """Click a FileDownload; returns (bytes, suggested file name) of what the browser saved."""
    with lab.page.expect_download(timeout=ACTION_TIMEOUT * 1000) as info:
        lab.page.locator(f".{cls} a").click()
    d = info.value
    return Path(d.path()).read_bytes(), d.suggested_filename


def sample_text(lab):
    return lab.page.locator(".gl-ch7-sample").text_content()


def test_the_seed_makes_a_new_model(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    set_seed(lab, 3)
    lab.wait_text("ch7.steps", lambda t: t == "0", what="0: a new model")
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    assert abs(float(lab.exact("ch7.last_loss")) - CharGRU(seed=3).step(1).loss[0]) < 1e-11
    set_seed(lab, 0)


def test_a_text_file_becomes_the_corpus_and_a_malformed_one_is_refused(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    step_n(lab, 2)
    for name, data, why in (("photo.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(1, 60)), "binary"),
                            ("windows.txt", TEXT.encode("utf-16"), "save it as UTF-8"),
                            ("latin.txt", "café au lait by the mill".encode("latin-1"), "not UTF-8")):
        upload(lab, "gl-ch7-upload", name, data)
        message = lab.wait_text("ch7.error", lambda t, n=name, w=why: n in t and w in t, what=f"why {name} is refused")
        assert "previous model is kept" in message and "Traceback" not in message
        assert lab.text("ch7.steps") == "2" and lab.model_value("gl-ch7-draft") == DEFAULT_CORPUS
    step_n(lab, 1)                                  # the old model trains on
    upload(lab, "gl-ch7-upload", "mine.txt", codecs.BOM_UTF8 + TEXT.replace("\n", "\r\n").encode("utf-8"))
    lab.wait_text("ch7.file", lambda t: "mine.txt" in t, what="a note on mine.txt")
    assert_shown(lab.text("ch7.chance"), math.log(len(set(TEXT))), 3, "ln V of the file's text")
    assert lab.text("ch7.error") == "" and lab.text("ch7.steps") == "0"
    wait_until(lambda: lab.model_value("gl-ch7-draft") == TEXT, page=lab.page, message="for the box to hold the text")
    step_n(lab, 1)
    assert abs(float(lab.exact("ch7.last_loss")) - CharGRU(TEXT).step(1).loss[0]) < 1e-11
    upload(lab, "gl-ch7-upload", "mine.txt", TEXT.encode("utf-8"))      # the same file again: read again
    lab.wait_text("ch7.steps", lambda t: t == "0", what="0: a new model from the same file")
    step_n(lab, 1)
    big = b"the river runs by the mill. " * (MAX_FILE_BYTES // 28 + 1)   # over the limit: never sent
    upload(lab, "gl-ch7-upload", "book.txt", big)
    message = lab.wait_text("ch7.error", lambda t: "book.txt" in t, what="why book.txt is refused")
    assert f"the file is {len(big):,} bytes; the limit is {MAX_FILE_BYTES:,} bytes (none of it was read)" in message
    assert lab.text("ch7.steps") == "1" and "previous model is kept" in message
    apply_corpus(lab, DEFAULT_CORPUS)
    lab.wait_text("ch7.error", lambda t: t == "", what="empty")


def test_a_saved_model_continues_exactly_in_a_fresh_page(shared_lab, pages):
    lab = shared_lab
    fresh_default(lab)
    step_n(lab, 40)
    set_lr(lab, 0.05)
    step_n(lab, 10)
    # a malformed model file is refused and the model in use stays
    data, name = download(lab, "gl-ch7-save")
    upload(lab, "gl-ch7-load", "broken.npz", data[:len(data) // 2], mime="application/octet-stream")
    lab.wait_text("ch7.error", lambda t: "broken.npz" in t and "not loaded" in t, what="why broken.npz is refused")
    assert lab.text("ch7.steps") == "50" and lab.model_value("gl-ch7-lr") == 0.05
    last, sample = lab.exact("ch7.last_loss"), sample_text(lab)
    model = CharGRU.from_bytes(data)                # the file holds the page's model
    assert name == "chargru-50-steps.npz" and model.steps == 50 and fmt_sig(model.last_loss, 12) == last
    assert model.lr_history == ((0, 0.1), (40, 0.05))
    # a fresh page: another browser context, nothing shared
    other = pages.new(lab.site, label=f"{lab.mode}, a fresh page")
    other.open("7")
    assert other.text("ch7.steps") == "0"
    upload(other, "gl-ch7-load", name, data, mime="application/octet-stream")
    other.wait_text("ch7.steps", lambda t: t == "50", what="50 once the file is loaded")
    assert other.exact("ch7.last_loss") == last and other.text("ch7.error") == ""
    assert other.text("ch7.last_loss") == fmt_sig(model.last_loss, 4) == lab.text("ch7.last_loss")
    assert "loaded: the model after 50 steps" in other.text("ch7.file")
    wait_until(lambda: other.model_value("gl-ch7-lr") == 0.05, page=other.page, message="for the loaded lr")
    wait_until(lambda: sample_text(other) == sample, page=other.page, message="for the same sample")
    for page in (lab, other):
        step_n(page, 1)
    assert other.exact("ch7.last_loss") == lab.exact("ch7.last_loss")
    assert float(other.exact("ch7.last_loss")) != float(last)
    wait_until(lambda: sample_text(other) == sample_text(lab), page=other.page, message="for the same sample")


def test_the_exported_script_prints_the_pages_loss(shared_lab, tmp_path):
    lab = shared_lab
    fresh_default(lab)
    step_n(lab, 30)
    set_lr(lab, 0.2)
    step_n(lab, 25)
    lab.set_slider("gl-ch7-temp", 0.7)
    wait_until(lambda: lab.text("ch7.temperature") == "0.70", page=lab.page, message="for T = 0.70")
    last, sample = float(lab.exact("ch7.last_loss")), sample_text(lab)
    data, name = download(lab, "gl-ch7-export")
    assert name == "chargru_55_steps.py" and "Exported" in lab.text("ch7.file")
    script = tmp_path / name
    script.write_bytes(data)
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    found = re.search(r"^last chunk loss \(step (\d+)\): (\S+)$", done.stdout, re.M)
    assert found and int(found.group(1)) == 55, done.stdout
    assert abs(float(found.group(2)) - last) < 1e-9, (found.group(2), last)
    assert done.stdout.split("sample at temperature 0.7:\n", 1)[1].removesuffix("\n") == sample
    lab.set_slider("gl-ch7-temp", 1.0)


def test_one_key_on_the_hidden_size_can_be_undone_by_keyboard(shared_lab):
    """The hidden-size select, focused, takes an arrow key as a new H (a new model): the trained
    one is set aside, and Undo (Enter on it) brings it back to continue exactly."""
    lab = shared_lab
    fresh_default(lab)
    for n in (1, 2, 3):
        lab.click("gl-ch7-step")
        lab.wait_text("ch7.steps", lambda t, n=n: t == str(n), what=str(n))
    undo = lab.page.locator(".gl-ch7-undo button")   # (may show a model an earlier test set aside)
    lab.page.locator(".gl-ch7-hidden select").focus()
    lab.page.keyboard.press("ArrowDown")
    wait_until(lambda: lab.model_value("gl-ch7-hidden") == "64" and lab.text("ch7.steps") == "0",
               page=lab.page, message="for the arrow key to make a model with H = 64")
    undo.wait_for(state="visible")
    assert "3 steps" in undo.text_content() and "H = 32" in undo.text_content()
    # the label is inside its button: nothing runs past the edge, over the messages beside it
    overflow = undo.evaluate("""b => {
      const host = b.getRootNode().host.getBoundingClientRect(), box = b.getBoundingClientRect();
      return [b.scrollWidth - b.clientWidth, b.scrollHeight - b.clientHeight, box.right - host.right];
    }""")
    assert max(overflow) <= 0.5, f"Undo's label runs past its button or the widget's box: {overflow} px"
    undo.focus()
    lab.page.keyboard.press("Enter")
    wait_until(lambda: lab.text("ch7.steps") == "3" and lab.model_value("gl-ch7-hidden") == "32",
               page=lab.page, message="for Undo to bring back the model trained for 3 steps")
    assert "Brought back the model trained for 3 steps" in lab.text("ch7.file")
    lab.click("gl-ch7-step")
    lab.wait_text("ch7.steps", lambda t: t == "4", what="4")
    twin = CharGRU(DEFAULT_CORPUS)
    twin.step(4)
    assert abs(float(lab.exact("ch7.last_loss")) - twin.last_loss) < 1e-11


def test_four_parallel_streams_step_as_gleams_batched_model(shared_lab):
    lab = shared_lab
    fresh_default(lab)
    set_streams(lab, 4)
    assert "B=4" in lab.query()
    for n in (1, 2):
        lab.click("gl-ch7-step")
        lab.wait_text("ch7.steps", lambda t, n=n: t == str(n), what=str(n))
    twin = CharGRU(DEFAULT_CORPUS, batch=4)
    twin.step(2)
    assert abs(float(lab.exact("ch7.last_loss")) - twin.last_loss) < 1e-11
    assert "B = 4" in lab.pane_text("gl-ch7-stats")
    set_streams(lab, 1)
