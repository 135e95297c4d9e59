"""What a static page does while Python starts: prose first, honest controls, a named phase.

Panel's page loads all of BokehJS in <head> before the body is even parsed, covers the page
with a spinner that swallows clicks, and shows the pre-rendered controls as if they were live.
Here instead (buildtools.convert applies it to every page):

1. The page's first bytes are the chapter itself: its title, prose and math as plain HTML
   (`#gl-static`, buildtools.static_prose) painted before any script but the small inline ones.
2. BokehJS, Panel's JS and es-module-shims load only after that first paint, in their order
   (`glBoot.load`); what Panel ran on DOMContentLoaded (the pre-rendered view) runs once they
   are in (`glBoot.whenBokeh`). The worker starts during parsing, so Python boots meanwhile.
3. Once the pre-rendered view is drawn it replaces the static article. Until the worker has
   rendered (Panel removes `pn-loading` from <body>), every control in it looks unavailable
   and says so (`aria-disabled`), and a click, key or paste on one is refused where the reader
   sees it: `#gl-boot` (role=status) names the phase and says the action was not applied.
4. When the lab is live the indicator says so and hides; then the service worker is registered
   (buildtools.offline), so that caching the site never competes with a first load.
"""
from __future__ import annotations

import json
import re

from . import patches
from .errors import BuildError, sub_once

# Panel's worker reports its phases with these messages (panel/io/convert.py's template, as
# rewritten by buildtools.convert); anything else it reports is an error.
PHASES = {
    "page": ("Loading Python and the lab's packages", 1),
    "Loading pyodide": ("Loading Python and the lab's packages", 1),
    "Installing environment": ("Installing the lab's packages", 2),
    "Executing code": ("Building the chapter", 2),
}
STEPS = 2

# The indicator is a compositing layer of its own (will-change) and its bar grows by a transform,
# which the compositor animates: a change of phase repaints the indicator alone, not the whole page.
BOOT_CSS = """
body.pn-loading { overflow: auto !important; }
body.pn-loading:before, body.pn-loading:after, body.pn-loading .pn-loading-msg { display: none !important; }
#gl-boot { position: fixed; left: 50%; bottom: 12px; transform: translateX(-50%); z-index: 2000; will-change: transform;
  box-sizing: border-box; width: max-content; max-width: calc(100vw - 24px); padding: 0.55em 1em;
  border-radius: 6px; border: 1px solid var(--gl-root-border, #888); background: var(--gl-root-surface, #fff);
  color: var(--gl-root-text, #111); box-shadow: 0 2px 10px rgba(0, 0, 0, 0.25);
  font: 15px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
#gl-boot[hidden] { display: none; }
#gl-boot .gl-boot-bar { display: block; height: 4px; margin-top: 0.4em; border-radius: 2px;
  background: var(--gl-root-rule, #ddd); overflow: hidden; }
#gl-boot .gl-boot-bar > span { display: block; height: 100%; background: var(--gl-root-accent, #1f6feb);
  transform-origin: 0 50%; transition: transform 0.3s; }
#gl-boot .gl-boot-refused, #gl-boot.gl-boot-failed { color: var(--gl-root-error, #b42318); font-weight: 600; }
#gl-boot .gl-boot-refused { display: block; }
#gl-boot .gl-boot-refused:empty { display: none; }
.gl-embed-widget #gl-static { display: none; }
"""

# Put into each shadow root of the pre-rendered view: its controls look unavailable.
NOT_READY_CSS = ("button, input, select, textarea, .noUi-target, .bk-btn, .bk-input "
                 "{ opacity: 0.5 !important; cursor: progress !important; }")

