"""Sweeps over seeds and settings, on a laptop or a Dask cluster.

    python -m gleam.sweep SPEC.json --out results.jsonl [--jobs N] [--dask local | tcp://HOST:PORT]
    python -m gleam.sweep summarize results.jsonl [--by cell,n] [--metric test_accuracy]

A spec names a run function and a grid (gleam.sweep.grid); each config of the grid runs once,
its record appended to a JSON-lines file as it finishes (gleam.sweep.results), a re-run skips
what is already done (gleam.sweep.runner), and a summary gives each setting's mean, sample
std, min and max over its seeds (gleam.sweep.summary). The built-in run function trains a
small model on a small task (gleam.sweep.runs.train_task).

The grid, the results file and the summary are pure Python and NumPy; only the runner's
parallel paths import joblib and dask (`pip install -e .[research]`), and only when used.
"""
from gleam.sweep.grid import DEFAULT_RUN, Spec, config_key, expand_grid, load_spec
from gleam.sweep.results import read_results
from gleam.sweep.runner import SweepInterrupted, SweepReport, run_one, run_sweep
from gleam.sweep.summary import bootstrap_difference, format_table, summarize

__all__ = ["DEFAULT_RUN", "Spec", "config_key", "expand_grid", "load_spec", "read_results",
           "SweepInterrupted", "SweepReport", "run_one", "run_sweep", "format_table",
           "summarize", "bootstrap_difference"]
