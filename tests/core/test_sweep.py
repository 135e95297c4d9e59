"""gleam.sweep without joblib or dask: the grid, the keys, the results file, the summary, and
the runner in this process (jobs=1), with the built-in run function and its tasks.

Expected values come from independent computations here: grids written out as nested loops,
keys from hashlib over hand-written JSON, statistics from NumPy on the records' own numbers,
task labels from per-sequence Python loops, step counts from the batch arithmetic.
The parallel paths (joblib, Dask) and the command line are in tests/research/test_sweep.py.
"""
import hashlib
import importlib.util
import json
import math
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gleam.sweep import (DEFAULT_RUN, SweepInterrupted, config_key, expand_grid, format_table,
                         load_spec, read_results, run_sweep, summarize)
from gleam.sweep.grid import RUN_ALIASES
from gleam.sweep.results import check_record, trim_partial_line
from gleam.sweep.runner import resolve_run
from gleam.sweep.summary import N_BOOT
from gleam.sweep.runs import TASKS, VOCAB, first_repeated, parity, train_task

HERE = "tests.core.test_sweep"


# ---------------------------------------------------------------- run functions for the runner
def _log(config):
    with open(config["log"], "a") as f:
        f.write(json.dumps({"x": config["x"], "seed": config["seed"]}) + "\n")


def logged_run(config):
    """y = 10 x + seed; raises for x == 2 while the file config["fail_flag"] exists."""
    _log(config)
    if config["x"] == 2 and os.path.exists(config["fail_flag"]):
        raise RuntimeError(f"flaky at x = {config['x']}")
    return {"y": 10 * config["x"] + config["seed"], "half": config["x"] / 2}


def interrupted_run(config):
    """Ctrl-C arrives during the run with x == 2 while config["fail_flag"] exists."""
    _log(config)
    if config["x"] == 2 and os.path.exists(config["fail_flag"]):
        raise KeyboardInterrupt
    return {"y": 10 * config["x"] + config["seed"]}


def nan_run(config):
    return {"loss": math.nan}


def not_a_dict_run(config):
    return [1.0]


def logged_calls(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def small_spec(tmp_path, run="logged_run", xs=(0, 1, 2, 3), seeds=(0, 1)):
    return {"run": f"{HERE}:{run}", "grid": {"x": list(xs), "seed": list(seeds)},
            "fixed": {"log": str(tmp_path / "log.jsonl"),
                      "fail_flag": str(tmp_path / "fail")}}


# ---------------------------------------------------------------- the grid and the keys
def test_the_grid_is_the_product_in_spec_order_last_name_fastest():
    grid = {"cell": ["gru_torch", "lstm"], "n": [16, 32], "seed": [0, 1, 2]}
    expected = []
    for cell in ["gru_torch", "lstm"]:
        for n in [16, 32]:
            for seed in [0, 1, 2]:
                expected.append({"lr": 0.1, "cell": cell, "n": n, "seed": seed})
    assert expand_grid(grid, {"lr": 0.1}) == expected
    # the order follows the spec's names: seed first now varies slowest
    swapped = expand_grid({"seed": [0, 1, 2], "cell": ["gru_torch", "lstm"], "n": [16, 32]})
    assert [(c["seed"], c["cell"], c["n"]) for c in swapped][:5] == [
        (0, "gru_torch", 16), (0, "gru_torch", 32), (0, "lstm", 16), (0, "lstm", 32),
        (1, "gru_torch", 16)]
    # the same runs, the same keys, whatever the order
    without_lr = [{k: v for k, v in c.items() if k != "lr"} for c in expected]
    assert sorted(map(config_key, swapped)) == sorted(map(config_key, without_lr))
    assert expand_grid({}, {"a": 1}) == [{"a": 1}]          # no grid: one run, the fixed one


def test_a_key_is_sha256_of_the_sorted_compact_json():
    config = {"seed": 3, "cell": "lstm", "lr": 0.5, "sizes": [1, 2], "on": True, "x": None}
    text = '{"cell":"lstm","lr":0.5,"on":true,"seed":3,"sizes":[1,2],"x":null}'
    assert config_key(config) == hashlib.sha256(text.encode()).hexdigest()[:16]
    reordered = dict(reversed(list(config.items())))
    assert config_key(reordered) == config_key(config)


def test_a_key_changes_when_any_value_changes():
    base = {"cell": "lstm", "n": 16, "lr": 0.5, "on": True, "seed": 0, "tags": ["a"]}
    changed = [{**base, "cell": "gru_torch"}, {**base, "n": 17}, {**base, "n": 16.0},
               {**base, "lr": 0.25}, {**base, "on": False}, {**base, "on": 1},
               {**base, "seed": 1}, {**base, "tags": ["b"]}, {**base, "tags": []},
               {**base, "extra": None}, {k: v for k, v in base.items() if k != "n"}]
    keys = [config_key(base)] + [config_key(c) for c in changed]
    assert len(set(keys)) == len(keys)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=4)
                    | st.floats(allow_nan=False, allow_infinity=False),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=8)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.dictionaries(st.text(min_size=1, max_size=4), JSON, min_size=1, max_size=5),
       st.randoms(use_true_random=False))
