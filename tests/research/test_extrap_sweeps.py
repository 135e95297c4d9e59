"""The extrapolation lab's sweep specs (gleam.pretrained.SPECS["extrapolation"]) run end to end
through gleam.sweep in this process and on a Dask LocalCluster (--dask local), at a small size:
every run of every spec succeeds, and each gives the same metrics on both backends."""
import json

from gleam import pretrained
from gleam.sweep import read_results, run_sweep

SMALL = {"gleam.labs.extrapolation.brackets:train_brackets": {"n_train": 60, "n_test": 10, "epochs": 1, "n_val": 20,
                                                  "check_every": 1, "test_lengths": [20, 40], "test_depths": [2, 4]},
         "gleam.labs.extrapolation.counting:train_counting": {"n_train": 60, "n_test": 10, "epochs": 1, "n_val": 20,
                                                              "check_every": 1, "max_test_n": 10},
         "gleam.labs.extrapolation.sums:train_sums": {"n_examples": 300, "epochs": 1, "params": 2000, "n_val": 20,
                                                      "check_every": 2},
         "gleam.labs.extrapolation.arith:train_arith": {"updates": 50, "n_test": 50}}


def small(spec):
    """The spec with two seeds, the first value of every other grid name, and small sizes."""
    grid = {k: (v[:2] if k == "seed" else v[:1]) for k, v in spec["grid"].items()}
    return {"run": spec["run"], "grid": grid, "fixed": {**spec["fixed"], **SMALL[spec["run"]]}}


def test_every_spec_of_the_lab_runs_in_process_and_on_dask_local(tmp_path):
    specs = pretrained.SPECS["extrapolation"]
    assert {s["run"] for s in specs.values()} == set(SMALL)
    for name, spec in specs.items():
        here, there = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.dask.jsonl"
        a = run_sweep(small(spec), here, jobs=1, progress=False)
        b = run_sweep(small(spec), there, jobs=2, dask="local", progress=False)
        assert (a.total, a.errors, b.errors) == (2, 0, 0), name
        ra = {r["key"]: r["metrics"] for r in read_results(here)}
        rb = {r["key"]: r["metrics"] for r in read_results(there)}
        assert ra == rb and len(ra) == 2, name
        assert all(json.dumps(m, allow_nan=False) for m in ra.values())
