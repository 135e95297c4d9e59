"""Check the built site fetches nothing from outside its own origin.

Two checks over every .html/.js/.mjs/.json/.css the site serves:
1. external fetches: an http(s) or protocol-relative URL in a place the browser would load
   it (src=, <link href=>, importScripts, fetch, import, url(), micropip.install, indexURL,
   a stylesheet/script/wheel URL inside JSON such as Bokeh's embedded document). Only the
   explicit ALLOWED pairs below may remain, each with the reason it is never fetched here.
2. local references in the entry pages (index.html, chapter-<id>.html) and the worker: every
   relative src/href/stylesheet URL resolves to a file in the site.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .compress import COPY_SUFFIXES
from .lock import verify_lock

SCANNED = (".html", ".js", ".mjs", ".json", ".css")
URL = r"""(?:https?:)?//[^\s"'`<>)\\]+"""
Q = r"""["'`]"""

FETCH_PATTERNS = [
    ("src", re.compile(rf"\bsrc\s*[:=]\s*{Q}\s*({URL})", re.I)),
    ("link href", re.compile(rf"<link\b[^>]*?\bhref\s*=\s*{Q}?\s*({URL})", re.I)),
    ("importScripts", re.compile(rf"importScripts\(\s*{Q}({URL})")),
    ("fetch", re.compile(rf"\bfetch\(\s*{Q}({URL})")),
    ("import()", re.compile(rf"\bimport\(\s*{Q}({URL})")),
    ("import from", re.compile(rf"\bfrom\s*{Q}({URL})")),
    ("css url()", re.compile(rf"url\(\s*[\"']?({URL})", re.I)),
    ("css @import", re.compile(rf"@import\s+{Q}({URL})", re.I)),
    ("pyodide URL option", re.compile(rf"\b(?:indexURL|lockFileURL|stdLibURL)\s*[:=]\s*{Q}({URL})")),
    ("asset URL in data", re.compile(
        rf"{Q}((?:https?:)?//[^\s\"'`<>]+?\.(?:js|mjs|css|whl|wasm|zip|json|woff2?|ttf|otf))(?:\?[^\"'`]*)?{Q}", re.I)),
]
MICROPIP_RE = re.compile(r"micropip\.install\(([^)]*)\)")
SOURCEMAP_RE = re.compile(r"[#@]\s*sourceMappingURL=\S+")


@dataclass(frozen=True)
class Allowed:
    file_glob: str  # site-relative path pattern (Path.match)
    url_prefix: str
    why: str


# Code paths in the shipped libraries that are never reached in this site. Each entry is
# scoped to one file and one URL prefix; any other external URL fails the build.
ALLOWED = (
    Allowed("bokeh/bokeh-3.*.min.js", "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-svg.js",
            "BokehJS's CDN MathJax provider: used only for a model that asks for TeX; the prose is "
            "typeset when the site is built and check_documents refuses any model with TeX left."),
    Allowed("bokeh/bokeh-3.*.min.js", "https://maps.googleapis.com/maps/api/js",
            "GMapPlot's loader; needs a Google API key and the lab has no GMapPlot "
            "(check_documents refuses one in the page's document)."),
)

# Bokeh models whose views fetch from a third party when rendered.
EXTERNAL_MODELS = {
    "GMapPlot": "loads the Google Maps API",
    "TablerIcon": "BokehJS loads the Tabler icon font from cdn.jsdelivr.net (e.g. Button(icon=...))",
    "WMTSTileSource": "map tiles from a tile server",
    "TMSTileSource": "map tiles from a tile server",
    "BBoxTileSource": "map tiles from a tile server",
    "QUADKEYTileSource": "map tiles from a tile server",
}


def _allowed(rel: Path, url: str) -> Allowed | None:
    for a in ALLOWED:
        if rel.match(a.file_glob) and url.startswith(a.url_prefix):
            return a
    return None


def scan_text(rel: Path, text: str) -> tuple[list[str], list[str]]:
    """(problems, allowed notes) for one file's text."""
    text = SOURCEMAP_RE.sub("", text)
    problems, notes = [], []
    hits = set()
    for what, pat in FETCH_PATTERNS:
        for m in pat.finditer(text):
            hits.add((what, m.group(1)))
    for m in MICROPIP_RE.finditer(text):
        for u in re.findall(URL, m.group(1)):
            hits.add(("micropip.install", u))
    for what, url in sorted(hits):
        a = _allowed(rel, url)
        if a:
            notes.append(f"{rel}: allowed {url} ({what}): {a.why}")
        else:
            problems.append(f"{rel}: external {what} -> {url}")
    return problems, notes


