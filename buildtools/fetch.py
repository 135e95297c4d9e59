"""Fetch every input of the site into the cache folder, checking each against its pin.

Only the ordinary clients are used: `npm pack` for Pyodide's core, `pip download` for
wheels and sdists, `pip wheel` for the sdist builds and for the project itself.
Everything lands in build-cache/ so a second build needs no network.
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from . import patches, pins
from .errors import BuildError


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_sha256(path: Path, expected: str, what: str) -> None:
    """Refuse a file whose sha256 is not the pinned one."""
    actual = sha256_file(path)
    if actual != expected:
        raise BuildError(
            f"sha256 mismatch for {what} ({path.name}):\n  expected {expected}\n  got      {actual}\n"
            f"Refusing to build with it. Delete {path} to fetch it again if the pin is right."
        )


def run(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> None:
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.run(cmd, cwd=cwd, env=full_env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}")


def pip_cmd() -> list[str]:
    return [sys.executable, "-m", "pip", "--disable-pip-version-check"]


def npm_tarball(cache: Path, name: str, version: str, integrity: str) -> Path:
    """`npm pack name@version` into <cache>/npm/ once; the tarball, checked against its pinned
    npm integrity ("sha512-<base64>") on every call."""
    folder = Path(cache) / "npm"
    folder.mkdir(parents=True, exist_ok=True)
    tgz = folder / f"{name}-{version}.tgz"
    if not tgz.exists():
        if shutil.which("npm") is None:
            raise BuildError(f"npm is needed once to fetch {name} (Debian: apt-get install npm)")
        print(f"[build]   npm pack {name}@{version}", flush=True)
        proc = subprocess.run(["npm", "pack", f"{name}@{version}", "--silent"], cwd=folder,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0 or not tgz.exists():
            raise BuildError(f"npm pack {name}@{version} failed:\n{proc.stdout}\n{proc.stderr}")
    check_npm_integrity(tgz, integrity)
    return tgz


def check_npm_integrity(tgz: Path, integrity: str) -> None:
    """Refuse a tarball whose digest is not the pinned npm integrity."""
    algo, b64 = integrity.split("-", 1)
    digest = base64.b64encode(hashlib.new(algo, tgz.read_bytes()).digest()).decode()
    if digest != b64:
        raise BuildError(f"{tgz.name}: npm integrity mismatch (expected {integrity}); refusing to use it. "
                         f"Delete {tgz} to fetch it again if the pin is right.")


def extract_npm_package(tgz: Path, out: Path) -> Path:
    """The tarball's package/ folder as `out` (replaced whole, never half written)."""
    shutil.rmtree(out, ignore_errors=True)
    with tarfile.open(tgz) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.startswith("package/")]
        tmp = Path(tempfile.mkdtemp(dir=out.parent))
        tar.extractall(tmp, members=members, filter="data")
        (tmp / "package").rename(out)
        tmp.rmdir()
    return out


def fetch_pyodide_core(cache: Path) -> Path:
    """npm pack pyodide@X into the cache; return the extracted package/ folder."""
    tgz = npm_tarball(cache, "pyodide", pins.PYODIDE_VERSION, pins.PYODIDE_NPM_INTEGRITY)
    out = tgz.parent / f"pyodide-{pins.PYODIDE_VERSION}"
    if not (out / "pyodide-lock.json").exists():
        extract_npm_package(tgz, out)
    return out


def pip_download(spec: str, dest: Path, sha256: str, binary: bool = True) -> Path:
    """Download one pinned wheel (pure, for Python 3.12) or sdist into dest, check its hash."""
    dest.mkdir(parents=True, exist_ok=True)
    name, version = spec.split("==")
    found = _find_dist(dest, name, version, ".whl" if binary else ".tar.gz")
    if found is None:
        if binary:
            opts = ["--only-binary=:all:", "--python-version", "3.12", "--platform", "any",
                    "--implementation", "py", "--abi", "none"]
        else:
            # this package's sdist only: ":all:" would also build the sdist's build dependencies
            # (Cython, for pyyaml) from source to read its metadata, minutes of compiling
            opts = [f"--no-binary={name}"]
        print(f"[build]   pip download {spec} (not in the cache)", flush=True)
        run(pip_cmd() + ["download", "--no-deps", "-q", *opts, "-d", str(dest), spec])
        found = _find_dist(dest, name, version, ".whl" if binary else ".tar.gz")
        if found is None:
            raise BuildError(f"pip download {spec} produced no {'wheel' if binary else 'sdist'} in {dest}")
    check_sha256(found, sha256, spec)
    return found


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _find_dist(folder: Path, name: str, version: str, suffix: str) -> Path | None:
    for p in folder.iterdir():
        if p.name.endswith(suffix):
            stem = p.name[: -len(suffix)]
            parts = stem.split("-")
            if len(parts) >= 2 and _norm(parts[0]) == _norm(name) and parts[1] == version:
                return p
    return None


