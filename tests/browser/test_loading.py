"""The static site while Python starts, and on a second visit (buildtools/boot.py, offline.py).

- Prose first: before any large script has run, the page shows its chapter's title, prose and
  typeset math as plain HTML; BokehJS and Panel's JS are fetched only after it.
- Honest loading: until the worker has rendered, the pre-rendered controls say they are not
  ready, a click or key on one is refused where the reader sees it (never applied later, never
  lost silently), and an indicator names the phase; once live, the same controls work.
- Second visit: a service worker keeps the build; with the server gone the lab still starts and
  trains; after a rebuild the page runs the new build.
- BokehJS as served: a figure's repaint leaves the stylesheets whose text did not change as they
  were (buildtools/bokehjs.py).

Each test holds a request the page needs (a route) to keep the page in the state it checks, so
that nothing depends on how fast this machine starts Python.
"""
import html
import json
import re
import shutil
import sys
from pathlib import Path

import bokeh
import pytest

from gleam_lab import content
from conftest import SITE, STATIC_PAGE, Server, Site, free_port
from helpers import BOOT_TIMEOUT, LOCK_URL as LOCK, hold, release, wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from buildtools.offline import write_service_worker  # noqa: E402

LARGE_SCRIPT = re.compile(r"/(bokeh/[^/]+\.js|panel-cdn/.*/panel\.min\.js)$")


@pytest.fixture(scope="module")
def static_site(static_server):
    return Site("static", f"http://127.0.0.1:{static_server.port}/{STATIC_PAGE}", static_server.log_path)


