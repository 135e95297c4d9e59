"""What the browser tests share: polling, the request/console guard, and a `Lab` handle on a
page of the lab that reads values (`span.gv[data-key=...]`) and drives widgets by their
`gl-...` classes (Playwright's CSS locators pierce Panel's open shadow roots).

Timeouts are in seconds.
"""
import math
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from gleam_lab import content

# First load of the static site boots Pyodide: ~10 s cold here, a minute on a busy machine.
BOOT_TIMEOUT = 120.0
# One interaction: a websocket round trip (serve) or a message to the worker (static).
ACTION_TIMEOUT = 30.0

CHAPTER_IDS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "memory", "extrapolation", "inspector")

LOCAL_HOST = "127.0.0.1"


def wait_until(fn, timeout=ACTION_TIMEOUT, interval=0.1, page=None, message=""):
    """Call `fn` until it returns a truthy value (returned) or, for an `fn` that asserts, until it
    stops raising AssertionError. Panel's own UI tests poll the same way instead of sleeping.
    With a page, waits through `page.wait_for_timeout` so Playwright keeps dispatching events."""
    __tracebackhide__ = True
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            result = fn()
        except AssertionError as exc:
            last = exc
        else:
            if result is None or result:
                return result
            last = None
        if time.monotonic() > deadline:
            detail = f": {last}" if last is not None else ""
            raise TimeoutError(f"wait_until timed out after {timeout:.0f} s {message}{detail}")
        if page is not None:
            page.wait_for_timeout(interval * 1000)
        else:
            time.sleep(interval)


# ---------------------------------------------------------------- numbers as the page shows them

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_NUMBER = re.compile(
    r"(?P<mant>[-+]?(?:\d+\.?\d*|\.\d+))"
    r"(?:\s*(?:[eE](?P<e>[-+]?\d+)|[×x·]\s*10\^?(?P<p>[-+]?\d+)))?")


def parse_shown(text):
    """'−0.0997' / '9.50e-07' / '9.5×10⁻⁷' / '1,234' / 'nan' -> (value, unit of the last digit)."""
    t = (text.strip().replace("\u2212", "-").replace("\u2009", "").replace("\u202f", "")
         .replace(",", "").translate(_SUPERSCRIPTS))
    if t.lower() in ("nan", "inf", "+inf", "-inf", "∞", "-∞"):
        return float(t.replace("∞", "inf")), float("nan")
    m = _NUMBER.fullmatch(t)
    if not m:
        raise AssertionError(f"not a number as shown: {text!r}")
    mant = m.group("mant")
    exp = int(m.group("e") or m.group("p") or 0)
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    return float(mant) * 10.0 ** exp, 10.0 ** (exp - decimals)


def assert_shown(text, expected, min_decimals=None, what=""):
    """The page's `text` is `expected` rounded to the precision the page shows (and that
    precision is at least `min_decimals` decimals)."""
    __tracebackhide__ = True
    value, ulp = parse_shown(text)
    if min_decimals is not None:
        assert ulp <= 10.0 ** -min_decimals * 1.0000001, \
            f"{what}: {text!r} shows fewer than {min_decimals} decimals"
    tol = 0.5 * ulp * (1 + 1e-9) + 1e-12
    assert math.isfinite(value) and abs(value - float(expected)) <= tol, \
        f"{what}: page shows {text!r}, gleam gives {float(expected)!r}"


# ---------------------------------------------------------------- the guard

def is_local(url):
    """Only 127.0.0.1 may be contacted; data: URLs fetch nothing, blob: URLs are the page's own."""
    if url.startswith(("data:", "about:")):
        return True
    if url.startswith("blob:"):
        url = url[len("blob:"):]
    return urlsplit(url).hostname == LOCAL_HOST


# The lock of the static site's packages: while a test holds it (`hold`), Python cannot finish
# starting, so the page stays in its pre-rendered state however fast this machine is.
LOCK_URL = re.compile(r"/pyodide-lock\.json$")


def hold(page, pattern=LOCK_URL):
    """Route requests matching `pattern` into a list, unanswered until `release`."""
    held = []
    page.route(pattern, lambda route: held.append(route))
    return held


