"""The memory lab in the browser. The carry challenge: presets clicked and sliders moved by
keyboard; every number of the table is gleam's (gleam.labs.memory.carry.carry_challenge at the sliders' exact
values, 5,000 trials, seed 46), and the verdict under it is the one its numbers call for. The
trained models: every number of their tables is the shipped records' (tests/memory_trained.py);
a retrain — a demonstration at the page's short budget — finishes while the page still answers,
beside the shipped run of the same setting, and Pause keeps the model."""
import math

import pytest

from gleam_lab.app.chapters.memory_lab.retrain import DEMO, ROWS, TASKS, config_of
from gleam_lab.app.widgets.retrain import metric_text
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam.labs.memory import carry as memory
from gleam.labs.memory.run import train_cue_delay
from helpers import wait_until
from tests.memory_trained import expected, seeds

pytestmark = pytest.mark.ui

SLIDERS = {"delay": "delay", "noise_sd": "noise", "gated_carry": "gc", "gated_admission": "ga",
           "elman_carry": "rc", "elman_admission": "ra"}
COLUMNS = [("accuracy", 3), ("mean_margin", 3), ("median_abs_grad", 6), ("carry", 3), ("half_life", 2)]


def open_memory(lab):
    if lab.chapter_in_url() != "memory" or lab.page.locator(".gl-chmemory-gc").count() == 0:
        lab.show("memory")


def sliders(lab):
    return {name: lab.model_value(f"gl-chmemory-{key}") for name, key in SLIDERS.items()}


def check_table(lab, what):
    """Every number of the table equals gleam's at the sliders' values (waits for the page)."""
    def equal():
        s = sliders(lab)
        rows = memory.carry_challenge(s["delay"], s["noise_sd"], s["gated_carry"], s["gated_admission"],
                                      s["elman_carry"], s["elman_admission"], trials=5000, seed=46)
        shown = lab.shown_values()
        for r in rows:
            for key, decimals in COLUMNS:
                want = "never halves" if r[key] == math.inf else fmt_fixed(r[key], decimals)
                got = shown.get(f"memory.{r['architecture']}.{key}")
                assert got == want, f"{what}: {r['architecture']} {key} shows {got!r}, gleam {want!r}"
        assert shown.get("memory.error") in ("", None)
        return {r["architecture"]: r for r in rows}
    return wait_until(equal, page=lab.page, message=what)


def preset(lab, cls, name):
    lab.click(cls)
    p = memory.PRESETS[name]
    wait_until(lambda: sliders(lab)["delay"] == p.delay and sliders(lab)["gated_carry"] == p.gated_carry,
               page=lab.page, message=f"for {cls} to set the sliders")


def test_the_presets_show_the_reference_table_and_their_verdicts(shared_lab):
    lab = shared_lab
    open_memory(lab)
    preset(lab, "gl-chmemory-control", "negative control")
    check_table(lab, "negative control")
    assert lab.text("memory.verdict").startswith("Every path passes")
    preset(lab, "gl-chmemory-misgated", "misgated")
    check_table(lab, "misgated")
    preset(lab, "gl-chmemory-long", "long noisy delay")
    rows = check_table(lab, "long noisy delay")
    assert rows["gru"]["accuracy"] >= 0.99 and rows["elman"]["accuracy"] < 0.6
    assert lab.text("memory.verdict").startswith("The gated paths keep the cue")
    assert (lab.text("memory.trials"), lab.text("memory.seed")) == ("5,000", "46")


@pytest.mark.parametrize("key, keys", [("gc", ("ArrowLeft",) * 9), ("delay", ("PageDown",) * 2),
                                       ("ra", ("End",))])
def test_sliders_move_the_table_to_gleams(shared_lab, key, keys):
    lab = shared_lab
    open_memory(lab)
    preset(lab, "gl-chmemory-long", "long noisy delay")
    before = lab.model_value(f"gl-chmemory-{key}")
    lab.slider_keys(f"gl-chmemory-{key}", *keys)
    wait_until(lambda: abs(lab.model_value(f"gl-chmemory-{key}") - before) > 1e-9, page=lab.page,
               message=f"for {key} to move")
    check_table(lab, f"{key} moved to {lab.model_value(f'gl-chmemory-{key}')}")


# ---- trained models -------------------------------------------------------------------------
def check_trained_tables(lab):
    """Every number of the trained tables is the shipped records' (waits for the page)."""
    want = expected()

    def equal():
        shown = lab.shown_values()
        wrong = {k: (shown.get(k), v) for k, v in want.items() if shown.get(k) != v}
        assert not wrong, f"{len(wrong)} values differ from the records', e.g. {list(wrong.items())[:3]}"
    wait_until(equal, page=lab.page, message="for the trained tables")


def test_the_trained_tables_show_the_builds_records(shared_lab):
    lab = shared_lab
    open_memory(lab)
    check_trained_tables(lab)


def retrain_status(lab):
    return lab.text("memory.retrain.status")