def paragraphs(chapter):
    """The text of the chapter's first paragraph without its math, as content renders it."""
    prose = content.render_html(chapter)
    first = re.search(r"<p>(.*?)</p>", prose, re.S).group(1)
    text = re.sub(r'<span class="gl-math".*?</span>', " ", first, flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", text)).split())


def indicator(page):
    """#gl-boot's compositing hint, what its bar's fill transitions, and how much of the bar is filled."""
    return page.evaluate("""() => {
        const box = document.getElementById('gl-boot'), bar = box.querySelector('.gl-boot-bar');
        const fill = bar.firstElementChild;
        return [getComputedStyle(box).willChange, getComputedStyle(fill).transitionProperty,
                fill.getBoundingClientRect().width / bar.getBoundingClientRect().width];
    }""")


def test_prose_shows_before_any_large_script_and_controls_refuse_until_ready(pages, static_site):
    lab = pages.new(static_site)
    page = lab.page
    scripts = hold(page, LARGE_SCRIPT)
    lock = hold(page, LOCK)                 # Python cannot finish starting while this is held
    page.goto(static_site.base + "?chapter=1", wait_until="domcontentloaded", timeout=BOOT_TIMEOUT * 1000)

    # the chapter, as plain HTML, with BokehJS not even fetched
    article = page.locator("#gl-static")
    article.wait_for(state="visible")
    assert page.evaluate("() => window.Bokeh === undefined")
    assert article.locator("h1").text_content() == content.heading("1")
    shown = page.evaluate("""() => {
        const p = document.querySelector('#gl-static p').cloneNode(true);
        p.querySelectorAll('.gl-math').forEach((m) => m.replaceWith(' '));
        return p.textContent.split(/\\s+/).filter(Boolean).join(' ');
    }""")
    assert shown == paragraphs("1") and len(shown) > 40
    maths = article.locator(".gl-math")
    assert maths.count() == content.render_html("1").count('class="gl-math"') > 0
    assert article.locator(".gl-math .katex").count() == maths.count()
    assert article.locator(".katex-display").count() > 0
    box = article.locator(".katex").first.bounding_box()
    assert box and box["height"] > 5
    fetched = page.evaluate("""() => performance.getEntriesByType('resource')
        .filter((e) => e.initiatorType === 'script').map((e) => [e.name, e.encodedBodySize])""")
    assert all(size < 100_000 for _, size in fetched), f"large scripts fetched before the prose: {fetched}"
    boot = page.locator("#gl-boot")
    assert boot.get_attribute("role") == "status"
    assert "Starting the lab" in boot.text_content() and "Loading Python" in boot.text_content()
    # a layer of its own whose bar fills by a transform: a new phase repaints the indicator, not the page
    hint, animated, filled = indicator(page)
    assert (hint, animated) == ("transform", "transform") and abs(filled - 1 / 3) < 0.02, (hint, animated, filled)

    # BokehJS in: the pre-rendered view replaces the article, its controls say not ready
    release(page, scripts, LARGE_SCRIPT)
    wait_until(lambda: page.locator("#gl-static").count() == 0, page=page, message="the pre-rendered view")
    assert page.locator("body.pn-loading").count() == 1
    step = page.locator(".gl-ch1-step button").first
    wait_until(lambda: step.get_attribute("aria-disabled") == "true", page=page)
    before = lab.text("ch1.step")
    assert page.evaluate("() => getComputedStyle(document.body).overflow") != "hidden"   # prose scrolls
    step.click(force=True)
    assert "Not ready yet: that click was not applied" in boot.text_content()
    field = page.locator(".gl-ch1-text input").first
    typed_before = field.input_value()
    field.focus()
    page.keyboard.type("ab")
    assert field.input_value() == typed_before
    assert "that key was not applied" in boot.text_content()
    assert "Loading Python" in boot.text_content()          # the phase it is in, named

    # Python up: the refused click was not applied later; the same control now works
    release(page, lock)
    lab.wait_ready("1")
    wait_until(lambda: "The lab is ready" in boot.text_content() or boot.is_hidden(), page=page)
    if boot.is_visible():
        wait_until(lambda: boot.is_hidden() or indicator(page)[2] > 0.99, page=page, message="the bar to fill")
    assert lab.text("ch1.step") == before
    assert page.locator(".gl-ch1-step button").first.get_attribute("aria-disabled") is None
    lab.click("gl-ch1-step")
    lab.wait_text("ch1.step", lambda t: t != before, what="Step to apply once the lab is live")
    wait_until(lambda: boot.is_hidden(), page=page, message="the indicator to hide")


def test_a_widget_embed_never_shows_the_article(pages, static_site):
    lab = pages.new(static_site)
    page = lab.page
    scripts = hold(page, LARGE_SCRIPT)
    page.goto(static_site.base + "?chapter=4&embed=widget", wait_until="domcontentloaded")
    page.locator("#gl-boot").wait_for(state="visible")
    assert page.locator("#gl-static").count() == 1 and page.locator("#gl-static").is_hidden()
    release(page, scripts, LARGE_SCRIPT)
    lab.wait_ready("4")


def test_the_worker_starts_without_reading_package_metadata(pages, static_site):
    """The site's Bokeh has its version written in, the worker refreshes only site-packages' import
    cache after unpacking the wheels, and the lab loads no Panel entry points: nothing of the start
    imports importlib.metadata (~0.1 s of a cold worker). numpy came from the worker's own unpacking,
    its FFT module never loaded."""
    lab = pages.new(static_site)
    lab.open("1")
    [worker] = [w for w in lab.page.workers if "main.js" in w.url]
    state = json.loads(worker.evaluate("""() => self.pyodide.runPython(`
import json, sys, bokeh, numpy
json.dumps([bokeh.__version__, "importlib.metadata" in sys.modules, "numpy.fft" in sys.modules, numpy.__file__])
`)"""))
    assert state[:3] == [bokeh.__version__, False, False]      # (the host's Bokeh: the same, or the build stops)
    assert state[3].endswith("/site-packages/numpy/__init__.pyc")
    # and there, with no BLAS, the batched trainer sums its weight gradients by einsum, and its
    # time steps' products from H = 64 on
    assert worker.evaluate("""() => self.pyodide.runPython(
        "import sys, gleam.chargru.batch as gb; [sys.platform, gb.SUM_OUTER_BY_EINSUM, gb.STEP_BY_EINSUM_FROM]").toJs()""") == [
        "emscripten", True, 64]
    lab.guard.assert_clean()


def test_a_worker_that_fails_is_named_not_left_spinning(pages, static_site):
    lab = pages.new(static_site)
    page = lab.page
    page.route(LOCK, lambda route: route.fulfill(status=200, body="{ not json"))
    page.goto(static_site.base + "?chapter=2", wait_until="domcontentloaded")
    boot = page.locator("#gl-boot")
    wait_until(lambda: "could not start" in boot.text_content(), timeout=BOOT_TIMEOUT, page=page,
               message="the indicator to say the lab could not start")
    assert boot.is_visible() and page.locator("body.pn-loading").count() == 1
    lab.guard.forget_errors()


def test_what_the_worker_says_before_the_page_takes_it_reaches_the_page(pages, static_site):
    """The worker starts first in <head> (buildtools/deeplinks.py), before Panel's script sets its
    handlers: here the parser waits for a stylesheet, Panel's script has not run, and the worker
    has already failed and said so. Once the script runs, the page names the failure."""
    lab = pages.new(static_site)
    page = lab.page
    said = []
    page.on("worker", lambda w: w.on("console", lambda m: said.append(m.type)))
    css = re.compile(r"/katex\.min\.css$")
    held = hold(page, css)
    page.route(LOCK, lambda route: route.fulfill(status=200, body="{ not json"))
    page.goto(static_site.base + "?chapter=2", wait_until="commit")
    wait_until(lambda: "error" in said, timeout=BOOT_TIMEOUT, page=page, message="the worker to fail (its console)")
    assert page.evaluate("() => typeof pyodideWorker") == "undefined"     # Panel's script: not yet run
    release(page, held, css)
    boot = page.locator("#gl-boot")
    wait_until(lambda: "could not start" in boot.text_content(), timeout=BOOT_TIMEOUT, page=page,
               message="the indicator to say the lab could not start")
    lab.guard.forget_errors()


# ---------------------------------------------------------------- second visits
@pytest.fixture
def copied_site(tmp_path, static_server):
    """A copy of the built site (built first if stale, by static_server) served on its own port: a
    test may stop it or rebuild it."""
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    port = free_port()

    def start():
        server = Server("build.py --serve (copy)", [sys.executable, "build.py", "--serve", "--no-build",
                        "--site", str(root), "--port", str(port)], port, f"/{STATIC_PAGE}",
                        tmp_path / f"serve-{len(servers)}.log")
        server.wait()
        servers.append(server)
        return server

    servers = []
    start()
    yield root, port, start, servers
    for s in servers:
        s.stop()


def cache_names(page):
    return page.evaluate("() => caches.keys()")


def build_of(root):
    return re.search(r'const BUILD = "(\w+)";', (root / "sw.js").read_text()).group(1)


def test_second_visit_offline_and_a_rebuild_is_what_runs(pages, copied_site):
    root, port, start, servers = copied_site
    site = Site("static", f"http://127.0.0.1:{port}/{STATIC_PAGE}", servers[0].log_path)
    lab = pages.new(site, service_workers="allow")
    page = lab.page
    said = []
    page.on("worker", lambda w: w.on("console", lambda m: said.append(m.text)))
    lab.open("1")
    first = build_of(root)
    # once live, the page hands the build to a service worker, which caches it whole
    wait_until(lambda: page.evaluate("() => navigator.serviceWorker.controller !== null"
                                     " || navigator.serviceWorker.ready.then(() => true)"), page=page)
    wait_until(lambda: cache_names(page) == [f"gleam-{first}"], timeout=120, page=page,
               message="the service worker to cache the build")
    files = json.loads(re.search(r"const FILES = (\[.*?\]);", (root / "sw.js").read_text(), re.S).group(1))
    wait_until(lambda: page.evaluate("(n) => caches.open(n).then((c) => c.keys()).then((k) => k.length)",
                                     f"gleam-{first}") == len(files), timeout=120, page=page)

    # the network gone, and the HTTP cache emptied (Pyodide's .wasm, which the service worker lets
    # the HTTP cache answer first, must then come from its own cache): the lab starts and trains
    servers[0].stop()
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.clearBrowserCache")
    cdp.detach()
    lab.open("1")
    before = lab.text("ch1.step")
    lab.click("gl-ch1-step")
    lab.wait_text("ch1.step", lambda t: t != before, what="Step offline")

    # a rebuild (a changed page and worker, a new sw.js as build.py writes it): the page runs it
    page_file = root / "chapter-1.html"
    page_file.write_text(page_file.read_text().replace("<title>", "<title>Rebuilt: ", 1))
    worker = root / "main.js"
    worker.write_text('console.log("gleam rebuilt worker");\n' + worker.read_text())
    write_service_worker(root)
    for name in ("chapter-1.html", "main.js", "sw.js"):   # (the build compresses them anew)
        for suffix in (".gz", ".br"):
            (root / f"{name}{suffix}").unlink(missing_ok=True)
    assert build_of(root) != first
    start()
    lab.guard.forget_errors()
    lab.open("1")
    assert page.title().startswith("Rebuilt: ")
    assert "gleam rebuilt worker" in said
    wait_until(lambda: cache_names(page) == [f"gleam-{build_of(root)}"], timeout=120, page=page,
               message="the new build's cache to replace the old one")
    lab.guard.forget_errors()   # requests refused while the server was down


@pytest.mark.parametrize("chapter", ("3", "9"))
def test_the_article_fits_a_phone_and_follows_a_dark_system(browser, static_site, chapter):
    """Before any script: at 390 px nothing scrolls sideways (display math and tables scroll
    inside themselves), and a system that prefers dark gets the dark palette at once."""
    from gleam_lab.app.widgets.theme import DARK
    context = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block",
                                  color_scheme="dark")
    try:
        page = context.new_page()
        held = hold(page, re.compile(r"\.js$|/pyodide-lock\.json$"))     # no script but the inline ones
        page.goto(static_site.base + f"?chapter={chapter}", wait_until="domcontentloaded")
        page.locator("#gl-static").wait_for(state="visible")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
        colours = page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
                                          getComputedStyle(document.querySelector('#gl-static')).color]""")
        rgb = lambda c: "rgb(" + ", ".join(str(int(c[i:i + 2], 16)) for i in (1, 3, 5)) + ")"
        assert colours == [rgb(DARK.page), rgb(DARK.text)]
        assert held                  # (the page did ask for its scripts: they were held back)
    finally:
        context.close()


def test_the_worker_collects_garbage_again_once_the_lab_is_live(session_pages, _shared_labs, static_site):
    """The worker starts with the cyclic collector off, Bokeh's diagnostics off, its faster
    serialization, light glyph-method signatures and templates compiled on first use
    (buildtools/worker_prelude.py); once the page is live the collector is on again with the
    start's objects frozen out of it, no template the lab does not use has been compiled, and
    the lab still changes what it shows. Read in the page's own worker (the session's shared
    static page)."""
    lab = _shared_labs.get("static") or _shared_labs.setdefault("static", session_pages.new(static_site))
    lab.guard.forget_errors()
    lab.show("1")
    [worker] = [w for w in lab.page.workers if "main.js" in w.url]
    state = json.loads(worker.evaluate("""() => self.pyodide.runPython(`
import gc, json, os
from bokeh.core.has_props import HasProps
from bokeh.plotting.glyph_api import GlyphAPI
from inspect import signature
from panel.io import resources
json.dumps([gc.isenabled(), gc.get_freeze_count() > 50_000, os.environ.get("BOKEH_PERFORM_ERROR_DIAGNOSTICS"),
            "_all" in (HasProps.query_properties_with_values.__kwdefaults__ or {}),
            type(resources.BASE_TEMPLATE).__name__, "_gl_load" in vars(resources.BASE_TEMPLATE),
            str(signature(GlyphAPI.line))])
`)"""))
    assert state == [True, True, "false", True, "_LazyTemplate", True,   # Panel's page: never compiled
                     "(self, x, y, **kwargs) -> 'GlyphRenderer'"]       # the light glyph signature
    before = lab.text("ch1.step")
    lab.click("gl-ch1-step")
    lab.wait_text("ch1.step", lambda t: t != before, what="chapter 1's Step to move the step shown")
    lab.guard.assert_clean()


# A figure's renderers, each with the <style> element BokehJS writes its position into at every
# paint: each element's text node and text now, and a count of the figure's paints from here on.
MARK_SHEETS_JS = """(cls) => {
  const roots = Object.values(Bokeh.index);
  const docs = [...new Set(roots.map((v) => v.model.document))];
  let plot = null;
  for (const doc of docs)
    for (const m of doc._all_models.values())
      if (Array.isArray(m.css_classes) && m.css_classes.includes(cls))
        for (const root of roots) plot = root.owner.find_one(m) || plot;
  const sheets = [...plot.renderer_views.values()].map((v) => v.position && v.position.el).filter((el) => el);
  window.__glSheets = sheets.map((el) => [el, el.firstChild, el.textContent]);
  window.__glPaints = 0;
  const paint = plot._actual_paint;
  plot._actual_paint = function (...args) { window.__glPaints++; return paint.apply(this, args); };
  return sheets.length;
}"""
SHEETS_AFTER_JS = """() => ({paints: __glPaints,
  written: __glSheets.filter(([el, node]) => el.firstChild !== node).length,
  changed: __glSheets.filter(([el, , text]) => el.textContent !== text).length})"""


def test_a_figure_repaints_without_rewriting_its_unchanged_stylesheets(session_pages, _shared_labs, static_site):
    """The site's BokehJS writes a renderer's position stylesheet only when its text changes
    (buildtools/bokehjs.py): chapter 3's bound figure, repainted after a move of γ, keeps the
    text node of every stylesheet whose text stayed the same (BokehJS's own bundle replaces all
    of them at each paint, and each write made Chrome recompute the page's styles)."""
    lab = _shared_labs.get("static") or _shared_labs.setdefault("static", session_pages.new(static_site))
    lab.guard.forget_errors()
    lab.show("3")
    assert lab.page.evaluate(MARK_SHEETS_JS, "gl-ch3-bound") >= 5
    before = lab.text("ch3.product")
    lab.slider_keys("gl-ch3-gamma", "ArrowRight")
    lab.wait_text("ch3.product", lambda t: t != before, what="γ's move to change γρ")
    wait_until(lambda: lab.page.evaluate("window.__glPaints > 0"), page=lab.page, message="for the figure to repaint")
    lab.page.wait_for_timeout(300)                     # (any further paint of the same move)
    after = lab.page.evaluate(SHEETS_AFTER_JS)
    assert after["paints"] >= 1 and after["written"] == after["changed"], after
    lab.slider_keys("gl-ch3-gamma", "ArrowLeft")       # the shared page as it was
    lab.wait_text("ch3.product", lambda t: t == before, what="γ back")
    lab.guard.assert_clean()