def fetch_compiled_source(cache: Path) -> Path:
    """The PyPI wheel that carries copies of official Pyodide packages."""
    name, version = pins.COMPILED_SOURCE.split("==")
    dest = cache / "pypi-compiled"
    dest.mkdir(parents=True, exist_ok=True)
    found = _find_dist(dest, name, version, ".whl")
    if found is None:
        print(f"[build]   pip download {pins.COMPILED_SOURCE}", flush=True)
        run(pip_cmd() + ["download", "--no-deps", "-q", "-d", str(dest), pins.COMPILED_SOURCE])
        found = _find_dist(dest, name, version, ".whl")
    if found is None:
        raise BuildError(f"pip download {pins.COMPILED_SOURCE} produced no wheel")
    check_sha256(found, pins.COMPILED_SOURCE_SHA256, pins.COMPILED_SOURCE)
    return found


def extract_compiled(source_whl: Path, official: dict, names: list[str], dest: Path) -> dict[str, Path]:
    """Copy the official package files for `names` out of the source wheel into dest.

    `official` is the official lock's "packages" table. Each file must match the official
    sha256, or the build stops: the copies are only trusted because they are identical.
    """
    dest.mkdir(parents=True, exist_ok=True)
    out = {}
    with zipfile.ZipFile(source_whl) as z:
        for name in names:
            entry = official[name]
            target = dest / entry["file_name"]
            if not target.exists():
                try:
                    data = z.read(pins.COMPILED_PREFIX + entry["file_name"])
                except KeyError:
                    raise BuildError(f"{source_whl.name} has no {entry['file_name']} (for {name})") from None
                target.write_bytes(data)
            verify_official(target, entry)
            out[name] = target
    return out


def verify_official(path: Path, entry: dict) -> None:
    """Refuse a package file that differs from the official Pyodide lock entry."""
    actual = sha256_file(path)
    if actual != entry["sha256"]:
        raise BuildError(
            f"{path.name} does not match the official pyodide-lock.json:\n"
            f"  official sha256 {entry['sha256']}\n  this file       {actual}\n"
            "Refusing to build with a compiled package that is not byte-identical to Pyodide's.\n"
            f"(Delete {path} to extract it again from {pins.COMPILED_SOURCE}.)"
        )


PURE_BUILD_PATCHES = {"markupsafe": "markupsafe.pure-build", "pyyaml": "pyyaml.pure-build"}


def build_sdist_wheel(spec: str, sdist_sha: str, cache: Path) -> Path:
    """Build a pure py3-none-any wheel from a pinned sdist (no compiler: falls back to Python)."""
    name, version = spec.split("==")
    patches.applies(PURE_BUILD_PATCHES.get(name, f"{name}.pure-build"), version, spec)   # (none: refused)
    built = cache / "built"
    built.mkdir(parents=True, exist_ok=True)
    found = _find_dist(built, name, version, ".whl")
    if found is None:
        sdist = pip_download(spec, cache / "sdist", sdist_sha, binary=False)
        run(pip_cmd() + ["wheel", "--no-deps", "--no-cache-dir", "-q", "-w", str(built), str(sdist)],
            env=pins.SDIST_ENV.get(name, {}))
        found = _find_dist(built, name, version, ".whl")
    if found is None or not found.name.endswith("-py3-none-any.whl"):
        raise BuildError(f"building {spec} from its sdist gave {found}, not a py3-none-any wheel")
    return found


def _setuptools_ok() -> bool:
    """Is this interpreter's setuptools new enough (>= 70.1: bdist_wheel built in)?"""
    try:
        from importlib.metadata import version
        major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    except Exception:
        return False
    return (major, minor) >= (70, 1)


PROJECT_SOURCES = ("pyproject.toml", "gleam", "gleam_lab", "app", "content")


def build_project_wheel(repo: Path, dest: Path, extra: dict[str, str] | None = None, weights: bool = False) -> Path:
    """`pip wheel --no-deps .` on a copy of the project, so the repo gets no build/ folder;
    `extra` (relative path -> text) is written into the copy first (what the build generates,
    such as content/typeset.json). The research labs' trained weights (gleam/data/*.npz) go in only
    with `weights`: the site never reads them; an installed lab's gleam.pretrained does.

    SOURCE_DATE_EPOCH makes the wheel byte-stable while the sources are unchanged.
    """
    dest.mkdir(parents=True, exist_ok=True)
    for old in dest.glob(f"{pins.PROJECT_WHEEL}-*.whl"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for item in PROJECT_SOURCES:
            p = repo / item
            if p.is_dir():
                left_out = ("__pycache__", "*.pyc") + (() if weights else ("*.npz",))
                shutil.copytree(p, src / item, ignore=shutil.ignore_patterns(*left_out))
            elif p.exists():
                shutil.copy2(p, src / item)
        for rel, text in (extra or {}).items():
            (src / rel).write_text(text, encoding="utf-8")
        # The venv's own setuptools keeps rebuilds offline; an isolated build would ask PyPI.
        isolation = ["--no-build-isolation"] if _setuptools_ok() else []
        run(pip_cmd() + ["wheel", "--no-deps", *isolation, "-q", "-w", str(dest), str(src)],
            env={"SOURCE_DATE_EPOCH": "315532800"})
    wheels = list(dest.glob(f"{pins.PROJECT_WHEEL}-*-py3-none-any.whl"))
    if len(wheels) != 1:
        raise BuildError(f"pip wheel of the project gave {wheels}")
    return wheels[0]
