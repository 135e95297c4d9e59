"""gleam.pretrained: the research labs' results, made once by `python -m gleam.pretrained --train`
and shipped in gleam/data.

The shipped records are the sweeps' own, one per config of every spec, each with its provenance
and learning curve; the sample of every experiment, run again here, gives its shipped metrics
again (a change to gleam that moves a shipped result fails here until the data are made again);
a document made from other specs is refused; making the data resumes from the runs' records."""
import json
import math

import numpy as np
import pytest

from gleam import pretrained
from gleam.sweep import config_key, expand_grid, run_one

LABS = list(pretrained.SPECS)


def same(a, b, path="metrics"):
    """a == b, floats to 1e-9 relative (the last bits of a BLAS sum may differ between machines)."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert set(a) == set(b), f"{path}: {sorted(set(a) ^ set(b))}"
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


@pytest.mark.parametrize("lab", LABS)
def test_the_shipped_records_are_every_config_of_every_spec_with_their_provenance(lab):
    doc = pretrained.document(lab)
    prov = doc["provenance"]
    assert prov["numpy"] and prov["python"] and len(prov["commit"] or "") == 40
    for name, spec in pretrained.SPECS[lab].items():
        configs = expand_grid(spec["grid"], spec["fixed"])
        records = pretrained.results(lab)[name]
        assert [r["key"] for r in records] == [config_key(c) for c in configs]
        for r, c in zip(records, configs):
            assert r["status"] == "ok" and r["config"] == c and r["seconds"] > 0 and "weights" not in r
            if name.startswith("arith_"):       # Madsen & Johansen's fixed budget: no early stopping
                assert "curve" not in r and r["metrics"]["updates"] == 20000
                assert r["metrics"]["solved"] == int(r["metrics"]["extrap_mse"] < r["metrics"]["threshold"])
                continue
            assert r["metrics"]["learned"] in (0, 1) and r["curve"]
            # the criterion decides "learned" on the held-in test, as gleam.labs.stepped says
            assert r["metrics"]["learned"] == int(r["metrics"]["heldin_score"] >= c["criterion"])
            updates = [u for u, _ in r["curve"]]
            assert updates == sorted(updates) and r["metrics"]["kept_updates"] in updates


@pytest.mark.parametrize("lab,name", [(lab, name) for lab in LABS for name in pretrained.SPECS[lab]])
def test_each_experiments_sample_run_again_gives_its_shipped_record(lab, name):
    shipped = pretrained.document(lab)["samples"][name]
    assert shipped["config"] == json.loads(json.dumps(pretrained.SAMPLES[lab][name]))
    again = run_one(pretrained.SPECS[lab][name]["run"], pretrained.SAMPLES[lab][name])
    assert again["status"] == "ok", again.get("error")
    same(again["metrics"], shipped["metrics"])
    same(again.get("curve"), shipped.get("curve"), "curve")


def test_the_shipped_weights_are_the_records_models():
    """A memory model rebuilt from its shipped weights answers its held-in test as its record says."""
    from gleam.labs.memory.run import CueDelayRun
    record = next(r for r in pretrained.results("memory")["cells"]
                  if r["config"]["cell"] == "lstm" and r["metrics"]["learned"])
    run = CueDelayRun(record["config"])
    w = pretrained.weights("memory", "cells", record["key"])
    assert set(w) == set(run.model.params)
    for k, v in w.items():
        np.copyto(run.model.params[k], v)
    import numpy.testing as npt
    right = run.model.predict(run._held.X, run._held.mask) == run._held.targets
    npt.assert_equal(float(np.mean(right)), record["metrics"]["test_accuracy"])
    with pytest.raises(ValueError, match="weights ship"):
        pretrained.weights("extrapolation", "length_depth", record["key"])


# ---- the arithmetic heads at Madsen & Johansen's fixed budget, in every shipped seed ---------
def _arith(name):
    """{head: {seed: metrics}} of the shipped arith experiment `name`."""
    by_head = {}
    for r in pretrained.results("extrapolation")[name]:
        by_head.setdefault(r["config"]["head"], {})[r["config"]["seed"]] = r["metrics"]
    return by_head


def test_a_linear_head_never_solves_mul_and_the_nmu_extrapolates_it_far_better():
    """W₂ W₁ x is linear in x, a · b is not: its extrapolation misses by six orders of magnitude;
    the NMU's, paired by seed, is over a thousand times smaller (Madsen & Johansen's direction)."""
    heads = _arith("arith_mul")
    assert set(heads["linear"]) == set(heads["nmu"]) and len(heads["linear"]) >= 10
    for seed, lin in heads["linear"].items():
        assert lin["solved"] == 0 and lin["extrap_mse"] > 1e6 * lin["threshold"], seed
        assert heads["nmu"][seed]["extrap_mse"] < 1e-3 * lin["extrap_mse"], seed


def test_the_nau_extrapolates_add_better_than_the_nalu_in_every_seed():
    heads = _arith("arith_add")
    assert set(heads["nau"]) == set(heads["nalu"]) and len(heads["nau"]) >= 10
    for seed, nau in heads["nau"].items():
        assert nau["extrap_mse"] < heads["nalu"][seed]["extrap_mse"], seed


# ---- the counting experiment's claims, on its shipped models and its own test sets ----------
def _counting_run(record):
    """The record's CountingRun (its test sets are made in __init__) with the shipped weights."""
    from gleam.labs.extrapolation.counting import CountingRun
    run = CountingRun(record["config"])
    w = pretrained.weights("extrapolation", "counting", record["key"])
    assert set(w) == set(run.model.params)
    for k, v in w.items():
        np.copyto(run.model.params[k], v)
    return run


