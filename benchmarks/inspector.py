"""How fast the model inspector answers its controls in the static site (issue: every control within
250 ms median for a width-128 model on an input of 64 characters).

    python benchmarks/inspector.py [--port P] [--moves 15]

Builds site/ if it is missing, serves it as benchmarks/browser.py does (buildtools.serve's own
server), and in Debian's headless chromium: opens the inspector, loads a width-128 GRU with random
weights (a safetensors file written by gleam.checkpoints, alphabet "ab", task aⁿbⁿ so that the page
fits its probe and draws its sets), types a 64-character input, and then times, `--moves` times each:
- the input: one character of the 64 changed (the whole page recomputed: states, Jacobians, path);
- α of a patch at the last character (the sentence's "moved by" changes with α every time);
- the intervention switched between none and patch (what the page says after it changes).
A latency is from performance.now() just before Playwright acts on the control to the first
animation frame at which the value it changes (a `span.gv`) shows its new text; Playwright's own
dispatch (a few ms) is inside it. Prints each kind's median and 90th percentile, then one JSON line.
Nothing is asserted.
"""
import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from browser import CHROMIUM, CHROMIUM_ARGS, SITE_DIR, ensure_site, free_port, start_site_server, stop_process  # noqa: E402
from gleam import checkpoints  # noqa: E402

WIDTH, LENGTH = 128, 64

# the text of the gv span `key`, found through Bokeh's shadow roots
SPAN_JS = """(key) => {
  const find = (root) => {
    const hit = root.querySelector(`span.gv[data-key="${key}"]`);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) { const f = find(el.shadowRoot); if (f) return f; }
    return null;
  };
  const s = find(document);
  return s ? s.textContent.trim() : null;
}"""


def model_file():
    rng = np.random.default_rng(0)
    n, k = WIDTH, 3
    scale = 1 / np.sqrt(n)
    tensors = {"gru.weight_ih_l0": rng.uniform(-scale, scale, (k * n, 2)),
               "gru.weight_hh_l0": rng.uniform(-scale, scale, (k * n, n)),
               "gru.bias_ih_l0": rng.uniform(-scale, scale, k * n), "gru.bias_hh_l0": rng.uniform(-scale, scale, k * n),
               "head.weight": rng.uniform(-scale, scale, (2, n)), "head.bias": np.zeros(2)}
    vocab = {"alphabet": ["a", "b"], "classes": ["reject", "accept"], "layer": "GRU", "task": "anbn"}
    return checkpoints.write_safetensors({k: v.astype(np.float32) for k, v in tensors.items()}), json.dumps(vocab).encode()


def shown(page, key):
    return page.evaluate(SPAN_JS, key)


def timed(page, act, key, timeout=30_000):
    """ms from just before act() to the first frame at which span `key` shows a new text."""
    old = shown(page, key)
    t0 = page.evaluate("performance.now()")
    act()
    handle = page.wait_for_function(
        f"([key, old]) => {{ const t = ({SPAN_JS})(key); return t !== null && t !== old ? performance.now() : false; }}",
        arg=[key, old], polling="raf", timeout=timeout)
    return handle.json_value() - t0


def pick(page, kind, file):
    """Choose `file` with the inspector's picker of `kind` (app.widgets.file_pick opens the chooser)."""
    with page.expect_file_chooser() as chooser:
        page.locator(f".gl-chinspector-{kind} button").click()
    chooser.value.set_files(file)


def field(page, cls):
    return page.locator(f".{cls} input").first


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--moves", type=int, default=15)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    ensure_site()
    port = args.port or free_port()
    work = Path(tempfile.mkdtemp(prefix="gleam-bench-inspector-"))
    server = start_site_server(port, work / "server.log", work / "bytes.jsonl")
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/chapter-inspector.html?chapter=inspector")
            page.wait_for_selector(".gl-chinspector-do select", timeout=180_000)
            page.wait_for_function(f"() => ({SPAN_JS})('inspector.prediction') !== null", timeout=180_000)
            weights, vocab = model_file()
            page.wait_for_function("() => !document.querySelector('.pn-loading')", timeout=180_000)
            pick(page, "vocab", {"name": "vocab.json", "mimeType": "application/json", "buffer": vocab})
            page.wait_for_function(f"() => (({SPAN_JS})('inspector.file') || '').includes('vocab.json')", timeout=60_000)
            pick(page, "weights", {"name": "gru128.safetensors", "mimeType": "application/octet-stream", "buffer": weights})
            try:
                page.wait_for_function(f"() => (({SPAN_JS})('inspector.model') || '').startsWith('your file: a GRU, width {WIDTH}')",
                                       timeout=120_000)
            except Exception:
                raise SystemExit(f"the file was not loaded: {shown(page, 'inspector.error')!r} {shown(page, 'inspector.file')!r}")
            rng = np.random.default_rng(1)
            text = "".join(rng.choice(["a", "b"], LENGTH))
            box = field(page, "gl-chinspector-text")

            def type_text(t):
                box.fill(t)
                box.press("Enter")
            timed(page, lambda: type_text(text), "inspector.input")
            page.locator(".gl-chinspector-do select").select_option(label="patch h along the probe's direction at a character")
            step = field(page, "gl-chinspector-step")
            step.fill(str(LENGTH - 1))
            step.press("Enter")
            page.wait_for_function(f"() => ({SPAN_JS})('inspector.words') !== ''", timeout=60_000)
            times = {"input": [], "alpha": [], "intervention": []}
            alpha_handle = page.locator(".gl-chinspector-alpha .noUi-handle")
            for i in range(args.moves):
                pos = int(rng.integers(LENGTH))
                text = text[:pos] + ("a" if text[pos] == "b" else "b") + text[pos + 1:]
                times["input"].append(timed(page, lambda: type_text(text), "inspector.input"))
                key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
                alpha_handle.focus()
                times["alpha"].append(timed(page, lambda: alpha_handle.press(key), "inspector.words"))
                select = page.locator(".gl-chinspector-do select")
                times["intervention"].append(timed(page, lambda: select.select_option(label="none"), "inspector.after"))
                times["intervention"].append(timed(
                    page, lambda: select.select_option(label="patch h along the probe's direction at a character"),
                    "inspector.after"))
            browser.close()
    finally:
        stop_process(server)
    figures = {"width": WIDTH, "length": LENGTH, "site": str(SITE_DIR)}
    print(f"{'control':<14}{'median ms':>11}{'p90 ms':>9}{'n':>4}")
    for kind, values in times.items():
        values = sorted(values)
        med, p90 = statistics.median(values), values[int(0.9 * (len(values) - 1))]
        print(f"{kind:<14}{med:>11.0f}{p90:>9.0f}{len(values):>4}")
        figures[f"{kind}_median_ms"], figures[f"{kind}_p90_ms"] = round(med, 1), round(p90, 1)
    everything = [v for vs in times.values() for v in vs]
    figures["all_median_ms"] = round(statistics.median(everything), 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
