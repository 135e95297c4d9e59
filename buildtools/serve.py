"""Serve site/ on 127.0.0.1 with the MIME types and cache headers a Pyodide site needs.

Cache policy: the entry page, the worker script, the lock and the project's own wheel
change with every build under the same name, so they are `no-cache` (revalidated every
visit). Everything else whose path carries a version (pyodide/0.27.7/..., panel-cdn/1.9.4/...,
bokeh-3.9.2.min.js, numpy-2.0.2-...whl) never changes under that name: `immutable`.

As a real static host: a file with precompressed copies (`name.br`, `name.gz`, buildtools.compress)
is sent compressed to a browser that accepts it, brotli first (`Content-Encoding: br` or `gzip`,
`Vary: Accept-Encoding`);
no directory is ever listed, and the server names no software or version.
"""
from __future__ import annotations

import email.utils
import os
import re
import sys
import threading
import webbrowser
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from . import pins
from .compress import ENCODINGS, compressible
from .csp import WORKER_POLICY

MIME = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".whl": "application/octet-stream",
    ".zip": "application/zip",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".map": "application/json",
    ".woff2": "font/woff2",
}
NO_CACHE = "no-cache"
IMMUTABLE = "public, max-age=31536000, immutable"
VERSIONED = re.compile(r"(^|[/-])v?\d+\.\d+\.\d+")


def cache_control(rel: str) -> str:
    """The Cache-Control value for a site-relative path (no leading slash)."""
    name = rel.rsplit("/", 1)[-1]
    if (rel == "" or name.endswith(".html") or name == "pyodide-lock.json"
            or name.startswith(f"{pins.PROJECT_WHEEL}-") or "/" not in rel):
        # the page, the worker script at the top level, the lock, the project's wheel
        return NO_CACHE
    return IMMUTABLE if VERSIONED.search(rel) else NO_CACHE


def accepted_encodings(header: str) -> set[str]:
    """The content codings an Accept-Encoding value allows ("br;q=0" refuses br)."""
    accepted = set()
    for part in header.lower().split(","):
        coding, _, params = part.strip().partition(";")
        q = params.strip()
        if q.startswith("q="):
            try:
                if float(q[2:]) <= 0:
                    continue
            except ValueError:
                continue
        if coding:
            accepted.add(coding)
    return accepted


class SiteHandler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: a cold load makes many requests
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **MIME}
    server_version, sys_version = "static", ""

    def version_string(self):
        return self.server_version

    def end_headers(self):
        rel = self.path.split("?", 1)[0].split("#", 1)[0].lstrip("/")
        if rel.endswith("/") or rel == "":
            rel += "index.html"
        self.send_header("Cache-Control", cache_control(rel))
        if "/" not in rel and rel.endswith(".js"):     # the worker and the service worker (csp.py)
            self.send_header("Content-Security-Policy", WORKER_POLICY)
        self.send_header("X-Content-Type-Options", "nosniff")
        if compressible(Path(rel)):
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def list_directory(self, path):
        self.send_error(404, "Not found")
        return None

    def send_head(self):
        """The file's precompressed copy, if it has one the browser takes (brotli before gzip)."""
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?", 1)[0].endswith("/"):
            path = os.path.join(path, "index.html")
        accepts = accepted_encodings(self.headers.get("Accept-Encoding", ""))
        encoding, packed = next(((e, path + suffix) for e, suffix in ENCODINGS
                                 if e in accepts and os.path.isfile(path + suffix)), (None, None))
        if encoding is None or not os.path.isfile(path):
            return super().send_head()
        # Dated by the file itself (the build keeps an unchanged file's time), so that a browser
        # or a service worker revalidating it gets a 304, as for any other file.
        mtime = int(os.stat(path).st_mtime)
        if self._not_modified_since(mtime):
            self.send_response(304)
            self.send_header("Last-Modified", self.date_time_string(mtime))
            self.end_headers()
            return None
        f = open(packed, "rb")
        size = os.fstat(f.fileno()).st_size
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", encoding)
        self.send_header("Content-Length", str(size))
        self.send_header("Last-Modified", self.date_time_string(mtime))
        self.end_headers()
        return f

    def _not_modified_since(self, mtime: int) -> bool:
        since = self.headers.get("If-Modified-Since")
        if not since or "If-None-Match" in self.headers:
            return False
        try:
            return mtime <= email.utils.parsedate_to_datetime(since).timestamp()
        except (TypeError, ValueError, IndexError, OverflowError):
            return False

    def log_message(self, format, *args):  # quieter: only errors
        if len(args) >= 2 and str(args[1]).startswith(("4", "5")):
            super().log_message(format, *args)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A browser that drops a connection (a page that redirects or closes while its scripts
        # load: `index.html?chapter=7` leaving for chapter-7.html) is not a server error.
        if isinstance(sys.exc_info()[1], (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def make_server(site: Path, port: int, host: str = "127.0.0.1") -> SiteServer:
    return SiteServer((host, port), partial(SiteHandler, directory=str(site)))


def open_later(url: str) -> None:
    """Open url in a graphical browser, if this machine has one, once the server runs.

    Without a display only text browsers could be found, which would take over the
    terminal the server logs to: then just print the URL.
    """
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("No display, so no browser to open: visit the URL above.", flush=True)
        return
    try:
        webbrowser.get()
    except webbrowser.Error:
        print("No browser found to open: visit the URL above.", flush=True)
        return
    threading.Timer(0.5, webbrowser.open, args=(url,)).start()


def serve(site: Path, port: int, open_browser: bool = False, meanwhile=None) -> None:
    """Serve `site` until Ctrl+C; `meanwhile()`, if given, runs in a thread once the server
    listens (the build's last stage), and stops with it."""
    server = make_server(site, port)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"Serving {site} at {url} (Ctrl+C to stop)", flush=True)
    if open_browser:
        open_later(url)
    if meanwhile is not None:
        threading.Thread(target=meanwhile, name="meanwhile", daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
