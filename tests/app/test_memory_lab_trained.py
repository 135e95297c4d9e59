"""The memory lab's trained models without a browser: every number of the three tables is the
build's sweep records' (gleam.pretrained), worked out here from the records themselves; the
retrain trains the chosen configuration through the page's controls, stops as finished, and a
run to the end is the build's run of that configuration, number for number; Pause keeps the
model and its acceptance test is of the model as it is."""

import pytest

from app.chapters.memory_lab import MemoryLabChapter
from app.chapters.memory_lab.retrain import ROWS, TASKS, config_of
from content import fmt_fixed
from gleam import pretrained
from gleam.labs.memory import run as sweep_memory
from surface import click, find, set_value, shown
from tests.memory_trained import SPECS, expected, hold_at, seeds

@pytest.fixture(scope="module")
def chapter():
    return MemoryLabChapter()


def test_every_number_of_the_trained_tables_is_the_records(chapter):
    want = expected()
    v = chapter.values()
    assert {k: v[k] for k in want} == want
    assert {k: x for k, x in v.items() if k.startswith("memory.trained.")} == want   # nothing else shown
    assert {k: x for k, x in shown(chapter).items() if k in want} == want


def test_the_plots_draw_every_seeds_curve(chapter):
    runs = pretrained.results("memory")
    plot = chapter.trained.retention
    for cell in SPECS["cells"]["grid"]["cell"]:
        for i, m in enumerate(seeds(runs["cells"], cell=cell)):
            xs, ys = plot.data(f"{cell}.{i}")
            assert xs == SPECS["cells"]["fixed"]["probe_delays"]
            assert ys == [m[f"retention_at_{d}"] for d in SPECS["cells"]["fixed"]["probe_delays"]]
    grads = chapter.trained.grads
    for bias in SPECS["forget_bias"]["grid"]["forget_bias"]:
        for i, m in enumerate(seeds(runs["forget_bias"], forget_bias=bias)):
            xs, ys = grads.data(f"{bias}.{i}")
            epochs = SPECS["forget_bias"]["fixed"]["epochs"]
            assert xs == list(range(1, epochs + 1)) and ys == [m[f"cue_grad_epoch_{int(e)}"] for e in xs]


def test_each_table_links_the_spec_that_reproduces_it(chapter):
    import html
    import json
    for name in SPECS:
        block = find(chapter, f"gl-chmemory-{'cells' if name == 'cells' else 'bias' if name == 'forget_bias' else 'horizons'}")
        assert html.escape(json.dumps(SPECS[name], indent=1)) in block.object
        assert f"python -m gleam.sweep {name}.json" in block.object


def retrain_values(c):
    return {k: v for k, v in c.values().items() if k.startswith("memory.retrain.")}


def test_a_retrain_to_the_end_is_the_builds_run_of_that_configuration():
    c = MemoryLabChapter()
    run = c.retrain.run
    assert run.config == sweep_memory.normalized(config_of(next(iter(TASKS)), "lstm", 1.0, "full", 0))
    before = retrain_values(c)
    assert before["memory.retrain.updates"] == "0" and before["memory.retrain.status"] == "ready"
    assert before["memory.retrain.build"] == "" and before["memory.retrain.mine.test_accuracy"] == "—"
    c.retrain.loop.tick(n=10 ** 4)
    v = retrain_values(c)
    assert v["memory.retrain.status"] == "finished" and v["memory.retrain.updates"] == v["memory.retrain.total"]
    assert v["memory.retrain.epoch"] == v["memory.retrain.epochs"] == str(SPECS["cells"]["fixed"]["epochs"])
    for key, _, _ in ROWS:
        assert v[f"memory.retrain.mine.{key}"] == v[f"memory.retrain.built.{key}"] != "—", key
    assert c.retrain.tested[1] == seeds(pretrained.results("memory")["cells"], cell="lstm")[0]
    assert {k: x for k, x in shown(c).items() if k.startswith("memory.retrain.")} == v


def test_pause_keeps_the_model_and_the_test_is_of_the_model_as_it_is():
    c = MemoryLabChapter()
    set_value(c, "gl-chmemory-cell", "elman")
    for _ in range(3):
        click(c, "gl-chmemory-rt-step")
    v = retrain_values(c)
    assert v["memory.retrain.status"] == "paused" and v["memory.retrain.updates"] == "3"
    alone = sweep_memory.CueDelayRun(config_of(next(iter(TASKS)), "elman", 1.0, "full", 0))
    alone.step(3)
    assert c.retrain.tested == (3, alone.metrics())
    assert v["memory.retrain.mine.test_accuracy"] == fmt_fixed(alone.metrics()["test_accuracy"], 3)
    c.retrain.loop.tick(n=10)            # trained on: the test shown is of 3 updates, so none is shown
    assert retrain_values(c)["memory.retrain.mine.test_accuracy"] == "—"
    click(c, "gl-chmemory-rt-step")      # a stop: the model of 14 updates is tested
    alone.step(11)
    assert c.retrain.tested == (14, alone.metrics())
    click(c, "gl-chmemory-rt-reset")
    v = retrain_values(c)
    assert v["memory.retrain.updates"] == "0" and v["memory.retrain.mine.test_accuracy"] == "—"


