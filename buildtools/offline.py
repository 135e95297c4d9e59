"""The service worker: a second visit that is fast and works offline, never a stale build.

`write_service_worker(site)` (the build's last step before compression) writes `site/sw.js`:

- BUILD is a hash of every file the site serves (their paths and bytes), so any change to the
  site is a new sw.js, which the browser installs on the next visit. The cache it fills is named
  `gleam-<BUILD>`; installing fills it with every file of that build (revalidated, never taken
  unchecked from the HTTP cache, but for PINNED files) and activating deletes every other `gleam-`
  cache: one build, whole.
- PINNED files are upstream copies whose path names their version (Pyodide's core and official
  wheels under pyodide/<v>/, BokehJS bundles named with Bokeh's version, Panel's dist under
  panel-cdn/<v>/, KaTeX under katex/<v>/): their bytes cannot change without the path changing, so
  they are served from the cache first, and installing takes them from the HTTP cache as they are.
- A pinned .wasm (Pyodide's interpreter) is the exception (PASS_THROUGH): the HTTP cache
  answers it first, as it holds it (`force-cache`: no request, stale or not, on any host; its path
  names its version), the network if it does not hold it, the service worker's cache only when both
  fail. Chromium keeps the machine code it compiles from a .wasm beside the HTTP cache's entry,
  from the first visit on; a copy from the service worker's cache has none until a visit has
  compiled it from there, and revalidating the entry would discard it.
- A wheel is fetched by Pyodide with the lock's sha256 as its subresource integrity: when that is
  the hash of this build's copy (INTEGRITY), the cache answers first, as for a pinned file; a page
  of a newer build asks for other bytes and gets them from the network. (The browser checks the
  integrity of whatever answers, so a mismatch fails loudly rather than running stale code.)
- Everything else (the pages, the worker script, the lock, the standard library's zip, a wheel
  asked for by another hash) comes from the network first, so that a page online always runs the
  build the server has now; the cache answers only when the network does not (offline).
- ON_DEMAND files (the research labs' trained weights under data/, which only the model inspector
  reads, 2.7 MB) are not fetched when the cache is filled: a first visit would otherwise download
  them whatever chapter it opens. They are network first too, and each one fetched is put in the
  cache then, so that a model the inspector has shown once is there offline. They count in BUILD.

The page registers it only once the lab is live (buildtools.boot calls `glOffline`), so that
filling the cache never competes with a first load.
"""
from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from . import pins
from .compress import COPY_SUFFIXES
from .meta import PREVIEWS

SW_NAME = "sw.js"
CACHE_PREFIX = "gleam-"

SW_JS = """// Written by build.py (buildtools/offline.py): caches build %(build)s, one build at a time.
const BUILD = %(build_json)s;
const CACHE = %(prefix_json)s + BUILD;
const FILES = %(files)s;
const PINNED = new Set(%(pinned)s);
const PASS_THROUGH = new Set(%(pass_through)s);
const INTEGRITY = %(integrity)s;
const ON_DEMAND = %(on_demand)s;
const SCOPE = new URL("./", self.location.href);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(FILES.map((f) => new Request(new URL(f, SCOPE),
                                                               {cache: PINNED.has(f) ? "default" : "no-cache"}))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith(%(prefix_json)s) && k !== CACHE)
                                    .map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// The site-relative file a request names ("" and "dir/" are index.html), or null if not ours.
function sitePath(url) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  let path = decodeURIComponent(url.pathname.slice(SCOPE.pathname.length));
  if (path === "" || path.endsWith("/")) path += "index.html";
  return path;
}

function cached(path) {
  return caches.open(CACHE).then((cache) => cache.match(new URL(path, SCOPE).href, {ignoreSearch: true}));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const path = sitePath(new URL(request.url));
  if (path === null) return;
  if ((PINNED.has(path) && !PASS_THROUGH.has(path))
      || (request.integrity && INTEGRITY[path] === request.integrity)) {
    event.respondWith(cached(path).then((hit) => hit || fetch(request)));
  } else {
    // (a navigation's request must go to fetch as it is: with any init it is no longer one)
    const network = PASS_THROUGH.has(path) ? fetch(request, {cache: "force-cache"}) : fetch(request);
    const keep = ON_DEMAND.some((dir) => path.startsWith(dir));
    event.respondWith(network.then((response) => {
      if (keep && response.ok) {
        const copy = response.clone();
        caches.open(CACHE).then((cache) => cache.put(new URL(path, SCOPE).href, copy));
      }
      return response;
    }).catch((err) => cached(path).then((hit) => {
      if (hit) return hit;
      throw err;
    })));
  }
});
"""

