"""Speed of the static site in a real browser: load, slider latency, live training, offline.

    python benchmarks/browser.py [--port P] [--train-seconds 8] [--slider-moves 30] [--no-warm]
                                 [--offline-timeout 60]

Builds site/ if it is missing (`python build.py`), serves it on 127.0.0.1 with buildtools.serve's
own server and handler, as `python build.py --serve` does, but counting the bytes of every response
(serve_counting: this file run with --serve-counting, in a session of its own), and drives Debian's
headless chromium through Playwright, in one run:

0. the floor (measure_floor, also used by benchmarks/floor.py), in a fresh profile of its own: a
   bare page on the site's origin whose Web Worker loads the site's own Pyodide and numpy and runs
   one NumPy call; time from navigation start to the worker's answer, and its worker CPU-seconds.
   The floor and the cold load (1.) are measured in --load-pairs pairs (default 3; each cold load
   in a fresh profile, the last one's kept for 2-4): floor_s, cold_interactive_s, cold_over_floor
   (the median of each pair's ratio) and cold_worker_cpu_s are medians, every pair in load_pairs,
   because on this 2-core machine the floor alone moves by ±0.3 s between runs;
1. cold load of `?chapter=1` in a fresh profile (kept for 2-4): when prose was painted (element
   timing on the light-DOM .gl-prose's elements; a 10 ms poll for a visible .gl-prose box where the
   prose is in a shadow root), the largest script fetched before that, Panel's loading overlay going
   away (the worker's first render), and interactive: the first change of ch1.step after chapter 1's
   Step is first clicked (clicks the loading page refuses change nothing: Step is clicked again every
   0.5 s); the bytes the server sent for the visit (page, workers, any service worker), checked
   against the sizes of the files named (their .br/.gz copies where sent encoded) and against what
   Playwright's requestfinished events saw;
2. every widget's slider (SLIDERS: chapter 4's z₁ first, then chapters 0, 2, 3, 5, 6 and 8) moved
   ~30 times with the keyboard; latency from the keydown event to the text of the value it redraws
   (`span.gv[data-key=...]`) changing (a MutationObserver in the page) and to the next animation
   frame after it;
3. chapter 7: for B = 1 and 8 parallel streams and H = 32, 64, 128, Train for a fixed time and
   read ch7.steps (every change is time-stamped in the page) -> steps/s and characters/s
   (steps/s × B × K: `train_chars_per_s`), plus requestAnimationFrame frames on the main thread
   while training; right after each, benchmarks/chargru_reference.js trains in a Web Worker
   of the same chromium (benchmarks/bench_page.html, same V, K = 25, same corpus:
   gleam.chargru.DEFAULT_CORPUS, the same B) for the same time;
   then gleam's CharGRU.step alone in the lab's own Pyodide worker (the model without the app: a
   copy of the lab's, as it left it).
   The three take turns in --train-rounds rounds (lab, model alone, JS; --train-seconds in all
   for each, split over the rounds), and the ratios lab ÷ JS and lab ÷ model alone are the
   medians of the rounds' own: this machine's speed drifts by ±30% within seconds, so figures
   taken minutes apart do not compare. Last, the bound no pure-NumPy step can beat
   (KERNEL_BOUND_PY) in the same worker;
4. (unless --no-warm) a second visit in the same profile: warm prose / interactive times, its
   bytes, whether a service worker controls the page; then, last, the site's server is stopped
   and the same profile reloads the page: `offline_ok` if the lab becomes interactive within
   --offline-timeout s (it cannot without a service worker that serves the site).

Beside wall-clock figures it reads the CPU time of this chromium's threads from /proc (worker
threads, the page's main thread): steps per worker CPU-second compare the lab with the JS
reference even when other processes share the machine, and the main thread's share shows what
drawing costs while the lab trains. The cold load is broken down by the worker's phases (the
messages Panel shows under its spinner) and by what was fetched before the prose showed.

Prints a table, then as its last line one JSON object with the figures. Nothing is asserted:
the targets (interactive ≤ 5 s cold and ≤ 2 × the floor, ≤ 5 worker CPU-s cold, prose ≤ 0.5 s
with no script over 100 KB fetched before it, ≤ 10 MB cold, slider ≤ 50 ms median, lab ≥ 0.9 ×
the model alone, and ≥ JS at B = 8) are printed beside the measurements. `--url URL` measures a running lab instead (e.g.
`panel serve app/main.py` at http://127.0.0.1:5006/main); the floor, byte counts, offline reload
and worker-only figures are then absent.
"""
import argparse
import functools
import http.server
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from gleam.chargru import DEFAULT_CORPUS  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
HIDDEN_SIZES = (32, 64, 128)
STREAMS = (1, 8)           # chapter 7's parallel streams B measured (lab and JS at the same B)
K = 25

# Injected before any page script. Timestamps are performance.now(): ms since navigation start.
# __gl.deepQuery pierces Bokeh's shadow roots; __gl.watch(key) records every change of a gv span's
# text, found by a MutationObserver on the shadow root that holds the span (an HTML pane rewrites
# its innerHTML, so the span itself is replaced) with a 50 ms poll as a fallback.
INSTRUMENT_JS = r"""
(() => {
  if (window.__gl || window.top !== window) return;
  const G = window.__gl = {marks: {}, phases: [], watches: {}, keydown: null, sawLoading: false};
  G.deepQuery = (sel, root = document) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const f = G.deepQuery(sel, el.shadowRoot); if (f) return f; }
    }
    return null;
  };
  G.visible = (el) => {
    if (!el || !el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return el.checkVisibility ? el.checkVisibility({opacityProperty: true, visibilityProperty: true}) : true;
  };
  addEventListener('keydown', (e) => { G.keydown = e.timeStamp; }, true);
  // painted prose: every element inside a light-DOM .gl-prose gets an elementtiming attribute as
  // the parser inserts it (before its first paint); the first 'element' entry's renderTime is when
  // prose text was painted. Prose inside a shadow root is not seen: then only the poll below marks it.
  const tag = (root) => {
    for (const el of root.querySelectorAll('.gl-prose, .gl-prose *'))
      if (!el.hasAttribute('elementtiming')) el.setAttribute('elementtiming', 'gl-prose');
  };
  const tagger = new MutationObserver(() => {
    if (G.marks.prosePainted !== undefined) { tagger.disconnect(); return; }
    tag(document);
  });
  tagger.observe(document, {childList: true, subtree: true});
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (e.identifier === 'gl-prose' && G.marks.prosePainted === undefined)
          G.marks.prosePainted = e.renderTime || e.loadTime;
    }).observe({type: 'element', buffered: true});
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') G.marks.fcp = e.startTime;
    }).observe({type: 'paint', buffered: true});
  } catch (e) { G.noPaintTiming = String(e); }
  // cold-load marks: first visible prose, loading overlay gone
  const poll = setInterval(() => {
    const body = document.body;
    if (body && body.classList.contains('pn-loading')) G.sawLoading = true;
    // the worker's progress as Panel shows it under the spinner ("Loading pyodide", ...)
    const msg = document.querySelector('.pn-loading-msg');
    const phase = msg ? msg.textContent.trim() : null;
    if (phase && (!G.phases.length || G.phases[G.phases.length - 1][1] !== phase))
      G.phases.push([performance.now(), phase]);
    if (G.marks.prose === undefined && G.visible(G.deepQuery('.gl-prose'))) G.marks.prose = performance.now();
    if (G.marks.overlayGone === undefined && body && !body.classList.contains('pn-loading') &&
        (G.sawLoading || document.readyState === 'complete'))
      G.marks.overlayGone = performance.now();
    if (G.marks.prose !== undefined && G.marks.overlayGone !== undefined) clearInterval(poll);
  }, 10);
  G.text = (key) => {
    const el = G.deepQuery(`span.gv[data-key="${key}"]`);
    return el ? el.textContent : null;
  };
  G.watch = (key, pollMs = 50) => {
    if (G.watches[key]) return G.watches[key].last;
    const rec = G.watches[key] = {changes: [], last: undefined, root: null, obs: null};
    const check = (how) => {
      const el = G.deepQuery(`span.gv[data-key="${key}"]`);
      const text = el ? el.textContent : null;
      if (text !== rec.last) {
        const change = {t: performance.now(), text: text, how: how, frame: null};
        rec.changes.push(change);
        rec.last = text;
        requestAnimationFrame((ft) => { change.frame = performance.now(); });
      }
      if (el) {
        const root = el.getRootNode();
        if (root !== rec.root) {
          if (rec.obs) rec.obs.disconnect();
          rec.obs = new MutationObserver(() => check('observer'));
          rec.obs.observe(root, {subtree: true, childList: true, characterData: true});
          rec.root = root;
        }
      }
    };
    check('initial');
    rec.timer = setInterval(() => check('poll'), pollMs);
    return rec.last;
  };
  // every watch stopped and forgotten: each one's poll searches every shadow root of the page, so a
  // dozen left running (one per slider measured) took ~0.3 of a core of the main thread while the
  // measurements after them ran
  G.unwatchAll = () => {
    for (const rec of Object.values(G.watches)) { clearInterval(rec.timer); if (rec.obs) rec.obs.disconnect(); }
    G.watches = {};
  };
  // all text of the shadow root that holds a gv span (e.g. chapter 7's stats line)
  G.paneText = (key) => {
    const el = G.deepQuery(`span.gv[data-key="${key}"]`);
    return el ? el.getRootNode().textContent : null;
  };
  // The first click on a control, made by the page itself as soon as it is ready (Panel's loading
  // overlay gone, the control and the value it changes drawn): checked every 10 ms like the marks
  // above, so that a cold load's "interactive" holds no round trips of the harness (the floor's
  // answer is timed in its page too). G.marks.pageClick: when it clicked, or never if not ready
  // within `timeout` ms.
  G.clickWhenReady = (hostSel, key, timeout = 180000) => {
    const t0 = performance.now();
    const timer = setInterval(() => {
      if (performance.now() - t0 > timeout) { clearInterval(timer); return; }
      const body = document.body;
      if (!body || body.classList.contains('pn-loading') || G.marks.overlayGone === undefined) return;
      const host = G.deepQuery(hostSel);
      const button = host && (host.matches('button') ? host : host.querySelector('button') ||
                              (host.shadowRoot && G.deepQuery('button', host.shadowRoot)));
      if (!button || !G.visible(button) || G.text(key) === null) return;
      clearInterval(timer);
      G.watch(key);
      G.marks.pageClick = performance.now();
      button.click();
    }, 10);
  };
  G.changes = (key, since = 0) => (G.watches[key] ? G.watches[key].changes.slice(since) : []);
  G.nChanges = (key) => (G.watches[key] ? G.watches[key].changes.length : 0);
  // requestAnimationFrame recorder: frame count and frame-time percentiles over a window
  G.startFrames = () => {
    const rec = G.frames = {times: [], on: true};
    const tick = (t) => { rec.times.push(t); if (rec.on) requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  };
  G.stopFrames = () => {
    const rec = G.frames;
    rec.on = false;
    const d = [];
    for (let i = 1; i < rec.times.length; i++) d.push(rec.times[i] - rec.times[i - 1]);
    d.sort((a, b) => a - b);
    const q = (p) => (d.length ? d[Math.min(d.length - 1, Math.floor(p * d.length))] : null);
    const span = rec.times.length > 1 ? (rec.times[rec.times.length - 1] - rec.times[0]) / 1000 : 0;
    return {frames: d.length, seconds: span, fps: span ? d.length / span : null,
            p50_ms: q(0.5), p95_ms: q(0.95), max_ms: d.length ? d[d.length - 1] : null,
            long_frames_over_50ms: d.filter((x) => x > 50).length};
  };
})();
"""


