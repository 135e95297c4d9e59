"""The model inspector in the browser, in both modes: one of each intervention driven through the
page's controls shows what gleam gives for the same model, input and intervention (computed here);
a typed text outside the alphabet is refused as text; malformed model files are each refused with a
sentence naming the problem (one over the page's size limit before any of it is sent), the model
in use staying, and a good one is then inspected; a model trained in the extrapolation lab's retrain
is offered and inspected as gleam makes it."""
import functools
import json

import numpy as np
import pytest

from gleam import checkpoints
from gleam.instruments import inspect, interventions as iv
from gleam.labs import subjects
from gleam_lab.app.chapters.inspector import ACTIONS, DEFAULT_MODEL
from gleam_lab.app.chapters.inspector.files import LIMITS
from gleam_lab.content import fmt_fixed
from helpers import wait_until

pytestmark = pytest.mark.ui

TEXT = "aaaabbbb"


def open_inspector(lab, text=None):
    """The inspector on its default model (a test before may have left another), with `text` typed."""
    if lab.chapter_in_url() != "inspector" or lab.page.locator(".gl-chinspector-do").count() == 0:
        lab.show("inspector")
    name = next(c.name for c in subjects.choices() if c.id == DEFAULT_MODEL)
    lab.page.locator(".gl-chinspector-model select").select_option(label=name)
    lab.wait_text("inspector.model", lambda t: t == subjects.shipped(DEFAULT_MODEL, n=2).title, what="the default model")
    if text is not None:
        lab.fill("gl-chinspector-text", text)
        lab.wait_text("inspector.input", lambda t: t == text, what=text)


def choose(lab, cls, label):
    lab.page.locator(f".{cls} select").select_option(label=label)


@functools.cache
def default_model():
    """(the default model's Subject, its fitted reference, its probe of #a − #b), made once."""
    s = subjects.shipped(DEFAULT_MODEL)
    return s, inspect.fit_reference(s.reference()), subjects.reading(s, "a_minus_b")


def expected(action, text=TEXT, step=2, unit=1):
    """(prediction after, words) gleam gives for the default model."""
    s, fit, reading = default_model()
    ids = s.encode(text)
    intervention = {"clamp": lambda: iv.clamp_unit(unit, 1.0, list(range(step, len(text)))),
                    "patch": lambda: iv.add_along(reading.direction, 2.0, [step]),
                    "swap": lambda: inspect.transplant(s.model, s.encode(next(
                        e.text for e in next(iter(s.sets.values())) if e.target != s.target(text) and len(e.text) > step)), step),
                    "erase": lambda: iv.zero_input(ids[:, None], [step], d=len(s.alphabet))}[action]()
    before, after = inspect.edit(s.model, ids, intervention, fit)
    said = f"{s.classes[after.prediction]} (p = {fmt_fixed(after.probabilities[after.prediction], 3)})"
    return said, inspect.in_words(before, after, s.classes, reading.probe)


def test_one_of_each_intervention_shows_what_gleam_gives(shared_lab):
    lab = shared_lab
    open_inspector(lab, TEXT)
    lab.fill("gl-chinspector-step", "2")
    lab.fill("gl-chinspector-unit", "1")
    for action in ("clamp", "patch", "swap", "erase"):
        choose(lab, "gl-chinspector-do", ACTIONS[action])
        after, words = expected(action)
        lab.wait_text("inspector.words", lambda t: t == words, what=f"{words!r} ({action})")
        assert lab.text("inspector.after") == after, action
        assert lab.text("inspector.error") == ""
    choose(lab, "gl-chinspector-do", ACTIONS["none"])
    lab.wait_text("inspector.after", lambda t: t == "none chosen", what="none chosen")


def test_a_typed_text_outside_the_alphabet_is_refused_as_text(shared_lab):
    lab = shared_lab
    open_inspector(lab, TEXT)
    lab.fill("gl-chinspector-text", "ab<i>z</i>")
    error = lab.wait_text("inspector.error", lambda t: "outside this model's alphabet" in t, what="the refusal")
    assert "'<'" in error and "'z'" in error
    assert lab.text("inspector.input") == TEXT                       # what was shown stays
    assert lab.page.locator(".gl-chinspector-text ~ * i, span.gv i").count() == 0


