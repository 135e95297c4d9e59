"""The model inspector without a browser: through its controls (found by css class), every value the
page shows is what gleam computes for the same model, input and intervention, made here with gleam's
own functions (gleam.instruments.inspect, .interventions, gleam.labs.subjects); typed inputs and
files gleam refuses are said, and what was shown stays."""
import numpy as np
import pytest

from gleam import checkpoints
from gleam.instruments import inspect, interventions as iv
from gleam.labs import subjects
from gleam_lab.app.chapters.inspector import FILE, InspectorChapter
from gleam_lab.content import fmt_fixed
from surface import find, set_value, shown

COUNTING = next(c.id for c in subjects.choices() if c.group == "counting · aⁿbⁿ · GRU" and c.learned)
MEMORY = next(c.id for c in subjects.choices() if c.group == "memory · cue–delay · LSTM" and c.learned)


@pytest.fixture(scope="module")
def page():
    c = InspectorChapter()
    c.__panel__()
    return c


def control(c, name, value):
    set_value(c, f"gl-chinspector-{c.url_controls()[name]}", value)


def said(s, look):
    return f"{s.classes[look.prediction]} (p = {fmt_fixed(look.probabilities[look.prediction], 3)})"


@pytest.mark.parametrize("model_id, action", [(COUNTING, "clamp"), (COUNTING, "patch"), (MEMORY, "swap"),
                                              (MEMORY, "erase"), (MEMORY, "patch")])
def test_each_intervention_shows_what_gleam_gives(page, model_id, action):
    c = page
    control(c, "action", "none")
    control(c, "model", model_id)
    s = subjects.shipped(model_id)
    examples = next(iter(s.sets.values()))
    text = examples[3].text
    control(c, "text", text)
    control(c, "step", 2)
    control(c, "unit", 1)
    control(c, "value", -0.8)
    control(c, "alpha", 4.0)
    control(c, "action", action)
    ids, fit = s.encode(text), inspect.fit_reference(s.reference())
    label = next(iter(s.labels))
    reading = subjects.reading(s, label)
    if action == "clamp":
        intervention = iv.clamp_unit(1, -0.8, list(range(2, len(text))))
    elif action == "patch":
        intervention = iv.add_along(reading.direction, 4.0, [2])
    elif action == "swap":
        other = next(e.text for e in examples if e.target != s.target(text) and len(e.text) > 2)
        intervention = inspect.transplant(s.model, s.encode(other), 2)
    else:
        intervention = iv.zero_input(ids[:, None, :], [2])
    before, after = inspect.edit(s.model, ids, intervention, fit)
    v = c.values()
    assert v["inspector.error"] == "" and v["inspector.input"] == text
    assert v["inspector.prediction"] == said(s, before) and v["inspector.after"] == said(s, after)
    assert v["inspector.words"] == inspect.in_words(before, after, s.classes, reading.probe)
    assert v["inspector.target"] == s.classes[s.target(text)]
    assert v["inspector.probe.selectivity"] == fmt_fixed(reading.report.selectivity, 3)
    assert v["inspector.sigma_max"] == fmt_fixed(float(before.sensitivity.max()), 3)
    assert shown(c) == v
    # the figures draw these states: the heatmaps hold h before and after, units by characters
    data = c.views.h.source.data
    assert np.allclose(data["h_before"][0], before.states.T) and np.allclose(data["h_after"][0], after.states.T)
    assert c.views.c_row.visible == (before.cells is not None)


def test_a_text_outside_the_alphabet_or_a_step_past_it_is_refused_and_what_was_shown_stays(page):
    c = page
    control(c, "action", "none")
    control(c, "model", COUNTING)
    control(c, "text", "aabb")
    shown_before = c.values()
    control(c, "text", "ab<b>c</b>")
    v = c.values()
    assert "outside this model's alphabet" in v["inspector.error"] and "'<'" in v["inspector.error"]
    assert {k: v[k] for k in v if k != "inspector.error"} == {k: shown_before[k] for k in v if k != "inspector.error"}
    assert shown(c)["inspector.error"] == v["inspector.error"]     # shown as text, escaped
    control(c, "text", "aabb")
    control(c, "step", 9)
    control(c, "action", "clamp")
    assert "character 9 is past the input's last, 3" in c.values()["inspector.error"]
    control(c, "step", 0)
    assert c.values()["inspector.error"] == ""