BOOT_SCRIPT = r"""<script>
  // Added by build.py (buildtools/boot.py): prose first, honest controls while Python starts.
  window.glBoot = (function () {
    var PHASES = __PHASES__, STEPS = __STEPS__, CSS = __CSS__;
    var CONTROL = "button, input, select, textarea, [role=slider], [role=button], [role=checkbox], "
                + "[role=tab], .noUi-handle, .noUi-target, .bk-btn";
    var phase = PHASES.page[0], state = "loading", refusedAt = 0;
    var whenBokeh = [], bokehDone, bokeh = new Promise(function (r) { bokehDone = r; });
    function el(id) { return document.getElementById(id); }
    function loading() { return document.body !== null && document.body.classList.contains("pn-loading"); }
    function show(text, step, failed) {
      var box = el("gl-boot");
      if (box === null) return;
      box.hidden = false;
      box.classList.toggle("gl-boot-failed", !!failed);
      box.querySelector(".gl-boot-phase").textContent = text;
      box.querySelector(".gl-boot-bar > span").style.transform = "scaleX(" + (step / (STEPS + 1)).toFixed(3) + ")";
    }
    function status(msg) {
      if (state !== "loading") return;
      var known = PHASES[msg];
      if (known) { phase = known[0]; show("Starting the lab: " + phase + " (" + known[1] + " of " + STEPS + ")…", known[1]); }
      else { state = "failed"; show("The lab could not start: " + msg, STEPS + 1, true); }
    }
    function ready() {
      if (state === "ready") return;
      state = "ready";
      dropArticle();              // (the worker may render before the pre-rendered view is drawn)
      var box = el("gl-boot");
      if (box !== null) {
        box.querySelector(".gl-boot-refused").textContent = "";
        show("The lab is ready.", STEPS + 1);
        setTimeout(function () { box.hidden = true; }, 1500);
      }
      document.querySelectorAll("[data-root-id]").forEach(function (r) { r.removeAttribute("aria-busy"); });
      if (window.glOffline) window.glOffline();
    }
    // The pre-rendered view is drawn: it replaces the static article; its controls say not ready.
    function dropArticle() {
      var art = el("gl-static");
      if (art !== null) art.remove();
    }
    function prerendered() {
      dropArticle();
      if (!loading()) return;
      var roots = [];
      document.querySelectorAll("[data-root-id]").forEach(function (r) { r.setAttribute("aria-busy", "true"); roots.push(r); });
      var walk = function (node) {
        node.querySelectorAll("*").forEach(function (e) {
          if (e.matches(CONTROL)) e.setAttribute("aria-disabled", "true");
          if (e.shadowRoot) {
            var s = document.createElement("style");
            s.textContent = CSS;
            e.shadowRoot.appendChild(s);
            walk(e.shadowRoot);
          }
        });
      };
      roots.forEach(walk);
    }
    function onControl(e) {
      var path = e.composedPath ? e.composedPath() : [], control = false;
      for (var i = 0; i < path.length; i++) {
        var n = path[i];
        if (n.nodeType !== 1) continue;
        if (n.matches(CONTROL)) control = true;
        if (n.hasAttribute("data-root-id")) return control;
      }
      return false;
    }
    var FREE_KEYS = ["Tab", "Shift", "Control", "Alt", "Meta", "Escape", "CapsLock"];
    ["pointerdown", "mousedown", "mouseup", "click", "dblclick", "keydown", "keypress", "beforeinput",
     "paste", "drop"].forEach(function (type) {
      window.addEventListener(type, function (e) {
        if (!loading() || !onControl(e)) return;
        if (type === "keydown" && FREE_KEYS.indexOf(e.key) >= 0) return;
        if ((type === "keydown" || type === "keypress") && (e.ctrlKey || e.metaKey) && e.key !== "v") return;
        e.preventDefault();
        e.stopImmediatePropagation();
        if (["pointerdown", "keydown", "paste", "drop", "beforeinput"].indexOf(type) < 0 && e.timeStamp - refusedAt < 1000) return;
        refusedAt = e.timeStamp;
        var box = el("gl-boot");
        if (box === null) return;
        box.hidden = false;
        box.querySelector(".gl-boot-refused").textContent =
          "Not ready yet: that " + (type.indexOf("key") === 0 || type === "beforeinput" ? "key" : type === "paste" ? "paste" : "click")
          + " was not applied. Python is still starting (" + phase + ").";
      }, true);
    });
    // BokehJS and Panel's scripts, in order, after the first paint.
    function load(urls) {
      var start = function () {
        var left = urls.length;
        var done = function () {
          whenBokeh.forEach(function (fn) { try { fn(); } catch (err) { console.error(err); } });
          whenBokeh = null;
          bokehDone();
        };
        if (!left) return done();
        urls.forEach(function (url) {
          var s = document.createElement("script");
          s.src = url;
          s.async = false;
          s.onload = function () { if (--left === 0) done(); };
          s.onerror = function () { state = "loading"; status("a script did not load (" + url + ")"); };
          document.head.appendChild(s);
        });
      };
      // After the first paint; a frame off screen (an embed below the fold) gets no animation
      // frame until it is scrolled into view, so a timer starts it there.
      var once = function () { if (start !== null) { var s = start; start = null; s(); } };
      var afterPaint = function () {
        requestAnimationFrame(function () { setTimeout(once, 0); });
        setTimeout(once, 300);
      };
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", afterPaint, {once: true});
      else afterPaint();
    }
    function watch(worker) {
      worker.addEventListener("message", function (event) {
        var msg = event.data;
        if (msg.type === "status") status(msg.msg);
      });
      worker.addEventListener("error", function (event) {
        state = "loading";
        status("its Python worker failed" + (event.message ? " (" + event.message + ")" : ""));
      });
      new MutationObserver(function () { if (!loading()) ready(); })
        .observe(document.body, {attributes: true, attributeFilter: ["class"]});
    }
    return {
      load: load, watch: watch, bokeh: bokeh, prerendered: prerendered, status: status,
      whenBokeh: function (fn) { if (whenBokeh === null) fn(); else whenBokeh.push(fn); },
      state: function () { return state; },
    };
  })();
</script>"""