def _file(**changes):
    rng = np.random.default_rng(3)
    n = 5
    t = {"gru.weight_ih_l0": rng.standard_normal((3 * n, 2)), "gru.weight_hh_l0": rng.standard_normal((3 * n, n)),
         "gru.bias_ih_l0": np.zeros(3 * n), "gru.bias_hh_l0": np.zeros(3 * n),
         "head.weight": rng.standard_normal((2, n)), "head.bias": np.zeros(2)}
    t.update(changes)
    return checkpoints.write_safetensors({k: v for k, v in t.items() if v is not None})


VOCAB = {"alphabet": ["a", "b"], "classes": ["reject", "accept"], "layer": "GRU", "task": "anbn"}


def upload(lab, kind, name, data, mime="application/octet-stream"):
    with lab.page.expect_file_chooser() as chooser:
        lab.page.locator(f".gl-chinspector-{kind} button").click()
    chooser.value.set_files({"name": name, "mimeType": mime, "buffer": data})


def test_malformed_files_are_refused_by_name_and_a_good_one_is_inspected(shared_lab):
    lab = shared_lab
    open_inspector(lab)
    model = lab.text("inspector.model")
    upload(lab, "vocab", "vocab.json", json.dumps(VOCAB).encode(), "application/json")
    lab.wait_text("inspector.file", lambda t: "vocab.json" in t and "model file" in t, what="the vocabulary noted")
    good = _file()
    bad = {"truncated": (good[:-7], "truncated"),
           "header": (b"\xff" * 8 + b"{}", "header"),
           "shapes": (_file(**{"head.weight": np.zeros((2, 4))}), "weight"),
           "nan": (_file(**{"gru.bias_hh_l0": np.full(15, np.nan)}), "finite"),
           "bidirectional": (_file(**{"gru.weight_ih_l0_reverse": np.zeros((15, 2))}), "bidirectional"),
           "two layers": (_file(**{"gru.weight_ih_l1": np.zeros((15, 5))}), "layer"),
           "oversized": (bytes(LIMITS["weights"] + 1), "over the page's limit")}
    for what, (data, word) in bad.items():
        upload(lab, "weights", f"{what}.safetensors", data)
        error = lab.wait_text("inspector.error", lambda t: t.startswith(f"File '{what}.safetensors' not loaded:"),
                              what=f"the refusal of {what}")
        assert word in error, (what, error)
        assert lab.text("inspector.model") == model, what
    upload(lab, "weights", "mine.safetensors", good)
    lab.wait_text("inspector.model", lambda t: t.startswith("your file: a GRU, width 5"), what="the file's model")
    ck = checkpoints.load(good, VOCAB)
    text = lab.text("inspector.input")
    look = inspect.look(ck.model, ck.encode(text)[:, 0])
    want = f"{ck.classes[look.prediction]} (p = {fmt_fixed(look.probabilities[look.prediction], 3)})"
    wait_until(lambda: lab.text("inspector.prediction") == want, page=lab.page, message=f"prediction {want}")
    assert lab.text("inspector.error") == ""


def test_a_model_trained_in_the_extrapolation_lab_is_offered_and_inspected(shared_lab):
    from gleam_lab.app.chapters.extrapolation_lab.retrain import config_of
    from gleam.labs.extrapolation.counting import CountingRun
    lab = shared_lab
    lab.show("extrapolation")
    choose(lab, "gl-chextrapolation-x", "2. counting (accept)")
    choose(lab, "gl-chextrapolation-cell", "GRU")
    choose(lab, "gl-chextrapolation-kind", "aⁿbⁿ")
    lab.wait_text("extrapolation.retrain.updates", lambda t: t == "0", what="0 (a new run)")
    for k in (1, 2):
        lab.click("gl-chextrapolation-rt-step")
        lab.wait_text("extrapolation.retrain.updates", lambda t: t == str(k), what=f"{k} update(s)")
    lab.wait_text("extrapolation.retrain.mine.iid_accuracy", lambda t: t != "—", what="the stepped model measured")
    run = CountingRun(config_of("2. counting (accept)", "gru_torch", "anbn", 0))
    run.step(2)
    want = subjects.from_run(run, run.metrics())
    lab.show("inspector")
    choose(lab, "gl-chinspector-model", "the extrapolation lab's retrain")
    lab.wait_text("inspector.model", lambda t: t == want.title, what=want.title)
    assert lab.text("inspector.status") == want.status
    text = next(iter(want.sets.values()))[0].text
    look = inspect.look(want.model, want.encode(text))
    said = f"{want.classes[look.prediction]} (p = {fmt_fixed(look.probabilities[look.prediction], 3)})"
    lab.wait_text("inspector.prediction", lambda t: t == said, what=said)
    assert lab.text("inspector.input") == text and lab.text("inspector.error") == ""