# ---------------------------------------------------------------------------- servers
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout=60.0, proc=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the site server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")


# GLEAM_SITE_DIR / GLEAM_BUILD_CACHE: another site folder and build cache (as the browser tests take)
SITE_DIR = Path(os.environ.get("GLEAM_SITE_DIR") or ROOT / "site").resolve()
SITE_ARGS = ["--site", str(SITE_DIR)] + (["--cache", os.environ["GLEAM_BUILD_CACHE"]]
                                         if os.environ.get("GLEAM_BUILD_CACHE") else [])


def ensure_site():
    if (SITE_DIR / "index.html").exists():
        return False
    print(f"{SITE_DIR} is missing: running python build.py ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "build.py", *SITE_ARGS], cwd=ROOT, check=True)
    return True


def serve_counting(site, port, bytes_log):
    """Serve `site` with buildtools.serve's own server and handler, as `build.py --serve` does,
    and append to `bytes_log` one JSON line per response: path, status, whether the body went
    gzip-encoded, and the bytes written to the socket (status line + headers, body). Bytes over the
    wire are then counted where they are sent, for the page, its workers and any service worker alike."""
    from functools import partial

    from buildtools.serve import SiteHandler, SiteServer

    log, lock = open(bytes_log, "a", buffering=1), threading.Lock()

    class Counted:
        def __init__(self, raw):
            self.raw, self.n = raw, 0

        def write(self, data):
            self.n += len(data)
            return self.raw.write(data)

        def __getattr__(self, name):
            return getattr(self.raw, name)

    class CountingHandler(SiteHandler):
        def setup(self):
            super().setup()
            self.wfile = Counted(self.wfile)

        def send_response(self, code, message=None):
            self._status = code
            super().send_response(code, message)

        def send_header(self, keyword, value):
            if keyword.lower() == "content-encoding":
                self._encoding = value
            super().send_header(keyword, value)

        def end_headers(self):
            super().end_headers()
            self._head_end = self.wfile.n

        def handle_one_request(self):
            n0 = self.wfile.n
            self._status, self._encoding, self._head_end, self.path = None, None, n0, None
            try:
                super().handle_one_request()
            finally:
                sent = self.wfile.n - n0
                if sent:
                    with lock:
                        log.write(json.dumps({"t": time.time(), "path": self.path, "status": self._status,
                                              "encoding": self._encoding, "bytes": sent,
                                              "body": self.wfile.n - self._head_end}) + "\n")

    server = SiteServer(("127.0.0.1", port), partial(CountingHandler, directory=str(site)))
    print(f"Serving {site} at http://127.0.0.1:{port}/ (counting bytes into {bytes_log})", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


def start_site_server(port, log_path, bytes_log):
    """The site's server in a session of its own: this file's serve_counting (buildtools.serve)."""
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve-counting", str(SITE_DIR),
                             str(port), str(bytes_log)],
                            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    wait_http(f"http://127.0.0.1:{port}/", proc=proc)
    return proc


def read_bytes_log(path):
    try:
        return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    except FileNotFoundError:
        return []


def wait_quiet(path, quiet=2.0, cap=20.0):
    """Wait until the server has answered no request for `quiet` s (at most `cap` s); -> entries."""
    t_end, n, t_n = time.monotonic() + cap, -1, time.monotonic()
    while time.monotonic() < t_end:
        entries = read_bytes_log(path)
        if len(entries) != n:
            n, t_n = len(entries), time.monotonic()
        elif time.monotonic() - t_n >= quiet:
            break
        time.sleep(0.2)
    return read_bytes_log(path)


def bytes_summary(entries, site_dir=None):
    """Bytes the server sent for `entries`; with site_dir, the du-style expectation: per 200
    response, the size of the file it names (its .br/.gz copy when the body went encoded)."""
    out = {"requests": len(entries), "bytes": sum(e["bytes"] for e in entries),
           "body_bytes": sum(e["body"] for e in entries),
           "not_200": sum(1 for e in entries if e["status"] != 200)}
    if site_dir is not None:
        expected, missing = 0, []
        for e in entries:
            if e["status"] != 200 or not e["path"]:
                continue
            rel = urllib.parse.unquote(e["path"].split("?", 1)[0].split("#", 1)[0]).lstrip("/")
            f = Path(site_dir) / (rel + "index.html" if rel == "" or rel.endswith("/") else rel)
            suffix = {"br": ".br", "gzip": ".gz"}.get(e["encoding"] or "")
            f = f.with_name(f.name + suffix) if suffix else f
            if f.is_file():
                expected += f.stat().st_size
            else:
                missing.append(rel)
        out.update(expected_body_bytes_from_files=expected, files_not_found=missing)
    largest = sorted(entries, key=lambda e: -e["bytes"])[:5]
    out["largest"] = [[(e["path"] or "").split("?")[0].rsplit("/", 1)[-1], e["bytes"]] for e in largest]
    return out


def stop_process(proc):
    if proc is None or proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)   # its own session: the server and nothing else
    except ProcessLookupError:
        return
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def start_bench_server():
    """benchmarks/ (bench_page.html + chargru_reference.js) on 127.0.0.1, in a thread."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             functools.partial(_QuietHandler, directory=str(BENCH_DIR)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------------- CPU accounting
# The machine may be shared: wall-clock rates then mix the lab's cost with everyone else's load.
# Per-thread CPU time of *our* chromium (the processes whose command line names our profile) tells
# them apart: steps per CPU-second of the worker thread, and how busy the page's main thread is.
TICK = os.sysconf("SC_CLK_TCK")


def chromium_cpu(profile_dir):
    """{(pid, tid): (role, cpu_seconds)} for every thread of our chromium: the browser process
    whose command line names our profile, and all its descendants (zygotes, renderers, GPU)."""
    marker = f"--user-data-dir={profile_dir}".encode()
    procs = {}                                                      # pid -> (ppid, cmdline)
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
                # raw bytes: chromium rewrites its title, so arguments may be space-separated
                procs[proc.name] = (stat[stat.rindex(")") + 2:].split()[1], (proc / "cmdline").read_bytes())
            except (OSError, ValueError, IndexError):
                continue
    ours = {pid for pid, (_, cmd) in procs.items() if marker in cmd}
    grew = True
    while grew:
        new = {pid for pid, (ppid, _) in procs.items() if ppid in ours and pid not in ours}
        ours |= new
        grew = bool(new)
    out = {}
    for pid in ours:
        renderer = b"--type=renderer" in procs[pid][1]
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                stat = (task / "stat").read_text()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2:].split()
            cpu = (int(fields[11]) + int(fields[12])) / TICK              # utime + stime
            if not renderer:
                role = "browser"                                        # browser, GPU, network, zygotes
            elif task.name == pid:
                role = "main"                                           # a page's main thread
            elif comm.startswith("DedicatedWorker"):
                role = "worker"
            else:
                role = "renderer_other"                                 # compositor, raster, GC helpers
            out[(pid, task.name)] = (role, cpu)
    return out


def cpu_delta(before, after):
    """CPU seconds per role between two chromium_cpu() snapshots."""
    total = {"main": 0.0, "worker": 0.0, "renderer_other": 0.0, "browser": 0.0}
    for key, (role, cpu) in after.items():
        total[role] += cpu - before.get(key, (role, 0.0))[1]
    total["all"] = sum(total.values())
    return total


# ---------------------------------------------------------------------------- helpers
def quantile(values, q):
    values = sorted(values)
    if not values:
        return None
    return values[min(len(values) - 1, int(q * len(values)))]


def as_int(text):
    digits = re.sub(r"[^0-9]", "", text or "")
    return int(digits) if digits else None


def wait_until(fn, timeout, interval=0.05, what="condition"):
    """Poll fn() until truthy. A page that navigates meanwhile (index.html?chapter=1 replacing
    itself by chapter-1.html) destroys the context fn evaluates in: that counts as not yet."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = fn()
        except Exception as e:          # playwright's Error, by its message
            if "context was destroyed" not in str(e) and "navigation" not in str(e):
                raise
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def now_ms(page):
    return page.evaluate("performance.now()")