def test_keys_ignore_name_order_and_follow_the_canonical_text(config, random):
    items = list(config.items())
    random.shuffle(items)
    assert config_key(dict(items)) == config_key(config)
    # the key is a function of the JSON text: a round trip through JSON keeps it
    assert config_key(json.loads(json.dumps(config))) == config_key(config)
    name = items[0][0]
    other = {**config, name: [config[name]]}            # wrap one value in a list: a change
    assert config_key(other) != config_key(config)


@pytest.mark.parametrize("grid, fixed, message", [
    ({"n": [1, 2]}, {"n": 3}, "grid and fixed both set 'n'"),
    ({"n": []}, {}, r"grid\['n'\] must be a non-empty list"),
    ({"n": 4}, {}, r"grid\['n'\] must be a non-empty list"),
    ({"n": [1, 2, 1]}, {}, r"grid\['n'\] lists 1 twice"),
    ({"n": [1, math.nan]}, {}, r"grid\['n'\]\[1\] must be JSON data"),
    ({"n": [(1, 2)]}, {}, r"grid\['n'\]\[0\] must be JSON data"),
    ({}, {"lr": math.inf}, r"fixed\['lr'\] must be JSON data"),
    ({"n": [10 ** 5000]}, {}, r"grid\['n'\]\[0\] must be JSON data \(an integer within"),
    ({"a": list(range(1000)), "b": list(range(1001))}, {}, "grid makes 1,001,000 runs"),
])
def test_bad_grids_are_refused_by_name(grid, fixed, message):
    with pytest.raises(ValueError, match=message):
        expand_grid(grid, fixed)


def test_a_spec_file_loads_with_the_default_run(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"grid": {"seed": [0, 1]}, "fixed": {"n": 4}}))
    spec = load_spec(path)
    assert spec.run == DEFAULT_RUN == "gleam.sweep.runs:train_task"
    assert spec.grid == {"seed": [0, 1]} and spec.fixed == {"n": 4}
    with pytest.raises(ValueError, match="spec has unknown keys"):
        load_spec({"grid": {}, "fixd": {}})
    with pytest.raises(ValueError, match="run must be a 'module:function' path"):
        load_spec({"run": "gleam.sweep.runs.train_task"})
    path.write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        load_spec(path)


# ---------------------------------------------------------------- the results file
def _record(key, status="ok", metrics=None):
    r = {"key": key, "config": {"k": key}, "seed": None, "status": status, "seconds": 0.0}
    if status == "ok":
        r["metrics"] = metrics or {"m": 1.0}
    else:
        r["error"] = {"type": "RuntimeError", "message": "no"}
    return r


