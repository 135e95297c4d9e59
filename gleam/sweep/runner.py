"""Running a sweep: every config of a spec once, each record appended as its run finishes.

Where the runs go:
    jobs = 1 (no dask)     in this process, one after another: needs neither joblib nor dask
    jobs = N > 1           joblib's process pool (loky) of N workers on this machine
                           (jobs = None: the machine's CPU count)
    dask = "local"         a distributed.LocalCluster of `jobs` single-threaded worker processes
                           (None: the CPU count) on 127.0.0.1, started and closed here;
                           joblib.parallel_config(backend="dask") sends the runs to it. Its
                           dashboard listens on 127.0.0.1 only (distributed's default is every
                           interface), port 8787 or, when that is taken, a free one; its address
                           is printed to stderr
    dask = "tcp://H:P"     the running cluster whose scheduler is at that address; `jobs` caps
                           the runs in flight (None: all the cluster's threads)
Every backend calls `run_one(run, config)`, which imports the run function by its path where it
runs. A run seeds everything from its config (see gleam.sweep.runs), so its metrics do not
depend on the backend, the worker or the order.

Provenance: run_one puts into each record where and when it ran (versions, host, start time);
run_sweep adds the git commit of the working directory's checkout, found once per sweep.

Resume: keys that already have an "ok" record in `out` are skipped and counted as done from the
start; the rest run, errored ones included. A half-written last line is cut off first. A run
that raises becomes an "error" record and the sweep goes on. Ctrl-C stops the sweep and raises
SweepInterrupted (a KeyboardInterrupt): every line written stays, and the same call resumes.

joblib, dask and tqdm are imported only here, inside the functions that use them.
"""
import contextlib
import copy
import datetime
import functools
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.sweep.grid import RUN_PATH, config_key, current_run, load_spec
from gleam.sweep.plan import check_out, plan_sweep
from gleam.sweep.results import EXTRAS, check_extras, check_metrics, read_results, trim_partial_line

__all__ = ["run_sweep", "run_one", "resolve_run", "SweepReport", "SweepInterrupted", "MAX_JOBS"]

MAX_JOBS = 1024
_ADDRESS = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.ASCII)   # tcp://HOST:PORT, tls://...
_COMMIT = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?", re.ASCII)  # SHA-1, or SHA-256 repositories
_DASHBOARD = "127.0.0.1:8787"
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


@functools.lru_cache(maxsize=1)
def _process():
    """The provenance shared by every run of this process: versions and host."""
    try:
        version = importlib.metadata.version("gleam")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"python": platform.python_version(), "numpy": np.__version__, "gleam": version,
            "host": platform.node()}


def _checkout():
    """{"commit", "dirty"} of the git checkout holding the working directory: HEAD's hash and
    whether a tracked file differs from it; both None when git is absent, fails or finds none."""
    def git(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if not _COMMIT.fullmatch(commit):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": dirty}


def run_one(run, config):
    """Run one config -> its record ("ok" with metrics, or "error" with what was raised). A run
    trained to a criterion (gleam.labs.stepped) returns its "curve" and "weights" beside its
    metrics: they go into the record as fields of their own (gleam.sweep.results). "provenance"
    holds the versions and host of this process and the run's start (UTC, ISO 8601)."""
    key = config_key(config)
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
    record = {"key": key, "config": config, "seed": config.get("seed"),
              "provenance": {**_process(), "started": started}}
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


def _say(bar, text):
    """Print text to stderr, above the progress bar `bar` (None: no bar)."""
    if bar is None:
        print(text, file=sys.stderr, flush=True)
    else:
        bar.write(text, file=sys.stderr)


def _execute(run, configs, jobs, dask, say):
    """Yield each config's record as its run finishes (in completion order); say(text) prints
    the dashboard's address of a LocalCluster started here."""
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
                host="127.0.0.1", dashboard_address=_DASHBOARD))
        client = stack.enter_context(_client(distributed, address, dask))
        if dask == "local":
            say("Dask dashboard: " + (client.dashboard_link if importlib.util.find_spec("bokeh")
                                      else "none (it needs bokeh, which is not installed)"))
        stack.enter_context(joblib.parallel_config(backend="dask"))
        n_jobs = jobs if dask != "local" and jobs is not None else -1
        yield from joblib.Parallel(n_jobs=n_jobs, return_as="generator_unordered")(tasks)


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
    dask: None, "local" or a scheduler address; progress: a tqdm bar on stderr. Each record's
    provenance gets the commit of the working directory's checkout, found once here."""
    t0 = time.perf_counter()
    spec = load_spec(spec)
    out = check_out(out)
    jobs = checks.integer("jobs", jobs, minimum=1, maximum=MAX_JOBS, none_ok=True)
    dask = _check_dask(dask)
    progress = checks.flag("progress", progress)
    resolve_run(spec.run)                           # a path that does not import fails here
    if jobs is None and dask is None:
        jobs = os.cpu_count() or 1
    trim_partial_line(out)
    plan = plan_sweep(spec, out)
    configs, todo = plan.configs, plan.todo
    skipped, ran, errors = len(plan.done), 0, 0
    bar = _bar(len(configs), skipped) if progress else None
    checkout = _checkout() if todo else None
    records = _execute(spec.run, todo, jobs, dask, functools.partial(_say, bar))
    try:
        with open(out, "a", encoding="utf-8") as f:
            for record in records:
                record["provenance"].update(checkout)
                f.write(json.dumps(record, sort_keys=True, allow_nan=False) + "\n")
                f.flush()
                ran += 1
                errors += record["status"] == "error"
                if bar is not None:
                    bar.set_postfix(errors=errors, refresh=False)
                    bar.update(1)
    except KeyboardInterrupt:
        # counted from the file: Ctrl-C may land between a record's write and `ran += 1`
        ok = {r["key"] for r in read_results(out) if r["status"] == "ok"}
        raise SweepInterrupted(len(ok.intersection(plan.keys)), len(configs), out) from None
    finally:
        records.close()          # a pool or cluster shuts down here, not at garbage collection
        if bar is not None:
            bar.close()
    return SweepReport(len(configs), skipped, ran, errors, out, time.perf_counter() - t0)
