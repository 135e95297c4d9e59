"""The command line of gleam.sweep: run a sweep, or summarise its results.

    python -m gleam.sweep SPEC.json --out results.jsonl [--jobs N] [--dask local | --dask ADDRESS]
    python -m gleam.sweep summarize results.jsonl [--by cell,n] [--metric NAME]

Exit status: 0 when every run is ok; 1 when some runs raised (their records say why, and the
same command retries them); 2 for bad arguments, a bad spec or a missing extra; 130 after
Ctrl-C (the records written stay, and the same command resumes).
"""
import argparse
import sys

from gleam.sweep.results import read_results
from gleam.sweep.runner import SweepInterrupted, run_sweep
from gleam.sweep.summary import format_table, summarize


def _run_parser():
    p = argparse.ArgumentParser(
        prog="python -m gleam.sweep",
        description="Run every config of a sweep spec once, appending one JSON line per run; "
                    "a re-run skips the runs already ok. "
                    "Also: python -m gleam.sweep summarize RESULTS.jsonl --help")
    p.add_argument("spec", help="the spec, a JSON file: {run, grid, fixed}")
    p.add_argument("--out", required=True, help="the results file (JSON lines), appended to")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the CPU count; 1 runs in this process)")
    p.add_argument("--dask", default=None, metavar="local|ADDRESS",
                   help="run on Dask: 'local' starts a LocalCluster, or a scheduler's address "
                        "such as tcp://HOST:PORT")
    return p


def _summary_parser():
    p = argparse.ArgumentParser(
        prog="python -m gleam.sweep summarize",
        description="Each metric's mean, sample std, min, max and count per group of configs.")
    p.add_argument("results", help="the results file (JSON lines)")
    p.add_argument("--by", default=None, metavar="NAME,NAME",
                   help="config names to group on (default: every name but seed)")
    p.add_argument("--metric", default=None, help="one metric (default: all)")
    return p


def _summarize(argv):
    a = _summary_parser().parse_args(argv)
    records = read_results(a.results)
    by = None if a.by is None else [k for k in a.by.split(",") if k]
    print(format_table(summarize(records, by, a.metric)))
    ok = {r["key"] for r in records if r["status"] == "ok"}
    failed = {r["key"] for r in records if r["status"] == "error"} - ok
    if failed:
        print(f"runs with only error records, left out: {len(failed)}", file=sys.stderr)
    return 0


def main(argv=None):
    """Run the command line (argv: the arguments, default sys.argv[1:]) -> exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["summarize"]:
            return _summarize(argv[1:])
        a = _run_parser().parse_args(argv)
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