def test_a_half_written_last_line_is_ignored_then_cut(tmp_path):
    path = tmp_path / "r.jsonl"
    whole = "".join(json.dumps(_record(k)) + "\n" for k in "ab")
    path.write_text(whole + "\n" + json.dumps(_record("c"))[:17])
    assert [r["key"] for r in read_results(path)] == ["a", "b"]   # blank line skipped too
    assert trim_partial_line(path) == 17
    assert path.read_text() == whole + "\n"
    assert trim_partial_line(path) == 0
    assert trim_partial_line(tmp_path / "absent.jsonl") == 0


def test_a_damaged_whole_line_is_an_error_not_skipped(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(_record("a")) + "\n{oops\n" + json.dumps(_record("b")) + "\n")
    with pytest.raises(ValueError, match="line 2 of path .* is not JSON"):
        read_results(path)
    path.write_text(json.dumps({**_record("a"), "metrics": {"m": math.nan}}) + "\n")
    with pytest.raises(ValueError, match=r"line 1 .*\['metrics'\]\['m'\] must be a finite number"):
        read_results(path)
    with pytest.raises(ValueError, match="cannot be read"):
        read_results(tmp_path / "absent.jsonl")


@pytest.mark.parametrize("provenance, message", [
    ("here", r"\['provenance'\] must be a dict"),
    ({"host": 3}, r"\['provenance'\]\['host'\] must be str, got 3"),
    ({"commit": 1}, r"\['commit'\] must be str or None"),
    ({"dirty": "yes"}, r"\['dirty'\] must be bool or None"),
    ({"started": "yesterday"}, r"\['started'\] must be an ISO 8601 time"),
])
def test_a_bad_provenance_is_refused_by_name(provenance, message):
    r = {"key": "k", "config": {}, "status": "ok", "metrics": {"m": 1}, "provenance": provenance}
    with pytest.raises(ValueError, match=message):
        check_record("record", r)


# ---------------------------------------------------------------- the runner, in this process
def test_an_erroring_run_is_recorded_the_sweep_goes_on_and_a_rerun_retries_it(tmp_path):
    spec, out = small_spec(tmp_path), tmp_path / "r.jsonl"
    (tmp_path / "fail").write_text("")
    report = run_sweep(spec, out, jobs=1, progress=False)
    assert (report.total, report.skipped, report.ran, report.errors) == (8, 0, 8, 2)
    records = read_results(out)
    failed = [r for r in records if r["status"] == "error"]
    assert [(r["config"]["x"], r["seed"]) for r in failed] == [(2, 0), (2, 1)]
    assert failed[0]["error"] == {"type": "RuntimeError", "message": "flaky at x = 2"}
    for r in records:
        if r["status"] == "ok":
            c = r["config"]
            assert r["metrics"] == {"y": 10 * c["x"] + c["seed"], "half": c["x"] / 2}
    os.remove(tmp_path / "fail")
    before = len(logged_calls(tmp_path / "log.jsonl"))
    report = run_sweep(spec, out, jobs=1, progress=False)
    assert (report.skipped, report.ran, report.errors) == (6, 2, 0)
    assert logged_calls(tmp_path / "log.jsonl")[before:] == [{"x": 2, "seed": 0},
                                                             {"x": 2, "seed": 1}]
    ok = [r["key"] for r in read_results(out) if r["status"] == "ok"]
    assert sorted(ok) == sorted(config_key(c) for c in expand_grid(spec["grid"], spec["fixed"]))
    report = run_sweep(spec, out, jobs=1, progress=False)       # all done: nothing runs
    assert (report.skipped, report.ran) == (8, 0)


def test_a_run_cut_off_mid_line_runs_again_and_the_file_stays_whole(tmp_path):
    spec, out = small_spec(tmp_path), tmp_path / "r.jsonl"
    run_sweep(spec, out, jobs=1, progress=False)
    text = out.read_text()
    lines = text.splitlines(keepends=True)
    last = json.loads(lines[-1])
    out.write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])   # killed mid-write
    before = len(logged_calls(tmp_path / "log.jsonl"))
    report = run_sweep(spec, out, jobs=1, progress=False)
    assert (report.skipped, report.ran) == (7, 1)
    assert logged_calls(tmp_path / "log.jsonl")[before:] == [
        {"x": last["config"]["x"], "seed": last["seed"]}]
    lines_after = out.read_text().splitlines(keepends=True)
    assert lines_after[:-1] == lines[:-1]                       # the earlier lines untouched
    assert [json.loads(s)["metrics"] for s in lines_after] == [
        json.loads(s)["metrics"] for s in lines]


