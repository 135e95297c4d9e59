"""The memory lab's trained models without a browser. Every number of the tables is the shipped
records' (gleam.pretrained), worked out in tests/memory_trained.py from the records themselves,
not from the summary; the summary keeps its rules (memory metrics over the seeds that learned,
horizons censored at the probes' edge, gradients only of runs that ran an epoch); the prose's
claims are the records'. The retrain is a demonstration at the page's short budget: run to the end
it is gleam's run of that config, number for number, beside the shipped run of the same setting;
Pause keeps the model and its acceptance test is of the model as it is."""
import html
import json
import math
import statistics

import pytest

from gleam_lab.app.chapters.memory_lab import MemoryLabChapter
from gleam_lab.app.chapters.memory_lab.retrain import DEMO, ROWS, TASKS, config_of
from gleam_lab.app.widgets.retrain import metric_text
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam import examples, pretrained
from gleam.labs.memory import run as sweep_memory
from surface import click, find, set_value, shown
from tests.memory_trained import (CELLS, KEY, NAMES, SPECS, edge, expected, learned, paired, published_rows,
                                  records, seeds)

LONG = next(iter(TASKS))


@pytest.fixture(scope="module")
def chapter():
    return MemoryLabChapter()


@pytest.fixture(scope="module")
def text():
    from gleam_lab import content
    return " ".join(content.render("memory").split())


def test_every_number_of_the_trained_tables_is_the_records(chapter):
    want = expected()
    v = chapter.values()
    assert {k: v[k] for k in want} == want
    published = {k for k in v if ".published." in k and k.rsplit(".", 1)[1] in ("lab", "why")}
    assert {k for k in v if k.startswith(f"{KEY}.")} == set(want) | published     # nothing else shown
    assert {k: x for k, x in shown(chapter).items() if k.startswith(f"{KEY}.")} == {
        k: x for k, x in v.items() if k.startswith(f"{KEY}.")}


def test_the_published_rows_name_their_setting_and_say_why(chapter):
    v = chapter.values()
    for name, rows in published_rows().items():
        for i, (la, lb, names, verdict, params, lr) in enumerate(rows):
            k = f"{KEY}.{name}.published.{i}"
            if params is not None:
                assert f"~{params:,} parameters" in v[f"{k}.lab"]
                if lr != "better":
                    assert f"learning rate {lr:g}" in v[f"{k}.lab"]
                    for cell, count in ((names[0], sum(la)), (names[1], sum(lb))):
                        code = next(c for c in CELLS if NAMES[c] == cell)
                        assert sum(learned(seeds("cells", cell=code, params=params, lr=lr))) == count
            why = v[f"{k}.why"]
            if verdict == "not comparable":
                assert "failure to learn" in why
            elif verdict == "disagrees" and lb is not None:
                ahead = names[0] if sum(la) > sum(lb) else names[1]
                assert ahead in why and "more seeds" in why
            elif verdict == "disagrees":
                assert f"{sum(la)} of {len(la)} seeds learned" in why
            elif verdict == "no clear difference":
                assert "holds 0" in why


def test_the_plots_draw_every_seeds_validation_curve(chapter):
    grid = SPECS["cells"]["grid"]
    for p in grid["params"]:
        plot = chapter.trained.curves[str(p)]
        for lr in grid["lr"]:
            for cell in CELLS:
                for i, r in enumerate(records("cells", cell=cell, params=p, lr=lr)):
                    assert plot.data(f"{lr:g}.{cell}.{i}") == ([u for u, _ in r["curve"]], [s for _, s in r["curve"]])
    for b in SPECS["forget_bias"]["grid"]["forget_bias"]:
        for i, r in enumerate(records("forget_bias", forget_bias=b)):
            assert chapter.trained.curves["bias"].data(f"{b:g}.{i}") == (
                [u for u, _ in r["curve"]], [s for _, s in r["curve"]])


