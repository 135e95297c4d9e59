"""Where the Pyodide worker's time goes while chapter 7 trains (issue: live training at its kernel's
speed). For each B and H asked for:

    python benchmarks/worker_profile.py [--port P] [--seconds 8] [--streams 1 8] [--hidden 32 64 128]

Serves the built site/ as benchmarks/browser.py does and opens chapter 7 in Debian's headless
chromium. For each setting it picks B and H in the page, then wraps, inside the worker's own
Python (PROFILE_PY, by pyodide.runPython), the pieces of app.widgets.live_loop's training task with
time.perf_counter() accumulators: the model's `step` (CharGRU's forward, backward and update), the
rest of `LiveLoop.tick` (the loss's EMA and the curve's pending points: "statistics"), each View's
push (the figures line, the loss curve, the gate heatmaps, the sample, the last one drawing
characters from the model), the rest of `LiveLoop.push`, and `between_ticks` (the scheduler's
awaits, in which the page's messages are handled), and Python's garbage collections (gc.callbacks;
their time is also inside the part they interrupt). It then presses Train, resets the accumulators
once training runs, trains for --seconds, reads them, and presses Pause; then it times the same
model's step alone in the same worker, the page idle (benchmarks/browser.py's MODEL_ONLY_PY: a copy
of the lab's model as training left it). "Outside" is the wall time
less all of these: the event loop's own work between the task's turns (Panel sending the pushed
changes to the page among it) and time the worker waits. Prints a table per setting and one JSON
line. Nothing is asserted.

    python benchmarks/worker_profile.py --compare NAME=VIEW:SECONDS,... NAME=... [--rounds 4]

compares ways of pushing in one page, so that the machine's drift between runs does not count: for
each B and H it trains the same model in rounds, each round every variant in turn for --seconds,
each followed by the model alone in the same worker (the page idle) for as long. A variant sets
chapter 7's views' intervals (figures, curve, gates, sample: seconds between pushes while training)
and `budget` (the tick's seconds of training); `now` is the page as built. Per variant: lab ÷ the
model alone (each lab segment against the mean of the alone segments either side of it; the median
over rounds, and every round), the CPU the page's other threads took per second of training
(chromium's main thread, its other renderer threads, the browser and GPU processes, from /proc),
and the worker's own (below 1: it waited for a core).
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser import (CHROMIUM, CHROMIUM_ARGS, INSTRUMENT_JS, MODEL_ONLY_PY, chromium_cpu, cpu_delta,  # noqa: E402
                     ensure_site, free_port, select_hidden, start_site_server, stop_process, text, wait_until)

VIEWS = ("figures", "curve", "gates", "sample")        # chapter 7's LiveLoop views, in its order

PROFILE_PY = """
import json, sys, time
_loop = lab.view("7").loop        # `lab`: app/main.py's Lab, a global of the worker's Python
_pc = time.perf_counter
if "_acc" not in globals():       # the loop's wrappers, once; the model's, for each new model
    _acc = {}
    _ll = sys.modules[type(_loop).__module__]

    def _timed(key, f, count=None, acc=_acc, pc=_pc):
        def wrapped(*a, **kw):
            t = pc()
            try:
                return f(*a, **kw)
            finally:
                acc[key] += pc() - t
                if count:
                    acc[count] += 1
        return wrapped
    _loop.tick = _timed("tick", _loop.tick, "ticks")
    _loop.push = _timed("push", _loop.push)
    for _name, _view in zip(%(views)r, _loop.views):
        _view.push = _timed("view_" + _name, _view.push, "n_" + _name)

    async def _between_timed(between=_ll.between_ticks, acc=_acc, pc=_pc):
        t = pc()
        await between()
        acc["between"] += pc() - t
    _ll.between_ticks = _between_timed

    import gc as _gc
    _gc_start = [0.0]

    def _gc_timed(phase, info, acc=_acc, pc=_pc, start=_gc_start):
        if phase == "start":
            start[0] = pc()
        elif "gc" in acc:
            acc["gc"] += pc() - start[0]
            acc[f"gc{info['generation']}"] += 1
    _gc.callbacks.append(_gc_timed)

    def _reset(acc=_acc, pc=_pc):
        acc.clear()
        acc.update({k: 0.0 for k in ("model", "tick", "push", "between", "gc")}, steps=0, ticks=0, gc0=0, gc1=0,
                   gc2=0, t0=pc())
        for name in %(views)r:
            acc["view_" + name], acc["n_" + name] = 0.0, 0

    def _read(acc=_acc, pc=_pc):
        trainer = lab.view("7").loop.trainer
        return json.dumps({**acc, "wall": pc() - acc["t0"], "B": trainer.B, "H": trainer.H, "K": trainer.K})