def text(page, key):
    return page.evaluate("(k) => __gl.text(k)", key)


def goto_chapter(page, chapter_id, probe_selector, timeout=60):
    """Open a chapter through the table of contents (no reload); wait for one of its widgets."""
    page.locator(f".gl-nav-{chapter_id} button").first.click(timeout=timeout * 1000)
    page.locator(probe_selector).first.wait_for(state="visible", timeout=timeout * 1000)


# ---------------------------------------------------------------------------- contexts, the floor page
def fresh_context(pw, profile):
    """A chromium with a fresh profile on disk: empty HTTP and code caches, no service worker."""
    return pw.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                 viewport={"width": 1400, "height": 900})


def guard(context, external):
    """Append to `external` every request of the context (workers' included) that leaves 127.0.0.1."""
    def on_request(request):
        host = re.sub(r"^[a-z]+://([^/:]+).*$", r"\1", request.url)
        if request.url.startswith(("http://", "https://", "ws://", "wss://")) and host != "127.0.0.1":
            external.append(request.url)
    context.on("request", on_request)


# The floor: a bare page on the site's origin whose Web Worker loads the site's own Pyodide
# (`pyodide/<version>/`) and its numpy and runs one NumPy call. Time from navigation start to the
# worker's answer is what any Pyodide + NumPy page costs on this machine; the lab is measured against it.
FLOOR_PATH = "__floor__.html"
FLOOR_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>floor</title></head><body>
<script>
const base = new URL("./pyodide/%(version)s/", location.href).href;
const src = `importScripts("${base}pyodide.js");
(async () => {
  const py = await loadPyodide({indexURL: "${base}"});
  await py.loadPackage("numpy");
  postMessage("ok " + py.runPython("import numpy; str(int(numpy.arange(10).sum()))"));
})().catch((e) => postMessage("error " + e));`;
const worker = new Worker(URL.createObjectURL(new Blob([src], {type: "text/javascript"})));
worker.onmessage = (e) => { window.__floor = {msg: e.data, t: performance.now()}; };
</script></body></html>"""


def measure_floor(pw, base_url, workdir, external, timeout=180):
    """The floor page in a fresh profile of its own: {floor_s, worker_cpu_s, all_cpu_s}."""
    from buildtools import pins

    profile = Path(tempfile.mkdtemp(prefix="floor-", dir=workdir))
    context = fresh_context(pw, profile)
    guard(context, external)
    # only the bare page itself is served from here; Pyodide and numpy come from the site, uncached
    context.route(f"{base_url}{FLOOR_PATH}", lambda route: route.fulfill(
        status=200, content_type="text/html", body=FLOOR_HTML % {"version": pins.PYODIDE_VERSION}))
    page = context.pages[0] if context.pages else context.new_page()
    cpu0 = chromium_cpu(profile)
    page.goto(base_url + FLOOR_PATH)
    done = wait_until(lambda: page.evaluate("window.__floor || null"), timeout, what="the floor page's worker")
    cpu = cpu_delta(cpu0, chromium_cpu(profile))
    context.close()
    if not done["msg"].startswith("ok"):
        raise RuntimeError(f"floor page failed: {done['msg']}")
    return {"floor_s": done["t"] / 1000, "worker_cpu_s": cpu["worker"], "all_cpu_s": cpu["all"]}


# ---------------------------------------------------------------------------- measurements
def cold_page(pw, workdir, external):
    """(context, page, profile) of a fresh profile of its own, instrumented (INSTRUMENT_JS) and
    guarded: for a cold load (benchmarks/floor.py's too)."""
    profile = Path(tempfile.mkdtemp(prefix="cold-", dir=workdir))
    context = fresh_context(pw, profile)
    context.add_init_script(INSTRUMENT_JS)
    guard(context, external)
    return context, context.pages[0] if context.pages else context.new_page(), profile


def measure_other_cold(pw, url, workdir, external):
    """A cold load in a fresh profile of its own (measure_load), closed after: one more pair with
    a floor, for the median of the load figures."""
    context, page, profile = cold_page(pw, workdir, external)
    try:
        return measure_load(page, url, profile)
    finally:
        context.close()


def load_summary(pairs):
    """Medians over the (floor, cold) pairs: floor_s, cold_interactive_s, cold_over_floor (the
    median of each pair's ratio), the worker CPU-seconds; and every pair's figures."""
    rows = [{"floor_s": f["floor_s"], "floor_worker_cpu_s": f["worker_cpu_s"], "cold_interactive_s": c["interactive_s"],
             "cold_over_floor": c["interactive_s"] / f["floor_s"], "cold_worker_cpu_s": c["cpu"]["worker"]}
            for f, c in pairs]
    return {**{k: statistics.median(r[k] for r in rows) for k in rows[0]}, "pairs": rows}


def measure_load(page, url, profile_dir, timeout=180):
    """Navigate; return marks (s since navigation start) for prose, overlay gone, interactive.

    Interactive is the first change of ch1.step's text after the first click on chapter 1's Step.
    The page makes that click itself, as soon as it is ready (__gl.clickWhenReady: Panel's overlay
    gone, Step and ch1.step drawn), so the figure holds no round trip of the harness; if that
    click changes nothing within 0.5 s, Playwright clicks Step every 0.5 s until ch1.step changes
    (a click the page refuses while it loads changes nothing); the time is the change's, not a click's.
    Prose: `prose_visible_s` is when prose text was painted (element timing, `prose_how`
    "element-timing") where the page's prose is in its light DOM, else the 10 ms poll's first
    non-empty, visible .gl-prose box ("poll").
    """
    notes = []
    chapter_one = "chapter=1" in url
    cpu0 = chromium_cpu(profile_dir)
    page.goto(url, wait_until="commit", timeout=timeout * 1000)
    wait_until(lambda: page.evaluate("() => window.__gl !== undefined && location.pathname.endsWith('.html')"),
               timeout, what="the chapter's page (after the deep link's redirect)")
    if chapter_one:     # the page clicks Step itself once it is ready (__gl.clickWhenReady)
        page.evaluate("(t) => __gl.clickWhenReady('.gl-ch1-step', 'ch1.step', t)", timeout * 1000)
    wait_until(lambda: page.evaluate("__gl.marks.prose !== undefined"), timeout, what="visible prose (.gl-prose)")
    wait_until(lambda: page.evaluate("__gl.marks.overlayGone !== undefined"), timeout,
               what="Panel's loading overlay to go (the worker's first render)")
    step_button = page.locator(".gl-ch1-step button").first
    try:
        step_button.wait_for(state="visible", timeout=min(15, timeout) * 1000)
    except Exception:
        notes.append("the deep link ?chapter=1 did not open chapter 1 within 15 s of the first "
                     "render; opened it through the table of contents")
        goto_chapter(page, "1", ".gl-ch1-step button", timeout=timeout)
    wait_until(lambda: page.evaluate("__gl.text('ch1.step') !== null"), min(30, timeout), what="the ch1.step value")
    clicks, first_click, boot_msgs, start = 0, None, [], 0
    changed = "(a) => __gl.changes('ch1.step', a[0]).some((c) => c.t >= a[1])"
    if chapter_one:
        # the page's own click: did it change ch1.step within 0.5 s of it? (else Playwright clicks)
        wait_until(lambda: page.evaluate("__gl.marks.pageClick !== undefined"), min(30, timeout),
                   what="the page's own click on Step")
        first_click, clicks = page.evaluate("__gl.marks.pageClick"), 1
        t_click = time.monotonic()
        while time.monotonic() - t_click < 0.5 and not page.evaluate(changed, [start, first_click]):
            time.sleep(0.02)
        if not page.evaluate(changed, [start, first_click]):
            notes.append("the page's own click on Step, once it was ready, did not change ch1.step within 0.5 s")
            first_click = None
    page.evaluate("__gl.watch('ch1.step')")
    deadline = time.monotonic() + timeout
    while first_click is None or not page.evaluate(changed, [start, first_click]):
        if time.monotonic() > deadline:
            raise TimeoutError("chapter 1's Step never changed ch1.step")
        t_page = now_ms(page)
        step_button.click(timeout=timeout * 1000)
        first_click = t_page if first_click is None else first_click
        clicks += 1
        t_click = time.monotonic()
        while time.monotonic() - t_click < 0.5 and not page.evaluate(changed, [start, first_click]):
            time.sleep(0.02)
        boot = page.evaluate("() => { const b = document.getElementById('gl-boot');"
                             " return b && __gl.visible(b) ? b.textContent.trim() : null; }")
        if boot:
            boot_msgs.append(boot)
    change = page.evaluate("(a) => __gl.changes('ch1.step', a[0]).find((c) => c.t >= a[1])", [start, first_click])
    cpu = cpu_delta(cpu0, chromium_cpu(profile_dir))
    marks = page.evaluate("__gl.marks")
    phases = [(t / 1000, name) for t, name in page.evaluate("__gl.phases")]
    painted = marks.get("prosePainted")
    prose_ms, how = (painted, "element-timing") if painted else (marks["prose"], "poll")
    # what the page fetched before its prose showed: the render-blocking scripts and styles
    before_prose = page.evaluate("""(t) => performance.getEntriesByType('resource')
        .filter((e) => e.responseEnd <= t)
        .map((e) => [e.name.split('?')[0].split('/').pop(), e.encodedBodySize, e.responseEnd,
                     e.initiatorType === 'script' || /\\.m?js$/.test(e.name.split('?')[0])])""", prose_ms)
    scripts = sorted((r for r in before_prose if r[3]), key=lambda r: -r[1])
    nav = page.evaluate("""() => { const n = performance.getEntriesByType('navigation')[0];
        return n ? {dom_content_loaded: n.domContentLoadedEventEnd, load: n.loadEventEnd} : null; }""")
    sw = page.evaluate("() => !!(navigator.serviceWorker && navigator.serviceWorker.controller)")
    if clicks > 1:
        notes.append(f"Step needed {clicks} clicks before ch1.step changed"
                     + (f" (#gl-boot said: {boot_msgs[0][:120]!r})" if boot_msgs else ""))
    # leave chapter 1 as found
    page.locator(".gl-ch1-reset button").first.click()
    return {"prose_visible_s": prose_ms / 1000, "prose_how": how, "prose_poll_s": marks["prose"] / 1000,
            "prose_painted_s": painted / 1000 if painted else None,
            "fcp_s": marks["fcp"] / 1000 if marks.get("fcp") is not None else None,
            "overlay_gone_s": marks["overlayGone"] / 1000,
            "interactive_s": change["t"] / 1000, "first_click_s": first_click / 1000, "clicks": clicks,
            "cpu": cpu, "notes": notes, "phases": phases, "sw_controlled": sw,
            "before_prose": {"files": len(before_prose), "bytes": sum(r[1] for r in before_prose),
                             "largest": [r[:3] for r in sorted(before_prose, key=lambda r: -r[1])[:6]],
                             "largest_script": scripts[0][:3] if scripts else None},
            "dom_content_loaded_s": nav["dom_content_loaded"] / 1000 if nav else None}


# Every widget's slider with the value its move redraws: (label, chapter, slider's css class, gv key).
SLIDERS = [
    ("ch4 z₁ → h", "4", "gl-ch4-z1", "ch4.h.0"),
    ("ch0 gain a → h_T", "0", "gl-ch0-a", "ch0.hT"),
    ("ch2 u → h₃ (BPTT table)", "2", "gl-ch2-u", "ch2.h.3"),
    ("ch2 window k → truncated dL/dw", "2", "gl-ch2-k", "ch2.trunc_dw"),
    ("ch3 γ → bound", "3", "gl-ch3-gamma", "ch3.product"),
    ("ch3 ρ → measured decay", "3", "gl-ch3-rho", "ch3.decay.50"),
    ("ch3 threshold → clip scale", "3", "gl-ch3-threshold", "ch3.clip.scale"),
    ("ch5 input drive → max |c|", "5", "gl-ch5-drive", "ch5.maxc"),
    ("ch5 forget bias → kept over 30", "5", "gl-ch5-bias", "ch5.keep30"),
    ("ch6 logit z₁ → p₁", "6", "gl-ch6-z1", "ch6.p.1"),
    ("ch6 temperature → p_target", "6", "gl-ch6-temperature", "ch6.pT_target"),
    ("ch8 words → source bits", "8", "gl-ch8-words", "ch8.source.bits"),
]


def measure_slider(page, moves, chapter="4", cls="gl-ch4-z1", key="ch4.h.0", warmup=3):
    """keydown on a chapter's slider -> change of the text of `span.gv[data-key=key]` (ms).

    One arrow key a move (one slider step), five to the right, then five back, so the slider stays
    inside its range; a move back may find its result cached (chapter 3's measured decay is).
    """
    goto_chapter(page, chapter, f".{cls} .noUi-handle")
    wait_until(lambda: page.evaluate(f"__gl.text('{key}') !== null"), 30, what=f"the {key} value")
    page.evaluate(f"__gl.unwatchAll(); __gl.watch('{key}')")
    handle = page.locator(f".{cls} .noUi-handle").first
    handle.focus()
    latencies, frames, hows, misses, first = [], [], [], 0, None
    for i in range(warmup + moves):
        press = "ArrowRight" if (i // 5) % 2 == 0 else "ArrowLeft"
        n0 = page.evaluate(f"__gl.nChanges('{key}')")
        page.keyboard.press(press)
        try:
            page.wait_for_function(f"(n) => __gl.nChanges('{key}') > n", arg=n0, timeout=3000)
        except Exception:
            misses += 1
            continue
        down = page.evaluate("__gl.keydown")
        if down is None:
            misses += 1
            continue
        page.wait_for_function(f"(n) => __gl.changes('{key}', n)[0].frame !== null", arg=n0, timeout=3000)
        change = page.evaluate(f"(n) => __gl.changes('{key}', n)[0]", n0)
        ms = change["t"] - down
        if i < warmup:
            first = ms if first is None else first
        else:
            latencies.append(ms)
            frames.append(change["frame"] - down)
            hows.append(change["how"])
        time.sleep(0.08)   # let any trailing patch settle: every move is measured from idle
    return {"median_ms": statistics.median(latencies) if latencies else None,
            "p95_ms": quantile(latencies, 0.95), "to_next_frame_median_ms": statistics.median(frames) if frames else None,
            "first_move_ms": first, "n": len(latencies), "misses": misses,
            "seen_by_observer": sum(h == "observer" for h in hows)}


def select_hidden(page, hidden, cls="gl-ch7-hidden"):
    select = page.locator(f".{cls} select").first
    try:
        select.select_option(label=str(hidden), timeout=5000)
    except Exception:
        select.select_option(value=str(hidden), timeout=5000)


def measure_lab_training(page, hidden, seconds, profile_dir, warmup=1.0, streams=1, fresh=True):
    """Chapter 7 at hidden size H and B parallel streams: Train for `seconds`; steps/s from
    time-stamped ch7.steps changes (characters/s = steps/s × B × K). fresh: choose B and H (a new
    model); otherwise Reset the page's model. Either way training starts from the seed's first
    weights, as the JS reference's does in each round."""
    if fresh:
        select_hidden(page, streams, cls="gl-ch7-B")
        wait_until(lambda: text(page, "ch7.streams") == str(streams), 30, what=f"B = {streams} in the figures line")
        select_hidden(page, hidden)
        wait_until(lambda: text(page, "ch7.status") != "training" and as_int(text(page, "ch7.steps")) == 0, 30,
                   what=f"a fresh H = {hidden}, B = {streams} model (0 steps, not training)")
    else:              # the next round: the same model from its first weights again, as JS starts
        page.locator(".gl-ch7-reset button").first.click()
        wait_until(lambda: text(page, "ch7.status") != "training" and as_int(text(page, "ch7.steps")) == 0, 30,
                   what="the model reset (0 steps)")
    # only this watch while the lab trains, its poll (a fallback: the observer sees every change) slow
    page.evaluate("__gl.unwatchAll(); __gl.watch('ch7.steps', 250)")
    page.locator(".gl-ch7-train button").first.click()
    wait_until(lambda: (as_int(text(page, "ch7.steps")) or 0) > 0, 30, what="training to start")
    time.sleep(warmup)
    n0 = page.evaluate("__gl.nChanges('ch7.steps')")
    t0 = now_ms(page)
    cpu0 = chromium_cpu(profile_dir)
    page.evaluate("__gl.startFrames()")
    time.sleep(seconds)
    frames = page.evaluate("__gl.stopFrames()")
    cpu = cpu_delta(cpu0, chromium_cpu(profile_dir))
    t1 = now_ms(page)
    changes = [c for c in page.evaluate("(n) => __gl.changes('ch7.steps', n)", n0) if c["t"] <= t1]
    status = text(page, "ch7.status")
    loss = text(page, "ch7.loss")
    # the app's own figure: steps/s inside its training ticks (model.step alone, no pushes)
    m = re.search(r"([\d,.]+)\s*steps/s", page.evaluate("__gl.paneText('ch7.steps')") or "")
    in_tick = float(m.group(1).replace(",", "")) if m else None
    stopped = lambda: text(page, "ch7.status") in ("paused", "ready", "diverged")  # noqa: E731
    page.locator(".gl-ch7-pause button").first.click()
    note = None
    try:
        wait_until(stopped, 15, what="training to pause")
    except TimeoutError:
        note = (f"Pause did not stop training within 15 s (status {text(page, 'ch7.status')!r}, "
                f"steps {text(page, 'ch7.steps')}); stopped it with the Train toggle")
        page.locator(".gl-ch7-train button").first.click()
        wait_until(stopped, 30, what="training to stop after the Train toggle")
    page.evaluate("__gl.unwatchAll()")                    # nothing polls while the model runs alone
    window = (t1 - t0) / 1000
    cpu_shares = {k: v / window for k, v in cpu.items()}     # cores used, per role
    if len(changes) < 2:
        return {"steps_per_s": None, "status": status, "frames": frames, "cpu": cpu_shares,
                "note": f"ch7.steps changed {len(changes)} times in {seconds} s" + (f"; {note}" if note else "")}
    a, b = changes[0], changes[-1]
    steps = as_int(b["text"]) - as_int(a["text"])
    span = (b["t"] - a["t"]) / 1000
    rate = steps / span
    return {"steps_per_s": rate, "chars_per_s": rate * streams * K, "steps": steps, "seconds": span, "cpu": cpu_shares,
            "steps_per_worker_cpu_s": rate / cpu_shares["worker"] if cpu_shares["worker"] > 0 else None,
            "display_updates_per_s": (len(changes) - 1) / span, "status": status, "loss": loss,
            "in_tick_steps_per_s": in_tick, "note": note,
            "frames": frames, "window_s": (t1 - t0) / 1000}


def measure_js(context, bench_url, hidden, seconds, corpus, profile_dir, streams=1):
    """The JS reference in a Worker, from the same starting weights as the lab's model (seed 0),
    with the same B streams."""
    from gleam.chargru import CharGRU

    start = CharGRU(corpus, hidden=hidden, seq_len=K, seed=0).params
    params = {k: start[k].tolist() for k in ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")}
    page = context.new_page()
    try:
        page.goto(bench_url)
        cpu0, t0 = chromium_cpu(profile_dir), time.monotonic()
        result = page.evaluate("(o) => runBench(o)", {"corpus": corpus, "H": hidden, "K": K, "params": params,
                                                       "seconds": seconds, "warmupSeconds": 1.0,
                                                       "batch": streams})
        if result.get("ok"):
            result["chars_per_s"] = result["steps_per_s"] * streams * K
        cpu, wall = cpu_delta(cpu0, chromium_cpu(profile_dir)), time.monotonic() - t0
        result["cpu"] = {k: v / wall for k, v in cpu.items()}
        if result.get("ok") and cpu["worker"] > 0:
            # every step the worker made (warm-up included) per CPU-second of worker threads
            result["steps_per_worker_cpu_s"] = result["steps_total"] / cpu["worker"]
        return result
    finally:
        page.close()


# gleam's CharGRU.step alone, run inside the lab's own Pyodide worker while the lab is paused:
# the model's speed in this Pyodide, without the app's pushes, sampling and patch handling. The
# model is a copy of chapter 7's, as the lab left it (`lab`: app/main.py's Lab, a global of the
# worker's Python): a step's time depends on the weights (tanh and exp take longer on some values;
# under node, a model trained 1,500-3,000 steps stepped at 0.93 of a fresh one's rate).
MODEL_ONLY_PY = """
import json, time
from gleam.chargru import CharGRU
_src = lab.view("7").model
assert (_src.H, _src.B) == ({hidden}, {streams}), ("chapter 7 holds another model", _src.H, _src.B)
_m = CharGRU.from_state(_src.state_dict())
_m.step(20)
_t, _n = time.perf_counter(), 0
while time.perf_counter() - _t < {seconds}:
    _m.step(10)
    _n += 10
json.dumps([_n, time.perf_counter() - _t])
"""


# What no pure-NumPy step can go below, in the same worker: a CharGRU(batch=B) step's matrix
# products, the candidate's tanh and the gates' σ (by tanh or by exp, the faster), at their shapes,
# each by the fastest of the NumPy calls that compute it (matmul, einsum, dot; measured here, best
# of 3 rounds), and the 14 element-wise passes of each time step that its arithmetic cannot do
# without (NumPy has no fused multiply-add: forward, the input terms of the gates and the
# candidate, σ's two (½(1 + tanh(a/2)) or 1 / (1 + e^−a)), r ⊙ h, h + z ⊙ (h̃ − h);
# backward, the three products by the step's factors and the three sums into ∂L/∂h_{t-1}).
# Nothing else of the step (the softmax, the loss, indexing, the update). Its characters per
# second bound the model's from above ("chars_per_s"; without the passes, "products_chars_per_s"):
# set beside the JS reference, it shows whether a target is reachable at all.
KERNEL_BOUND_PY = """
import json, time
import numpy as np
from gleam.chargru import CharGRU, DEFAULT_CORPUS
_B, _H, _K = {streams}, {hidden}, {K}
_V = CharGRU(DEFAULT_CORPUS, hidden=_H).V
_n, _rng = _B * _K, np.random.default_rng(0)
def _best(f, reps=200):
    f()
    out = []
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(reps):
            f()
        out.append((time.perf_counter() - t) / reps)
    return min(out)
def _product(m, k, p):          # (m, k) times (k, p), the fastest call, seconds
    a, x = _rng.standard_normal((m, k)), _rng.standard_normal((p, k))
    xt, o = np.ascontiguousarray(x.T), np.empty((m, p))
    reps = max(5, int(2e5 / (m * k * p) * 20))
    return min(_best(lambda: np.matmul(a, x.T, out=o), reps), _best(lambda: np.matmul(a, xt, out=o), reps),
               _best(lambda: np.einsum("ik,jk->ij", a, x, out=o), reps), _best(lambda: np.dot(a, xt, out=o), reps))
_zr_in, _zr, _h, _hn, _c, _d = (_rng.standard_normal(s) for s in
                                 ((_B, 2 * _H), (_B, 2 * _H), (_B, _H), (_B, _H), (_B, _H), (_B, _H)))
_o2, _o1 = np.empty((_B, 2 * _H)), np.empty((_B, _H))
_tanh = (min(_best(lambda: np.tanh(_zr, out=_o2), 500), _best(lambda: np.exp(_zr, out=_o2), 500))
         + _best(lambda: np.tanh(_c, out=_o1), 500))
_z, _r = _zr[:, :_H], _zr[:, _H:]
_row, _f2, _o2b = (_rng.standard_normal((_B, 2 * _H)) for _ in range(3))
_prev, _f1, _o1b, _tmp = (_rng.standard_normal((_B, _H)) for _ in range(4))
_add, _mul, _sub = np.add, np.multiply, np.subtract
def _passes():
    _add(_zr, _zr_in, _zr); _mul(_zr, 0.5, _zr); _add(_zr, 0.5, _zr)       # forward
    _mul(_r, _h, _o1b); _add(_c, _d, _c); _sub(_c, _h, _d); _mul(_z, _d, _hn); _add(_hn, _h, _hn)
    _mul(_prev, _f1, _o1b); _mul(_row, _f2, _o2b); _mul(_row, _f2, _zr_in)  # backward
    _add(_prev, _o1b, _prev); _add(_prev, _tmp, _prev); _add(_prev, _d, _prev)
_products = (_product(_B, _H, 2 * _H) + _product(_B, _H, _H)         # forward: [Uz; Ur] h, Uh (r h)
             + _product(_B, _H, _H) + _product(_B, 2 * _H, _H))       # backward: Uhᵀ da_h, [Uz; Ur]ᵀ da_zr
_pass_s = _best(_passes, 300)
_per_t = _products + _tanh + _pass_s
_chunk = (_product(_n, _H, _V) + _product(_n, _V, _H) + _product(_V, _n, _H)   # readout, its dh, dWy
          + _product(2 * _H, _n, _H) + _product(_H, _n, _H))                  # dU
_step = _K * _per_t + _chunk
json.dumps({{"step_s": _step, "chars_per_s": _n / _step, "products_chars_per_s": _n / (_step - _K * _pass_s),
            "per_t_s": {{"products": _products, "tanh": _tanh, "passes": _pass_s}}, "chunk_s": _chunk, "V": _V}})
"""


def pyodide_worker(page):
    """The page's Web Worker that runs the lab's Python, or None (not the static site: panel serve)."""
    return next((w for w in page.workers if w.evaluate("typeof self.pyodide !== 'undefined'")), None)


def measure_kernel_bound(page, hidden, streams=1):
    """KERNEL_BOUND_PY in the lab's worker: {chars_per_s, step_s, ...}, or None (not the static site)."""
    worker = pyodide_worker(page)
    if worker is None:
        return None
    return json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)",
                                          KERNEL_BOUND_PY.format(hidden=hidden, streams=streams, K=K)))


