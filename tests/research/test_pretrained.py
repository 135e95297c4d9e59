"""gleam.pretrained: the research labs' sweeps, run once per version of the code.

The results the pages read are the sweeps' own records (re-running one config gives its metrics
again); a file is used only when its fingerprint is the current code's and specs'; computing
writes the whole document at once and reuses the runs of an interrupted attempt."""
import json

import pytest

from gleam import pretrained
from gleam.labs.memory import run as sweep_memory
from gleam.sweep import config_key, expand_grid

TINY = {"n_train": 40, "n_test": 20, "epochs": 1, "probe_n": 4, "probe_delays": [1, 2], "delay": [2, 3],
        "probe_delay": 2, "params": 200}
TINY_SPECS = {"memory": {
    "cells": {"run": pretrained.RUN, "grid": {"cell": ["elman", "lstm"], "seed": [0]}, "fixed": TINY},
    "forget_bias": {"run": pretrained.RUN, "grid": {"forget_bias": [0.0, 1.0], "seed": [0]},
                    "fixed": {**TINY, "cell": "lstm"}},
    "horizons": {"run": pretrained.RUN, "grid": {"truncate": [1], "seed": [0]}, "fixed": TINY}}}


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setattr(pretrained, "SPECS", TINY_SPECS)
    pretrained.fingerprint.cache_clear()
    yield
    pretrained.fingerprint.cache_clear()


def test_the_results_are_the_sweeps_records_of_every_config():
    results = pretrained.results("memory")
    for name, spec in pretrained.SPECS["memory"].items():
        configs = expand_grid(spec["grid"], spec["fixed"])
        assert [r["key"] for r in results[name]] == [config_key(c) for c in configs]
        assert all(r["status"] == "ok" and r["config"] == c for r, c in zip(results[name], configs))
    # a run again, here: the same metrics, number for number (seeded by its config alone)
    first = results["cells"][0]
    assert sweep_memory.train_cue_delay(first["config"]) == first["metrics"]
    with pytest.raises(ValueError, match="lab must be one of"):
        pretrained.results("extrapolationn")


def test_the_fingerprint_follows_the_specs_and_the_sources(tiny, monkeypatch):
    a = pretrained.fingerprint()
    monkeypatch.setattr(pretrained, "SPECS", {"memory": {**TINY_SPECS["memory"], "cells": {
        **TINY_SPECS["memory"]["cells"], "fixed": {**TINY, "epochs": 2}}}})
    pretrained.fingerprint.cache_clear()
    b = pretrained.fingerprint()
    monkeypatch.setattr(pretrained, "SPECS", TINY_SPECS)
    sources = pretrained._sources()
    names = [n for n, _ in sources]
    assert "labs/memory/run.py" in names and not [n for n in names if n.startswith("examples/")]
    edited = [(n, data + b"\n# an edit\n" if n == "seqmodel/trainer.py" else data) for n, data in sources]
    monkeypatch.setattr(pretrained, "_sources", lambda: edited)
    pretrained.fingerprint.cache_clear()
    c = pretrained.fingerprint()
    assert len({a, b, c}) == 3
    monkeypatch.setattr(pretrained, "_sources", lambda: None)      # no sources (the browser's bytecode)
    pretrained.fingerprint.cache_clear()
    assert pretrained.fingerprint() is None


def test_computing_writes_the_document_once_and_a_second_call_reuses_it(tiny, tmp_path, monkeypatch):
    path = pretrained.cached(tmp_path)
    doc = json.loads(path.read_text())
    assert path.name == f"{pretrained.fingerprint()}.json" and doc["fingerprint"] == pretrained.fingerprint()
    assert [r["config"]["cell"] for r in doc["labs"]["memory"]["cells"]] == ["elman", "lstm"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]      # no runs file, no temp file left
    for name, spec in TINY_SPECS["memory"].items():
        for r in doc["labs"]["memory"][name]:
            assert r["metrics"] == sweep_memory.train_cue_delay(r["config"])

    def no_runs(*args, **kwargs):
        raise AssertionError("ran a sweep although its results were cached")
    monkeypatch.setattr("gleam.sweep.run_sweep", no_runs)
    assert pretrained.cached(tmp_path) == path


def test_a_file_from_other_code_or_incomplete_is_refused(tiny, tmp_path, monkeypatch):
    path = pretrained.cached(tmp_path)
    doc = json.loads(path.read_text())
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**doc, "fingerprint": "0" * 64}))
    monkeypatch.setenv("GLEAM_PRETRAINED", str(other))
    with pytest.raises(ValueError, match="GLEAM_PRETRAINED.*other code"):
        pretrained.load()
    monkeypatch.setenv("GLEAM_PRETRAINED", str(path))
    assert pretrained.load() == doc
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**doc, "labs": {"memory": {"cells": []}}}))
    monkeypatch.setenv("GLEAM_PRETRAINED", str(broken))
    with pytest.raises(ValueError, match="no complete results for the memory lab"):
        pretrained.load()
    broken.write_text(json.dumps([1, 2]))
    with pytest.raises(ValueError, match="not a pretrained-results file"):
        pretrained.load()


def test_an_interrupted_computation_keeps_its_runs(tiny, tmp_path, monkeypatch):
    """The runs file beside the target is the sweeps' own: what finished is not run again."""
    import gleam.sweep as sweep
    real, calls = sweep.run_sweep, []

    def once(spec, out, **kwargs):
        calls.append(spec)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(spec, out, **kwargs)
    monkeypatch.setattr(sweep, "run_sweep", once)
    target = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        pretrained.compute(target)
    assert not target.exists() and (tmp_path / "r.memory.jsonl").is_file()
    ran = []
    monkeypatch.setattr(sweep, "run_sweep", lambda spec, out, **kw: (ran.append(real(spec, out, **kw)), ran[-1])[1])
    pretrained.compute(target)
    assert [r.skipped for r in ran] == [2, 0, 0] and target.is_file()
