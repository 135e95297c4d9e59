"""`panel convert --to pyodide-worker`, then point everything it wrote at the site itself.

One page per chapter: Panel's converter runs once per chapter in one process (panel_pages.py),
each page pre-rendering its own chapter; all pages share one worker script and all assets.
See buildtools/deeplinks.py for how a page and its worker agree on the chapter, boot.py for
what a page does while Python starts, csp.py for its Content-Security-Policy.

With PANEL_CDN_ROOT=./panel-cdn/ Panel writes its own JS/CSS URLs relative; what is left:
BokehJS from cdn.bokeh.org (served from the site, its main bundle with one rewrite of its own:
buildtools/bokehjs.py), pyodide.js from jsDelivr, the worker's micropip install (the packages
fetched and unpacked by the worker itself instead, numpy too: buildtools/unpack.py; only a shared
library would be named to loadPyodide()), loadPyodide()'s arguments, and the Python the worker
runs first (buildtools/worker_prelude.py). Each rewrite must match exactly once: a Panel upgrade
that changes its templates stops the build instead of leaving an external URL behind.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from . import boot, csp, meta, patches, pins, unpack, worker_prelude
from .bokehjs import BOKEH_DIR, copy_bokeh_js
from .deeplinks import add_deep_links, page_name  # noqa: F401  (page_name: also the tests')
from .errors import BuildError, sub_once
from .worker_prelude import (  # noqa: F401  (the hooks: also the tests')
    FAST_SERIALIZE, GC_AFTER_RENDER, LAZY_TEMPLATES, LIGHT_GLYPH_PARAMETERS, LIGHT_MODEL_HOOK, NO_DIAGNOSTICS,
    NO_GC_AT_START, RENDER_POSTED_RE, WORKER_PRELUDE)

PANEL_CDN_ROOT = "./panel-cdn/"
PYODIDE_DIR = f"pyodide/{pins.PYODIDE_VERSION}"  # site-relative folder of core files, lock and wheels

BOKEH_CDN_RE = re.compile(r"https://cdn\.bokeh\.org/bokeh/release/(bokeh(?:-[a-z]+)?)-(\d+\.\d+\.\d+)\.min\.js")


def convert_pages(app: Path, repo: Path, out: Path, chapters: list[str] | None = None,
                  env_extra: dict[str, str] | None = None) -> tuple[dict[str | None, str], str, str]:
    """Convert `app` as `panel convert APP --to pyodide-worker --requirements <project>` does,
    once per chapter (GLEAM_CHAPTER set), in one Python process.

    Returns ({chapter: html}, worker_js, app_name); without chapters, {None: html}. The worker
    script must come out the same for every chapter (it is shipped once).
    """
    patches.applies("panel.convert-in-process")
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PANEL_CDN_ROOT=PANEL_CDN_ROOT)
    env.pop("GLEAM_CHAPTER", None)
    env.pop("GLEAM_TYPESET", None)
    env.update(env_extra or {})
    here = str(Path(__file__).resolve().parents[1])  # so that `-m buildtools.panel_pages` imports
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([str(repo), here] + [p for p in [env.get("PYTHONPATH")] if p]))
    keys = list(chapters) if chapters else [None]
    cmd = [sys.executable, "-m", "buildtools.panel_pages", str(app), str(out), pins.PROJECT_NAME,
           *(chapters or [])]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True)
    name = app.stem
    pages, workers = {}, set()
    for key in keys:
        folder = out / (key or "_")
        html, js = folder / f"{name}.html", folder / f"{name}.js"
        if proc.returncode != 0 or not html.exists() or not js.exists():
            raise BuildError(f"panel convert failed for {app} (chapter {key!r}):\n{proc.stdout}\n{proc.stderr}")
        pages[key] = html.read_text(encoding="utf-8")
        workers.add(js.read_text(encoding="utf-8"))
    if len(workers) != 1:
        raise BuildError("panel convert wrote a different worker script for different chapters: "
                         "the pages could not share one main.js")
    return pages, workers.pop(), name


def run_panel_convert(app: Path, repo: Path, out: Path) -> tuple[str, str, str]:
    """Return (html, worker_js, app_name) as panel convert writes them (no chapter chosen)."""
    pages, js, name = convert_pages(app, repo, out)
    return pages[None], js, name


def rewrite_html(html: str) -> tuple[str, list[str]]:
    """BokehJS URLs -> ./bokeh/...; returns (html, bokeh bundle file names the page loads).

    The static site's prose is typeset when it is built (content.typeset), so no page needs
    BokehJS's MathJax bundle; verify.check_documents refuses a document in which a
    model would ask for it (BokehJS would fetch MathJax from a CDN instead). Nor its WebGL one.
    """
    patches.applies("panel.page-local-bokehjs")
    bundles = []

    def local(m: re.Match) -> str:
        fname = f"{m.group(1)}-{m.group(2)}.min.js"
        bundles.append(fname)
        return f"./{BOKEH_DIR}/{fname}"

    html = BOKEH_CDN_RE.sub(local, html)
    if not bundles:
        raise BuildError("the converted page loads no BokehJS from cdn.bokeh.org: Panel's template changed?")
    # BokehJS's WebGL bundle draws only plots with output_backend="webgl": the lab has none
    # (verify.check_documents refuses one), so the page does not load it.
    gl = [b for b in bundles if b.startswith("bokeh-gl-")]
    for name in gl:
        html = sub_once(r'<script type="text/javascript" src="\./' + BOKEH_DIR + "/" + re.escape(name)
                        + r'"></script>\n?', "", html, f"the {name} <script>")
    return html, [b for b in bundles if b not in gl]


# Panel's worker template keeps each incoming patch in ONE global and applies it in an
# un-awaited runPythonAsync: when two patches arrive together (a click while the loss figure
# streams its auto-ranged axis back), the first is overwritten and the click is lost. Queue
# them instead and drain the queue in arrival order.
PATCH_HANDLER_RE = (r"self\.pyodide\.globals\.set\('patch', msg\.patch\)\s*"
                    r"self\.pyodide\.runPythonAsync\(`\s*from panel\.io\.pyodide import _convert_json_patch\s*"
                    r"state\.curdoc\.apply_json_patch\(_convert_json_patch\(patch\), setter='js'\)\s*`\)")
QUEUED_PATCH_HANDLER = ("""if (!self._glPatches) {
      self.pyodide.runPython('""" + worker_prelude.python("queued_patches_init").strip() + """')
      self._glPatches = self.pyodide.globals.get('_gl_patches')
    }
    self._glPatches.append(msg.patch)
    self.pyodide.runPythonAsync(`""" + textwrap.indent(worker_prelude.python("queued_patches"), "    ") + """    `)""")


# Panel's template loads micropip and asks it for the packages once Python is up. Here the worker
# fetches them from the site's lock while the wasm compiles and unpacks them itself (micropip, and
# the round trip through it, are gone): this matches the whole install block.
INSTALL_BLOCK_RE = (r"\n[ \t]*await self\.pyodide\.loadPackage\(\"micropip\"\);.*?"
                    r"micropip\.install\(\[(.*?)\]\);.*?\}\s*catch\s*\(e\)\s*\{.*?\}\);\s*\}\n")


def install_names(listed: str, lock_keys: set[str], installs: tuple[str, ...]) -> list[str]:
    """The names in Panel's micropip.install list (its Panel/Bokeh wheel URLs as plain names)
    plus `installs`, each one a package of the site's lock."""
    try:
        items = ast.literal_eval("[" + listed + "]")
    except (ValueError, SyntaxError) as e:
        raise BuildError(f"cannot parse the worker's micropip.install list: {listed!r}") from e
    names = []
    for item in [*items, *installs]:
        base = item.rsplit("/", 1)[-1]
        if base.endswith(".whl"):
            item = base.split("-")[0].lower()
        if item not in names:
            names.append(item)
    unknown = [n for n in names if n not in lock_keys]
    if unknown:
        raise BuildError(f"the worker would ask a package index for {unknown}: not in the site's lock")
    return names


