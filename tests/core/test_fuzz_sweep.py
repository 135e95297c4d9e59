"""Fuzzing gleam.sweep and gleam.sweep.runs with the policy of tests/core/test_fuzz.py: every
call returns a finite result or raises a ValueError naming one of its arguments.

The runner is fuzzed in this process (jobs=1, no progress bar), so neither joblib, dask nor
tqdm is needed here; its parallel paths are tested in tests/research/test_sweep.py.
"""
import atexit
import json
import math
import os
import shutil
import tempfile

import numpy as np
import pytest
from hypothesis import strategies as st

from gleam import pretrained
from gleam.labs import stepped as stepped_run
from gleam.labs.memory import run as sweep_memory
from gleam.sweep import runs as sweep_runs
from gleam.sweep import split_runs as sweep_tasks
from gleam.sweep import __main__ as cli
from gleam.sweep import config, grid, results, runner, summary
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, choice, fuzz_entry,
                                  missing_entries, real, rng, size, sometimes_bad)

MODULES = (grid, config, results, summary, runner, sweep_runs, sweep_tasks, sweep_memory, stepped_run, pretrained, cli)
HERE = "tests.core.test_fuzz_sweep"
_TMP = tempfile.mkdtemp(prefix="gleam-fuzz-sweep-")       # the fuzzed sweeps write here
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)


def tiny_run(config):
    """A run for the fuzzed runner: raises when config["fail"] is True."""
    if config.get("fail") is True:
        raise RuntimeError("asked to fail")
    return {"names": len(config), "half": 0.5}


# ---------------------------------------------------------------- strategies
SCALAR = (st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20) | st.text(max_size=3)
          | st.floats(-1e308, 1e308, allow_nan=False))
BAD_JSON = st.sampled_from([math.nan, math.inf, (1, 2), b"x", complex(1, 1), object(),
                            np.int64(3), np.float64(1.0), {1: 2}, {"a": [math.nan]},
                            10 ** 400, 10 ** 5000])
GRID_NAMES = ["seed", "n", "cell", "fail"]
NAMES = st.sampled_from(GRID_NAMES + ["lr", "epochs"])


def rarely(good, bad, odds=8):
    """good, or (about 1 time in `odds`) bad: as test_fuzz's sometimes_bad, but the bad case is
    a middle draw, not the 0 that hypothesis favours, so nested strategies stay mostly good."""
    return st.sampled_from(range(odds)).flatmap(lambda k: bad if k == odds // 2 else good)


def json_value():
    return sometimes_bad(SCALAR, BAD_JSON, odds=30)


def configs(names=NAMES):
    return rarely(st.dictionaries(names, json_value(), max_size=4), BAD_SCALARS, odds=10)


@st.composite
def grids(draw):
    """name -> a list of values: now and then an empty list or no list at all."""
    lists = st.integers(0, 19).flatmap(lambda k: BAD_SCALARS if k == 0 else st.lists(
        json_value(), min_size=0 if k == 1 else 1, max_size=3))
    names = st.sampled_from(GRID_NAMES)
    return {name: draw(lists) for name in draw(st.lists(names, unique=True, max_size=3))}


def specs():
    return st.fixed_dictionaries(
        {"grid": grids(), "fixed": configs(sometimes_bad(st.sampled_from(["lr", "epochs"]),
                                                         NAMES, odds=10))},
        optional={"run": sometimes_bad(st.just(f"{HERE}:tiny_run"),
                                       st.sampled_from(["x", "a.b:c", None, 3]))}).flatmap(
        lambda s: rarely(st.just(s), st.just({**s, "extra": 1}), odds=10))


@st.composite
def records(draw, mag=1e308, broken=True):
    """A list of results records, one now and then malformed (unless not broken)."""
    out = []
    for i in range(draw(st.integers(0, 5))):
        config = {"cell": draw(st.sampled_from(["lstm", "gru_torch"])),
                  "seed": draw(st.integers(0, 2))}
        r = {"key": f"k{i}", "config": config, "seed": config["seed"],
             "status": draw(st.sampled_from(["ok", "ok", "error"])), "seconds": 0.0}
        if r["status"] == "ok":
            r["metrics"] = draw(st.dictionaries(st.sampled_from(["acc", "loss"]),
                                                st.floats(-mag, mag) | st.integers(-5, 5),
                                                min_size=1))
        if broken and draw(st.integers(0, 11)) == 0:
            field = draw(st.sampled_from(["key", "config", "status", "metrics", "nan"]))
            if field == "nan":
                r["metrics"] = {"acc": math.nan}
            else:
                r[field] = draw(BAD_SCALARS)
        out.append(r)
    return draw(BAD_SCALARS) if broken and draw(st.integers(0, 11)) == 0 else out


def read_lines(lines):
    """Write these lines to a fresh file and read it back (the last may lack its newline)."""
    fd, path = tempfile.mkstemp(dir=_TMP, suffix=".jsonl")
    with os.fdopen(fd, "w") as f:
        f.write(lines)
    try:
        return results.read_results(path), results.trim_partial_line(path)
    finally:
        os.remove(path)


@st.composite
def file_lines(draw):
    rows = draw(records(1e6, broken=draw(st.booleans())).filter(lambda r: isinstance(r, list)))
    texts = [json.dumps(r, default=repr) for r in rows]
    texts += draw(st.lists(st.sampled_from(["", "{oops", "[1]", "NaN", '{"key": 1}']),
                           max_size=1))
    tail = draw(st.sampled_from(["\n", "", '\n{"key": "half']))
    return ("\n".join(texts) + tail,), {}


def sweep_args():
    @st.composite
    def build(draw):
        spec = draw(rarely(specs(), BAD_SCALARS))
        out = draw(rarely(st.builds(lambda: tempfile.mkdtemp(dir=_TMP) + "/r.jsonl"),
                                 st.one_of(st.just(_TMP), BAD_SCALARS)))
        # jobs = 1 and no progress bar: neither joblib nor tqdm is needed
        jobs = draw(rarely(st.just(1), BAD_SIZES.filter(lambda v: v is not None)))
        dask = draw(rarely(st.none(), st.one_of(BAD_SCALARS.filter(
            lambda v: v is not None), st.just("localhost"))))
        progress = draw(rarely(st.just(False), BAD_SCALARS.filter(
            lambda v: v is not True)))
        return (spec, out), {"jobs": jobs, "dask": dask, "progress": progress}
    return build()


def train_configs():
    """Small configs (the sizes always given: the defaults train for a tenth of a second)."""
    sizes = {"n": size(1, 3), "epochs": size(1, 2), "length": size(1, 4),
             "n_train": size(1, 6), "n_test": size(1, 4)}
    rest = {"task": choice(sweep_runs.TASKS), "cell": choice(["elman", "gru_torch", "lstm"]),
            "lr": real(0, 1), "batch_size": size(1, 4), "seed": size(0, 9)}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 0 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 1 else {})}))