def test_ctrl_c_stops_keeps_the_lines_and_says_how_to_resume(tmp_path):
    spec, out = small_spec(tmp_path, "interrupted_run", seeds=(0,)), tmp_path / "r.jsonl"
    (tmp_path / "fail").write_text("")
    with pytest.raises(SweepInterrupted) as caught:
        run_sweep(spec, out, jobs=1, progress=False)
    e = caught.value
    assert isinstance(e, KeyboardInterrupt) and (e.done, e.total) == (2, 4)
    assert "2 of 4 runs done" in str(e) and "run the same command again to resume" in str(e)
    assert [r["config"]["x"] for r in read_results(out)] == [0, 1]
    os.remove(tmp_path / "fail")
    report = run_sweep(spec, out, jobs=1, progress=False)
    assert (report.skipped, report.ran, report.errors) == (2, 2, 0)
    assert [c["x"] for c in logged_calls(tmp_path / "log.jsonl")] == [0, 1, 2, 2, 3]


def test_metrics_that_are_not_finite_numbers_are_errors(tmp_path):
    for run, message in [("nan_run", "metrics['loss'] must be a finite number, got nan"),
                         ("not_a_dict_run", "metrics must be a dict")]:
        out = tmp_path / f"{run}.jsonl"
        report = run_sweep(small_spec(tmp_path, run), out, jobs=1, progress=False)
        assert report.errors == report.total == 8
        errors = {r["error"]["type"] + ": " + r["error"]["message"] for r in read_results(out)}
        assert len(errors) == 1 and errors.pop().startswith("ValueError: " + message)


def test_bad_arguments_are_refused_before_anything_runs(tmp_path):
    out = tmp_path / "r.jsonl"
    for kwargs, message in [
            ({"spec": {"run": "no_such_module_xyz:f"}}, "cannot import no_such_module_xyz"),
            ({"spec": {"run": "math:pi"}}, "math has no function 'pi'"),
            ({"out": tmp_path}, "out = .* must be a file in an existing directory"),
            ({"out": tmp_path / "no" / "r.jsonl"}, "must be a file in an existing directory"),
            ({"jobs": 0}, "jobs must be None or an integer in"),
            ({"dask": "localhost"}, "dask must be None, 'local' or a scheduler address"),
            ({"progress": "yes"}, "progress must be True or False")]:
        args = {"spec": small_spec(tmp_path), "out": out, "jobs": 1, "progress": False, **kwargs}
        with pytest.raises(ValueError, match=message):
            run_sweep(**args)
    assert not out.exists() and not (tmp_path / "log.jsonl").exists()


def test_without_joblib_a_parallel_sweep_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "joblib", None)            # import joblib now fails
    with pytest.raises(ImportError, match=r"needs joblib.*pip install -e \.\[research\]"):
        run_sweep(small_spec(tmp_path), tmp_path / "r.jsonl", jobs=2, progress=False)
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(ImportError, match=r"progress bar needs tqdm.*\[research\]"):
        run_sweep(small_spec(tmp_path), tmp_path / "r.jsonl", jobs=1, progress=True)


# ---------------------------------------------------------------- the summary
def _records_for_summary(rng):
    records = []
    for cell in ["lstm", "gru_torch"]:
        for n in [8, 16]:
            for seed in range(4 if n == 8 else 3):
                config = {"cell": cell, "n": n, "seed": seed}
                metrics = {"acc": float(rng.uniform()), "loss": float(rng.normal() * 10)}
                if seed == 0:
                    metrics["only_seed0"] = 1
                records.append({"key": config_key(config), "config": config, "seed": seed,
                                "status": "ok", "metrics": metrics, "seconds": 0.1})
    return records