def test_each_table_shows_every_key_its_run_reads(chapter):
    """The Reproduce-it spec is the spec with its fixed part completed by the run's defaults: it
    describes the same runs, and nothing the run reads is left out."""
    css = {"cells": "cells", "forget_bias": "bias", "horizons": "horizons"}
    for name, spec in SPECS.items():
        block = find(chapter, f"gl-chmemory-{css[name]}").object
        shown_spec = chapter.trained.data["reproduce"][name]
        assert html.escape(json.dumps(shown_spec, indent=1)) in block
        assert f"python -m gleam.sweep {name}.json" in block
        assert shown_spec["grid"] == spec["grid"] and shown_spec["run"] == spec["run"]
        assert set(shown_spec["fixed"]) | set(spec["grid"]) == set(sweep_memory.DEFAULTS)
        for r in pretrained.results("memory")[name]:
            point = {k: r["config"][k] for k in spec["grid"]}
            assert sweep_memory.normalized({**shown_spec["fixed"], **point}) == sweep_memory.normalized(r["config"])


def test_the_summary_keeps_its_rules():
    """Memory metrics only over the seeds that learned (none where none did); the others apart;
    a horizon at the probes' edge censored (no mean over it); gradients after epoch 1 only of the
    runs that ran one."""
    d = examples.memory_lab_trained()
    groups = [(("cells",), {"cell": c, "params": int(p), "lr": float(lr)}, g)
              for p, by_lr in d["cells"]["settings"].items() for lr, by_c in by_lr.items() for c, g in by_c.items()]
    groups += [(("forget_bias",), {"forget_bias": float(b)}, g) for b, g in d["forget_bias"]["settings"].items()]
    groups += [(("horizons",), {"cell": c, "truncate": int(k)}, g)
               for c, by_k in d["horizons"]["settings"].items() for k, g in by_k.items()]
    for (name,), where, g in groups:
        rs = records(name, **where)
        ok = [r for r in rs if r["metrics"]["learned"]]
        assert g["learned"] == len(ok) and g["runs"] == len(rs)
        assert g["learned_seeds"] == [r["config"]["seed"] for r in ok]
        assert g["other_seeds"] == g["apart"]["seeds"] == [r["config"]["seed"] for r in rs if not r["metrics"]["learned"]]
        if not ok:
            assert g["memory"] is None, where
            continue
        m = g["memory"]
        assert m["retention_max"]["values"] == [r["metrics"]["retention_max"] for r in ok]
        top = edge(name)
        censored = any(r["metrics"]["retention_max"] in (-1, top) for r in ok)
        assert (m["retention_max"]["stats"] is None) == censored
        assert m["swap"]["values"] == [r["metrics"]["swap_swapped"] for r in ok]
        ran = [r for r in rs if "cue_grad_epoch_1" in r["metrics"]]
        assert g["grad_epoch_1"]["seeds"] == [r["config"]["seed"] for r in ran]
        assert all(r["metrics"]["updates"] >= r["config"]["n_train"] / r["config"]["batch_size"] for r in ran)
    for r in (r for rs in pretrained.results("memory").values() for r in rs):
        m = r["metrics"]
        assert m["learned"] == int(min(m["test_accuracy"], m["test_needs_cue_accuracy"]) >= r["config"]["criterion"])


# ------------------------------------------------------------ the retrain: a demonstration
def retrain_values(c):
    return {k: v for k, v in c.values().items() if k.startswith("memory.retrain.")}


def shipped(config):
    """The shipped run of config's setting (the budget aside), from the records."""
    budget = ("n_train", "epochs", "n_val", "check_every", "criterion", "stop_at")
    want = {k: v for k, v in sweep_memory.normalized(config).items() if k not in budget}
    for rs in pretrained.results("memory").values():
        for r in rs:
            if {k: v for k, v in sweep_memory.normalized(r["config"]).items() if k not in budget} == want:
                return r
    return None