def test_choosing_your_file_before_loading_one_says_so_and_the_model_stays(page):
    c = page
    control(c, "model", COUNTING)
    control(c, "model", FILE)
    assert c.model == COUNTING and "No file is loaded yet" in c.values()["inspector.error"]


def _file(layer="GRU", n=6, alphabet="ab", task="anbn", **changes):
    rng = np.random.default_rng(1)
    k = {"GRU": 3, "LSTM": 4, "RNN": 1}[layer]
    t = {"gru.weight_ih_l0": rng.standard_normal((k * n, len(alphabet))) * 0.5,
         "gru.weight_hh_l0": rng.standard_normal((k * n, n)) * 0.5,
         "gru.bias_ih_l0": rng.standard_normal(k * n) * 0.1, "gru.bias_hh_l0": rng.standard_normal(k * n) * 0.1,
         "head.weight": rng.standard_normal((2, n)), "head.bias": np.zeros(2)}
    t.update(changes)
    vocab = {"alphabet": list(alphabet), "classes": ["reject", "accept"], "layer": layer, "task": task}
    return checkpoints.write_safetensors({k: v for k, v in t.items() if v is not None}), vocab


def test_a_loaded_file_is_inspected_and_a_refused_one_leaves_the_model_in_use():
    import json
    c = InspectorChapter()
    c.__panel__()
    data, vocab = _file()
    c.files.read(data, "mine.safetensors", json.dumps(vocab).encode(), "mine.json")
    assert c.model == FILE and c.values()["inspector.model"].startswith("your file: a GRU, width 6")
    ck = checkpoints.load(data, vocab)
    text = c.values()["inspector.input"]
    look = inspect.look(ck.model, ck.encode(text)[:, 0])
    assert c.values()["inspector.prediction"] == said(c.subject, look)
    in_use = c.values()
    bad = {"truncated": (data[:-9], vocab, "truncated"),
           "not a checkpoint": (b"\x00" * 40, vocab, "data"),
           "wrong shape": (_file(**{"head.weight": np.zeros((2, 7))})[0], vocab, "weight"),
           "NaN": (_file(**{"gru.bias_hh_l0": np.full(18, np.nan)})[0], vocab, "finite"),
           "missing": (_file(**{"gru.bias_hh_l0": None})[0], vocab, "bias_hh"),
           "bidirectional": (_file(**{"gru.weight_ih_l0_reverse": np.zeros((18, 2))})[0], vocab, "bidirectional"),
           "vocab": (data, {**vocab, "alphabet": ["a"]}, "alphabet")}
    for what, (blob, v, word) in bad.items():
        c.files.read(blob, f"{what}.safetensors", json.dumps(v).encode(), "v.json")
        error = c.values()["inspector.error"]
        assert error.startswith(f"File '{what}.safetensors' not loaded:") and word in error, (what, error)
        assert {k: c.values()[k] for k in in_use if k != "inspector.error"} == \
               {k: in_use[k] for k in in_use if k != "inspector.error"}, what
    c.files.read(b"x" * (checkpoints.MAX_BYTES + 1), "big.npz", json.dumps(vocab).encode(), "v.json")
    assert "MB" in c.values()["inspector.error"] and c.model == FILE


