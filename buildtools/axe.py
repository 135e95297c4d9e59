"""axe-core for the browser tests: `npm pack axe-core@<pin>` into the build cache, checked
against its pinned npm integrity, and its `axe.min.js` extracted beside the tarball.

Fetched at set-up (`scripts/setup.sh --tests`) or by `python -m buildtools.axe [CACHE]`; the tests
only read the extracted file (`axe_script(cache)`) and never fetch anything.
"""
from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from . import pins
from .fetch import BuildError

SCRIPT = "axe.min.js"


def axe_script(cache: Path) -> Path:
    """Where the extracted axe.min.js of the pinned version lives in the cache (may not exist)."""
    return Path(cache) / "npm" / f"axe-core-{pins.AXE_VERSION}" / SCRIPT


def check_integrity(tgz: Path, integrity: str = pins.AXE_NPM_INTEGRITY) -> None:
    algo, b64 = integrity.split("-", 1)
    digest = base64.b64encode(hashlib.new(algo, tgz.read_bytes()).digest()).decode()
    if digest != b64:
        raise BuildError(f"{tgz.name}: npm integrity mismatch (expected {integrity}); refusing to use it")


def fetch_axe(cache: Path) -> Path:
    """The pinned axe.min.js, fetched with npm once, checked, extracted; returns its path."""
    folder = Path(cache) / "npm"
    folder.mkdir(parents=True, exist_ok=True)
    tgz = folder / f"axe-core-{pins.AXE_VERSION}.tgz"
    if not tgz.exists():
        if shutil.which("npm") is None:
            raise BuildError("npm is needed once to fetch axe-core (Debian: apt-get install npm)")
        proc = subprocess.run(["npm", "pack", f"axe-core@{pins.AXE_VERSION}", "--silent"], cwd=folder,
                              capture_output=True, text=True)
        if proc.returncode != 0 or not tgz.exists():
            raise BuildError(f"npm pack axe-core@{pins.AXE_VERSION} failed:\n{proc.stdout}\n{proc.stderr}")
    check_integrity(tgz)
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