def test_a_retrain_to_the_end_is_gleams_run_at_the_pages_budget_beside_the_shipped_one():
    c = MemoryLabChapter()
    run = c.retrain.run
    config = config_of(LONG, "lstm", 600, 0.003, 1.0, "full", 0)
    assert run.config == sweep_memory.normalized(config)
    assert run.config["check_every"] == 0 and run.config["n_train"] == DEMO["n_train"] and run.config["epochs"] == DEMO["epochs"]
    before = retrain_values(c)
    assert before["memory.retrain.updates"] == "0" and before["memory.retrain.status"] == "ready"
    assert before["memory.retrain.build"] == "" and before["memory.retrain.mine.test_accuracy"] == "—"
    assert before["memory.retrain.demo_n_train"] == fmt_comma(DEMO["n_train"])
    assert before["memory.retrain.demo_epochs"] == str(DEMO["epochs"])
    c.retrain.loop.tick(n=10 ** 4)
    v = retrain_values(c)
    total = DEMO["epochs"] * math.ceil(DEMO["n_train"] / run.config["batch_size"])
    assert v["memory.retrain.status"] == "finished" and v["memory.retrain.updates"] == v["memory.retrain.total"] == str(total)
    assert v["memory.retrain.epoch"] == v["memory.retrain.epochs"] == str(DEMO["epochs"])
    mine = sweep_memory.train_cue_delay(config)              # check_every 0: every update, no stopping
    build = shipped(config)
    assert build is not None and build["config"]["n_train"] != DEMO["n_train"]
    for key, _, how in ROWS:
        assert v[f"memory.retrain.mine.{key}"] == metric_text(mine[key], how), key
        assert v[f"memory.retrain.built.{key}"] == metric_text(build["metrics"][key], how), key
    assert {k: x for k, x in shown(c).items() if k.startswith("memory.retrain.")} == v


def test_the_rows_lead_with_the_cue_dependent_accuracy():
    assert ROWS[0][0] == "test_needs_cue_accuracy" and "'?'" in ROWS[0][1]


def test_pause_keeps_the_model_and_the_test_is_of_the_model_as_it_is():
    c = MemoryLabChapter()
    set_value(c, "gl-chmemory-cell", "elman")
    for _ in range(3):
        click(c, "gl-chmemory-rt-step")
    v = retrain_values(c)
    assert v["memory.retrain.status"] == "paused" and v["memory.retrain.updates"] == "3"
    alone = sweep_memory.CueDelayRun(config_of(LONG, "elman", 600, 0.003, 1.0, "full", 0))
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


def test_the_choices_name_the_setting_and_say_when_no_shipped_run_has_it():
    c = MemoryLabChapter()
    assert not find(c, "gl-chmemory-fb").disabled
    set_value(c, "gl-chmemory-cell", "gru_torch")
    assert find(c, "gl-chmemory-fb").disabled            # a forget-gate bias is the LSTM's
    assert c.retrain.run.config["cell"] == "gru_torch" and c.retrain.build == shipped(c.retrain.run.config)["metrics"]
    set_value(c, "gl-chmemory-seed", max(SPECS["cells"]["grid"]["seed"]) + 1)
    assert c.retrain.build is None and retrain_values(c)["memory.retrain.build"] != ""
    assert retrain_values(c)["memory.retrain.built.test_accuracy"] == "—"
    set_value(c, "gl-chmemory-seed", 2)
    set_value(c, "gl-chmemory-task", "fixed delay of 16")
    set_value(c, "gl-chmemory-k", "8")
    set_value(c, "gl-chmemory-budget", 4000)
    set_value(c, "gl-chmemory-lr", 0.01)
    want = {**SPECS["horizons"]["fixed"], "cell": "gru_torch", "truncate": 8, "seed": 2, **DEMO}
    assert c.retrain.run.config == sweep_memory.normalized(want)
    assert c.retrain.build == seeds("horizons", cell="gru_torch", truncate=8)[2]
    query = c.url_query()
    assert ("task", "fixed delay of 16") in query and ("k", "8") in query and ("budget", "4000") in query


def test_leaving_the_chapter_stops_training():
    c = MemoryLabChapter()
    c.retrain.loop.training = True       # (no event loop here: the toggle goes back at once)
    c.leave()
    assert not c.retrain.loop.training


# ------------------------------------------------------------ the prose, against the records
def count(experiment, **where):
    return sum(learned(seeds(experiment, **where)))