BOOT_HTML = (
    '<div id="gl-boot" role="status" aria-live="polite">'
    '<span class="gl-boot-phase">Starting the lab: %s (1 of %d)…</span>'
    '<span class="gl-boot-refused"></span>'
    '<span class="gl-boot-bar" aria-hidden="true"><span style="transform: scaleX(%.3f)"></span></span></div>'
)


def head_html(extra: str = "") -> str:
    """The boot script and its CSS (and `extra`, e.g. the static article's styles) for <head>."""
    script = (BOOT_SCRIPT.replace("__PHASES__", json.dumps(PHASES)).replace("__STEPS__", str(STEPS))
              .replace("__CSS__", json.dumps(NOT_READY_CSS)))
    return f'<style id="gl-boot-css">{BOOT_CSS}</style>\n{extra}{script}'


def body_html(article: str = "") -> str:
    """The indicator and the chapter's static article, first in the page's <body>."""
    return BOOT_HTML % (PHASES["page"][0], STEPS, PHASES["page"][1] / (STEPS + 1)) + article


# How the deep-link script (buildtools/deeplinks.py), first in a chapter's <head>, begins.
PAGE_SCRIPT_MARK = "// Added by build.py: this page pre-renders chapter"
HEAD_SCRIPT_RE = re.compile(r'<script type="text/javascript" src="(\./[^"]+)"></script>\n?')


def apply(html: str, article: str = "", head: str = "") -> str:
    """Rewrite one converted page as the module says: the boot script first in <head>, Panel's
    and BokehJS's scripts loaded by it after the first paint, the indicator and `article` first in
    <body>, the pre-rendered view and the worker's render waiting for BokehJS."""
    patches.applies("panel.page-boot")
    head_end = html.index("</head>")
    urls = HEAD_SCRIPT_RE.findall(html[:head_end])
    if not any("/bokeh-" in u for u in urls) or not any(u.endswith("/panel.min.js") for u in urls):
        raise BuildError(f"the page's <head> loads no BokehJS/Panel script as expected: {urls}")
    # es-module-shims serves Panel's ReactiveESM components (JSComponent, ReactComponent, AnyWidget),
    # which the lab has none of (verify.check_documents refuses one); it would also probe the page
    # with an inline script in an iframe, which the page's Content-Security-Policy refuses.
    urls = [u for u in urls if "/es-module-shims" not in u]
    html = HEAD_SCRIPT_RE.sub("", html[:head_end]) + html[head_end:]
    html = re.sub(r'<script type="esms-options">[^<]*</script>\n?', "", html)
    html = sub_once(r'<script type="text/javascript">\s*Bokeh\.set_log_level\("info"\);\s*</script>',
                    lambda m: "<script>\n  glBoot.whenBokeh(function () { Bokeh.set_log_level(\"info\"); });\n"
                              f"  glBoot.load({json.dumps(urls)});\n</script>", html, "Bokeh.set_log_level")
    # after the deep-link script if the page has one (buildtools/deeplinks.py): it starts the worker,
    # which must not wait for a stylesheet of `head`
    html = sub_once(r'<meta charset="utf-8">(\n<script>\n  ' + re.escape(PAGE_SCRIPT_MARK) + r'.*?</script>)?',
                    lambda m: m.group(0) + "\n" + head_html(head), html, "<meta charset>", flags=re.S)
    html = sub_once(r'<body class="pn-loading[^"]*">', lambda m: m.group(0) + "\n" + body_html(article), html, "<body>")
    html = sub_once(r'if \(document\.readyState != "loading"\) fn\(\);\s*'
                    r'else document\.addEventListener\("DOMContentLoaded", fn, \{once: true\}\);',
                    lambda m: "glBoot.whenBokeh(fn);", html, "the pre-rendered view's DOMContentLoaded")
    html = sub_once(r'root\.Bokeh\.embed\.embed_items\(docs_json, render_items\);',
                    lambda m: "root.Bokeh.embed.embed_items(docs_json, render_items)"
                              ".then(function () { requestAnimationFrame(glBoot.prerendered); });",
                    html, "the pre-rendered view's embed_items")
    html = sub_once(r'(const pyodideWorker = (?:new Worker\(|glPage\.takeWorker\(\))[^\n]*\n)',
                    lambda m: m.group(1) + "      glBoot.watch(pyodideWorker)\n", html, "new Worker(...)")
    return sub_once(r"\} else if \(msg\.type === 'render'\) \{\n",
                    lambda m: m.group(0) + "          await glBoot.bokeh\n", html, "the worker's render message")