def choose(lab, cls, label):
    lab.page.locator(f".{cls} select").select_option(label=label)


def fresh_run(lab, cell_label):
    choose(lab, "gl-chmemory-cell", cell_label)
    lab.wait_text("memory.retrain.updates", lambda t: t == "0", what="0 (a new run)")


def test_a_retrain_finishes_and_the_page_answers_while_it_trains(shared_lab, site):
    """Train to the end: the carry challenge's sliders still work meanwhile, the run ends as
    finished with every update of the page's short budget taken, and the acceptance test of the
    model is shown (on a server, in CPython, it is gleam's run of that config to every digit),
    beside the shipped run of the same setting, which trained longer."""
    lab = shared_lab
    open_memory(lab)
    preset(lab, "gl-chmemory-long", "long noisy delay")
    fresh_run(lab, "Elman RNN")
    bias = lab.page.locator(".gl-chmemory-fb select")
    wait_until(bias.is_disabled, page=lab.page, message="for the forget-gate bias to be disabled for an Elman RNN")
    lab.click("gl-chmemory-rt-train")
    lab.wait_text("memory.retrain.status", lambda s: s in ("training", "finished"), what="training")
    before = lab.model_value("gl-chmemory-gc")
    lab.slider_keys("gl-chmemory-gc", "ArrowLeft")
    wait_until(lambda: lab.model_value("gl-chmemory-gc") < before - 1e-9, page=lab.page, message="gc to move")
    check_table(lab, "carry challenge, while the retrain trains")
    lab.wait_text("memory.retrain.status", lambda s: s == "finished", timeout=180, what="finished")
    # (under panel serve the status and the results table arrive in messages of their own)
    table = [f"memory.retrain.mine.{key}" for key, _, _ in ROWS]

    def filled():       # (wait_until takes None for "done": an unfilled table asserts instead)
        values = lab.shown_values()
        missing = [k for k in table if values.get(k) in ("—", None)]
        assert not missing, f"not shown yet: {missing[:3]}"
        return values
    shown = wait_until(filled, page=lab.page, message="the finished run's results table")
    assert shown["memory.retrain.updates"] == shown["memory.retrain.total"] != "0"
    assert shown["memory.retrain.epoch"] == shown["memory.retrain.epochs"] == str(DEMO["epochs"])
    assert shown["memory.retrain.demo_n_train"] == fmt_comma(DEMO["n_train"])
    mine = train_cue_delay(config_of(next(iter(TASKS)), "elman", 600, 0.003, 1.0, "full", 0)) if site.mode == "serve" else None
    built = seeds("cells", cell="elman", params=600, lr=0.003)[0]
    for key, _, how in ROWS:
        assert shown[f"memory.retrain.mine.{key}"] not in ("—", None), key
        assert shown[f"memory.retrain.built.{key}"] == metric_text(built[key], how), key
        if mine is not None:
            assert shown[f"memory.retrain.mine.{key}"] == metric_text(mine[key], how), key
    assert not lab.model_value("gl-chmemory-rt-train", "active")


def test_pause_keeps_the_model_and_train_goes_on_from_it(shared_lab):
    """Pause soon after Train (the page's budget is short: the slower ~4,000-parameter LSTM leaves
    room to pause twice before the end)."""
    lab = shared_lab
    open_memory(lab)
    choose(lab, "gl-chmemory-budget", "~4,000")
    fresh_run(lab, "LSTM")
    bias = lab.page.locator(".gl-chmemory-fb select")
    wait_until(bias.is_enabled, page=lab.page, message="for the LSTM's forget-gate bias to be offered")
    lab.click("gl-chmemory-rt-train")
    lab.wait_number("memory.retrain.updates", lambda n: n >= 1, timeout=60, what=">= 1 update")
    lab.click("gl-chmemory-rt-pause")
    lab.wait_text("memory.retrain.status", lambda s: s == "paused", what="paused")
    kept = lab.number("memory.retrain.updates")
    lab.wait_text("memory.retrain.mine.test_accuracy", lambda t: t != "—", what="the test of the paused model")
    assert 0 < kept < lab.number("memory.retrain.total")
    assert lab.number("memory.retrain.updates") == kept            # stopped: nothing trains
    lab.train_again("gl-chmemory-rt-train")
    lab.wait_number("memory.retrain.updates", lambda n: n > kept, timeout=60, what=f"> {kept}: on from the kept model")
    lab.click("gl-chmemory-rt-pause")
    lab.wait_text("memory.retrain.status", lambda s: s == "paused", what="paused")
    lab.click("gl-chmemory-rt-reset")
    lab.wait_text("memory.retrain.updates", lambda t: t == "0", what="0 after Reset")
    # the progress line and the results table are two panes: under panel serve each comes in a
    # message of its own, so the table may show Reset a moment after the progress line does
    lab.wait_text("memory.retrain.mine.test_accuracy", lambda t: t == "—", what="no test after Reset")
    choose(lab, "gl-chmemory-budget", "~600")