def test_a_shipped_lstms_cell_state_carries_the_counter_its_h_shows_less_of():
    """Weiss et al.'s mechanism, found in the artefact: on every learned aⁿbⁿ LSTM a linear probe
    of its cell state c reads #a − #b with R² >= 0.99 over the trained n (the probe of h, less),
    and the probe, refitted here on the rebuilt model, gives the record's numbers."""
    from gleam.labs.extrapolation.counting import counter_metrics
    records = [r for r in pretrained.results("extrapolation")["counting"]
               if r["config"]["cell"] == "lstm" and r["config"]["kind"] == "anbn" and r["metrics"]["learned"]]
    assert len(records) >= 8
    for r in records:
        m = r["metrics"]
        assert m["probe_c_r2_train"] >= 0.99 and m["probe_c_r2_train"] > m["probe_r2_train"], r["key"]
    r = records[0]
    run, c = _counting_run(r), r["config"]
    again = counter_metrics(run.model, c["kind"], c["max_train_n"], run.config["max_test_n"],
                            run.config["probe_l2"], cell_state=True, vocab=run.vocab)
    assert math.isclose(again["probe_r2_train"], r["metrics"]["probe_c_r2_train"], rel_tol=1e-9)
    assert math.isclose(again["probe_r2_beyond"], r["metrics"]["probe_c_r2_beyond"], rel_tol=1e-9)


@pytest.mark.parametrize("kind", ["anbn", "anbncn"])
def test_a_mod_m_automaton_fails_the_counting_experiments_own_sets_beyond_training(kind):
    """The shortcut the old test sets let through: "the letters in blocks and the count mod m"
    (m = 2, 3, 4) scored through the shipped experiment's own hard sets falls below the
    threshold at the first n beyond training, in every record."""
    from gleam.labs.extrapolation import automata as au
    records = [r for r in pretrained.results("extrapolation")["counting"] if r["config"]["kind"] == kind]
    run = _counting_run(records[0])
    c, first = run.config, run.config["max_train_n"] + 1
    assert first in run.hard_examples
    for m in (2, 3, 4):
        score = au.accuracy(au.mod_counter(m, kind), run.hard_examples[first])
        assert score < c["threshold"], (m, score)
        assert all(r["metrics"][f"mod{m}_hard_largest_n"] < first for r in records)
    # and the exact counter passes every one of them
    exact = au.exact_counter(kind)
    assert all(au.accuracy(exact, s) == 1.0 for s in run.hard_examples.values())


def test_a_document_made_from_other_specs_is_refused(monkeypatch, tmp_path):
    doc = pretrained.document("memory")
    changed = json.loads(json.dumps(doc))
    changed["experiments"]["cells"]["spec"]["fixed"]["epochs"] += 1
    (tmp_path / "memory.json").write_text(json.dumps(changed))
    monkeypatch.setenv("GLEAM_PRETRAINED", str(tmp_path))
    pretrained._document.cache_clear()
    try:
        with pytest.raises(ValueError, match="another spec.*--train"):
            pretrained.document("memory")
        (tmp_path / "memory.json").write_text(json.dumps([1, 2]))
        pretrained._document.cache_clear()
        with pytest.raises(ValueError, match="not the memory lab's results"):
            pretrained.document("memory")
        with pytest.raises(ValueError, match="lab must be one of"):
            pretrained.document("extrapolationn")
    finally:
        monkeypatch.delenv("GLEAM_PRETRAINED")
        pretrained._document.cache_clear()


TINY = {"n_train": 40, "n_test": 20, "epochs": 2, "probe_n": 4, "probe_delays": [1, 2], "delay": [2, 3],
        "probe_delay": 2, "params": 200, "n_val": 10, "check_every": 2, "criterion": 0.95}


