"""Sweeps over seeds and settings, on a laptop or a Dask cluster.

    python -m gleam.sweep SPEC.json --out results.jsonl [--jobs N] [--dask local | tcp://HOST:PORT]
    python -m gleam.sweep SPEC.json [--out results.jsonl] --dry-run
    python -m gleam.sweep summarize results.jsonl [--by cell,n] [--metric test_accuracy]
                                    [--format table|csv|json|markdown]
    python -m gleam.sweep plot results.jsonl --metric NAME --x NAME [--by NAME] --out FILE.svg

A spec names a run function and a grid (gleam.sweep.grid); each config of the grid runs once,
its record appended to a JSON-lines file as it finishes (gleam.sweep.results), with where and
when it ran (its "provenance"); a re-run skips what is already done (gleam.sweep.runner), and a
dry run says what would run (gleam.sweep.plan). A summary gives each setting's mean, sample
std, min, max and a bootstrap interval of the mean over its seeds (gleam.sweep.summary, in the
formats of gleam.sweep.formats); a plot shows a metric against a config name, every seed and
the means (gleam.sweep.plot, SVG; imported by the command line only, not here). The built-in run function trains a small model on a small
task (gleam.sweep.runs.train_task). docs/sweeps.md shows the commands.

The grid, the results file, the summary and the plot are pure Python and NumPy; only the
runner's parallel paths import joblib and dask (`pip install -e .[research]`), and only when used.
"""
from gleam.sweep.formats import FORMATS, format_rows
from gleam.sweep.grid import DEFAULT_RUN, Spec, config_key, expand_grid, load_spec
from gleam.sweep.plan import SweepPlan, format_plan, plan_sweep
from gleam.sweep.results import read_results
from gleam.sweep.runner import SweepInterrupted, SweepReport, run_one, run_sweep
from gleam.sweep.summary import bootstrap_difference, format_table, summarize

__all__ = ["DEFAULT_RUN", "Spec", "config_key", "expand_grid", "load_spec", "read_results",
           "SweepInterrupted", "SweepReport", "run_one", "run_sweep", "format_table",
           "summarize", "bootstrap_difference", "SweepPlan", "plan_sweep", "format_plan",
           "FORMATS", "format_rows"]
