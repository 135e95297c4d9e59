"""Precompressed copies of the site's files, written by the build and sent by `build.py --serve`
the way a static host sends them: brotli (`Content-Encoding: br`) to a browser that takes it,
gzip to one that takes only that.

Only files that shrink: text (HTML, JavaScript, JSON, CSS, SVG), WebAssembly, and the archives the
build writes stored (the wheels and the standard library's zip, their members uncompressed); the
official archives are compressed already and are sent as they are. The copies are `name.br` and
`name.gz` beside `name`, made deterministically (no timestamp in the gzip header), so the same
build gives the same bytes.

Brotli at its best setting is smaller than gzip -9 on these files but slow to write, so each copy is kept in the
build cache by the sha256 of what it compresses: a rebuild compresses only the files that changed.
Each copy appears whole (written beside, then renamed), so a server may already be sending the site
while its copies are made (`build.py --serve` does, at a lower priority than the browser it serves).
"""
from __future__ import annotations

import gzip
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import brotli

COMPRESSIBLE = (".html", ".js", ".mjs", ".json", ".css", ".svg", ".map", ".txt", ".wasm",
                ".whl", ".zip")   # an archive only if stored uncompressed: the rest do not shrink
MIN_BYTES = 1024            # smaller files are not worth a second copy
MAX_RATIO = 0.9             # a copy is kept only if at most this fraction of the original
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))   # Content-Encoding and suffix, the server's preference
COPY_SUFFIXES = tuple(suffix for _, suffix in ENCODINGS)   # the copies beside a file, not files of the site
BROTLI = {"quality": 11, "lgwin": 24}


def compressible(path: Path) -> bool:
    return path.suffix in COMPRESSIBLE


def _brotli(data: bytes, cache: Path | None, used: set[str]) -> bytes:
    key = hashlib.sha256(data).hexdigest()
    used.add(key)
    kept = cache / f"{key}.br" if cache else None
    if kept and kept.exists():
        return kept.read_bytes()
    packed = brotli.compress(data, **BROTLI)     # (releases the GIL: files compress in parallel)
    if kept:
        kept.parent.mkdir(parents=True, exist_ok=True)
        _write_whole(kept, packed)
    return packed


def _lower_priority() -> None:
    """Lower this thread's scheduling priority (Linux: a thread has a nice value of its own)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass


def _write_whole(path: Path, blob: bytes) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(blob)
    tmp.replace(path)


def precompress(site: Path, cache: Path | None = None, progress=None,
                background: bool = False) -> tuple[int, int, int, int]:
    """Write `f.br` and `f.gz` for every compressible file of `site` that shrinks enough; brotli
    copies are kept in `cache` (stale ones pruned). Returns (files compressed, their bytes, their
    brotli bytes, their gzip bytes). `progress(files done, files, bytes done, bytes)` is called
    as each file is done (from the pool's threads, one call at a time), if given. `background`
    runs the work at a lower priority, for a site being served as it is compressed."""
    for left in site.rglob("*.part"):         # from a run that was stopped while writing
        left.unlink()
    files = [f for f in sorted(site.rglob("*"))
             if f.is_file() and compressible(f) and f.stat().st_size >= MIN_BYTES]
    used: set[str] = set()
    total, done, lock = sum(f.stat().st_size for f in files), [0, 0], threading.Lock()

    def told(size: int) -> None:
        if progress is not None:
            with lock:
                done[0] += 1
                done[1] += size
                progress(done[0], len(files), done[1], total)

    def one(f: Path) -> tuple[int, int, int]:
        data = f.read_bytes()
        packed = {".gz": gzip.compress(data, compresslevel=9, mtime=0)}
        if len(packed[".gz"]) > MAX_RATIO * len(data):
            told(len(data))
            return 0, 0, 0
        packed[".br"] = _brotli(data, cache, used)
        for suffix, blob in packed.items():
            _write_whole(f.with_name(f.name + suffix), blob)
        told(len(data))
        return len(data), len(packed[".br"]), len(packed[".gz"])

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2,
                            initializer=_lower_priority if background else None) as pool:
        sizes = [s for s in pool.map(one, files) if s[0]]
    if cache and cache.is_dir():
        for old in cache.glob("*.br"):
            if old.stem not in used:
                old.unlink()
    return len(sizes), sum(s[0] for s in sizes), sum(s[1] for s in sizes), sum(s[2] for s in sizes)