def test_making_the_data_resumes_and_writes_each_lab_once_complete(monkeypatch, tmp_path):
    specs = {"memory": {"cells": {"run": pretrained.MEMORY, "grid": {"cell": ["elman", "lstm"], "seed": [0]},
                                  "fixed": TINY}}}
    monkeypatch.setattr(pretrained, "SPECS", specs)
    monkeypatch.setattr(pretrained, "SAMPLES", {"memory": {"cells": {**TINY, "cell": "lstm", "seed": 1}}})
    monkeypatch.setattr(pretrained, "WEIGHTS", {"memory": ("cells",)})
    import gleam.sweep as sweep
    real, calls = sweep.run_one, []

    def once(run, config):
        calls.append(config["cell"])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(run, config)
    monkeypatch.setattr("gleam.sweep.runner.run_one", once)
    work, out = tmp_path / "work", tmp_path / "data"
    with pytest.raises(KeyboardInterrupt):
        pretrained.train(work, out, jobs=1, progress=False)
    assert not (out / "memory.json").exists() and len((work / "memory.cells.jsonl").read_text().splitlines()) == 1
    monkeypatch.setattr("gleam.sweep.runner.run_one", lambda run, config: (calls.append(config["cell"]),
                                                                         real(run, config))[1])
    made = pretrained.train(work, out, jobs=1, progress=False)
    assert made == [out / "memory.json"] and calls == ["elman", "lstm", "lstm"]     # elman not run again
    doc = json.loads((out / "memory.json").read_text())
    assert [r["config"]["cell"] for r in doc["experiments"]["cells"]["records"]] == ["elman", "lstm"]
    z = np.load(out / "memory.weights.npz")
    key = doc["experiments"]["cells"]["records"][1]["key"]
    assert f"cells/{key}/Wo" in z.files
    assert doc["samples"]["cells"]["config"]["seed"] == 1 and "weights" not in doc["samples"]["cells"]


def test_reuse_copies_the_shipped_records_whose_configs_still_run_and_only_the_rest_trains(monkeypatch, tmp_path):
    fixed = {**TINY, "epochs": 1}
    # (the LSTM's config is in a second experiment too, whose weights do not ship: as the memory
    # lab's forget_bias holds configs of its cells)
    old = {"memory": {"cells": {"run": pretrained.MEMORY, "grid": {"cell": ["elman", "lstm"], "seed": [0]}, "fixed": fixed},
                      "again": {"run": pretrained.MEMORY, "grid": {"cell": ["lstm"], "seed": [0]}, "fixed": fixed}}}
    monkeypatch.setattr(pretrained, "SPECS", old)
    monkeypatch.setattr(pretrained, "SAMPLES", {"memory": {name: {**fixed, "cell": "lstm", "seed": 1} for name in old["memory"]}})
    monkeypatch.setattr(pretrained, "WEIGHTS", {"memory": ("cells",)})
    shipped = tmp_path / "data"
    pretrained.train(tmp_path / "work", shipped, jobs=1, progress=False)
    # the experiment renamed and split by cell, one more seed: the LSTM's seed 0 is the shipped one
    new = {"memory": {"lstm": {"run": pretrained.MEMORY, "grid": {"cell": ["lstm"], "seed": [0, 1]}, "fixed": fixed}}}
    monkeypatch.setattr(pretrained, "SPECS", new)
    monkeypatch.setattr(pretrained, "SAMPLES", {"memory": {"lstm": {**fixed, "cell": "lstm", "seed": 1}}})
    monkeypatch.setattr(pretrained, "WEIGHTS", {"memory": ("lstm",)})
    work = tmp_path / "work2"
    assert pretrained.reuse(work, shipped) == {"memory.lstm": 1}
    assert pretrained.reuse(work, shipped) == {"memory.lstm": 0}            # nothing twice
    copied = json.loads((work / "memory.lstm.jsonl").read_text())
    before = json.loads((shipped / "memory.json").read_text())["experiments"]["cells"]["records"][1]
    assert copied["key"] == before["key"] and copied["metrics"] == before["metrics"]
    z = np.load(shipped / "memory.weights.npz")
    assert np.array_equal(np.asarray(copied["weights"]["Wo"]), z[f"cells/{before['key']}/Wo"])
    import gleam.sweep as sweep
    real, calls = sweep.run_one, []
    monkeypatch.setattr("gleam.sweep.runner.run_one", lambda run, config: (calls.append(config["seed"]),
                                                                         real(run, config))[1])
    made = pretrained.train(work, tmp_path / "out", jobs=1, progress=False)
    assert made == [tmp_path / "out" / "memory.json"] and calls == [1]       # seed 0 reused, not run
    doc = json.loads(made[0].read_text())
    assert doc["experiments"]["lstm"]["records"][0]["metrics"] == before["metrics"]
    assert f"lstm/{before['key']}/Wo" in np.load(tmp_path / "out" / "memory.weights.npz").files