def test_the_prose_states_who_learned(text):
    grid = SPECS["cells"]["grid"]
    n = len(grid["seed"])
    for p in grid["params"]:
        for lr in grid["lr"]:
            e, g, ls = (count("cells", cell=c, params=p, lr=lr) for c in CELLS)
            assert (f"at a learning rate of {lr:g} the Elman RNN learned in {e} of {n} seeds, the GRU in {g} "
                    f"and the LSTM in {ls}") in text
    only = [(p, lr) for p in grid["params"] for lr in grid["lr"]
            if count("cells", cell="lstm", params=p, lr=lr) > 0
            and count("cells", cell="elman", params=p, lr=lr) == count("cells", cell="gru_torch", params=p, lr=lr) == 0]
    assert ("Only the LSTM learned at" in text) == bool(only)
    assert ("that is not the rule" in text) == (len(only) < len(grid["params"]) * len(grid["lr"]))
    failed = [(c, p, lr) for p in grid["params"] for lr in grid["lr"] for c in CELLS if count("cells", cell=c, params=p, lr=lr) == 0]
    if failed:
        assert f"In {len(failed)} of the {len(grid['params']) * len(grid['lr']) * 3} settings no seed learned at all" in text
    elman = [(p, lr) for p in grid["params"] for lr in grid["lr"] if count("cells", cell="elman", params=p, lr=lr)]
    assert ("The Elman RNN learned in no seed at any setting" in text) == (not elman)
    for p in grid["params"]:
        signs = set()
        for lr in grid["lr"]:
            la = learned(seeds("cells", cell="lstm", params=p, lr=lr))
            lg = learned(seeds("cells", cell="gru_torch", params=p, lr=lr))
            _, lo, hi = paired(la, lg)
            signs |= {1} if lo > 0 else {-1} if hi < 0 else set()
        assert (f"At ~{p:,} parameters the order of the GRU and the LSTM turns with the learning rate" in text) == (
            signs == {1, -1})


def test_the_prose_on_memory_is_the_learned_runs(text):
    ok = [m for m in seeds("cells") if m["learned"]]
    top = edge("cells")
    at_edge = sum(m["retention_max"] >= top for m in ok)
    if ok and at_edge == len(ok):
        assert f"Every one of the {len(ok)} runs that learned still holds the cue at Δ = {top}" in text
    else:
        assert f"{at_edge} of the {len(ok)} runs that learned still hold the cue" in text
    every_swap = all(m["swap_swapped"] == 1 for m in ok) and all(m["erasure_drop"] == 0.5 for m in ok)
    assert ("the state swap exchanges every pair's answers" in text) == (bool(ok) and every_swap)
    below = sum(m["retention_at_1"] < 0.5 for m in ok)
    assert all(m["retention_p50"] == m["retention_p95"] == -1 for m in ok if m["retention_at_1"] < 0.5)
    assert (f"{below} of them score below half already at Δ = 1" in text) == (below > 0)
    apart = [r for r in records("cells") if not r["metrics"]["learned"] and r["metrics"]["retention_max"] >= top]
    for r in apart:
        assert f"of the {NAMES[r['config']['cell']]} at ~{r['config']['params']:,} and {r['config']['lr']:g} are at chance" in text
        assert fmt_fixed(r["metrics"]["test_needs_cue_accuracy"], 2) in text
    window = {m["window_needs_cue_accuracy"] for rs in pretrained.results("memory").values() for r in rs for m in [r["metrics"]]}
    assert ("The window baseline scores exactly ½ on `?` in every run" in text) == (window == {0.5})
    revising = [m for m in ok if m["revision_latency"] >= 0]
    if revising:
        assert f"{len(revising)} of the runs that learned revise within the gaps tested" in text
    else:
        assert "No run that learned revises" in text