# In every page's <head>: what buildtools.boot calls once the lab is live.
REGISTER_SCRIPT = """<script>
  // Added by build.py (buildtools/offline.py): cache this build for the next visit, offline too.
  window.glOffline = function () {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
    navigator.serviceWorker.register("./%s").catch(function (err) {
      console.warn("the lab works, but will not be kept for offline use: " + err);
    });
  };
</script>""" % SW_NAME


REWRITTEN_CORE_FILES = ("python_stdlib.zip",)   # buildtools.bytecode.compile_stdlib
ON_DEMAND = ("data/",)          # site-relative folders cached when first fetched, not when installing


def is_on_demand(rel: str) -> bool:
    return rel.startswith(ON_DEMAND)


def is_pinned(rel: str) -> bool:
    """Whether a site-relative path is an upstream copy whose path names its version."""
    pyodide = f"pyodide/{pins.PYODIDE_VERSION}/"
    if rel.startswith(pyodide):
        name = rel[len(pyodide):]
        # (the standard library's zip and the official wheels are compiled to bytecode here)
        return name in pins.PYODIDE_CORE_FILES and name not in REWRITTEN_CORE_FILES
    return (rel.startswith("panel-cdn/") and rel.split("/")[1][:1].isdigit()) or (
        rel.startswith("bokeh/") and rel.endswith(".min.js")) or rel.startswith(f"katex/{pins.KATEX_VERSION}/")


def site_files(site: Path) -> list[str]:
    """Every file the site serves to its visitors (site-relative, sorted), without precompressed
    copies, sw.js and the link previews' cards (buildtools.meta: only link previews fetch them)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*")
                  if p.is_file() and p.suffix not in COPY_SUFFIXES and p.name != SW_NAME
                  and p.relative_to(site).parts[0] != PREVIEWS)


def digests(site: Path, files: list[str]) -> dict[str, bytes]:
    """The sha256 digest of each of `files` (site-relative)."""
    return {rel: hashlib.sha256((site / rel).read_bytes()).digest() for rel in files}


def build_id(site: Path, files: list[str], known: dict[str, bytes] | None = None) -> str:
    """A hash of `files`' paths and bytes (their digests, if `known`)."""
    known = known or digests(site, files)
    h = hashlib.sha256()
    for rel in files:
        h.update(rel.encode() + b"\0" + known[rel])
    return h.hexdigest()[:16]


def write_service_worker(site: Path) -> dict:
    """Write site/sw.js for what site/ holds now; returns {build, files, pinned, bytes} (of the files
    cached when it installs)."""
    files = site_files(site)
    known = digests(site, files)
    build = build_id(site, files, known)
    cached = [f for f in files if not is_on_demand(f)]     # when it installs
    pinned = [f for f in files if is_pinned(f)]
    # what Pyodide fetches a package with: its sha256 as subresource integrity
    integrity = {f: "sha256-" + base64.b64encode(known[f]).decode() for f in files if f.endswith(".whl")}
    (site / SW_NAME).write_text(SW_JS % {
        "build": build, "build_json": json.dumps(build), "prefix_json": json.dumps(CACHE_PREFIX),
        "files": json.dumps(cached, indent=0),
        "on_demand": json.dumps(list(ON_DEMAND)), "pinned": json.dumps(pinned, indent=0),
        "pass_through": json.dumps([f for f in pinned if f.endswith(".wasm")]),
        "integrity": json.dumps(integrity, indent=0)}, encoding="utf-8")
    return {"build": build, "files": len(cached), "pinned": len(pinned),
            "bytes": sum((site / f).stat().st_size for f in cached)}
