"""Where a cold load's CPU goes, thread by thread: one cold visit of a served site, traced by Chrome.

    python benchmarks/trace_load.py --url http://127.0.0.1:8000/ [--chapter 1] [--out trace.json]

The site is served as for benchmarks/floor.py (`python build.py --serve --no-build --site DIR
--port P`). A fresh profile loads `?chapter=1` (benchmarks/browser.py's measure_load: interactive
is chapter 1's Step changing the step shown) while the DevTools protocol records a trace. On this
2-core machine the page's main thread, the Python worker and Chrome's pool threads (V8's
background compiles and GC, raster) share two cores, so time spent on one delays the others: a
load is as slow as all of its CPU. For each thread the script prints its busy time per 0.5 s and
the events with the most self time (wall-clock time inside its tasks: on a busy machine that
includes time the thread waited for a core; `chromium_cpu`'s CPU-seconds by role are printed
first), then how often the whole document was repainted (what found
the loading indicator's ~20 full-page repaints per phase, buildtools/boot.py). Nothing is
asserted; `--out` keeps the trace for chrome://tracing or Perfetto.
"""
import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8", "v8.execute", "blink"]
THREADS = {"CrRendererMain": "page main thread", "DedicatedWorker thread": "worker",
           "ThreadPoolForegroundWorker": "pool (V8 compile and GC, raster)"}


def thread_names(events):
    """{(pid, tid): name} from the trace's metadata events."""
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"}


def spans(events):
    """One thread's complete events ("X") in order of start, an enclosing event before those in it."""
    return sorted((e for e in events if e.get("ph") == "X" and "dur" in e), key=lambda e: (e["ts"], -e["dur"]))


def self_times(events):
    """{name: self milliseconds} of one thread's complete events ("X"): an event's duration less
    that of the events nested in it."""
    out, open_ = collections.Counter(), []
    for e in spans(events):
        while open_ and open_[-1]["ts"] + open_[-1]["dur"] <= e["ts"]:
            open_.pop()
        if open_:
            out[open_[-1]["name"]] -= e["dur"] / 1000
        out[e["name"]] += e["dur"] / 1000
        open_.append(e)
    return out


def busy(events, t0, width=0.5):
    """{bucket start (s after t0): milliseconds} of one thread's outermost complete events."""
    out, end = collections.Counter(), -1
    for e in spans(events):
        if e["ts"] >= end:                      # not nested in the last outermost event
            out[int((e["ts"] - t0) / 1e6 / width) * width] += e["dur"] / 1000
            end = e["ts"] + e["dur"]
    return out


def document_paints(events):
    """How many Paint events repainted the whole document, and their milliseconds."""
    whole = [e for e in events if e.get("name") == "Paint" and e.get("ph") == "X"
             and e.get("args", {}).get("data", {}).get("nodeName") == "#document"]
    return len(whole), sum(e["dur"] for e in whole) / 1000


def record(url, chapter="1"):
    """(trace events, measure_load's figures) of one cold visit of `url`?chapter=`chapter`."""
    from playwright.sync_api import sync_playwright

    from browser import cold_page, measure_load
    external, events, done = [], [], []
    with sync_playwright() as pw:
        context, page, profile = cold_page(pw, Path(tempfile.mkdtemp(prefix="gleam-trace-")), external)
        cdp = context.new_cdp_session(page)
        cdp.on("Tracing.dataCollected", lambda p: events.extend(p["value"]))
        cdp.on("Tracing.tracingComplete", lambda p: done.append(True))
        cdp.send("Tracing.start", {"traceConfig": {"includedCategories": CATEGORIES}, "transferMode": "ReportEvents"})
        figures = measure_load(page, f"{url}?chapter={chapter}", profile)
        cdp.send("Tracing.end")
        while not done:
            page.wait_for_timeout(50)
        context.close()
    if external:
        raise RuntimeError(f"the load fetched from outside 127.0.0.1: {external[:3]}")
    return events, figures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True, help="a served site")
    ap.add_argument("--chapter", default="1")
    ap.add_argument("--out", help="write the trace here (JSON)")
    ap.add_argument("--top", type=int, default=12, help="events listed per thread")
    args = ap.parse_args(argv)
    url = args.url if args.url.endswith("/") else args.url + "/"
    events, figures = record(url, args.chapter)
    if args.out:
        Path(args.out).write_text(json.dumps({"traceEvents": events}))
    print(f"interactive {figures['interactive_s']:.2f} s after navigation; CPU-s by role: "
          + ", ".join(f"{k} {v:.2f}" for k, v in figures["cpu"].items()))
    t0 = min(e["ts"] for e in events if e.get("ts"))
    names, by_thread = thread_names(events), collections.defaultdict(list)
    for e in events:
        by_thread[(e.get("pid"), e.get("tid"))].append(e)
    for prefix, label in THREADS.items():
        threads = [evs for key, evs in by_thread.items() if names.get(key, "").startswith(prefix)]
        if not threads:
            continue
        per, own = collections.Counter(), collections.Counter()
        for evs in threads:                     # (nesting is per thread)
            per.update(busy(evs, t0))
            own.update(self_times(evs))
        print(f"\n{label} ({prefix}, {len(threads)} thread(s)): busy {sum(per.values()):.0f} ms; per 0.5 s "
              "of the trace: " + " ".join(f"{t:.1f}:{ms:.0f}" for t, ms in sorted(per.items()) if ms >= 1))
        for name, ms in own.most_common(args.top):
            print(f"  {ms:8.1f} ms  {name}")
    n, ms = document_paints(events)
    print(f"\nwhole-document paints: {n}, {ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
