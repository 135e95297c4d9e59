"""Running a sweep: every config of a spec once, each record appended as its run finishes.

Where the runs go:
    jobs = 1 (no dask)     in this process, one after another: needs neither joblib nor dask
    jobs = N > 1           joblib's process pool (loky) of N workers on this machine
                           (jobs = None: the machine's CPU count)
    dask = "local"         a distributed.LocalCluster of `jobs` single-threaded worker processes
                           (None: the CPU count) on 127.0.0.1, no dashboard, started and closed
                           here; joblib.parallel_config(backend="dask") sends the runs to it
    dask = "tcp://H:P"     the running cluster whose scheduler is at that address; `jobs` caps
                           the runs in flight (None: all the cluster's threads)
Every backend calls `run_one(run, config)`, which imports the run function by its path where it
runs. A run seeds everything from its config (see gleam.sweep.runs), so its metrics do not
depend on the backend, the worker or the order.

Resume: keys that already have an "ok" record in `out` are skipped and counted as done from the
start; the rest run, errored ones included. A half-written last line is cut off first. A run
that raises becomes an "error" record and the sweep goes on. Ctrl-C stops the sweep and raises
SweepInterrupted (a KeyboardInterrupt): every line written stays, and the same call resumes.

joblib, dask and tqdm are imported only here, inside the functions that use them.
"""
import contextlib
import copy
import importlib
import json
import os
import platform
import re
import sys
import time
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.sweep.grid import RUN_PATH, config_key, current_run, expand_grid, load_spec
from gleam.sweep.results import EXTRAS, check_extras, check_metrics, read_results, trim_partial_line

__all__ = ["run_sweep", "run_one", "resolve_run", "SweepReport", "SweepInterrupted", "MAX_JOBS"]

MAX_JOBS = 1024
_ADDRESS = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.ASCII)   # tcp://HOST:PORT, tls://...
_INSTALL = "pip install -e .[research]"


@dataclass
class SweepReport:
    """What run_sweep did."""
    total: int       # runs in the spec's grid
    skipped: int     # already "ok" in the results file
    ran: int         # runs done now (ok or error)
    errors: int      # of those, how many raised
    out: str         # the results file
    seconds: float


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: `done` of `total` runs have a record in `out`."""

    def __init__(self, done, total, out):
        self.done, self.total, self.out = done, total, out
        super().__init__(f"interrupted: {done} of {total} runs done, their records kept in "
                         f"{out}; run the same command again to resume")


def _need(name, what):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError(f"{what} needs {name}, which is not installed: {_INSTALL}") from None


def resolve_run(run):
    """The function a 'module:function' path names, or ValueError."""
    if not (isinstance(run, str) and RUN_PATH.fullmatch(run)):
        raise ValueError(f"run must be a 'module:function' path, got {run!r:.80}")
    module, _, name = current_run(run).partition(":")
    try:
        fn = getattr(importlib.import_module(module), name, None)
    except Exception as e:              # a module's own import can raise anything
        raise ValueError(f"run = {run!r}: cannot import {module} "
                         f"({type(e).__name__}: {e})") from None
    if not callable(fn):
        raise ValueError(f"run = {run!r}: {module} has no function {name!r}")
    return fn


def run_one(run, config):
    """Run one config -> its record ("ok" with metrics, or "error" with what was raised). A run
    trained to a criterion (gleam.labs.stepped) returns its "curve" and "weights" beside its
    metrics: they go into the record as fields of their own (gleam.sweep.results)."""
    key = config_key(config)
    record = {"key": key, "config": config, "seed": config.get("seed"),
              "versions": {"numpy": np.__version__, "python": platform.python_version()}}
    t0 = time.perf_counter()
    try:
        # a copy: a run that edits its config cannot change the record's key
        metrics = resolve_run(run)(copy.deepcopy(config))
        extras = {k: metrics.pop(k) for k in EXTRAS if isinstance(metrics, dict) and k in metrics}
        metrics = check_metrics("metrics", metrics)
        record.update(status="ok", metrics=metrics, **check_extras("record", extras))
    except Exception as e:
        record.update(status="error", error={"type": type(e).__name__, "message": str(e)[:2000]})
    record["seconds"] = time.perf_counter() - t0
    return record


def _client(distributed, address, dask):
    try:
        return distributed.Client(address, timeout=10)
    except (OSError, TimeoutError) as e:
        raise ValueError(f"dask = {dask!r}: no scheduler answered "
                         f"({type(e).__name__}: {e})") from None


def _execute(run, configs, jobs, dask):
    """Yield each config's record as its run finishes (in completion order)."""
    if not configs:
        return
    if dask is None and jobs == 1:
        for config in configs:
            yield run_one(run, config)
        return
    joblib = _need("joblib", "a parallel sweep (jobs > 1 or dask)")
    tasks = (joblib.delayed(run_one)(run, c) for c in configs)
    if dask is None:
        yield from joblib.Parallel(n_jobs=jobs, return_as="generator_unordered")(tasks)
        return
    distributed = _need("distributed", "a sweep on Dask")
    with contextlib.ExitStack() as stack:
        address = dask
        if dask == "local":
            address = stack.enter_context(distributed.LocalCluster(
                n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                host="127.0.0.1", dashboard_address=None))
        stack.enter_context(_client(distributed, address, dask))
        stack.enter_context(joblib.parallel_config(backend="dask"))
        n_jobs = jobs if dask != "local" and jobs is not None else -1
        yield from joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)