def test_the_prose_on_the_forget_gate_bias_is_the_records(text):
    biases = SPECS["forget_bias"]["grid"]["forget_bias"]
    n = len(SPECS["forget_bias"]["grid"]["seed"])
    counts = [count("forget_bias", forget_bias=b) for b in biases]
    assert f"The runs learned in {counts[0]}, {counts[1]} and {counts[2]} of {n} seeds." in text
    assert ("no seed learned within the cap" in text) == (counts[0] == 0)
    f = SPECS["forget_bias"]["fixed"]
    same = seeds("cells", cell=f["cell"], params=f["params"], lr=f["lr"]) == seeds("forget_bias", forget_bias=1.0)
    assert ("the same runs.)" in text) == same
    l1, l0 = learned(seeds("forget_bias", forget_bias=1.0)), learned(seeds("forget_bias", forget_bias=0.0))
    d, lo, hi = paired(l1, l0)
    assert f"is {fmt_fixed(d, 2)} [{fmt_fixed(lo, 2)}, {fmt_fixed(hi, 2)}]" in text
    assert (", and the verdict agrees" in text) == (lo > 0)
    ran = [len([m for m in seeds("forget_bias", forget_bias=b) if "cue_grad_epoch_1" in m]) for b in biases]
    assert f"after it: {ran[0]}, {ran[1]} and {ran[2]} of {n} seeds" in text
    g0 = {r["config"]["seed"]: r["metrics"]["cue_grad_epoch_1"] for r in records("forget_bias", forget_bias=0.0)
          if "cue_grad_epoch_1" in r["metrics"]}
    g1 = {r["config"]["seed"]: r["metrics"]["cue_grad_epoch_1"] for r in records("forget_bias", forget_bias=1.0)
          if "cue_grad_epoch_1" in r["metrics"]}
    both = sorted(set(g0) & set(g1))
    if len(both) > 1:
        above = sum(g1[s] > g0[s] for s in both)
        assert f"On the {len(both)} seeds that ran a whole epoch at both 0 and 1" in text
        assert f"larger with bias 1 in {above}." in text
    for b in (1.0, 3.0):
        ok = [m["kept_updates"] for m in seeds("forget_bias", forget_bias=b) if m["learned"]]
        if len(ok) > 1 and counts[1] and counts[2]:
            assert f"{fmt_fixed(statistics.mean(ok), 0)} ± {fmt_fixed(statistics.stdev(ok), 0)}" in text


def test_the_prose_on_the_backward_horizon_is_the_records(text):
    ks = sorted(SPECS["horizons"]["grid"]["truncate"])
    n = len(SPECS["horizons"]["grid"]["seed"])
    g = {k: count("horizons", cell="gru_torch", truncate=k) for k in ks}
    ls = {k: count("horizons", cell="lstm", truncate=k) for k in ks}
    assert (f"With k = {ks[0]} the GRU learned in {g[ks[0]]} of {n} seeds and the LSTM in {ls[ks[0]]}; "
            f"with k = {ks[1]}, in {g[ks[1]]} and {ls[ks[1]]}.") in text
    same = all(seeds("horizons", cell=c, truncate=ks[1]) == seeds("horizons", cell=c, truncate=ks[2])
               for c in SPECS["horizons"]["grid"]["cell"])
    assert (f"The runs at k = {ks[2]} are identical to those at k = {ks[1]}" in text) == same
    assert ("The disagreement:" in text) == (g[ks[0]] + ls[ks[0]] > 0)
    if g[ks[0]]:
        assert f"{g[ks[0]]} of {n} GRU seeds" in text
    assert ("No run whose horizon stopped short of the cue learned" in text) == (g[ks[0]] + ls[ks[0]] == 0)
    rows = published_rows()["horizons"]
    direction = [v for la, lb, _, v, _, _ in rows if lb is not None]
    assert ("The direction holds" in text) == all(v == "agrees" for v in direction)


def test_the_prose_counts_the_verdicts(text):
    rows = published_rows()
    bridges = [v for la, lb, names, v, *_ in rows["cells"] if names == ("LSTM", "Elman RNN")]
    assert f"the direction agrees in {bridges.count('agrees')} of {len(bridges)} comparisons" in text
    close = [v for la, lb, names, v, *_ in rows["cells"] if names == ("LSTM", "GRU")]
    if "disagrees" in close:
        assert f"On this task they are not close in {close.count('disagrees')} of {len(close)} comparisons" in text
    else:
        assert f"These runs agree: {close.count('agrees')} of {len(close)}" in text
    truncation = [v for *_, v, _, _ in rows["horizons"]]
    assert f"Of the {len(truncation)} comparisons with it, {truncation.count('agrees')} agree" in text
    assert "Not built yet" not in text
