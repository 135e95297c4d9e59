"""The research labs' pretrained results: sweeps run once per version of the code, never typed.

A lab's figures come from sweeps (gleam.sweep) named here, in SPECS. `results(lab)` returns
their records, {experiment: [record, ...]} (each as gleam.sweep writes it: config, metrics,
key, status), from the first of:
    $GLEAM_PRETRAINED         a file this module wrote (the build names it while it pre-renders)
    gleam/pretrained.json     shipped inside the static site's wheel (the browser has no sources
                              to run the sweeps from and no time to: it trusts its own build)
    build-cache/pretrained/   in a checkout, the file for this fingerprint
and otherwise runs the sweeps (about a minute on this machine: one process per core if joblib
is installed, else in this process) and writes that file. A file is used only if its
fingerprint is the current one: the SHA-256 of SPECS, the NumPy version and the source of every
gleam module but gleam.examples (which reads the results and never runs them), so any change to
the code or the specs runs the sweeps again.

    python -m gleam.pretrained [--out FILE]    run (or find) every lab's sweeps, print the path
"""
import functools
import hashlib
import importlib.resources
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

__all__ = ["SPECS", "results", "fingerprint", "compute", "cached", "RESOURCE"]

RESOURCE = "pretrained.json"
FORMAT = 1

# The memory lab's default long-delay task: the cue, 20 to 40 distractors, then the query, read as
# features of amplitude 1 (one-hot channels; the acceptance test then varies the distractors'
# amplitude); 600 parameters per model (width matched per cell); 10 epochs of 2,000 examples; the
# acceptance test probes retention at 1 to 64 steps and everything else at a delay of 30.
MEMORY_TASK = {"delay": [20, 40], "params": 600, "epochs": 10, "forget_bias": 1.0, "amplitude": 1.0,
               "probe_delays": [1, 2, 4, 8, 16, 32, 64], "probe_delay": 30}
SEEDS = [0, 1, 2, 3, 4]


def _but(config, name):
    return {k: v for k, v in config.items() if k != name}


RUN = "gleam.labs.memory.run:train_cue_delay"
SPECS = {"memory": {
    "cells": {"run": RUN, "grid": {"cell": ["elman", "gru_torch", "lstm"], "seed": SEEDS},
              "fixed": MEMORY_TASK},
    "forget_bias": {"run": RUN, "grid": {"forget_bias": [0.0, 1.0, 3.0], "seed": SEEDS},
                    "fixed": {**_but(MEMORY_TASK, "forget_bias"), "cell": "lstm"}},
    # a fixed delay of 16: the cue is 17 steps before the query, a sequence is 18 long; horizons
    # of 8 (the cue out of reach), 18 (just within) and 36 (the whole sequence: full BPTT)
    "horizons": {"run": RUN, "grid": {"cell": ["gru_torch", "lstm"], "truncate": [8, 18, 36],
                                      "seed": SEEDS},
                 "fixed": {**MEMORY_TASK, "delay": 16, "probe_delay": 16}},
},
    # The extrapolation lab: each run function's defaults (its module docstring), over the cells
    # and settings named, five seeds each.
    "extrapolation": {
    "length_depth": {"run": "gleam.labs.extrapolation.brackets:train_brackets",
                     "grid": {"cell": ["elman", "gru_torch", "lstm"], "seed": SEEDS}, "fixed": {"kind": "dyck1"}},
    "counting": {"run": "gleam.labs.extrapolation.counting:train_counting",
                 "grid": {"kind": ["anbn", "anbncn"], "cell": ["elman", "gru_torch", "lstm"], "seed": SEEDS},
                 "fixed": {"max_train_n": 8}},
    "sums_splits": {"run": "gleam.labs.extrapolation.sums:train_sums",
                    "grid": {"split": ["length", "depth", "composition", "value"], "seed": SEEDS},
                    "fixed": {"head": "classify"}},
    "sums_heads": {"run": "gleam.labs.extrapolation.sums:train_sums",
                   "grid": {"head": ["regress", "nau", "nmu", "nalu"], "seed": SEEDS}, "fixed": {"split": "value"}},
    "analysis": {"run": "gleam.labs.extrapolation.analysis:analyse_sums", "grid": {"seed": SEEDS}, "fixed": {"cell": "gru_torch"}},
}}


def _sources():
    root = Path(__file__).resolve().parent
    files = sorted(p for p in root.rglob("*.py")
                   if "__pycache__" not in p.parts and p.relative_to(root).parts[0] != "examples")
    if not files:
        return None
    return [(p.relative_to(root).as_posix(), p.read_bytes()) for p in files]