def test_the_file_pickers_hand_over_what_the_browser_read_and_say_what_it_refused():
    import base64
    import json
    from gleam_lab.app.chapters.inspector.files import LIMITS
    c = InspectorChapter()
    c.__panel__()
    model = c.values()["inspector.model"]
    find(c, "gl-chinspector-weights-sink").value = json.dumps(["1", "big.safetensors", LIMITS["weights"] + 1, None])
    v = c.values()
    assert v["inspector.error"] == (f"File 'big.safetensors' not loaded: it is {LIMITS['weights'] + 1:,} bytes, over "
                                    f"the page's limit of {LIMITS['weights']:,} (12 MB) for a model file; none of it "
                                    "was read. The model in use stays.")
    assert v["inspector.model"] == model and LIMITS["weights"] < checkpoints.MAX_BYTES
    data, vocab = _file()
    for kind, name, blob in (("vocab", "mine.json", json.dumps(vocab).encode()), ("weights", "mine.safetensors", data)):
        find(c, f"gl-chinspector-{kind}-sink").value = json.dumps(["2", name, len(blob), base64.b64encode(blob).decode()])
    assert c.model == FILE and c.values()["inspector.file"] == f"Loaded 'mine.safetensors' with 'mine.json': {c.subject.title}."
    assert find(c, "gl-chinspector-weights-sink").value == ""          # the same file again is news


def test_the_picker_puts_an_example_in_the_input(page):
    c = page
    control(c, "model", COUNTING)
    picker = find(c, "gl-chinspector-pick")
    name, examples = next(iter(c.subject.sets.items()))
    picker.value = examples[5].text
    assert c.text == examples[5].text and c.values()["inspector.input"] == examples[5].text


def test_another_model_that_cannot_read_the_input_opens_on_its_first_example(page):
    c = page
    control(c, "action", "none")
    control(c, "model", COUNTING)
    control(c, "text", "abab")
    control(c, "model", MEMORY)               # 'abab' holds no query: the memory model reads it
    assert c.values()["inspector.input"] == "abab"
    control(c, "text", "ab?z")
    assert "outside" in c.values()["inspector.error"]
    control(c, "model", COUNTING)             # '?' and 'z' are not counting's: its first example
    first = next(iter(c.subject.sets.values()))[0].text
    assert c.text == "" and c.values()["inspector.input"] == first and c.values()["inspector.error"] == ""
    assert c.values()["inspector.model"] == c.subject.title


def test_a_model_trained_in_a_labs_retrain_is_offered_and_inspected_as_gleam_makes_it():
    from gleam_lab.app.chapters.extrapolation_lab.retrain import config_of
    from gleam_lab.app.lab import Lab
    from gleam.labs.extrapolation.counting import CountingRun
    from surface import click
    lab = Lab(chapter="inspector")
    c = lab.view("inspector")
    model, shown_before = c.model, c.values()["inspector.model"]
    control(c, "model", "trained/extrapolation")            # nothing trained yet: said, the model stays
    v = c.values()
    assert c.model == model and v["inspector.model"] == shown_before
    assert v["inspector.error"].startswith("Nothing is trained in this page yet in the extrapolation lab's retrain")
    lab.chapter = "extrapolation"
    x = lab.view("extrapolation")
    click(x, "gl-chextrapolation-rt-step")                  # experiment 1 (brackets): not one the inspector reads
    assert lab.trained_here.subjects == {}
    x.experiment, x.kind, x.seed = "2. counting (accept)", "anbncn", 5
    for _ in range(3):
        click(x, "gl-chextrapolation-rt-step")              # each Step is measured: the last is offered
    run = CountingRun(config_of("2. counting (accept)", x.cell, "anbncn", 5))
    run.step(3)
    want = subjects.from_run(run, run.metrics())
    lab.chapter = "inspector"
    control(c, "model", "trained/extrapolation")
    v = c.values()
    assert v["inspector.model"] == want.title and v["inspector.status"] == want.status
    assert v["inspector.status"].startswith("trained in this page: 3 updates; held-in score")
    text = next(iter(want.sets.values()))[0].text
    look = inspect.look(want.model, want.encode(text), inspect.fit_reference(want.reference()))
    assert v["inspector.input"] == text and v["inspector.prediction"] == said(want, look)
    lab.chapter = "extrapolation"
    click(x, "gl-chextrapolation-rt-step")                  # a newer measurement replaces the one in use
    assert c.values()["inspector.status"].startswith("trained in this page: 4 updates")