def test_summarize_agrees_with_numpy_on_each_group():
    records = _records_for_summary(np.random.default_rng(5))
    rows = summarize(records)
    assert {tuple(r["group"]) for r in rows} == {("cell", "n")}        # every name but seed
    assert len(rows) == 4 * 3
    for row in rows:
        g = row["group"]
        x = np.array([r["metrics"][row["metric"]] for r in records
                      if r["config"]["cell"] == g["cell"] and r["config"]["n"] == g["n"]
                      and row["metric"] in r["metrics"]])
        assert row["count"] == len(x)
        assert row["mean"] == pytest.approx(np.mean(x), rel=1e-12, abs=1e-300)
        assert row["min"] == x.min() and row["max"] == x.max()
        if len(x) > 1:
            assert row["std"] == pytest.approx(np.std(x, ddof=1), rel=1e-12)
        else:
            assert row["std"] is None
    # groups in order: numbers by value, then names; metrics by name within a group
    order = [(r["group"]["cell"], r["group"]["n"], r["metric"]) for r in rows]
    assert order[:4] == [("gru_torch", 8, "acc"), ("gru_torch", 8, "loss"),
                         ("gru_torch", 8, "only_seed0"), ("gru_torch", 16, "acc")]


def test_summarize_by_hand_and_independent_of_order_errors_and_repeats():
    vals = [1.0, 2.0, 3.0, 4.0]
    records = [{"key": f"k{i}", "config": {"cell": "lstm", "seed": i}, "status": "ok",
                "metrics": {"m": v}} for i, v in enumerate(vals)]
    rows = summarize(records, by=["cell"])
    assert rows == [{"group": {"cell": "lstm"}, "metric": "m", "mean": 2.5,
                     "std": pytest.approx(math.sqrt(5 / 3), rel=1e-15), "min": 1.0,
                     "max": 4.0, "count": 4}]
    noisy = records[::-1] + [
        {"key": "k9", "config": {"cell": "lstm", "seed": 9}, "status": "error",
         "error": {"type": "E", "message": ""}},                   # errors are left out
        {"key": "k0", "config": {"cell": "lstm", "seed": 0}, "status": "ok",
         "metrics": {"m": 1.0}}]                                   # a repeat counts once
    assert summarize(noisy, by=["cell"]) == rows
    assert summarize(records, by=[])[0]["count"] == 4
    ones = [{"key": f"n{n!r}", "config": {"n": n, "seed": 0}, "status": "ok",
             "metrics": {"m": 1.0}} for n in (1, 1.0)]                # JSON: two configs
    # compared as JSON text: in Python 1 == 1.0, so the rows' dicts would not tell them apart
    assert json.dumps(summarize(ones)) == json.dumps(summarize(ones[::-1]))
    assert len(summarize(ones)) == 2
    assert [r["group"]["seed"] for r in summarize(records, by=["seed"])] == [0, 1, 2, 3]
    huge = [{**r, "metrics": {"m": 1e308}} for r in records]
    assert summarize(huge, by=[])[0]["mean"] == 1e308              # no overflow on the way
    apart = [{**r, "metrics": {"m": (-1) ** i * 1.7e308}} for i, r in enumerate(records)]
    with pytest.raises(ValueError, match="std of 'm' exceeds the float range"):
        summarize(apart, by=[])
    with pytest.raises(ValueError, match="by names 'layers', which no config has"):
        summarize(records, by=["layers"])
    with pytest.raises(ValueError, match="metric must be None or one of the metrics"):
        summarize(records, metric="acc")


def test_the_table_lines_up_its_columns():
    records = _records_for_summary(np.random.default_rng(1))
    rows = summarize(records, metric="acc")
    lines = format_table(rows).splitlines()
    assert lines[0].split() == ["cell", "n", "metric", "mean", "std", "min", "max", "count"]
    assert set(lines[1]) == {"-", " "}
    ends = {len(line) for line in lines[2:]}                     # numbers right-aligned
    assert len(ends) == 1
    for line, row in zip(lines[2:], rows):
        cells = line.split()
        assert cells[:3] == [row["group"]["cell"], str(row["group"]["n"]), "acc"]
        assert float(cells[3]) == pytest.approx(row["mean"], rel=1e-5)
        assert int(cells[7]) == row["count"]
    assert format_table([]) == "no ok runs to summarise"


