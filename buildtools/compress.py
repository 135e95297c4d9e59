"""Precompressed copies of the site's files, written by the build and sent by `build.py --serve`
the way a static host sends them (`Content-Encoding: gzip` to a browser that accepts it).

Only files that shrink: text (HTML, JavaScript, JSON, CSS, SVG), WebAssembly, and the wheels the
build writes stored (their members uncompressed); the official wheels and zips are compressed
already and are sent as they are. A copy is `name.gz` beside `name`, made deterministically (no timestamp in
the gzip header), so the same build gives the same bytes.
"""
from __future__ import annotations

import gzip
from pathlib import Path

COMPRESSIBLE = (".html", ".js", ".mjs", ".json", ".css", ".svg", ".map", ".txt", ".wasm",
                ".whl")    # a wheel only if stored uncompressed (buildtools.bytecode): the rest do not shrink
MIN_BYTES = 1024            # smaller files are not worth a second copy
MAX_RATIO = 0.9             # a copy is kept only if at most this fraction of the original


def compressible(path: Path) -> bool:
    return path.suffix in COMPRESSIBLE


def precompress(site: Path) -> tuple[int, int, int]:
    """Write `f.gz` for every compressible file of `site` that shrinks enough. Returns
    (files compressed, their bytes, their compressed bytes)."""
    count = before = after = 0
    for f in sorted(site.rglob("*")):
        if not (f.is_file() and compressible(f)) or f.stat().st_size < MIN_BYTES:
            continue
        data = f.read_bytes()
        packed = gzip.compress(data, compresslevel=9, mtime=0)
        if len(packed) <= MAX_RATIO * len(data):
            f.with_name(f.name + ".gz").write_bytes(packed)
            count, before, after = count + 1, before + len(data), after + len(packed)
    return count, before, after