STARTUP_CATCH = """
startApplication().catch((e) => {
  console.error(e)
  self.postMessage({type: 'status', msg: `Python did not start: ${e}`})
})
"""


# The page's side of the same thing: while the worker is busy, Panel's page queues a changed
# property until the worker is idle but sends any other event (a button's click) at once, so a
# click can overtake a value changed before it (a slider moved, then Reset to defaults: the reset
# lands first and the queued value after it, undoing it). Queue every event instead, in order; a
# newer value of a property replaces an older one only if nothing else was queued after that one.
SEND_QUEUE_RE = (r"\} else if \(pyodideWorker\.busy && event\.model && event\.attr\) \{\s*"
                 r"let events = \[\].*?pyodideWorker\.queue = events\s*return\s*\}")
ORDERED_SEND_QUEUE = """} else if (pyodideWorker.busy) {
          const queue = pyodideWorker.queue
          for (let i = queue.length - 1; event.attr && i >= 0 && queue[i].attr; i--) {
            if (queue[i].model === event.model && queue[i].attr === event.attr) {
              queue.splice(i, 1)
              break
            }
          }
          queue.push(event)
          return
        }"""


def rewrite_send_queue(html: str) -> str:
    patches.applies("panel.ordered-send-queue")
    return sub_once(SEND_QUEUE_RE, lambda m: ORDERED_SEND_QUEUE, html, "the page's send_change queue", flags=re.S)