def _one_setting(values):
    return [{"key": f"k{i}", "config": {"cell": "lstm", "seed": i}, "status": "ok",
             "metrics": {"m": v}} for i, v in enumerate(values)]


def bootstrap_by_hand(values, seed=0):
    """The definition in gleam.sweep.summary._interval, in plain NumPy."""
    x = np.sort(np.asarray(values, dtype=float))
    u = np.random.default_rng(seed).random((N_BOOT, len(x)))
    means = x[np.floor(u * len(x)).astype(int)].mean(axis=1)
    return tuple(np.quantile(means, [0.025, 0.975]))


@pytest.mark.parametrize("values", [[0.2, 0.9, 0.4, 0.7, 0.1], [3.0, -1.0],
                                    list(np.random.default_rng(3).normal(size=300))])
def test_the_interval_is_the_percentile_bootstrap_of_the_mean(values):
    records = _one_setting(values)
    (row,) = summarize(records, by=["cell"], interval=True)
    low, high = bootstrap_by_hand(values)
    assert (row["ci_low"], row["ci_high"]) == (low, high)   # scaled by a power of two: exact
    assert row["ci_low"] <= row["mean"] <= row["ci_high"] and row["ci_low"] < row["ci_high"]
    # reproducible, and a function of the values, not of the order of the lines
    (again,) = summarize(records[::-1], by=["cell"], interval=True)
    assert (again["ci_low"], again["ci_high"]) == (row["ci_low"], row["ci_high"])


def test_the_interval_of_many_values_is_close_to_the_normal_approximation():
    x = np.random.default_rng(7).normal(loc=2.0, scale=3.0, size=400)
    (row,) = summarize(_one_setting(list(x)), by=["cell"], interval=True)
    half = 1.96 * np.std(x, ddof=1) / np.sqrt(len(x))            # ≈ 0.29
    assert row["ci_low"] == pytest.approx(x.mean() - half, abs=0.1 * half)
    assert row["ci_high"] == pytest.approx(x.mean() + half, abs=0.1 * half)


def test_one_value_or_equal_values_give_that_value_as_the_interval():
    for values in ([0.25], [0.1, 0.1, 0.1]):
        (row,) = summarize(_one_setting(values), by=["cell"], interval=True)
        assert row["ci_low"] == row["ci_high"] == values[0] == pytest.approx(row["mean"])
    (row,) = summarize(_one_setting([1e308, 1.5e308]), by=["cell"], interval=True)
    assert 1e308 <= row["ci_low"] < row["ci_high"] <= 1.5e308    # no overflow on the way


# ---------------------------------------------------------------- the built-in run and its tasks
def test_the_tasks_make_their_labels_by_their_rules():
    X, y, vocab = parity(np.random.default_rng(0), 200, 7)
    assert X.shape == (7, 200) and vocab == 2 and set(np.unique(X)) <= {0, 1}
    assert [int(v) for v in y] == [sum(int(b) for b in X[:, i]) % 2 for i in range(200)]
    X, y, vocab = first_repeated(np.random.default_rng(0), 2000, 5)
    assert X.shape == (5, 2000) and vocab == VOCAB and X.min() >= 0 and X.max() < VOCAB
    assert [int(v) for v in y] == [int(X[-1, i] == X[0, i]) for i in range(2000)]
    assert abs(y.mean() - 0.5) < 4 * 0.5 / math.sqrt(2000)     # P(y = 1) = ½, four sigmas
    others = X[-1][y == 0]                                      # the last token, when no repeat:
    firsts = X[0][y == 0]                                       # one of the other tokens
    for v in range(VOCAB):
        counts = np.bincount(others[firsts == v], minlength=VOCAB)
        assert counts[v] == 0 and (counts[np.arange(VOCAB) != v] > 0).all()
    assert set(TASKS) == {"parity", "first_repeated"}
    with pytest.raises(ValueError, match="length must be an integer in \\[2, "):
        first_repeated(np.random.default_rng(0), 3, 1)


