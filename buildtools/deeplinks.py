"""A page per chapter that knows which chapter it is: the scripts first in each page's <head>.

DEEP_LINK_SCRIPT sends `?chapter=<other>` to that chapter's page before anything loads and starts
the worker with the page's chapter, before the page's body is parsed; EMBED_SCRIPT hides in the pre-rendered page what an embed
leaves out; the dark theme's snippet (app.widgets.dark.head_html) colours the page before its
first paint.
"""
from __future__ import annotations

import json
import re

from gleam_lab.app.widgets.dark import head_html   # the theme on the root before the first paint (dark.HEAD_HTML)

from . import patches
from .boot import PAGE_SCRIPT_MARK
from .errors import BuildError, sub_once

# Put first in every page's <head>. Chapter pages (chapter-<id>.html; index.html is chapter 0)
# differ only in the document they pre-render. `?chapter=<id>` naming another chapter replaces
# the page by that chapter's page before anything else loads, so what shows while Python starts
# is always the chapter Python will show. The worker is started as main.js?chapter=<this page's
# chapter> (plus the page's other query parameters): app.lab reads its first chapter there.
# It is started here, first in <head>, not where Panel's script would start it (after the article's
# parse and layout): Python starts that much sooner. Panel's script
# takes it (glPage.takeWorker()) and sets its handlers; what the worker said before then is held
# and told to them, in order, right after that script (a microtask: before any later message).
DEEP_LINK_SCRIPT = """<script>
  {mark} {page}, and starts its Python worker.
  var glPage = (function () {{
    var page = {page}, ids = {ids};
    var query = new URLSearchParams(window.location.search), wanted = query.get("chapter");
    var leaving = wanted !== page && ids.indexOf(wanted) >= 0;
    if (leaving) {{
      window.location.replace("{prefix}" + encodeURIComponent(wanted) + ".html"
                              + window.location.search + window.location.hash);
    }} else {{
      query.set("chapter", page);
    }}
    var workerQuery = "?" + query.toString(), worker = null, held = [];
    var hold = function (event) {{ held.push(event); }};
    var start = function () {{
      worker = new Worker({worker} + workerQuery);
      worker.addEventListener("message", hold);
      worker.addEventListener("error", hold);
    }};
    if (!leaving) start();
    return {{
      chapter: page,
      takeWorker: function () {{
        if (worker === null) start();
        queueMicrotask(function () {{
          worker.removeEventListener("message", hold);
          worker.removeEventListener("error", hold);
          held.splice(0).forEach(function (e) {{
            worker.dispatchEvent(e.type === "message" ? new MessageEvent("message", {{data: e.data}})
                                                      : new ErrorEvent("error", {{message: e.message}}));
          }});
        }});
        return worker;
      }},
    }};
  }})();
</script>"""
# Also first in every page's <head>: an embed (`?embed=1`, or `?embed=widget` with `hide=a,b`)
# must not show what it leaves out -- the table of contents and the Share tools; for a widget alone
# also the title, the prose, the link tools and the hidden controls -- during the seconds Python takes to start.
# Before BokehJS renders the pre-rendered document (on DOMContentLoaded; this listener is added
# first), the models carrying those css classes are made invisible in the document's JSON.
EMBED_SCRIPT = """<script>
  // Added by build.py: an embed hides the same parts in the pre-rendered page as app.lab does.
  (function (page) {
    var query = new URLSearchParams(window.location.search), embed = query.get("embed");
    if (["1", "true", "yes", "widget"].indexOf(embed) < 0) return;
    var hidden = ["gl-toc", "gl-start", "gl-pager", "gl-ch" + page + "-share-toggle", "gl-ch" + page + "-share-tools"];
    if (embed === "widget") {
      document.documentElement.classList.add("gl-embed-widget");   // hides the static article too
      hidden.push("gl-title", "gl-prose");
      ["link", "embed", "embed-hide"].forEach(function (n) { hidden.push("gl-ch" + page + "-" + n); });
      (query.get("hide") || "").split(",").forEach(function (n) { if (n) hidden.push("gl-ch" + page + "-" + n); });
    }
    var walk = function (node) {
      if (node === null || typeof node !== "object") return;
      var attrs = node.attributes;
      if (node.type === "object" && attrs && Array.isArray(attrs.css_classes)
          && attrs.css_classes.some(function (c) { return hidden.indexOf(c) >= 0; })) attrs.visible = false;
      for (var key in node) walk(node[key]);
    };
    document.addEventListener("DOMContentLoaded", function () {
      document.querySelectorAll('script[type="application/json"]').forEach(function (el) {
        try { var docs = JSON.parse(el.textContent); } catch (e) { return; }
        walk(docs);
        el.textContent = JSON.stringify(docs);
      });
    });
  })(__PAGE__);
</script>"""
PAGE_PREFIX = "chapter-"
WORKER_RE = r'new Worker\("\./([\w.-]+\.js)"\)'


def page_name(chapter: str) -> str:
    return f"{PAGE_PREFIX}{chapter}.html"


def add_deep_links(html: str, chapter: str, chapters: list[str]) -> str:
    """Mark `html` as chapter `chapter`'s page: the redirect script, which starts the worker with
    the chapter in its URL, the embed script, and Panel's script taking that worker."""
    patches.applies("panel.page-deep-links")
    if chapter not in chapters or any(not re.fullmatch(r"[\w-]+", c) for c in chapters):
        raise BuildError(f"chapter ids must be plain names: {chapter!r} in {chapters}")
    workers = re.findall(WORKER_RE, html)
    if len(workers) != 1:
        raise BuildError(f"expected one new Worker(...) in the page, found {len(workers)}: Panel's template changed?")
    script = (DEEP_LINK_SCRIPT.format(mark=PAGE_SCRIPT_MARK, page=json.dumps(chapter), ids=json.dumps(chapters),
                                      prefix=PAGE_PREFIX, worker=json.dumps(f"./{workers[0]}"))
              + "\n" + EMBED_SCRIPT.replace("__PAGE__", json.dumps(chapter)) + "\n" + head_html())
    html = sub_once(r'<meta charset="utf-8">', lambda m: m.group(0) + "\n" + script, html,
                     "the page's <meta charset> (to put the deep-link script first)")
    return sub_once(WORKER_RE, lambda m: "glPage.takeWorker()", html, "new Worker(...) in the page")