def release(page, held, pattern=LOCK_URL):
    """Answer the held requests (and stop holding new ones)."""
    for route in held:
        route.continue_()
    page.unroute(pattern)       # (and any request held since: unroute lets it through)


def run_local_script(page, path):
    """Run a local script file in the page the way DevTools does (it is not the page's code):
    the static site's Content-Security-Policy refuses any inline <script> the build did not
    hash, which is what page.add_script_tag would add."""
    page.evaluate(Path(path).read_text(encoding="utf-8") + "\n;undefined")


class Guard:
    """Watches one browser context: every request (pages, dedicated and service workers,
    websockets), console errors of pages and workers, uncaught page errors. A request for any
    host but 127.0.0.1 is aborted by a route and recorded. `problems()` lists what breaks the
    rules; `assert_clean()` fails the test on any."""

    def __init__(self, context, label=""):
        self.label = label
        self.requests = []      # every URL requested, in order
        self.offsite = []       # URLs that would have left 127.0.0.1
        self.errors = []        # console errors and page errors
        self.workers = []       # URLs of dedicated workers started
        self.service_workers = []
        context.route("**/*", self._route)
        context.on("request", self._on_request)
        context.on("page", self.watch_page)
        context.on("serviceworker", self._on_service_worker)
        context.on("weberror", lambda err: self.errors.append(f"uncaught error: {err.error}"))
        for page in context.pages:
            self.watch_page(page)

    def _route(self, route):
        url = route.request.url
        if is_local(url):
            route.fallback()
        else:
            self.offsite.append(url)
            route.abort("blockedbyclient")

    def _on_request(self, request):
        self.requests.append(request.url)
        if not is_local(request.url) and request.url not in self.offsite:
            self.offsite.append(request.url)

    def _on_service_worker(self, worker):
        self.service_workers.append(worker.url)
        if not is_local(worker.url):
            self.offsite.append(worker.url)
        worker.on("console", lambda msg: self._on_console(msg, f"service worker {worker.url}"))

    def _on_worker(self, worker):
        self.workers.append(worker.url)
        if not is_local(worker.url):
            self.offsite.append(worker.url)
        worker.on("console", lambda msg: self._on_console(msg, f"worker {worker.url}"))

    def _on_websocket(self, ws):
        self.requests.append(ws.url)
        if not is_local(ws.url):
            self.offsite.append(ws.url)

    def _on_console(self, msg, where):
        if msg.type == "error":
            loc = msg.location or {}
            self.errors.append(f"console error in {where}: {msg.text} "
                               f"({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def watch_page(self, page):
        page.on("console", lambda msg: self._on_console(msg, f"page {page.url}"))
        page.on("pageerror", lambda exc: self.errors.append(f"page error on {page.url}: {exc}"))
        page.on("worker", self._on_worker)
        page.on("websocket", self._on_websocket)

    def count(self, pattern):
        """How many requested URLs match the regular expression `pattern`."""
        return sum(1 for u in self.requests if re.search(pattern, u))

    def problems(self):
        out = [f"request leaving {LOCAL_HOST}: {u}" for u in dict.fromkeys(self.offsite)]
        return out + list(self.errors)

    def assert_clean(self):
        __tracebackhide__ = True
        problems = self.problems()
        assert not problems, f"{self.label}: " + "\n".join(problems)

    def forget_errors(self):
        """Start a new test on a shared page: what a previous test saw was reported there."""
        self.offsite.clear()
        self.errors.clear()


# ---------------------------------------------------------------- a page of the lab

def _css_str(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# The documents on screen: those of the rendered root views. (The static site also keeps the
# pre-rendered document it showed while Python was loading in Bokeh.documents.)
_LIVE_DOCS = """const docs = () => window.Bokeh && Bokeh.index ?
  [...new Set(Object.values(Bokeh.index).map(v => v.model.document))] : [];"""

# Only models with a view on screen: a chapter shown again gets new models, and the old ones stay
# in the document's model set.
_MODEL_JS = """([cls, attr]) => {
  %s
  const roots = Object.values(Bokeh.index);
  const shown = m => roots.some(v => v.owner && v.owner.find_one(m) != null);
  const out = [];
  for (const doc of docs())
    for (const m of doc._all_models.values())
      if (Array.isArray(m.css_classes) && m.css_classes.includes(cls) && shown(m)) out.push(m[attr]);
  return out;
}""" % _LIVE_DOCS

# What a client that bypasses a widget does: set its model's property directly (BokehJS sends the
# change to Python as the widget would).
_SET_MODEL_JS = """([cls, attr, value]) => {
  %s
  const roots = Object.values(Bokeh.index);
  const shown = m => roots.some(v => v.owner && v.owner.find_one(m) != null);
  let n = 0;
  for (const doc of docs())
    for (const m of doc._all_models.values())
      if (Array.isArray(m.css_classes) && m.css_classes.includes(cls) && shown(m)) {
        m.setv({[attr]: value === "NaN" ? NaN : value}); n++;
      }
  return n;
}""" % _LIVE_DOCS

_ALL_TEXT_JS = """() => {
  const out = [document.body.innerText];
  const walk = root => root.querySelectorAll('*').forEach(el => {
    if (!el.shadowRoot) return;
    for (const c of el.shadowRoot.children)
      if (!['STYLE', 'LINK', 'SCRIPT'].includes(c.tagName)) out.push(c.innerText || '');
    walk(el.shadowRoot);
  });
  walk(document);
  return out.join('\\n');
}"""


class Lab:
    """One browser page showing the lab in one mode ("serve" or "static")."""

    def __init__(self, page, guard, site):
        self.page = page
        self.guard = guard
        self.site = site
        self.mode = site.mode

    # -- loading
    def open(self, chapter):
        """Load the chapter by its URL (a full page load) and wait until it is interactive."""
        self.page.goto(self.site.url(chapter), wait_until="domcontentloaded",
                       timeout=BOOT_TIMEOUT * 1000)
        self.wait_ready(chapter)

    def open_query(self, query, chapter, ready=True):
        """Load the lab with a query of its own (`?chapter=…&…`, a shared link) and, if `ready`,
        wait until the chapter is interactive."""
        self.page.goto(self.site.base + query, wait_until="domcontentloaded", timeout=BOOT_TIMEOUT * 1000)
        if ready:
            self.wait_ready(chapter)

    def show(self, chapter):
        """Move to the chapter in place, as a learner does (a click in the table of contents);
        the first time, or on a page without a lab, load it by its URL instead (a lab busy or
        still starting is waited for: a reload would hide a test's question, e.g. what history
        entries moving in place adds)."""
        loaded = (self.site.serves(self.page.url)
                  and self.page.locator(f".gl-nav-{chapter}").count() > 0)
        if not loaded:
            return self.open(chapter)
        self.wait_ready()               # a page still starting, or busy (pn-loading): wait, never reload
        if self.chapter_in_url() != chapter or not self.shows_chapter(chapter):
            self.click(f"gl-nav-{chapter}")
        self.wait_ready(chapter)

    def wait_ready(self, chapter=None, timeout=None):
        """Wait until the app is live (no `pn-loading` left anywhere: the static site keeps it
        on <body> until Pyodide has started and the worker has rendered) with prose shown."""
        timeout = timeout or (BOOT_TIMEOUT if self.mode == "static" else 60.0)
        page = self.page

        def ready():
            if self.guard.errors:       # a Python error in the worker shows up here: stop waiting
                raise TimeoutError("page errors")
            if page.evaluate("() => !window.Bokeh || !window.Bokeh.documents.length"):
                return False
            if page.locator(".pn-loading").count():
                return False
            if chapter is not None and (self.chapter_in_url() != chapter
                                        or not self.shows_chapter(chapter)):
                return False
            return page.locator(".gl-prose").count() > 0 and self.prose_text().strip() != ""

        try:
            wait_until(ready, timeout=timeout, interval=0.2, page=page)
        except TimeoutError:
            page.wait_for_timeout(500)      # let the rest of an error's messages arrive
            state = page.evaluate("() => ({bokeh_documents: window.Bokeh ? Bokeh.documents.length : null,"
                                  " body_class: document.body.className})")
            state.update(pn_loading=page.locator(".pn-loading").count(), url=page.url,
                         gl_prose=page.locator(".gl-prose").count())
            raise AssertionError(
                f"chapter {chapter!r} did not become interactive ({self.mode}, "
                f"limit {timeout:.0f} s): {state}\n"
                + "\n".join(self.guard.problems()) + "\n" + self.site.log_tail()) from None

    def follow(self, query, chapter):
        """Go to `query` in place, as Back or Forward does (the page's URL changes, then popstate:
        the page hands the query to the lab), and wait until the chapter is shown."""
        self.page.evaluate("""(query) => {
          history.replaceState(null, "", window.location.pathname + query);
          window.dispatchEvent(new PopStateEvent("popstate"));
        }""", query)
        self.wait_ready(chapter)

    def chapter_in_url(self):
        q = parse_qs(urlsplit(self.page.url).query)
        return q.get("chapter", [None])[0]

    def query(self):
        """The page URL's query, "?chapter=…&…" ("" if none)."""
        q = urlsplit(self.page.url).query
        return f"?{q}" if q else ""

    def pushes(self):
        """How many history entries the page has added since this was first asked of it, counted
        by the Navigation API (history.length stops growing at 50 in Chromium, and a long test
        session reaches it). Back and Forward are traverses, a replaced entry a replace: neither counts."""
        return self.page.evaluate("""() => {
          if (window.__glPushes === undefined) {
            window.__glPushes = 0;
            navigation.addEventListener("currententrychange", (event) => {
              if (event.navigationType === "push") window.__glPushes += 1;
            });
          }
          return window.__glPushes;
        }""")

    # -- reading
    def gv_locator(self, key):
        return self.page.locator(f"span.gv[data-key={_css_str(key)}]")

    def text(self, key, timeout=ACTION_TIMEOUT):
        """The text of the one `span.gv` with this data-key (waits for it to exist)."""
        loc = self.gv_locator(key)

        def one():
            n = loc.count()
            assert n == 1, f"{n} elements span.gv[data-key={key!r}]"
            return True

        wait_until(one, timeout=timeout, page=self.page)
        return loc.text_content().strip()

    def number(self, key):
        return parse_shown(self.text(key))[0]

    def exact(self, key):
        """The data-exact digits of a value shown rounded (its tooltip)."""
        self.text(key)
        return self.gv_locator(key).get_attribute("data-exact")

    def wait_text(self, key, predicate, timeout=ACTION_TIMEOUT, what=""):
        """Poll the text of `key` until predicate(text) holds; returns the text."""
        seen = []

        def check():
            t = self.text(key, timeout=timeout)
            seen[:] = [t]
            return bool(predicate(t))

        try:
            wait_until(check, timeout=timeout, interval=0.1, page=self.page)
        except TimeoutError:
            raise AssertionError(f"{key} never became {what} within {timeout:.0f} s "
                                 f"(last shown: {seen[-1] if seen else None!r})") from None
        return seen[-1]

    def wait_number(self, key, predicate, timeout=ACTION_TIMEOUT, what=""):
        return parse_shown(self.wait_text(
            key, lambda t: predicate(parse_shown(t)[0]), timeout=timeout, what=what))[0]

    def shown_values(self):
        """data-key -> text of every value span on the page, read at once."""
        pairs = self.page.locator("span.gv").evaluate_all(
            "els => els.filter(e => e.checkVisibility()).map(e => [e.dataset.key, e.textContent.trim()])")
        return dict(pairs)

    def model_values(self, cls, attr="value"):
        """`attr` of every Bokeh model carrying css class `cls` (the widget's exact value)."""
        return self.page.evaluate(_MODEL_JS, [cls, attr])

    def model_value(self, cls, attr="value"):
        values = self.model_values(cls, attr)
        assert len(values) == 1, f"{len(values)} Bokeh models with css class {cls!r}"
        return values[0]

    # -- acting
    def set_model(self, cls, attr, value):
        """Set `attr` of the one shown Bokeh model of class `cls` past its widget, as a client
        that bypasses the page's controls would ("NaN" sends a NaN)."""
        n = self.page.evaluate(_SET_MODEL_JS, [cls, attr, value])
        assert n == 1, f"{n} Bokeh models with css class {cls!r}"

    def train_again(self, cls):
        """Press a Train toggle once Pause has turned it off in the page (as a learner sees it), and
        see it on."""
        wait_until(lambda: self.model_value(cls, "active") is False, page=self.page,
                   message="for Pause to turn Train off")
        self.click(cls)
        wait_until(lambda: self.model_value(cls, "active") is True, page=self.page, message="for Train to turn on")

    def click(self, cls, text=None):
        """Click the button inside the widget of class `cls` (optionally the one showing `text`)."""
        loc = self.page.locator(f".{cls} button")
        if text is not None:
            loc = loc.filter(has_text=text)
        loc.click(timeout=ACTION_TIMEOUT * 1000)

    def slider_keys(self, cls, *keys):
        """Press keys on a slider's handle (Home/End/ArrowLeft/ArrowRight/PageUp...)."""
        handle = self.page.locator(f".{cls} .noUi-handle")
        handle.focus()
        for key in keys:
            handle.press(key)

    def set_slider(self, cls, target):
        """Move a slider to `target` by keyboard, as a learner would (PageUp/PageDown: 5 steps,
        arrows: 1), and wait until the widget holds it. `target` must be on the slider's grid."""
        start, step = self.model_value(cls, "start"), self.model_value(cls, "step")
        assert abs(round((target - start) / step) * step + start - target) < 1e-9, \
            f"{target} is not on {cls}'s grid"
        n = round((target - self.model_value(cls)) / step)
        big, small = ("PageUp", "ArrowRight") if n > 0 else ("PageDown", "ArrowLeft")
        keys = [big] * (abs(n) // 5) + [small] * (abs(n) % 5)
        if keys:
            self.slider_keys(cls, *keys)
        wait_until(lambda: abs(self.model_value(cls) - target) < step / 100, page=self.page,
                   message=f"for {cls} to reach {target}")

    def fill(self, cls, value, selector="input, textarea"):
        """Type `value` into the text field of the widget of class `cls` and commit it."""
        field = self.page.locator(f".{cls}").locator(selector).first
        field.fill(value)
        if field.evaluate("e => e.tagName") == "INPUT":
            field.press("Enter")
        field.blur()

    def pane_text(self, cls):
        """Visible text of the first pane of class `cls` ('' if there is none)."""
        loc = self.page.locator(f".{cls}")
        if not loc.count():
            return ""
        return loc.first.evaluate(
            "e => [...(e.shadowRoot || e).children].filter(c => c.tagName === 'DIV')"
            ".map(d => d.innerText).join('\\n')")

    def prose_text(self):
        """Visible text of the chapter's prose (MathJax SVG contributes none, KaTeX its symbols)."""
        return self.pane_text("gl-prose")

    def shows_chapter(self, chapter):
        """The chapter's own title is on screen (the URL alone can be ahead of the content)."""
        return content.title(chapter) in self.pane_text("gl-title")

    def all_text(self):
        """Visible text of the whole page, shadow roots included."""
        return self.page.evaluate(_ALL_TEXT_JS)

    def math_count(self):
        """Typeset formulas in the prose: MathJax's (panel serve) or KaTeX's (the static site,
        typeset when it was built)."""
        return self.page.locator(".gl-prose mjx-container, .gl-prose .gl-math .katex").count()


# ---------------------------------------------------------------- fitting a phone

# The page's width as a mobile browser lays it out: under is_mobile a page wider than the device
# widens the layout viewport (window.innerWidth and the root's scrollWidth grow with it, zoomed
# out to fit; documentElement.clientWidth stays the device's). Also every figure on screen whose
# box leaves the viewport, and whether the page has settled: every formula of the prose typeset
# (MathJax's container or KaTeX's HTML inside each .gl-math) and every Bokeh view done drawing.
_LAYOUT_JS = """() => {
  const all = [];
  const walk = root => root.querySelectorAll('*').forEach(e => { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); });
  walk(document);
  const shown = all.filter(e => e.checkVisibility());
  const math = shown.filter(e => e.classList.contains('gl-math'));
  const views = window.Bokeh && Bokeh.index ? Object.values(Bokeh.index) : [];
  const W = window.innerWidth;
  return {inner: W, client: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth,
          figures_out: shown.filter(e => e.classList.contains('bk-Figure')).map(e => [e, e.getBoundingClientRect()])
                            .filter(([e, r]) => r.width > 0 && (r.left < -0.5 || r.right > W + 0.5))
                            .map(([e, r]) => `${[...e.classList].filter(c => c.startsWith('gl-')).join(' ') || 'a figure'}`
                                             + ` at ${Math.round(r.left)}..${Math.round(r.right)} px`),
          settled: math.every(e => e.querySelector('mjx-container, .katex')) && document.fonts.status === 'loaded'
                   && views.every(v => typeof v.has_finished !== 'function' || v.has_finished())};
}"""

# Text a figure's canvas cuts at its edge, read from BokehJS's own views of every figure on screen:
# a title (its measured size placed as its `align` puts it in its panel), a legend (its laid-out
# box), an x-axis label (its width in its font, centred on the axis) must lie within the canvas, a
# y-axis label within its height. A canvas neither wraps nor scrolls: what lies outside is not shown.
_CLIPPED_JS = """() => {
  const out = [], seen = new Set(), ctx = document.createElement('canvas').getContext('2d');
  const roots = window.Bokeh && Bokeh.index ? Object.values(Bokeh.index) : [];
  const font = (m, p) => `${m[p + '_font_style'] || 'normal'} ${m[p + '_font_size'] || '13px'} ${m[p + '_font'] || 'helvetica'}`;
  const width = (text, f) => { ctx.font = f; return Math.max(...String(text).split('\\n').map(t => ctx.measureText(t).width)); };
  const plotOf = v => { let p = v.parent;
    while (p && !(p.model && ['Figure', 'Plot'].includes(p.model.constructor.__name__))) p = p.parent; return p; };
  const name = p => (p.model.css_classes || []).join(' ') || 'a figure';
  for (const r of roots) for (const v of r.owner.all_views()) {
    if (seen.has(v)) continue;
    seen.add(v);
    const kind = v.model.constructor.__name__;
    if (kind !== 'Title' && kind !== 'Legend' && !/Axis$/.test(kind)) continue;
    const plot = plotOf(v);
    if (!plot || !plot.el || !plot.el.isConnected || !plot.el.checkVisibility() || !plot.bbox || plot.bbox.width <= 0) continue;
    const W = plot.bbox.width, H = plot.bbox.height;
    let what, lo, hi;
    if (kind === 'Title') {
      if (!v.model.text || !v.model.visible) continue;
      const w = v._get_size().width, b = v.layout.bbox, align = v.model.align;
      lo = align === 'center' ? b.hcenter - w / 2 : align === 'right' ? b.right - w : b.left;
      hi = lo + w;
      what = `title ${JSON.stringify(v.model.text)}`;
    } else if (kind === 'Legend') {
      if (!v.model.visible || !v.model.items.length) continue;
      const b = v.bbox;
      lo = b.left; hi = b.right;
      if (b.top < -0.5 || b.bottom > H + 0.5) out.push(`${name(plot)}: its legend leaves the canvas's height`);
      what = `legend (${v.model.items.length} entries)`;
    } else {
      const text = v.model.axis_label;
      if (!text || !v.model.visible) continue;
      const w = width(text, font(v.model, 'axis_label_text')), b = v.bbox;
      if (v.dimension !== 0) {
        if (w > H + 0.5) out.push(`${name(plot)}: y-axis label ${JSON.stringify(text)} ${Math.round(w)} px long, canvas ${Math.round(H)} px high`);
        continue;
      }
      lo = b.hcenter - w / 2; hi = b.hcenter + w / 2;
      what = `x-axis label ${JSON.stringify(text)}`;
    }
    if (lo < -0.5 || hi > W + 0.5)
      out.push(`${name(plot)}: ${what} spans ${Math.round(lo)}..${Math.round(hi)} px of a ${Math.round(W)} px canvas`);
  }
  return out;
}"""


def layout_width(page):
    """{"inner", "client", "scroll": px, "figures_out": [figures leaving the viewport], "settled": bool}
    (see _LAYOUT_JS)."""
    return page.evaluate(_LAYOUT_JS)


def clipped_figure_text(page):
    """What the canvases of the figures on screen cut at their edges (see _CLIPPED_JS), one line each."""
    return page.evaluate(_CLIPPED_JS)