def scan_site(site: Path) -> tuple[list[str], list[str]]:
    problems, notes = [], []
    for f in sorted(site.rglob("*")):
        if f.is_file() and f.suffix in SCANNED:
            p, n = scan_text(f.relative_to(site), f.read_text(encoding="utf-8", errors="replace"))
            problems += p
            notes += n
    return problems, notes


LOCAL_REF_RE = re.compile(r"""(?:\bsrc|<link\b[^>]*?\bhref)\s*=\s*["'](\./[^"'#?]+)""", re.I)
JSON_REF_RE = re.compile(r"""["'](\./[^"'#?\s]+\.(?:css|js|mjs|svg|png|ico|woff2?|ttf))["']""")


def entry_pages(site: Path) -> list[Path]:
    """The site's pages: index.html and the chapters' pages beside it."""
    return sorted(site.glob("*.html"))


def check_local_refs(site: Path, worker: str) -> list[str]:
    problems = []
    for page in entry_pages(site):
        html = page.read_text(encoding="utf-8")
        refs = set(LOCAL_REF_RE.findall(html)) | set(JSON_REF_RE.findall(html))
        for ref in sorted(refs):
            if not (site / ref).is_file():
                problems.append(f"{page.name} references {ref}, which is not in the site")
    js = (site / worker).read_text(encoding="utf-8")
    for ref in re.findall(r'importScripts\("(\./[^"]+)"\)', js):
        if not (site / ref).is_file():
            problems.append(f"{worker} imports {ref}, which is not in the site")
    return problems


TEX_RE = re.compile(r"\$\$|\\\(|\\\[")
DOC_JSON_RE = re.compile(r'<script type="application/json"[^>]*>(.*?)</script>', re.S)


def doc_models(docs) -> list[tuple[str, dict]]:
    """(name, attributes) of every model object in a Bokeh document's JSON, in document order."""
    out = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "name" in node:
                out.append((node["name"], node.get("attributes") or {}))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(docs)
    return out


def models_needing_left_out_bundles(docs) -> list[str]:
    """Models of a Bokeh document (JSON) that need a bundle the site leaves out: MathJax for a
    string attribute with TeX delimiters in a model that does not say disable_math, WebGL for a
    plot drawn with it, es-module-shims for an ESM component."""
    found = []
    for name, attrs in doc_models(docs):
        if not isinstance(attrs, dict):
            continue
        if attrs.get("disable_math") is not True:
            found += [f"{name}.{key}: {value[:60]!r}" for key, value in attrs.items()
                      if isinstance(value, str) and TEX_RE.search(value)]
        if str(name).startswith("panel.models.esm."):
            found.append(f"{name}: an ESM component (the site ships no es-module-shims)")
        if attrs.get("output_backend") == "webgl":
            found.append(f"{name}.output_backend: 'webgl' (the site ships no bokeh-gl)")
    return found


def check_documents(site: Path) -> list[str]:
    """Refuse Bokeh models in the pre-rendered documents that fetch from third parties, and any
    that need a BokehJS/Panel bundle the site leaves out (MathJax: its prose is typeset when it is
    built; WebGL; es-module-shims)."""
    problems = []
    for page in entry_pages(site):
        html = page.read_text(encoding="utf-8")
        for model, why in EXTERNAL_MODELS.items():
            if re.search(rf'"name"\s*:\s*"{model}"', html):
                problems.append(f"{page.name}'s document has a {model}: {why}")
        for block in DOC_JSON_RE.findall(html):
            try:
                docs = json.loads(block)
            except ValueError as e:
                problems.append(f"{page.name}: an embedded document that is not JSON ({e}): cannot check it")
                continue
            problems += [f"{page.name}'s document needs a BokehJS bundle the site does not ship: {m}"
                         for m in models_needing_left_out_bundles(docs)]
    return problems


def verify_site(site: Path, worker: str, lock_rel: str) -> list[str]:
    """Run every check; return notes (allowed URLs). Raises BuildError listing all problems."""
    from .errors import BuildError
    problems, notes = scan_site(site)
    problems += check_local_refs(site, worker)
    problems += check_documents(site)
    problems += verify_lock(site / lock_rel)
    json.loads((site / lock_rel).read_text())
    if problems:
        raise BuildError("the site failed verification:\n  " + "\n  ".join(problems))
    return notes


def site_summary(site: Path) -> tuple[int, int, list[tuple[int, str]]]:
    files = [f for f in site.rglob("*") if f.is_file() and f.suffix not in COPY_SUFFIXES]
    sizes = sorted(((f.stat().st_size, str(f.relative_to(site))) for f in files), reverse=True)
    return sum(s for s, _ in sizes), len(files), sizes
