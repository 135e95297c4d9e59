"""Cold loads alone, repeated, beside Pyodide's own floor: same machine, same chromium, same run.

    python benchmarks/floor.py --url http://127.0.0.1:8000/ [--url http://127.0.0.1:8001/] [--runs 3] [--warm]
                               [--phases]

Each URL is a served static site (`python build.py --serve --no-build --site DIR --port P`). For
every run, in turn for each URL (interleaved, so that load on a shared machine falls on all
alike, and in the reverse order every other run: in one A/B of two sites, 6 runs in each order,
the site measured second in a pair was ~0.1 s faster cold, whichever it was), a fresh chromium profile (empty HTTP and code caches):

- floor: benchmarks/browser.py's measure_floor, a bare page on that site's origin whose Web Worker
  loads the site's own Pyodide (`pyodide/<version>/`) and its numpy and runs one NumPy call; time
  from navigation start to the worker's answer, and the worker's CPU-seconds (browser.py measures
  the same floor once in its own run);
- cold: benchmarks/browser.py's measure_load on `?chapter=1` (interactive = chapter 1's Step
  changes ch1.step), with the worker's phases and CPU-seconds.
- phases (with --phases): each visit's worker phases, from marks put into its worker script as
  Playwright hands it to the page (benchmarks/phases.py), and their medians per site: far less
  noisy than the totals, for an A/B of two builds;
- warm (with --warm): once the cold visit's service worker has taken over (the whole build
  cached), the same profile loads `?chapter=1` again: a second visit, from the cache, measured
  the same way (browser.py measures one, after its training runs in the same tab).

Prints a table, then as its last line one JSON object: per URL, the median of the runs
(floor_s, cold_interactive_s, cold_over_floor, cold_worker_cpu_s, floor_worker_cpu_s; with --warm
warm_interactive_s, warm_over_floor, warm_worker_cpu_s) and every run. Nothing is asserted.
"""
import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
sys.path.insert(0, str(BENCH_DIR.parent))

from browser import cold_page, measure_floor, measure_load, wait_until  # noqa: E402
from phases import durations, median_durations, route_marks  # noqa: E402


def _load(m):
    return {"interactive_s": m["interactive_s"], "overlay_gone_s": m["overlay_gone_s"],
            "prose_visible_s": m["prose_visible_s"], "worker_cpu_s": m["cpu"]["worker"],
            "all_cpu_s": m["cpu"]["all"], "phases": [[round(t, 2), p] for t, p in m["phases"]],
            "sw_controlled": m["sw_controlled"]}


def visit_kinds(warm):
    """The visits of a profile: the cold one, and with `warm` the second one from its cache."""
    return ("cold", "warm") if warm else ("cold",)


def measure_cold(pw, base_url, workdir, external, console_errors, warm=False, phases=False):
    """A cold visit in a fresh profile; with `warm`, then a second visit once the service worker
    controls the page (it claims it when the whole build is cached): {"cold": .., "warm": ..}.
    With `phases`, each visit's worker phases too (phases_s)."""
    context, page, profile = cold_page(pw, workdir, external)
    context.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
    marks = route_marks(context) if phases else None
    out = {}
    for kind in visit_kinds(warm):
        if kind == "warm":
            wait_until(lambda: page.evaluate("() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)"),
                       180, what="the service worker to cache the build and take over the page")
        if marks is not None:
            marks.clear()
        out[kind] = _load(measure_load(page, base_url + "?chapter=1", profile))
        if marks is not None:
            out[kind]["phases_s"] = durations(marks)
    context.close()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", action="append", required=True, help="a served site (repeatable)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warm", action="store_true", help="also a second visit of each cold profile, from its cache")
    ap.add_argument("--phases", action="store_true", help="also each visit's worker phases (benchmarks/phases.py)")
    args = ap.parse_args(argv)
    urls = [u if u.endswith("/") else u + "/" for u in args.url]
    from playwright.sync_api import sync_playwright
    workdir = Path(tempfile.mkdtemp(prefix="gleam-floor-bench-"))
    external, console_errors = [], []
    runs = {u: [] for u in urls}
    with sync_playwright() as pw:
        for i in range(args.runs):
            for u in (urls if i % 2 == 0 else urls[::-1]):
                floor = measure_floor(pw, u, workdir, external)
                visits = measure_cold(pw, u, workdir, external, console_errors, warm=args.warm, phases=args.phases)
                runs[u].append({"floor": floor, **visits})
                print(f"run {i + 1} {u}: floor {floor['floor_s']:.2f} s ({floor['worker_cpu_s']:.1f} worker CPU-s)"
                      + "".join(f"; {kind} interactive {v['interactive_s']:.2f} s ({v['worker_cpu_s']:.1f} worker "
                                "CPU-s), phases " + ", ".join(f"{p} {t:.2f}" for t, p in v["phases"])
                                for kind, v in visits.items()), flush=True)
                for kind, v in visits.items() if args.phases else ():
                    print(f"  {kind} worker phases: " + ", ".join(f"{p} {t:.2f}" for p, t in v["phases_s"].items()))
    summary = {}
    for u, rs in runs.items():
        med = lambda xs: round(statistics.median(xs), 2)  # noqa: E731
        floor_s = med([r["floor"]["floor_s"] for r in rs])
        cold_s = med([r["cold"]["interactive_s"] for r in rs])
        summary[u] = {"floor_s": floor_s, "cold_interactive_s": cold_s,
                      "cold_over_floor": med([r["cold"]["interactive_s"] / r["floor"]["floor_s"] for r in rs]),
                      "cold_worker_cpu_s": med([r["cold"]["worker_cpu_s"] for r in rs]),
                      "floor_worker_cpu_s": med([r["floor"]["worker_cpu_s"] for r in rs])}
        if args.warm:
            summary[u].update({
                "warm_interactive_s": med([r["warm"]["interactive_s"] for r in rs]),
                "warm_over_floor": med([r["warm"]["interactive_s"] / r["floor"]["floor_s"] for r in rs]),
                "warm_worker_cpu_s": med([r["warm"]["worker_cpu_s"] for r in rs])})
        if args.phases:
            for kind in visit_kinds(args.warm):
                summary[u][f"{kind}_phases_s"] = median_durations([r[kind]["phases_s"] for r in rs])
        summary[u]["runs"] = rs
        print(f"{u}: median of {len(rs)}: floor {floor_s} s, cold {cold_s} s, cold/floor "
              f"{summary[u]['cold_over_floor']}, worker CPU-s cold {summary[u]['cold_worker_cpu_s']} / floor "
              f"{summary[u]['floor_worker_cpu_s']}"
              + (f"; warm {summary[u]['warm_interactive_s']} s, warm/floor {summary[u]['warm_over_floor']}, "
                 f"worker CPU-s {summary[u]['warm_worker_cpu_s']}" if args.warm else ""))
    for u in urls if args.phases else ():
        for kind in visit_kinds(args.warm):
            print(f"{u} {kind}, median worker phases (s): "
                  + ", ".join(f"{p} {t:.3f}" for p, t in summary[u][f"{kind}_phases_s"].items()))
    print(f"external requests: {len(external)}; console errors: {len(console_errors)}")
    for e in console_errors[:5]:
        print("  console error:", e[:200])
    print(json.dumps({"sites": summary, "external_requests": len(external), "console_errors": len(console_errors)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