def rewrite_worker(js: str, lock: dict, installs: tuple[str, ...] = pins.WORKER_INSTALLS,
                   wheels: Path | None = None) -> str:
    """`lock`: the site's pyodide-lock.json. The worker unpacks the wheels of the packages it
    installs itself (buildtools.unpack), each checked in `wheels` (their folder) if given;
    Pyodide loads only shared libraries and what links against them."""
    for name in ("panel.worker-local-pyodide", "pyodide.unpack-wheels", "panel.queued-patches", "panel.startup-catch"):
        patches.applies(name)
    blocks = list(re.finditer(INSTALL_BLOCK_RE, js, flags=re.S))
    if len(blocks) != 1:
        raise BuildError(f"expected one micropip install block in the worker, found {len(blocks)}: "
                         "Panel's template changed?")
    names = install_names(blocks[0].group(1), set(lock["packages"]), installs)
    by_pyodide, by_worker = unpack.split(lock, names)
    for key in by_worker if wheels else ():
        unpack.check_stored(wheels / lock["packages"][key]["file_name"])
    js = js[:blocks[0].start()] + "\n" + js[blocks[0].end():]
    js = sub_once(r'importScripts\("[^"]*/pyodide\.js"\);',
                  lambda m: unpack.fetch_js(lock, by_worker, PYODIDE_DIR)
                  + f'importScripts("./{PYODIDE_DIR}/pyodide.js");', js, "importScripts(pyodide.js)")
    load = (
        "self.pyodide = await loadPyodide({\n"
        f'    indexURL: new URL("./{PYODIDE_DIR}/", self.location.href).href,\n'
        f'    env: {{HOME: "/home/pyodide", PANEL_CDN_ROOT: "{PANEL_CDN_ROOT}"}},\n'
        f"    packages: {json.dumps(by_pyodide)},\n"
        "    errorCallback: (msg) => console.error(msg),\n"
        "  });" + unpack.INSTALL_JS + worker_prelude.prelude()
    )
    js = sub_once(r"self\.pyodide = await loadPyodide\(\);", lambda m: load, js, "loadPyodide()")
    js = sub_once(PATCH_HANDLER_RE, lambda m: QUEUED_PATCH_HANDLER, js, "the worker's patch handler")
    js = sub_once(RENDER_POSTED_RE, lambda m: m.group(0) + GC_AFTER_RENDER, js, "the worker's render message",
                  flags=re.S)
    # A failure before Panel's own try (loading Python or a package) would leave the page waiting
    # forever: report it as a status, which the page names (buildtools.boot).
    return sub_once(r"\nstartApplication\(\)\s*$", lambda m: STARTUP_CATCH, js, "startApplication()")