_reset()
_trainer = _loop.trainer
if not hasattr(_trainer.step, "timed"):
    def _step(k, *a, step=_trainer.step, acc=_acc, **kw):
        acc["steps"] += k
        return step(k, *a, **kw)
    _trainer.step = _timed("model", _step)
    _trainer.step.timed = True
"""


def choose(page, streams, hidden):
    select_hidden(page, streams, cls="gl-ch7-B")
    wait_until(lambda: text(page, "ch7.streams") == str(streams), 30, what=f"B = {streams}")
    select_hidden(page, hidden)
    wait_until(lambda: text(page, "ch7.status") != "training" and text(page, "ch7.steps") == "0", 30,
               what=f"a fresh H = {hidden}, B = {streams} model")


def alone(worker, streams, hidden, seconds):
    """Steps per second of the model alone in the worker, the page idle (browser.py's MODEL_ONLY_PY)."""
    steps, elapsed = json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)", MODEL_ONLY_PY.format(
        hidden=hidden, seconds=seconds, streams=streams)))
    return steps / elapsed


def profile(page, worker, streams, hidden, seconds):
    choose(page, streams, hidden)
    worker.evaluate("(code) => self.pyodide.runPython(code)", PROFILE_PY % {"views": VIEWS})
    page.locator(".gl-ch7-train button").first.click()
    wait_until(lambda: (text(page, "ch7.steps") or "0") != "0", 30, what="training to start")
    time.sleep(1.0)                                           # past the first ticks
    worker.evaluate("() => self.pyodide.runPython('_reset()')")
    time.sleep(seconds)
    got = json.loads(worker.evaluate("() => self.pyodide.runPython('_read()')"))
    page.locator(".gl-ch7-pause button").first.click()
    wait_until(lambda: text(page, "ch7.status") in ("paused", "ready"), 30, what="training to pause")
    # the same model's step alone in the same worker, the page idle (benchmarks/browser.py's measure)
    got["alone_steps_per_s"] = alone(worker, streams, hidden, min(seconds, 4.0))
    return got


SET_VARIANT_PY = """
_loop = lab.view("7").loop
for _name, _view in zip(%(views)r, _loop.views):
    _view.every = %(every)r.get(_name, _view.every)
_loop.budget = %(budget)r
"""


def parse_variant(text):
    """'NAME=VIEW:SECONDS,...' -> (NAME, {view or 'budget': seconds}); 'now' alone: the page as built."""
    name, _, spec = text.partition("=")
    settings = {}
    for part in filter(None, spec.split(",")):
        key, _, value = part.partition(":")
        if key not in (*VIEWS, "budget"):
            raise SystemExit(f"--compare {text!r}: {key!r} is none of {', '.join((*VIEWS, 'budget'))}")
        settings[key] = float(value)
    return name, settings


def compare(page, worker, profile_dir, streams, hidden, variants, rounds, seconds, frames=False):
    """Rounds of (each variant's lab segment, then the model alone): see the module's docstring."""
    choose(page, streams, hidden)
    worker.evaluate("(code) => self.pyodide.runPython(code)", PROFILE_PY % {"views": VIEWS})
    built = json.loads(worker.evaluate("() => self.pyodide.runPython('import json; _l = lab.view(\"7\").loop; "
                                       "json.dumps([[v.every for v in _l.views], _l.budget])')"))
    def alone_segment():
        cpu0 = chromium_cpu(profile_dir)
        rate = alone(worker, streams, hidden, seconds)
        return ("alone", rate, None, cpu_delta(cpu0, chromium_cpu(profile_dir))["worker"])

    segments = [alone_segment()]
    for _ in range(rounds):
        for name, settings in variants:
            every = dict(zip(VIEWS, built[0]), **{k: v for k, v in settings.items() if k in VIEWS})
            worker.evaluate("(code) => self.pyodide.runPython(code)", SET_VARIANT_PY % {
                "views": VIEWS, "every": every, "budget": settings.get("budget", built[1])})
            page.locator(".gl-ch7-train button").first.click()
            wait_until(lambda: text(page, "ch7.status") == "training", 30, what="training to start")
            time.sleep(0.5)
            worker.evaluate("() => self.pyodide.runPython('_reset()')")
            cpu0 = chromium_cpu(profile_dir)
            if frames:
                page.evaluate("__gl.startFrames()")
            time.sleep(seconds)
            got = json.loads(worker.evaluate("() => self.pyodide.runPython('_read()')"))
            cpu = cpu_delta(cpu0, chromium_cpu(profile_dir))
            if frames:
                page.evaluate("__gl.stopFrames()")
            page.locator(".gl-ch7-pause button").first.click()
            wait_until(lambda: text(page, "ch7.status") in ("paused", "ready"), 30, what="training to pause")
            others = {k: cpu[k] / got["wall"] for k in ("main", "renderer_other", "browser")}
            segments.append((name, got["steps"] / got["wall"], others, cpu["worker"]))
            segments.append(alone_segment())
    worker.evaluate("(code) => self.pyodide.runPython(code)", SET_VARIANT_PY % {   # the page as built again
        "views": VIEWS, "every": dict(zip(VIEWS, built[0])), "budget": built[1]})
    out = {}
    for i, (name, rate, others, worker_cpu) in enumerate(segments):
        if name != "alone":
            ratio = rate / (0.5 * (segments[i - 1][1] + segments[i + 1][1]))
            row = out.setdefault(name, {"ratios": [], "others": [], "worker_cores": []})
            row["ratios"].append(ratio)
            row["others"].append(others)
            row["worker_cores"].append(worker_cpu / seconds)
    return out