def split_configs():
    """Small configs of train_on_split (sizes always given)."""
    sizes = {"n_examples": size(2, 40), "n": size(1, 3), "epochs": size(1, 2),
             "batch_size": size(1, 8)}
    rest = {"family": choice(["nested_sums", "brackets", "counting", "cue_delay"]),
            "split": choice(sweep_tasks.SPLITS), "threshold": sometimes_bad(
                st.one_of(st.integers(1, 12), st.just([[3, 2]]), st.just([0, 1])), BAD_SCALARS),
            "cell": choice(["elman", "gru_torch", "lstm"]), "lr": real(0, 1),
            "iid_fraction": real(0, 1), "seed": size(0, 9),
            "options": sometimes_bad(st.just({}), st.one_of(BAD_SCALARS, st.just({"typo": 1})))}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 0 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 1 else {})}))


def _stepped_run(config, n):
    run = sweep_memory.CueDelayRun(config)
    stats = run.step(n)
    return [stats.loss, run.metrics()]


def memory_configs():
    """Small configs of train_cue_delay (sizes always given)."""
    sizes = {"n_train": size(1, 30), "n_test": size(1, 10), "epochs": size(1, 2), "probe_n": size(1, 4),
             "probe_delays": sometimes_bad(st.just([1, 2]), st.one_of(BAD_SCALARS, st.just([0]))),
             "delay": sometimes_bad(st.sampled_from([2, [1, 3]]), BAD_SCALARS)}
    rest = {"cell": choice(["elman", "gru_torch", "lstm"]), "params": real(1, 400),
            "n": sometimes_bad(st.sampled_from([None, 2]), BAD_SIZES), "lr": real(0, 1),
            "forget_bias": real(-5, 5), "p_needs_cue": real(0, 1), "p_supersede": real(0, 1),
            "probe_delay": size(1, 4), "seed": size(0, 9)}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 0 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 1 else {})}))


# what the families and splits name in their messages (train_on_split passes them on)
SPLIT_NAMES = ("config", "n", "seed", "max_train_length", "max_train_depth", "held_out",
               "held_out_values", "examples", "typo", "key")

SPEC_NAMES = ("run", "grid", "fixed", "config")

