"""One `panel serve app/` shared by a class: does one session's training starve another's clicks?

    python benchmarks/serve_load.py [--sessions 5] [--steps 25] [--port P]

Starts `panel serve app/` on 127.0.0.1 and drives Debian's headless chromium through Playwright:

1. a probe page on chapter 7 clicks Step `--steps` times with nothing else running, and times
   each click's round trip (the click to the page's step counter showing the new count) — the
   baseline of the same run;
2. `--sessions` other pages open chapter 7 at the largest size a session may ask for (H = the
   hidden-size menu's largest, a corpus with gleam's largest allowed alphabet, then the most
   parallel streams the server accepts at that size) and press Train;
3. while they train, the probe clicks Step again, timed the same way.

Also the server's resident memory (VmRSS of the panel process) before any session, with the probe,
and with every trainer, per trainer session. Prints a table, then as its last line one JSON
object. Nothing is asserted (target: loaded median ≤ 250 ms on this 2-core machine).
"""
import argparse
import json
import math
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gleam.chargru import MAX_VOCAB  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
TARGET_MS = 250
CORPUS_CHARS = 4000          # under the corpus box's own limit; the alphabet is what costs


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def widest_corpus(n_chars=CORPUS_CHARS, vocab=MAX_VOCAB):
    """A text of `n_chars` characters using `vocab` distinct printable ones."""
    alphabet = [chr(c) for c in range(0x21, 0x7f)] + [chr(c) for c in range(0xa1, 0x250)]
    alphabet = alphabet[:vocab - 1]                 # and the space
    text = [alphabet[(i * 7) % len(alphabet)] for i in range(n_chars)]
    text[4::5] = [" "] * len(text[4::5])            # words
    text[-len(alphabet) - 1:] = alphabet + [" "]   # every character at least once
    return "".join(text)


def rss_mb(pid):
    """Resident memory of a process and its children, MB."""
    total = 0
    pids = [pid] + [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                                    text=True).stdout.split()]
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total / 1024


class Lab:
    """One chapter-7 page of the served lab."""

    def __init__(self, context, url):
        self.page = context.new_page()
        self.page.goto(url + "?chapter=7", wait_until="domcontentloaded", timeout=120_000)
        self.steps_span = self.page.locator('span.gv[data-key="ch7.steps"]')
        self.steps_span.wait_for(timeout=120_000)

    def text(self, key):
        return self.page.locator(f'span.gv[data-key="{key}"]').first.text_content().strip()

    def click(self, cls):
        self.page.locator(f".{cls} button").first.click()

    def wait(self, predicate, timeout=60.0):
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if predicate():
                return
            time.sleep(0.005)
        raise TimeoutError("the page did not answer")

    def step_round_trip(self):
        """Seconds from clicking Step to the counter showing one more step."""
        before = int(self.text("ch7.steps").replace(",", ""))
        t0 = time.perf_counter()
        self.click("gl-ch7-step")
        self.wait(lambda: self.text("ch7.steps").replace(",", "") == str(before + 1))
        return time.perf_counter() - t0

    def make_largest(self, corpus):
        hidden = self.page.locator(".gl-ch7-hidden select")
        options = [int(o) for o in hidden.locator("option").all_inner_texts()]
        hidden.select_option(str(max(options)))
        self.page.locator(".gl-ch7-draft textarea").fill(corpus)
        self.page.locator(".gl-ch7-draft textarea").dispatch_event("change")
        self.click("gl-ch7-apply")
        self.wait(lambda: self.text("ch7.chance") == f"{math.log(len(set(corpus))):.3f}", timeout=60)
        streams, used = self.page.locator(".gl-ch7-B select"), 1
        if streams.count():            # the most streams the server allows at this size
            for b in sorted((int(o) for o in streams.locator("option").all_inner_texts()), reverse=True):
                if b == 1:
                    break
                streams.select_option(str(b))
                self.wait(lambda: self.text("ch7.streams") == str(b) or "shared server" in self.text("ch7.error"),
                          timeout=30)
                if self.text("ch7.streams") == str(b):
                    used = b
                    break
        return max(options), used

    def train(self):
        self.click("gl-ch7-train")
        self.wait(lambda: self.text("ch7.status") == "training", timeout=30)


def summary(seconds):
    ms = sorted(1000 * s for s in seconds)
    p95 = ms[min(len(ms) - 1, math.ceil(0.95 * len(ms)) - 1)]
    return {"median_ms": round(statistics.median(ms), 1), "p95_ms": round(p95, 1), "n": len(ms)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=5, help="sessions training at once (default 5)")
    ap.add_argument("--steps", type=int, default=25, help="Step clicks timed in each phase (default 25)")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    port = args.port or free_port()
    url = f"http://127.0.0.1:{port}/app"
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / "serve_load_panel.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "panel", "serve", "app/", "--port", str(port),
                               "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{port}"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    out = {"sessions": args.sessions}
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(url, timeout=5).read()
                break
            except OSError:
                time.sleep(0.2)
        out["rss_idle_mb"] = round(rss_mb(server.pid), 1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            probe = Lab(browser.new_context(), url)
            probe.wait(lambda: probe.step_round_trip() < 60, timeout=120)     # the session answers
            out["rss_probe_mb"] = round(rss_mb(server.pid), 1)
            out["idle"] = summary([probe.step_round_trip() for _ in range(args.steps)])
            corpus, trainers = widest_corpus(), []
            for _ in range(args.sessions):
                lab = Lab(browser.new_context(), url)
                out["hidden"], out["streams"] = lab.make_largest(corpus)
                trainers.append(lab)
            out["vocab"] = len(set(corpus))
            for lab in trainers:
                lab.train()
            time.sleep(2.0)                       # every trainer into its stride
            out["loaded"] = summary([probe.step_round_trip() for _ in range(args.steps)])
            out["rss_loaded_mb"] = round(rss_mb(server.pid), 1)
            out["rss_per_session_mb"] = round((out["rss_loaded_mb"] - out["rss_probe_mb"]) / args.sessions, 1)
            out["trainer_steps"] = [lab.text("ch7.steps") for lab in trainers]
            browser.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)
        log.close()
    out["loaded_over_idle"] = round(out["loaded"]["median_ms"] / out["idle"]["median_ms"], 2)
    print(f"panel serve, one process; {args.sessions} sessions training at H = {out['hidden']}, "
          f"B = {out['streams']}, V = {out['vocab']} (the largest the server allows); "
          "the probe's Step round trip:")
    print(f"  {'':24}{'median ms':>10}{'p95 ms':>10}")
    for phase in ("idle", "loaded"):
        print(f"  {phase:24}{out[phase]['median_ms']:>10}{out[phase]['p95_ms']:>10}")
    print(f"  loaded / idle {out['loaded_over_idle']}  (target: loaded median ≤ {TARGET_MS} ms)")
    print(f"  server memory: {out['rss_idle_mb']} MB idle, {out['rss_probe_mb']} with the probe, "
          f"{out['rss_loaded_mb']} with the trainers: {out['rss_per_session_mb']} MB per training session")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
