"""The command line of gleam.sweep: run a sweep (or plan it), summarise its results, plot them.

    python -m gleam.sweep SPEC.json --out results.jsonl [--jobs N] [--dask local | --dask ADDRESS]
    python -m gleam.sweep SPEC.json [--out results.jsonl] --dry-run
    python -m gleam.sweep summarize results.jsonl [--by cell,n] [--metric NAME]
                                    [--format table|csv|json|markdown]
    python -m gleam.sweep plot results.jsonl --metric NAME --x NAME [--by NAME,NAME] --out F.svg

Exit status: 0 when every run is ok (and for a dry run, a summary or a plot); 1 when some runs
raised (their records say why, and the same command retries them); 2 for bad arguments, a bad
spec or a missing extra; 130 after Ctrl-C (the records written stay, and the same command
resumes).
"""
import argparse
import sys

from gleam.sweep.formats import FORMATS, format_rows
from gleam.sweep.plan import format_plan, plan_sweep
from gleam.sweep.plot import PLOT_SUFFIXES, write_plot
from gleam.sweep.results import read_results
from gleam.sweep.runner import SweepInterrupted, resolve_run, run_sweep
from gleam.sweep.summary import summarize


def _run_parser():
    p = argparse.ArgumentParser(
        prog="python -m gleam.sweep",
        description="Run every config of a sweep spec once, appending one JSON line per run; "
                    "a re-run skips the runs already ok. Also: python -m gleam.sweep "
                    "summarize RESULTS.jsonl --help, python -m gleam.sweep plot RESULTS.jsonl "
                    "--help")
    p.add_argument("spec", help="the spec, a JSON file: {run, grid, fixed}")
    p.add_argument("--out", default=None,
                   help="the results file (JSON lines), appended to; required unless --dry-run")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the CPU count; 1 runs in this process)")
    p.add_argument("--dask", default=None, metavar="local|ADDRESS",
                   help="run on Dask: 'local' starts a LocalCluster (its dashboard's address "
                        "is printed), or a scheduler's address such as tcp://HOST:PORT")
    p.add_argument("--dry-run", action="store_true",
                   help="print the grid (each config's key and values) and how many runs are "
                        "done in --out and would run; run nothing, write nothing "
                        "(--jobs and --dask are not used)")
    return p


def _summary_parser():
    p = argparse.ArgumentParser(
        prog="python -m gleam.sweep summarize",
        description="Each metric's mean, sample std, min, max and count per group of configs; "
                    "csv, json and markdown add a 95% bootstrap interval of the mean.")
    p.add_argument("results", help="the results file (JSON lines)")
    p.add_argument("--by", default=None, metavar="NAME,NAME",
                   help="config names to group on (default: every name but seed)")
    p.add_argument("--metric", default=None, help="one metric (default: all)")
    p.add_argument("--format", default="table", choices=FORMATS, help="default: table")
    return p


def _plot_parser():
    p = argparse.ArgumentParser(
        prog="python -m gleam.sweep plot",
        description="A metric against one config name: a point per run and a line through the "
                    "means at each value, per group; written as SVG (or an HTML page of it).")
    p.add_argument("results", help="the results file (JSON lines)")
    p.add_argument("--metric", required=True, help="the metric on the y axis")
    p.add_argument("--x", required=True, help="the config name on the x axis")
    p.add_argument("--by", default=None, metavar="NAME,NAME",
                   help="config names whose values make the groups (default: one group)")
    p.add_argument("--out", required=True,
                   help=f"the file to write, ending in {' or '.join(PLOT_SUFFIXES)}")
    return p


def _names(text):
    return None if text is None else [k for k in text.split(",") if k]


def _left_out(records):
    ok = {r["key"] for r in records if r["status"] == "ok"}
    failed = {r["key"] for r in records if r["status"] == "error"} - ok
    if failed:
        print(f"runs with only error records, left out: {len(failed)}", file=sys.stderr)


def _summarize(argv):
    a = _summary_parser().parse_args(argv)
    records = read_results(a.results)
    rows = summarize(records, _names(a.by), a.metric, interval=a.format != "table")
    print(format_rows(rows, a.format))
    _left_out(records)
    return 0


def _plot(argv):
    a = _plot_parser().parse_args(argv)
    records = read_results(a.results)
    out = write_plot(records, a.out, a.metric, a.x, _names(a.by))
    _left_out(records)
    print(f"plot of {a.metric} against {a.x} -> {out}", file=sys.stderr)
    return 0


def _dry_run(a):
    plan = plan_sweep(a.spec, a.out)
    resolve_run(plan.spec.run)              # a path that does not import fails here too
    print(format_plan(plan))
    return 0


def main(argv=None):
    """Run the command line (argv: the arguments, default sys.argv[1:]) -> exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["summarize"]:
            return _summarize(argv[1:])
        if argv[:1] == ["plot"]:
            return _plot(argv[1:])
        p = _run_parser()
        a = p.parse_args(argv)
        if a.dry_run:
            return _dry_run(a)
        if a.out is None:
            p.error("the following arguments are required without --dry-run: --out")
        report = run_sweep(a.spec, a.out, jobs=a.jobs, dask=a.dask)
    except SweepInterrupted as e:
        print(e, file=sys.stderr)
        return 130
    except (ValueError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{report.total} runs: {report.skipped} already done, {report.ran} ran, "
          f"errors: {report.errors} ({report.seconds:.1f} s) -> {report.out}", file=sys.stderr)
    if report.errors:
        print("the errored runs' records say why; the same command retries them",
              file=sys.stderr)
    return 1 if report.errors else 0


if __name__ == "__main__":
    sys.exit(main())