def shares(got):
    """Seconds per part and its share of the wall time."""
    wall = got["wall"]
    views = {f"view: {name}": got[f"view_{name}"] for name in VIEWS}
    parts = {"model step": got["model"], "statistics (rest of tick)": got["tick"] - got["model"], **views,
             "push (rest)": got["push"] - sum(views.values()), "scheduler (between_ticks)": got["between"]}
    parts["outside the task"] = wall - got["tick"] - got["push"] - got["between"]
    return {k: (v, v / wall) for k, v in parts.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--streams", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--hidden", type=int, nargs="+", default=[32, 64, 128])
    ap.add_argument("--compare", nargs="+", metavar="NAME=VIEW:SECONDS,...", help="variants to compare (see above)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--frames", action="store_true",
                    help="with --compare: count the page's frames while training, as browser.py does")
    args = ap.parse_args(argv)
    variants = [parse_variant(v) for v in args.compare or ()]
    from playwright.sync_api import sync_playwright
    ensure_site()
    port = args.port or free_port()
    workdir = Path(tempfile.mkdtemp(prefix="gleam-worker-profile-"))
    server = start_site_server(port, workdir / "server.log", workdir / "bytes.jsonl")
    results = []
    try:
        with sync_playwright() as pw:
            context = pw.chromium.launch_persistent_context(str(workdir / "profile"), executable_path=CHROMIUM,
                                                            args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 900})
            context.add_init_script(INSTRUMENT_JS)
            page = context.new_page()
            page.goto(f"http://127.0.0.1:{port}/?chapter=7")
            page.locator(".gl-ch7-train button").first.wait_for(state="visible", timeout=180_000)
            wait_until(lambda: text(page, "ch7.steps") is not None, 120, what="chapter 7's figures")
            workers = [w for w in page.workers if w.evaluate("typeof self.pyodide !== 'undefined'")
                       and w.evaluate("() => self.pyodide.runPython(\"'gleam_lab.app.lab' in __import__('sys').modules\")")]
            if len(workers) != 1:
                raise SystemExit(f"{len(workers)} workers run the lab: {[w.url for w in page.workers]}")
            worker = workers[0]
            for streams in args.streams:
                for hidden in args.hidden:
                    if variants:
                        got = compare(page, worker, workdir / "profile", streams, hidden, variants, args.rounds,
                                      args.seconds, frames=args.frames)
                        results.append({"B": streams, "H": hidden, **got})
                        print(f"\nB = {streams}, H = {hidden}: lab ÷ the model alone, median (rounds); the other "
                              f"threads' CPU per second of training (main, other renderer, browser), medians; the worker's")
                        for name, row in got.items():
                            med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
                            others = [med([o[k] for o in row["others"]]) for k in ("main", "renderer_other", "browser")]
                            print(f"  {name:<12}{med(row['ratios']):6.3f}  ("
                                  + ", ".join(f"{r:.3f}" for r in row["ratios"]) + ")   "
                                  + " / ".join(f"{c:.2f}" for c in others)
                                  + f"   worker {med(row['worker_cores']):.2f}")
                        continue
                    got = profile(page, worker, streams, hidden, args.seconds)
                    results.append(got)
                    rate, alone = got["steps"] / got["wall"], got["steps"] / max(got["model"], 1e-9)
                    print(f"\nB = {streams}, H = {hidden}: {got['ticks']} ticks, {got['steps']} steps in "
                          f"{got['wall']:.2f} s ({rate:.1f} steps/s, {alone:.1f} in the model's step; "
                          f"{got['alone_steps_per_s']:.1f} for the model alone in this worker, the page idle)")
                    for name, (s, share) in shares(got).items():
                        print(f"  {name:<28}{1000 * s / max(got['ticks'], 1):>8.2f} ms/tick{100 * share:>7.1f}%")
                    print("  pushes: " + ", ".join(f"{name} {got['n_' + name]}" for name in VIEWS))
                    print(f"  garbage collection (within the parts above): {1000 * got['gc'] / max(got['ticks'], 1):.2f} "
                          f"ms/tick, {100 * got['gc'] / got['wall']:.1f}%; collections of generation 0, 1, 2: "
                          f"{got['gc0']}, {got['gc1']}, {got['gc2']}")
            context.close()
    finally:
        stop_process(server)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