def test_train_task_is_a_function_of_its_config():
    config = {"task": "first_repeated", "cell": "lstm", "n": 6, "epochs": 3, "length": 4,
              "n_train": 50, "n_test": 40, "batch_size": 16, "seed": 2}
    a, b = train_task(config), train_task(dict(config))
    assert a == b
    assert a["steps"] == 3 * math.ceil(50 / 16) and a["diverged_steps"] == 0
    assert 0 <= a["test_accuracy"] <= 1 and a["test_loss"] > 0 and a["train_loss"] > 0
    # 40 test sequences: the accuracy is a multiple of 1/40
    assert a["test_accuracy"] * 40 == pytest.approx(round(a["test_accuracy"] * 40))
    assert train_task({**config, "seed": 3}) != a
    assert set(train_task({"n_train": 8, "n_test": 8, "epochs": 1})) == set(a)   # defaults
    with pytest.raises(ValueError, match=r"config has unknown names \['epoch'\]"):
        train_task({"epoch": 3})
    with pytest.raises(ValueError, match=r"config\['lr'\] must be a finite number in \(0, 1\]"):
        train_task({"lr": 2.0})
    with pytest.raises(ValueError, match=r"config\['cell'\] must be one of"):
        train_task({"cell": "transformer"})


def test_train_task_learns_a_task_that_is_learnable():
    # "is the first token repeated at the end" over 3 tokens: chance is ½; all three seeds tried
    for seed in range(3):
        m = train_task({"task": "first_repeated", "length": 3, "epochs": 40, "lr": 0.03,
                        "seed": seed})
        assert m["test_accuracy"] > 0.9 and m["train_loss"] < 0.1


@pytest.mark.parametrize("old, new", sorted(RUN_ALIASES.items()))
def test_a_run_path_of_the_flat_layout_still_runs_its_function(old, new):
    """Specs written before gleam's packages name their runs by the old module paths: each runs
    the same function as its new path, and its spec reads as the new one (so a results file made
    under either resumes under the other)."""
    assert resolve_run(old) is resolve_run(new)
    assert load_spec({"run": old, "grid": {"seed": [0]}}).run == new
    module = old.partition(":")[0]
    assert importlib.util.find_spec(module) is None, f"{module} exists again: drop its alias"


def test_bootstrap_difference_brackets_the_mean_difference_and_pairs_seeds():
    from gleam.sweep import bootstrap_difference
    # paired: every seed's difference is 1, so the interval is exactly [1, 1]
    assert bootstrap_difference([1.0, 2.0, 5.0], [0.0, 1.0, 4.0], paired=True) == (1.0, 1.0, 1.0)
    # unpaired, the same values: the seeds' spread widens it, around the same difference
    d, lo, hi = bootstrap_difference([1.0, 2.0, 5.0], [0.0, 1.0, 4.0])
    assert abs(d - 1.0) < 1e-12 and lo < 0 < 1 < hi
    # a clear difference keeps 0 out; the interval narrows with the level
    a, b = [0.9, 0.95, 1.0, 0.97, 0.93], [0.5, 0.55, 0.45, 0.5, 0.52]
    d, lo, hi = bootstrap_difference(a, b, level=0.95)
    d2, lo2, hi2 = bootstrap_difference(a, b, level=0.5)
    assert 0 < lo <= lo2 <= d <= hi2 <= hi and bootstrap_difference(a, b) == (d, lo, hi)
    for bad in ([1.0], [1.0, float("nan")], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="at least 2 finite"):
            bootstrap_difference(bad, [1.0, 2.0])
    with pytest.raises(ValueError, match="one of each per seed"):
        bootstrap_difference([1.0, 2.0, 3.0], [1.0, 2.0], paired=True)
    with pytest.raises(ValueError, match="level"):
        bootstrap_difference([1.0, 2.0], [1.0, 2.0], level=1)