def measure_model_in_worker(page, hidden, seconds, profile_dir, streams=1):
    worker = pyodide_worker(page)
    if worker is None:
        return None                                         # not the static site (e.g. panel serve)
    cpu0, t0 = chromium_cpu(profile_dir), time.monotonic()
    steps, elapsed = json.loads(worker.evaluate("(code) => self.pyodide.runPython(code)",
                                                    MODEL_ONLY_PY.format(hidden=hidden, seconds=seconds,
                                                                         streams=streams)))
    cpu, wall = cpu_delta(cpu0, chromium_cpu(profile_dir)), time.monotonic() - t0
    return {"steps_per_s": steps / elapsed, "chars_per_s": steps / elapsed * streams * K,
            "steps_per_worker_cpu_s": (steps + 20) / cpu["worker"] if cpu["worker"] > 0 else None,
            "worker_cores": cpu["worker"] / wall}


def over_rounds(rounds):
    """One setting's rounds (each: the lab, the model alone, the JS reference, one after the other)
    as one: each side's round with the median characters/s, and the medians of the rounds' ratios
    (lab ÷ JS, lab ÷ the model alone: each taken within its round, seconds apart, so that the
    machine's drift between rounds does not enter them)."""
    def median(xs):
        return statistics.median(xs) if xs else None

    out = {}
    for side in ("lab", "js", "model"):
        got = [r[side] for r in rounds if r[side] and r[side].get("chars_per_s")]
        if not got:
            out[side] = rounds[0][side] or {}
            continue
        mid = sorted(got, key=lambda x: x["chars_per_s"])[len(got) // 2]
        out[side] = {**mid, "chars_per_s": median([x["chars_per_s"] for x in got]),
                     "steps_per_s": median([x["steps_per_s"] for x in got]),
                     "rounds_chars_per_s": [x["chars_per_s"] for x in got]}
    for name, other in (("lab_over_js", "js"), ("lab_over_model", "model")):
        ratios = [r["lab"]["chars_per_s"] / r[other]["chars_per_s"] for r in rounds
                  if (r["lab"] or {}).get("chars_per_s") and (r[other] or {}).get("chars_per_s")]
        out[name] = {"median": median(ratios), "rounds": ratios}
    return out


def measure_offline(page, url, profile_dir, timeout):
    """The site's server is gone: does a reload in the same profile become interactive?"""
    try:
        m = measure_load(page, url, profile_dir, timeout=timeout)
    except Exception as e:                                  # refused connection, error page, timeouts
        return {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
    return {"ok": True, "interactive_s": m["interactive_s"], "prose_visible_s": m["prose_visible_s"],
            "sw_controlled": m["sw_controlled"], "notes": m["notes"]}


def browser_bytes(requests, server_entries):
    """Cross-check of the server's count from the browser's side: Playwright's requestfinished
    events of the context (the page's and its dedicated workers' requests alike). Per request,
    whether its encoded body size equals the body the server logged for that path; Playwright
    gives no size (negative) for some of the page's own preloaded scripts, counted apart."""
    sent = {}
    for e in server_entries:
        sent.setdefault(urllib.parse.urlsplit(e["path"] or "").path, []).append(e["body"])
    seen, matched, unknown, total = set(), 0, 0, 0
    for r in requests:
        path = urllib.parse.urlsplit(r.url).path
        seen.add(path)
        try:
            body = r.sizes()["responseBodySize"]
        except Exception:                                   # a request whose sizes are gone
            body = -1
        if body < 0:
            unknown += 1
            continue
        total += body
        matched += body in sent.get(path, [])
    missed = [e["path"] for e in server_entries if urllib.parse.urlsplit(e["path"] or "").path not in seen]
    return {"requests": len(requests), "body_bytes_known": total, "matched_server_exactly": matched,
            "size_unknown": unknown, "server_responses_not_seen": missed[:20], "n_not_seen": len(missed)}


# ---------------------------------------------------------------------------- main
def fmt(value, spec):
    return "—" if value is None else format(value, spec)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="port for the site (default: a free one)")
    ap.add_argument("--train-seconds", type=float, default=8.0,
                    help="seconds of training for each of the lab, the model alone and the JS reference, "
                         "at each B and H, split over --train-rounds")
    ap.add_argument("--train-rounds", type=int, default=4,
                    help="rounds of (lab, model alone, JS) at each B and H: the ratios are medians of the "
                         "rounds' own (this machine's speed drifts by ±30%% within seconds)")
    ap.add_argument("--slider-moves", type=int, default=30)
    ap.add_argument("--no-warm", action="store_true", help="skip the warm reload (and the offline one after it)")
    ap.add_argument("--offline-timeout", type=float, default=60.0,
                    help="seconds the offline reload (server stopped) has to become interactive")
    ap.add_argument("--load-pairs", type=int, default=3,
                    help="floor and cold load measured this many times, in pairs (fresh profiles; the last "
                         "pair's cold profile is the one kept for the rest): the load figures are medians")
    ap.add_argument("--url", help="measure an already running lab at this URL (e.g. `panel serve app/main.py`'s "
                                  "http://127.0.0.1:5006/main) instead of building and serving site/")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    browser_version = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    built = False if args.url else ensure_site()
    port = args.port or free_port()
    workdir = Path(tempfile.mkdtemp(prefix="gleam-browser-bench-"))
    profile = workdir / "profile"
    server = bench = None
    load0 = os.getloadavg()
    notes, console_errors, external = [], [], []
    bytes_log = workdir / "bytes.jsonl"
    floor = cold_bytes = warm_bytes = offline = None
    pairs = []                                          # (floor, cold) of every pair, the kept one last
    try:
        if args.url:
            site_url = args.url + ("&" if "?" in args.url else "?") + "chapter=1"
        else:
            server = start_site_server(port, workdir / "server.log", bytes_log)
            site_url = f"http://127.0.0.1:{port}/?chapter=1"
        bench = start_bench_server()
        bench_url = f"http://127.0.0.1:{bench.server_address[1]}/bench_page.html"
        with sync_playwright() as pw:
            if not args.url:
                # 0. the floor and cold loads in pairs (fresh profiles), so that one run's noise on a
                # shared machine (the floor alone moves by ±0.3 s) does not make the ratio
                for _ in range(max(args.load_pairs, 1) - 1):
                    pairs.append((measure_floor(pw, f"http://127.0.0.1:{port}/", workdir, external),
                                  measure_other_cold(pw, site_url, workdir, external)))
                floor = measure_floor(pw, f"http://127.0.0.1:{port}/", workdir, external)
            # a fresh profile on disk: empty HTTP and code caches for the cold load, kept for the warm one
            context = fresh_context(pw, profile)
            context.add_init_script(INSTRUMENT_JS)
            guard(context, external)
            # console errors of every page and of its workers (the Pyodide worker's included)
            context.on("console", lambda m: console_errors.append(m.text) if m.type == "error" else None)
            # the browser's view of the cold load's bytes, to set beside the server's count
            seen, collecting = [], [True]
            context.on("requestfinished", lambda r: seen.append(r) if collecting[0] else None)
            page = context.pages[0] if context.pages else context.new_page()
            page.on("pageerror", lambda e: console_errors.append(f"pageerror: {e}"))

            n0 = len(read_bytes_log(bytes_log))
            cold = measure_load(page, site_url, profile)
            notes += cold.pop("notes")
            if floor:
                pairs.append((floor, cold))
            if not args.url:
                to_interactive = read_bytes_log(bytes_log)[n0:]
                cold_entries = wait_quiet(bytes_log)[n0:]      # and whatever the visit still fetched
                cold_bytes = bytes_summary(cold_entries, SITE_DIR)
                cold_bytes["bytes_to_interactive"] = sum(e["bytes"] for e in to_interactive)
                collecting[0] = False
                cold_bytes["browser_seen"] = browser_bytes(seen, cold_entries)
            sliders = {label: measure_slider(page, args.slider_moves, chapter, cls, key)
                       for label, chapter, cls, key in SLIDERS}
            slider = sliders[SLIDERS[0][0]]
            goto_chapter(page, "7", ".gl-ch7-train button")
            wait_until(lambda: text(page, "ch7.steps") is not None, 60, what="chapter 7's ch7.steps")
            by_streams = {}
            seconds = args.train_seconds / max(args.train_rounds, 1)
            for streams in STREAMS:
                runs = by_streams[streams] = {}
                for hidden in HIDDEN_SIZES:
                    rounds = []
                    for r in range(max(args.train_rounds, 1)):
                        lab = measure_lab_training(page, hidden, seconds, profile, streams=streams, fresh=r == 0)
                        model = measure_model_in_worker(page, hidden, seconds, profile, streams=streams)
                        js = measure_js(context, bench_url, hidden, seconds, DEFAULT_CORPUS, profile,
                                        streams=streams)
                        page.bring_to_front()
                        if not js.get("ok"):
                            notes.append(f"JS reference failed at H = {hidden}, B = {streams}: {js.get('error')}")
                        if lab.get("note"):
                            notes.append(f"lab at H = {hidden}, B = {streams}: {lab['note']}")
                        rounds.append({"lab": lab, "js": js, "model": model})
                    runs[hidden] = over_rounds(rounds)
            select_hidden(page, 1, cls="gl-ch7-B")
            for streams in STREAMS:
                for hidden in HIDDEN_SIZES:
                    by_streams[streams][hidden]["bound"] = measure_kernel_bound(page, hidden, streams=streams)
            training = by_streams[1]
            warm = None
            if not args.no_warm:
                n0 = len(read_bytes_log(bytes_log))
                warm = measure_load(page, site_url, profile)
                notes += warm.pop("notes")
                if not args.url:
                    warm_bytes = bytes_summary(read_bytes_log(bytes_log)[n0:])
                    # last: the site's server stopped, the same profile reloads the page
                    stop_process(server)
                    offline = measure_offline(page, site_url, profile, args.offline_timeout)
                    notes += offline.pop("notes", [])
            context.close()
    finally:
        stop_process(server)
        if bench is not None:
            bench.shutdown()
    load1 = os.getloadavg()
    report(locals())
    return 0


def _r(value, digits=1):
    return None if value is None else round(value, digits)


def report(v):
    cold, warm, slider, sliders, training = v["cold"], v["warm"], v["slider"], v["sliders"], v["training"]
    by_streams = v["by_streams"]
    load0, load1 = v["load0"], v["load1"]
    print(f"\nheadless {v['browser_version']}; lab at {v['site_url']}{' (built now)' if v['built'] else ''}; "
          f"load average {load0[0]:.2f} before, {load1[0]:.2f} after, {os.cpu_count()} CPUs")

    def load_row(name, m, target=""):
        return (name, f"{m['interactive_s']:.2f} s", target,
                f"worker {m['cpu']['worker']:.1f} + main {m['cpu']['main']:.1f} CPU-s")

    floor, cold_bytes, warm_bytes, offline = v["floor"], v["cold_bytes"], v["warm_bytes"], v["offline"]
    bp = cold["before_prose"]
    big = bp["largest_script"]
    rows = [(f"cold: prose painted (.gl-prose, {cold['prose_how']})", f"{cold['prose_visible_s']:.2f} s", "≤ 0.5 s",
             f"poll {cold['prose_poll_s']:.2f} s; first contentful paint {fmt(cold['fcp_s'], '.2f')} s"),
            ("cold: largest script fetched before the prose", f"{big[1] / 1e3:.0f} KB" if big else "none",
             "≤ 100 KB", big[0] if big else ""),
            ("cold: loading overlay gone (first render)", f"{cold['overlay_gone_s']:.2f} s", "", ""),
            load_row("cold: interactive (Step changes ch1.step)", cold, "≤ 5 s")]
    loads = load_summary(v["pairs"]) if v["pairs"] else None
    if loads:
        each = lambda k, f: ", ".join(format(r[k], f) for r in loads["pairs"])  # noqa: E731
        n = len(loads["pairs"])
        rows += [(f"floor: Pyodide + numpy + one call, median of {n}", f"{loads['floor_s']:.2f} s", "",
                  f"each {each('floor_s', '.2f')} s; worker {loads['floor_worker_cpu_s']:.1f} CPU-s"),
                 (f"cold interactive, median of {n}", f"{loads['cold_interactive_s']:.2f} s", "≤ 5 s",
                  f"each {each('cold_interactive_s', '.2f')} s"),
                 (f"cold interactive / floor, median of {n} pairs", f"{loads['cold_over_floor']:.2f}", "≤ 2.0",
                  f"each {each('cold_over_floor', '.2f')}"),
                 (f"cold: worker CPU-seconds, median of {n}", f"{loads['cold_worker_cpu_s']:.1f} s", "≤ 5 s",
                  f"each {each('cold_worker_cpu_s', '.1f')} s")]
    if cold_bytes:
        rows += [("cold: bytes over the wire (server-counted)", f"{cold_bytes['bytes'] / 1e6:.2f} MB", "≤ 10 MB",
                  f"{cold_bytes['requests']} responses; {cold_bytes['bytes_to_interactive'] / 1e6:.2f} MB by interactive")]
    if warm:
        rows += [("warm reload: first visible prose", f"{warm['prose_visible_s']:.2f} s", "", ""),
                 load_row("warm reload: interactive", warm)]
        if warm_bytes:
            rows[-1] = rows[-1][:3] + (rows[-1][3] + f"; {warm_bytes['bytes'] / 1e6:.2f} MB in {warm_bytes['requests']} "
                                       f"responses; service worker {'controls' if warm['sw_controlled'] else 'none'}",)
        if loads:
            rows += [("warm interactive / floor (the floor's median)", f"{warm['interactive_s'] / loads['floor_s']:.2f}",
                      "≤ 1.5", "")]
    if offline:
        rows += [("offline reload (server stopped): interactive",
                  f"{offline['interactive_s']:.2f} s" if offline["ok"] else "no", "works",
                  "" if offline["ok"] else offline["error"][:70])]
    rows += [("ch4 z₁ slider → ch4.h.0 text, median", f"{fmt(slider['median_ms'], '.1f')} ms", "≤ 50 ms", ""),
             ("ch4 z₁ slider → ch4.h.0 text, p95", f"{fmt(slider['p95_ms'], '.1f')} ms", "", ""),
             ("ch4 z₁ slider → next frame, median", f"{fmt(slider['to_next_frame_median_ms'], '.1f')} ms", "", ""),
             ("ch4 slider moves measured / missed", f"{slider['n']} / {slider['misses']}", "", "")]
    rows += [(f"{label}, median (p95; measured / missed)", f"{fmt(m['median_ms'], '.1f')} ms", "≤ 50 ms",
              f"p95 {fmt(m['p95_ms'], '.1f')} ms; {m['n']} / {m['misses']}; first move {fmt(m['first_move_ms'], '.0f')} ms")
             for label, m in sliders.items()]
    width = max(len(r[0]) for r in rows)
    print(f"\n{'measure'.ljust(width)}  {'value':>10}  {'target':<8}  CPU (our chromium)")
    for name, value, target, extra in rows:
        print(f"{name.ljust(width)}  {value:>10}  {target:<8}  {extra}")

    print(f"\n{'':4} {'steps/s (wall)':^22} {'steps per worker CPU-s':^31} {'lab: cores':^14} "
          f"{'page while the lab trains':^34}")
    print(f"{'H':>4} {'lab':>7} {'JS':>7} {'lab/JS':>6} {'lab':>7} {'model':>6} {'JS':>7} {'lab/JS':>7} "
          f"{'worker':>7} {'main':>6}  {'fps':>5} {'p95 frame':>10} {'>50ms':>6} {'updates/s':>10}")
    for h in HIDDEN_SIZES:
        lab, js, model = training[h]["lab"], training[h]["js"], training[h].get("model") or {}
        ls, jsr = lab.get("steps_per_s"), js.get("steps_per_s")
        lc, jc = lab.get("steps_per_worker_cpu_s"), js.get("steps_per_worker_cpu_s")
        fr, cpu = lab["frames"], lab.get("cpu", {})
        print(f"{h:>4} {fmt(ls, '.0f'):>7} {fmt(jsr, '.0f'):>7} {fmt(ls / jsr if ls and jsr else None, '.2f'):>6} "
              f"{fmt(lc, '.0f'):>7} {fmt(model.get('steps_per_worker_cpu_s'), '.0f'):>6} {fmt(jc, '.0f'):>7} "
              f"{fmt(lc / jc if lc and jc else None, '.2f'):>7} "
              f"{fmt(cpu.get('worker'), '.2f'):>7} {fmt(cpu.get('main'), '.2f'):>6}  "
              f"{fmt(fr['fps'], '.1f'):>5} {fmt(fr['p95_ms'], '.1f'):>8}ms {fr['long_frames_over_50ms']:>6} "
              f"{fmt(lab.get('display_updates_per_s'), '.1f'):>10}")
    print("lab: ch7.steps over the window (every change time-stamped in the page). model: gleam's "
          "CharGRU.step alone in the\nlab's Pyodide worker (a copy of the lab's model). JS: benchmarks/chargru_reference.js "
          "in a Worker, same V, K, corpus and starting\nweights. Worker CPU-s: CPU time of our chromium's "
          "worker threads over the same window (robust to other load on\nthe machine). Targets: ~60 fps "
          "while training; the lab's rates against JS and the model: the table below.")
    print(f"\ncharacters per second (steps/s × B × K), B parallel streams: lab against the JS reference at "
          f"the same B\n{'':8} {'per second (wall)':^27} {'per worker CPU-s':^27}\n"
          f"{'B':>3} {'H':>4} {'lab':>9} {'JS':>9} {'lab/JS':>7} {'lab':>9} {'JS':>9} {'lab/JS':>7} {'model':>9} "
          f"{'bound':>9} {'bound/JS':>8} {'lab steps/s':>12} {'fps':>5} {'p95 frame':>10}")
    for streams in STREAMS:
        for h in HIDDEN_SIZES:
            run = by_streams[streams][h]
            lab, js, model, bound = run["lab"], run["js"], run.get("model") or {}, run.get("bound") or {}
            lc, jc, bc = lab.get("chars_per_s"), js.get("chars_per_s"), bound.get("chars_per_s")
            lu, ju = [(x.get("steps_per_worker_cpu_s") or 0) * streams * K or None for x in (lab, js)]
            print(f"{streams:>3} {h:>4} {fmt(lc, ',.0f'):>9} {fmt(jc, ',.0f'):>9} "
                  f"{fmt(lc / jc if lc and jc else None, '.2f'):>7} {fmt(lu, ',.0f'):>9} {fmt(ju, ',.0f'):>9} "
                  f"{fmt(lu / ju if lu and ju else None, '.2f'):>7} {fmt(model.get('chars_per_s'), ',.0f'):>9} "
                  f"{fmt(bc, ',.0f'):>9} {fmt(bc / jc if bc and jc else None, '.2f'):>8} "
                  f"{fmt(lab.get('steps_per_s'), '.0f'):>12} {fmt(lab['frames']['fps'], '.1f'):>5} "
                  f"{fmt(lab['frames']['p95_ms'], '.1f'):>8}ms")
    print("\nratios, each the median of the rounds' own (lab, model alone and JS one after the other in each round)\n"
          f"{'B':>3} {'H':>4} {'lab/JS':>7} {'rounds':<28} {'lab/model':>9} rounds")
    for streams in STREAMS:
        for h in HIDDEN_SIZES:
            run = by_streams[streams][h]
            rj, rm = run.get("lab_over_js") or {}, run.get("lab_over_model") or {}
            print(f"{streams:>3} {h:>4} {fmt(rj.get('median'), '.2f'):>7} "
                  f"{', '.join(f'{x:.2f}' for x in rj.get('rounds', [])):<28} {fmt(rm.get('median'), '.2f'):>9} "
                  + ", ".join(f"{x:.2f}" for x in rm.get("rounds", [])))
    print("model: CharGRU(batch=B).step alone in the lab's Pyodide worker. bound: a step's matrix products, "
          "tanh and 14 unavoidable\nelement-wise passes a time step (KERNEL_BOUND_PY, each product by NumPy's fastest "
          "call for it, in the same worker):\nno pure-NumPy step is faster. Targets: lab ≥ 0.9 × the model alone at every B and H; at B = 8, lab ≥ JS at every H.")
    for h in HIDDEN_SIZES:
        lab, js = training[h]["lab"], training[h]["js"]
        print(f"  H = {h}: lab status {lab.get('status')}, EMA loss {lab.get('loss')}, app's last-tick rate "
              f"{fmt(lab.get('in_tick_steps_per_s'), '.0f')} steps/s; JS final chunk loss {fmt(js.get('loss'), '.3f')}")
    if cold_bytes:
        seen = cold_bytes["browser_seen"]
        print(f"  cold bytes: {cold_bytes['bytes']:,} sent by the server ({cold_bytes['body_bytes']:,} body) in "
              f"{cold_bytes['requests']} responses ({cold_bytes['not_200']} not 200); the files they name "
              f"(.br/.gz where sent encoded): {cold_bytes['expected_body_bytes_from_files']:,} bytes"
              + (f", not found: {cold_bytes['files_not_found'][:3]}" if cold_bytes["files_not_found"] else "")
              + f"\n    Playwright's requestfinished (page and workers) saw {seen['requests']} requests: "
              f"{seen['matched_server_exactly']} with the body size the server logged, {seen['size_unknown']} "
              f"without a size; server responses it did not see: {seen['n_not_seen']} "
              f"{seen['server_responses_not_seen'][:4]}"
              f"\n    largest: {', '.join(f'{n} {b / 1e6:.2f} MB' for n, b in cold_bytes['largest'])}")
    for name, m in (("cold", cold), ("warm", warm)):
        if m:
            phases = ", ".join(f"{p} {t:.2f} s" for t, p in m["phases"])
            bp = m["before_prose"]
            print(f"  {name} load: DOMContentLoaded {fmt(m['dom_content_loaded_s'], '.2f')} s; "
                  f"{bp['files']} files, {bp['bytes'] / 1e6:.2f} MB fetched before the prose showed "
                  f"(largest: {', '.join(f'{n} {b / 1e6:.2f} MB' for n, b, _ in bp['largest'][:4])})"
                  f"\n    worker phases shown under the spinner: {phases or '—'}")
    if v["notes"]:
        print("\nnotes:\n  " + "\n  ".join(v["notes"]))
    errors, external = v["console_errors"], v["external"]
    if errors:
        print(f"\nconsole errors ({len(errors)}):\n  " + "\n  ".join(e[:300] for e in errors[:10]))
    if external:
        print(f"\nrequests that left 127.0.0.1 ({len(external)}):\n  " + "\n  ".join(external[:10]))

    result = {
        "prose_visible_s": _r(cold["prose_visible_s"], 3),
        "prose_visible_how": cold["prose_how"],
        "prose_poll_s": _r(cold["prose_poll_s"], 3),
        "prose_largest_script_before_kb": _r(big[1] / 1e3 if big else 0.0, 1),
        "prose_largest_script_before": big[0] if big else None,
        "first_contentful_paint_s": _r(cold["fcp_s"], 3),
        # with a floor (a served site): medians over the load pairs; each pair in load_pairs
        "cold_interactive_s": _r(loads["cold_interactive_s"] if loads else cold["interactive_s"], 3),
        "floor_s": _r(loads["floor_s"], 3) if loads else None,
        "floor_worker_cpu_s": _r(loads["floor_worker_cpu_s"], 2) if loads else None,
        "cold_over_floor": _r(loads["cold_over_floor"], 2) if loads else None,
        "cold_worker_cpu_s": _r(loads["cold_worker_cpu_s"] if loads else cold["cpu"]["worker"], 2),
        "load_pairs": [{k: _r(x, 3) for k, x in r.items()} for r in loads["pairs"]] if loads else None,
        "warm_over_floor": _r(warm["interactive_s"] / loads["floor_s"], 2) if loads and warm else None,
        "cold_bytes": cold_bytes["bytes"] if cold_bytes else None,
        "cold_bytes_to_interactive": cold_bytes["bytes_to_interactive"] if cold_bytes else None,
        "cold_requests": cold_bytes["requests"] if cold_bytes else None,
        "cold_bytes_check": {"body_bytes": cold_bytes["body_bytes"],
                             "expected_body_bytes_from_files": cold_bytes["expected_body_bytes_from_files"],
                             "browser_requests": cold_bytes["browser_seen"]["requests"],
                             "browser_matched_exactly": cold_bytes["browser_seen"]["matched_server_exactly"],
                             "browser_size_unknown": cold_bytes["browser_seen"]["size_unknown"],
                             "browser_missed_responses": cold_bytes["browser_seen"]["n_not_seen"]}
        if cold_bytes else None,
        "cold_clicks": cold["clicks"],
        "warm_bytes": warm_bytes["bytes"] if warm_bytes else None,
        "warm_sw_controlled": warm["sw_controlled"] if warm else None,
        "offline_ok": offline["ok"] if offline else None,
        "offline_interactive_s": _r(offline.get("interactive_s"), 3) if offline else None,
        "offline_error": offline.get("error") if offline else None,
        "slider_redraw_ms": _r(slider["median_ms"]),
        "sliders_redraw_ms": {label: {"median": _r(m["median_ms"]), "p95": _r(m["p95_ms"]), "misses": m["misses"]}
                              for label, m in sliders.items()},
        "train_chars_per_s": {f"B{b}": {str(h): {"lab": _r(by_streams[b][h]["lab"].get("chars_per_s"), 0),
                                                 "js": _r(by_streams[b][h]["js"].get("chars_per_s"), 0)}
                                        for h in HIDDEN_SIZES} for b in STREAMS},
        "train_chars_per_worker_cpu_s": {
            f"B{b}": {str(h): {side: _r((by_streams[b][h][side].get("steps_per_worker_cpu_s") or 0) * b * K or None, 0)
                               for side in ("lab", "js")} for h in HIDDEN_SIZES} for b in STREAMS},
        "train_kernel_bound_chars_per_s": {f"B{b}": {str(h): _r((by_streams[b][h].get("bound") or {}).get("chars_per_s"), 0)
                                                     for h in HIDDEN_SIZES} for b in STREAMS},
        "train_model_only_chars_per_s": {f"B{b}": {str(h): _r((by_streams[b][h].get("model") or {}).get("chars_per_s"), 0)
                                                   for h in HIDDEN_SIZES} for b in STREAMS},
        "train_ratios": {f"B{b}": {str(h): {name: {"median": _r((by_streams[b][h].get(name) or {}).get("median"), 3),
                                                   "rounds": [_r(x, 3) for x in (by_streams[b][h].get(name) or {}).get("rounds", [])]}
                                            for name in ("lab_over_js", "lab_over_model")}
                                  for h in HIDDEN_SIZES} for b in STREAMS},
        "train_fps_while_training": {f"B{b}": {str(h): _r(by_streams[b][h]["lab"]["frames"]["fps"])
                                               for h in HIDDEN_SIZES} for b in STREAMS},
        "train_steps_per_s": {str(h): {"lab": _r(training[h]["lab"].get("steps_per_s")),
                                       "js": _r(training[h]["js"].get("steps_per_s"))} for h in HIDDEN_SIZES},
        "overlay_gone_s": _r(cold["overlay_gone_s"], 3),
        "slider_redraw_p95_ms": _r(slider["p95_ms"]),
        "slider_to_frame_ms": _r(slider["to_next_frame_median_ms"]),
        "train_steps_per_worker_cpu_s": {str(h): {"lab": _r(training[h]["lab"].get("steps_per_worker_cpu_s")),
                                                  "js": _r(training[h]["js"].get("steps_per_worker_cpu_s"))}
                                         for h in HIDDEN_SIZES},
        "lab_cores_while_training": {str(h): {k: _r(x, 2) for k, x in training[h]["lab"].get("cpu", {}).items()}
                                     for h in HIDDEN_SIZES},
        "fps_while_training": {str(h): _r(training[h]["lab"]["frames"]["fps"]) for h in HIDDEN_SIZES},
        "frame_p95_ms": {str(h): _r(training[h]["lab"]["frames"]["p95_ms"]) for h in HIDDEN_SIZES},
        "model_only_steps_per_worker_cpu_s": {str(h): _r((training[h].get("model") or {}).get("steps_per_worker_cpu_s"))
                                              for h in HIDDEN_SIZES},
        "cold_cpu_s": {k: _r(x, 2) for k, x in cold["cpu"].items()},
        "cold_phases_s": [[_r(t, 2), p] for t, p in cold["phases"]],
        "warm_prose_visible_s": _r(warm["prose_visible_s"], 3) if warm else None,
        "warm_interactive_s": _r(warm["interactive_s"], 3) if warm else None,
        "console_errors": len(errors),
        "external_requests": len(external),
        "loadavg": [round(load0[0], 2), round(load1[0], 2)],
        "chromium": v["browser_version"],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve-counting"]:          # the site's server, as start_site_server runs it
        serve_counting(Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        sys.exit(0)
    sys.exit(main())