def _check_out(out):
    if not isinstance(out, (str, os.PathLike)) or isinstance(out, bytes):
        raise ValueError(f"out must be a file path (str or os.PathLike), got {out!r:.80}")
    out = os.fspath(out)
    if not out or os.path.isdir(out) or not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise ValueError(f"out = {out!r} must be a file in an existing directory")
    return out


def _check_dask(dask):
    if dask is None or dask == "local" or (isinstance(dask, str) and _ADDRESS.fullmatch(dask)):
        return dask
    raise ValueError(f"dask must be None, 'local' or a scheduler address such as "
                     f"'tcp://HOST:PORT', got {dask!r:.80}")


def _bar(total, done):
    tqdm = _need("tqdm", "the progress bar")
    return tqdm.tqdm(total=total, initial=done, unit="run", desc="sweep", file=sys.stderr,
                     dynamic_ncols=True)


def run_sweep(spec, out, jobs=None, dask=None, progress=True):
    """Run every config of `spec` (a path, dict or Spec) not yet "ok" in `out` -> SweepReport.

    jobs: worker count (1: in this process; None: the CPU count, or the cluster's threads);
    dask: None, "local" or a scheduler address; progress: a tqdm bar on stderr."""
    t0 = time.perf_counter()
    spec = load_spec(spec)
    out = _check_out(out)
    jobs = checks.integer("jobs", jobs, minimum=1, maximum=MAX_JOBS, none_ok=True)
    dask = _check_dask(dask)
    progress = checks.flag("progress", progress)
    resolve_run(spec.run)                           # a path that does not import fails here
    if jobs is None and dask is None:
        jobs = os.cpu_count() or 1
    configs = expand_grid(spec.grid, spec.fixed)
    done = set()
    if os.path.exists(out):
        trim_partial_line(out)
        done = {r["key"] for r in read_results(out) if r["status"] == "ok"}
    todo = [c for c in configs if config_key(c) not in done]
    skipped, ran, errors = len(configs) - len(todo), 0, 0
    bar = _bar(len(configs), skipped) if progress else None
    records = _execute(spec.run, todo, jobs, dask)
    try:
        with open(out, "a", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, sort_keys=True, allow_nan=False) + "\n")
                f.flush()
                ran += 1
                errors += record["status"] == "error"
                if bar is not None:
                    bar.set_postfix(errors=errors, refresh=False)
                    bar.update(1)
    except KeyboardInterrupt:
        # counted from the file: Ctrl-C may land between a record's write and `ran += 1`
        keys = {config_key(c) for c in configs}
        ok = {r["key"] for r in read_results(out) if r["status"] == "ok"}
        raise SweepInterrupted(len(keys & ok), len(configs), out) from None
    finally:
        records.close()          # a pool or cluster shuts down here, not at garbage collection
        if bar is not None:
            bar.close()
    return SweepReport(len(configs), skipped, ran, errors, out, time.perf_counter() - t0)