def test_the_choices_name_the_configuration_and_say_when_the_build_did_not_run_it():
    c = MemoryLabChapter()
    assert not find(c, "gl-chmemory-fb").disabled
    set_value(c, "gl-chmemory-cell", "gru_torch")
    assert find(c, "gl-chmemory-fb").disabled            # a forget-gate bias is the LSTM's
    assert c.retrain.run.config["cell"] == "gru_torch" and c.retrain.build is not None
    set_value(c, "gl-chmemory-seed", 7)
    assert c.retrain.build is None and retrain_values(c)["memory.retrain.build"].startswith("The build did not run")
    assert retrain_values(c)["memory.retrain.built.test_accuracy"] == "—"
    set_value(c, "gl-chmemory-seed", 2)
    set_value(c, "gl-chmemory-task", "fixed delay of 16")
    set_value(c, "gl-chmemory-k", "8")
    want = {**SPECS["horizons"]["fixed"], "cell": "gru_torch", "truncate": 8, "seed": 2}
    assert c.retrain.run.config == sweep_memory.normalized(want)
    assert c.retrain.build == seeds(pretrained.results("memory")["horizons"], cell="gru_torch", truncate=8)[2]
    assert ("task", "fixed delay of 16") in c.url_query() and ("k", "8") in c.url_query()


def test_leaving_the_chapter_stops_training():
    c = MemoryLabChapter()
    c.retrain.loop.training = True       # (no event loop here: the toggle goes back at once)
    c.leave()
    assert not c.retrain.loop.training


def test_the_prose_says_what_the_runs_give():
    """The chapter's claims, checked against the records: the counts it states, and each claim
    made only where the runs bear it out (else the text that says they do not)."""
    import content
    text = " ".join(content.render("memory").split())
    runs = pretrained.results("memory")
    at = hold_at(SPECS["cells"])
    count = {cell: sum(m["retention_max"] >= at for m in seeds(runs["cells"], cell=cell))
             for cell in ("elman", "gru_torch", "lstm")}
    n = len(SPECS["cells"]["grid"]["seed"])
    assert (f"The Elman RNN does in {count['elman']} of {n} seeds, the GRU in {count['gru_torch']}, "
            f"the LSTM in {count['lstm']}.") in text
    only_lstm = count["lstm"] > 0 == count["elman"] == count["gru_torch"]
    assert ("At this budget only the LSTM learns to remember" in text) == only_lstm
    assert ("The runs do not separate the cells cleanly" in text) == (not only_lstm)
    biases = SPECS["forget_bias"]["grid"]["forget_bias"]
    by_bias = [seeds(runs["forget_bias"], forget_bias=b) for b in biases]
    held_counts = [sum(m["retention_max"] >= at for m in ms) for ms in by_bias]
    assert f"hold the cue in {held_counts[0]}, {held_counts[1]} and {held_counts[2]} of {n} seeds" in text
    rising = all(a["cue_grad_epoch_1"] < b["cue_grad_epoch_1"] < c["cue_grad_epoch_1"] for a, b, c in zip(*by_bias))
    assert ("growing with the bias in every seed" in text) == rising
    assert ("also lets more of the signal through the delay, in every seed" in text) == rising
    above_zero = all(b["cue_grad_epoch_1"] > a["cue_grad_epoch_1"] and c["cue_grad_epoch_1"] > a["cue_grad_epoch_1"]
                     for a, b, c in zip(*by_bias))
    assert ("either positive bias lets more of it reach the cue than a bias of 0 in every seed" in text) == (
        above_zero and not rising)
    ks = SPECS["horizons"]["grid"]["truncate"]
    same = all(seeds(runs["horizons"], cell=cell, truncate=ks[1]) == seeds(runs["horizons"], cell=cell, truncate=ks[2])
               for cell in SPECS["horizons"]["grid"]["cell"])
    assert (f"The runs at k = {ks[2]} are identical to those at k = {ks[1]}" in text) == same
    assert "Not built yet" not in text


def test_the_interference_sentence_is_the_held_seeds_range():
    import content
    text = " ".join(content.render("memory").split())
    runs = pretrained.results("memory")
    at = hold_at(SPECS["cells"])
    amps = sweep_memory.normalized(SPECS["cells"]["fixed"])["probe_amplitudes"]
    held = [m for m in seeds(runs["cells"], cell="lstm") if m["retention_max"] >= at]
    assert held, "no LSTM seed holds the cue: the chapter's interference sentence is not shown"
    for i, a in enumerate(amps):
        accs = [m[f"interference_{at}_{a:g}"] for m in held]
        words = f"{fmt_fixed(min(accs), 2)} to {fmt_fixed(max(accs), 2)} at {'amplitude ' if i == 0 else ''}× {a}"
        assert words in text, words
