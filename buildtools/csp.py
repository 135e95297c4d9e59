"""Content-Security-Policy for the static site: the site's own origin and nothing else.

Every page carries its policy in a <meta> (so any static host enforces it): scripts only from the
site itself (and blob: URLs its own scripts make) or inline scripts whose exact text the build
hashed (`sha256-…` of each one the page runs: injected markup cannot run a script), WebAssembly
(`'wasm-unsafe-eval'`, which Pyodide needs) and code compiled at run time (`'unsafe-eval'`,
which BokehJS and Panel need), workers only from the site. Styles may be inline (BokehJS styles its views with them) but only
from here; images and fonts from here or `data:`; nothing may be framed, posted or fetched
elsewhere. A <meta> policy cannot reach a Web Worker (a worker's policy comes with its script's
response), so `build.py --serve` also sends WORKER_POLICY as a header with the worker and the
service worker scripts, as a host configured for the site should.
"""
from __future__ import annotations

import base64
import hashlib
import re

from . import patches
from .errors import sub_once

BASE = {
    "default-src": ["'self'"],
    # BokehJS and Panel compile code at run time ('unsafe-eval') and es-module-shims runs the
    # modules it rewrites from blob: URLs it makes itself; an inline script still needs its hash.
    "script-src": ["'self'", "'wasm-unsafe-eval'", "'unsafe-eval'", "blob:"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:", "blob:"],
    "font-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "worker-src": ["'self'", "blob:"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'none'"],
}
EXECUTABLE = {"", "text/javascript", "application/javascript", "module"}
INLINE_SCRIPT_RE = re.compile(r"<script(?P<attrs>[^>]*)>(?P<body>.*?)</script>", re.S)


def policy(extra_scripts: list[str] = ()) -> str:
    directives = {k: list(v) for k, v in BASE.items()}
    directives["script-src"] += list(extra_scripts)
    return "; ".join(f"{k} {' '.join(v)}" for k, v in directives.items())


WORKER_POLICY = policy()


def inline_hashes(html: str) -> list[str]:
    """`'sha256-…'` of every inline script the page runs (not JSON data, not a src= script)."""
    out = []
    for m in INLINE_SCRIPT_RE.finditer(html):
        attrs = m.group("attrs")
        if re.search(r"\bsrc\s*=", attrs):
            continue
        kind = re.search(r"""\btype\s*=\s*["']?([^"'\s>]+)""", attrs)
        if (kind.group(1).lower() if kind else "") not in EXECUTABLE:
            continue
        digest = base64.b64encode(hashlib.sha256(m.group("body").encode("utf-8")).digest()).decode()
        out.append(f"'sha256-{digest}'")
    return sorted(set(out))


def add_policy(html: str) -> str:
    """The page with its policy first in <head> (after <meta charset>): call it last, once no
    inline script will change."""
    patches.applies("panel.page-policy")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(inline_hashes(html))}">'
    return sub_once(r'<meta charset="utf-8">', lambda m: m.group(0) + "\n" + meta, html,
                    "<meta charset> (to put the Content-Security-Policy first)")