# Panel's dist files the page always needs, relative to panel/dist/.
PANEL_BASE = ("panel.min.js", "css", "assets")   # (no es-module-shims: buildtools/boot.py)
PANEL_REF_RE = re.compile(r"\./panel-cdn/(\d+\.\d+\.\d+[^/]*)/dist/([^\"'\s)?#<>]+)")


def copy_panel_dist(html: str, site: Path) -> list[str]:
    """Copy Panel's JS/CSS into site/panel-cdn/<version>/dist/: a base set + whatever the page names."""
    import panel
    from panel.io.resources import JS_VERSION
    dist = Path(panel.__file__).parent / "dist"
    dest = site / "panel-cdn" / JS_VERSION / "dist"
    wanted = set(PANEL_BASE)
    for m in PANEL_REF_RE.finditer(html):
        if m.group(1) != JS_VERSION:
            raise BuildError(f"the page references Panel dist {m.group(1)}, installed is {JS_VERSION}")
        wanted.add(m.group(2))
    missing = []
    for rel in sorted(wanted):
        src = dist / rel
        if src.is_dir():
            shutil.copytree(src, dest / rel, dirs_exist_ok=True)
        elif src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
        else:
            missing.append(rel)
    if missing:
        raise BuildError(f"the page references Panel files that panel/dist does not have: {missing}")
    shutil.copy2(dist / "images" / "favicon.ico", site / "favicon.ico")
    return sorted(wanted)


def _head(html: str) -> str:
    return html[: html.index("<body")]


def convert(app: Path, repo: Path, site: Path, lock: dict, chapters: list[str] | None = None,
            articles: dict[str, str] | None = None, head: str = "", typeset: Path | None = None,
            site_url: str | None = None) -> dict:
    """Write the entry pages (index.html, and chapter-<id>.html per chapter), the worker, and
    the JS/CSS they load; `articles` (chapter -> HTML) is what each page shows before any large
    script runs, styled by `head` (buildtools.boot); `typeset` is content/typeset.json as the site's
    wheel ships it, for the pre-rendered prose to be the same; `site_url`, the site's public address,
    names each page's preview card in its link preview (buildtools.meta). Returns what was written."""
    with tempfile.TemporaryDirectory() as tmp:
        raw, js, name = convert_pages(app, repo, Path(tmp), chapters,
                                      {"GLEAM_TYPESET": str(typeset)} if typeset else None)
    rewritten = {chapter: rewrite_html(html) for chapter, html in raw.items()}
    # In-page navigation needs every chapter's JS/CSS on every page: the heads must agree.
    if len({(_head(html), tuple(b)) for html, b in rewritten.values()}) != 1:
        raise BuildError("the chapters' pages load different JS/CSS; every page must load them all")
    bundles = next(iter(rewritten.values()))[1]
    articles = articles or {}
    pages = {chapter: csp.add_policy(boot.apply(rewrite_send_queue(
                 html if chapter is None else add_deep_links(html, chapter, list(chapters))),
                 articles.get(chapter, ""), head))
             for chapter, (html, _) in rewritten.items()}
    js = rewrite_worker(js, lock, wheels=site / PYODIDE_DIR)

    front = next(iter(pages))  # the app's first chapter ("0"), or the only page
    (site / "index.html").write_text(meta.add_meta(pages[front], None, site_url), encoding="utf-8")
    written = ["index.html"]
    for chapter, html in pages.items():
        if chapter is not None:
            (site / page_name(chapter)).write_text(meta.add_meta(html, chapter, site_url), encoding="utf-8")
            written.append(page_name(chapter))
    manifest = meta.write_manifest(site)
    previews = meta.write_previews(site, [c for c in pages if c is not None])
    (site / f"{name}.js").write_text(js, encoding="utf-8")
    copy_bokeh_js(bundles, site)
    panel_files = copy_panel_dist("\n".join(pages.values()), site)
    return {"worker": f"{name}.js", "pages": written, "manifest": manifest, "previews": previews, "bokeh": bundles,
            "panel": panel_files}
