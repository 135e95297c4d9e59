"""axe-core for the browser tests: `npm pack axe-core@<pin>` into the build cache, checked
against its pinned npm integrity, and its `axe.min.js` extracted beside the tarball.

Fetched at set-up (`scripts/setup.sh --tests`) or by `python -m buildtools.axe [CACHE]`; the tests
only read the extracted file (`axe_script(cache)`) and never fetch anything.
"""
from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from . import pins
from .fetch import npm_tarball

SCRIPT = "axe.min.js"


def axe_script(cache: Path) -> Path:
    """Where the extracted axe.min.js of the pinned version lives in the cache (may not exist)."""
    return Path(cache) / "npm" / f"axe-core-{pins.AXE_VERSION}" / SCRIPT


def fetch_axe(cache: Path) -> Path:
    """The pinned axe.min.js, fetched with npm once, checked, extracted; returns its path."""
    tgz = npm_tarball(cache, "axe-core", pins.AXE_VERSION, pins.AXE_NPM_INTEGRITY)
    out = axe_script(cache)
    with tarfile.open(tgz) as tar:
        data = tar.extractfile(f"package/{SCRIPT}").read()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.exists() or out.read_bytes() != data:
        out.write_bytes(data)
    return out


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    print(fetch_axe(Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build-cache"))