@functools.lru_cache(maxsize=1)
def fingerprint():
    """The hex SHA-256 of SPECS, the NumPy version and gleam's sources (None without sources)."""
    sources = _sources()
    if sources is None:
        return None
    h = hashlib.sha256(json.dumps({"format": FORMAT, "specs": SPECS, "numpy": np.__version__},
                                  sort_keys=True).encode())
    for name, data in sources:
        h.update(f"\0{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def cache_dir():
    """build-cache/pretrained in a checkout (beside pyproject.toml), else None."""
    repo = Path(__file__).resolve().parent.parent
    return repo / "build-cache" / "pretrained" if (repo / "pyproject.toml").is_file() else None


def _check(doc, where):
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT and isinstance(doc.get("labs"), dict)):
        raise ValueError(f"{where} is not a pretrained-results file of format {FORMAT}")
    for lab, experiments in SPECS.items():
        got = doc["labs"].get(lab)
        if not isinstance(got, dict) or set(got) != set(experiments):
            raise ValueError(f"{where} has no complete results for the {lab} lab")
    return doc


def _read(path):
    with open(path, encoding="utf-8") as f:
        return _check(json.load(f), path)


def _current(doc):
    fp = fingerprint()
    return fp is None or doc.get("fingerprint") == fp


def load():
    """The whole results document, found or computed as the module docstring says."""
    named = os.environ.get("GLEAM_PRETRAINED")
    if named:
        doc = _read(named)
        if not _current(doc):
            raise ValueError(f"GLEAM_PRETRAINED={named} was made from other code or specs; "
                             "run python -m gleam.pretrained again")
        return doc
    try:
        text = importlib.resources.files("gleam").joinpath(RESOURCE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        text = None
    if text is not None:
        return _check(json.loads(text), f"gleam/{RESOURCE}")
    folder = cache_dir()
    if folder is None:
        raise ValueError("no pretrained results: not shipped with this installation and no checkout "
                         "to compute them in (set GLEAM_PRETRAINED to a file of python -m gleam.pretrained)")
    return _read(cached(folder))


@functools.lru_cache(maxsize=1)
def _loaded():
    return load()


def results(lab):
    """{experiment: [its "ok" records]} of `lab` ("memory")."""
    if not isinstance(lab, str) or lab not in SPECS:
        raise ValueError(f"lab must be one of {sorted(SPECS)}, got {lab!r:.40}")
    return _loaded()["labs"][lab]


def _jobs():
    try:
        import joblib  # noqa: F401
    except ImportError:
        return 1
    return os.cpu_count() or 1


def compute(path, progress=False):
    """Run every lab's sweeps (resuming from a partial run beside `path`) and write the results
    document to `path` (atomically) -> the document."""
    from gleam.sweep import config_key, expand_grid, read_results, run_sweep

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    print(f"[gleam.pretrained] running the research labs' sweeps once for this code -> {path}",
          file=sys.stderr, flush=True)
    labs = {}
    for lab, experiments in SPECS.items():
        runs = path.with_name(f"{path.stem}.{lab}.jsonl")   # shared: a config run for one is reused
        labs[lab] = {}
        for name, spec in experiments.items():
            report = run_sweep(spec, runs, jobs=_jobs(), progress=progress)
            if report.errors:
                raise RuntimeError(f"{report.errors} runs of the {lab} lab's {name!r} sweep failed; see {runs}")
        records = {r["key"]: r for r in read_results(runs) if r["status"] == "ok"}
        for name, spec in experiments.items():
            labs[lab][name] = [records[config_key(c)] for c in expand_grid(spec["grid"], spec["fixed"])]
    doc = {"format": FORMAT, "fingerprint": fingerprint(), "specs": SPECS, "labs": labs}
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(doc, f, sort_keys=True, allow_nan=False)
    os.replace(tmp, path)
    for lab in SPECS:
        path.with_name(f"{path.stem}.{lab}.jsonl").unlink(missing_ok=True)
    return _check(doc, path)


def cached(folder, progress=False):
    """The path of the results file for the current fingerprint in `folder`, made if missing."""
    path = Path(folder) / f"{fingerprint()}.json"
    if not (path.is_file() and _current(_read(path))):
        compute(path, progress=progress)
        for old in path.parent.glob("*.json"):       # another version's results: never read again
            if old != path and len(old.stem) == 64:
                old.unlink(missing_ok=True)
    return path


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, help="write the results here (default: the checkout's cache)")
    args = ap.parse_args(argv)
    if args.out is None:
        folder = cache_dir()
        if folder is None:
            ap.error("not in a checkout: say where with --out")
        print(cached(folder, progress=True))
        return 0
    if not (args.out.is_file() and _current(_read(args.out))):
        compute(args.out, progress=True)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