TABLE = [
    # -- grid
    E(grid.canonical_json, call(configs())),
    E(grid.config_key, call(configs()), aliases=("config",)),
    E(grid.current_run, call(st.one_of(st.sampled_from(sorted(grid.RUN_ALIASES)), st.text(max_size=40),
                                       BAD_SCALARS))),
    E(config.with_defaults, call(configs(), st.just({"a": 1, "seed": 0}), st.just("a run")),
      aliases=("config",)),
    E(config.child_seed, call(st.integers(0, 2 ** 64 - 1).map(np.random.SeedSequence))),
    E(grid.expand_grid, call(sometimes_bad(grids(), BAD_SCALARS), configs()),
      aliases=("config",)),
    E(grid.load_spec, call(st.one_of(specs(), BAD_SCALARS, st.just(_TMP),
                                     st.just(_TMP + "/absent.json"))),
      aliases=SPEC_NAMES, covers=(grid.load_spec, grid.Spec)),
    # -- results
    E(results.read_results, call(st.one_of(BAD_SCALARS, st.just(_TMP + "/absent.jsonl"),
                                           st.just(_TMP)))),
    E(read_lines, file_lines(), aliases=("path",),
      covers=(results.check_record, results.trim_partial_line)),
    E(results.check_record, call(st.just("record"), records(mag=1e6).map(
        lambda r: r[0] if isinstance(r, list) and r else r)), aliases=("record",)),
    E(results.check_metrics, call(st.just("metrics"), st.one_of(
        st.dictionaries(st.text(max_size=2), sometimes_bad(
            real(), st.one_of(BAD_SCALARS, st.just(10 ** 5000))), max_size=3),
        BAD_SCALARS)), aliases=("metrics",)),
    # -- summary
    E(summary.ok_records, call(records())),
    E(summary.summarize, call(records(), by=sometimes_bad(st.one_of(
        st.none(), st.lists(st.sampled_from(["cell", "seed", "n"]), max_size=2)), BAD_SCALARS),
        metric=sometimes_bad(st.sampled_from([None, "acc", "loss", "f1"]), BAD_SCALARS))),
    E(summary.format_table, call(st.one_of(records(1e6, broken=False).map(summary.summarize),
                                           BAD_SCALARS, st.just([{"group": {}}])))),
    # -- runner
    E(runner.resolve_run, call(st.one_of(choice([f"{HERE}:tiny_run", "math:pi", "os:sep",
                                                 "no_such_module_q:f", "gleam:nothing"]),
                                         BAD_SCALARS))),
    E(runner.run_one, call(choice([f"{HERE}:tiny_run", "no_such_module_q:f"]), configs())),
    E(runner.run_sweep, sweep_args(), aliases=SPEC_NAMES),
    # -- sweep_runs
    E(sweep_runs.train_task, call(train_configs()), aliases=("length", "count")),
    E(sweep_runs.parity, call(rng(), size(1, 6), size(1, 6))),
    E(sweep_runs.first_repeated, call(rng(), size(1, 6), size(1, 6))),
    # -- sweep_tasks
    E(sweep_tasks.train_on_split, call(split_configs()), aliases=SPLIT_NAMES),
    # -- sweep_memory (cue_delay's and the acceptance test's messages name their own arguments)
    E(sweep_memory.train_cue_delay, call(memory_configs()),
      aliases=SPLIT_NAMES + ("delay", "delays", "n_pairs", "budget", "amplitude")),
    E(sweep_memory.normalized, call(memory_configs()), aliases=SPLIT_NAMES + ("delay",)),
    # a run made, stepped any number of updates (any value as n), and tested as it is then
    E(_stepped_run, call(memory_configs(), sometimes_bad(size(1, 40), BAD_SIZES)),
      aliases=SPLIT_NAMES + ("delay", "delays", "n_pairs", "budget", "amplitude"),
      covers=(sweep_memory.CueDelayRun,)),
    # (bad names only: a lab's name loads its results, which runs its sweeps if none are cached)
    E(pretrained.results, call(st.one_of(BAD_SCALARS, st.text(max_size=12).filter(lambda t: t not in pretrained.SPECS))),
      aliases=("lab",)),
    E(pretrained.document, call(st.one_of(BAD_SCALARS, st.text(max_size=12).filter(lambda t: t not in pretrained.SPECS))),
      aliases=("lab",)),
    E(pretrained.weights, call(st.one_of(BAD_SCALARS, st.text(max_size=12)), st.one_of(BAD_SCALARS, st.text(max_size=12)),
                               st.one_of(BAD_SCALARS, st.text(max_size=12))), aliases=("lab", "experiment", "key")),
]

RECORDS = {
    runner.SweepReport: "what run_sweep reports",
    stepped_run.RunStats: "what a SteppedRun's step reports (a dataclass of numbers it made)",
    stepped_run.SteppedRun: "a base class: fuzzed through CueDelayRun, which steps through it",
    stepped_run.adam_model: "takes a run's config after its checks: fuzzed through every run that calls it",
    stepped_run.criterion_defaults: "a run function's DEFAULTS, made at import: fuzzed through every run's config",
    stepped_run.criterion_config: "checks a run's config: fuzzed through every run's config (memory_configs here)",
    pretrained.train: "runs sweeps and writes files: tests/research/test_pretrained.py",
    pretrained.reuse: "copies a data folder's records into a work folder's files: tests/research/test_pretrained.py",
    pretrained.provenance: "takes no argument: tests/research/test_pretrained.py",
    pretrained.data_folder: "takes no argument: the package's data folder",
    pretrained.main: "the command line (argparse refuses bad arguments)",
    summary.bootstrap_difference: "tested with bad input in tests/core/test_sweep.py",
    results.check_extras: "a record's curve and weights, checked by check_record (fuzzed) and run_one",
    runner.SweepInterrupted: "an exception type, raised on Ctrl-C (tests/core/test_sweep.py)",
    cli.main: "the command line: argparse refuses bad arguments with exit status 2; run "
              "through subprocesses in tests/research/test_sweep.py",
}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    missing = missing_entries(MODULES, TABLE, RECORDS)
    assert not missing, f"no fuzz entry for {missing}"
