"""Read what a wheel declares, and slim Panel's and Bokeh's wheels for the browser.

The PyPI wheels of Panel and Bokeh carry every JavaScript bundle they can serve. In the
worker only the Python is used; the page gets the JS/CSS from the site's own copies.
Slimming them the way Panel slims its own Pyodide wheels (Bokeh: drop
.js/.d.ts/.tsbuildinfo/bokeh.json outside bokeh/core/_templates) saves their download and
their unpacking inside the worker. Each rule is a patch with a record (buildtools/patches/). Panel's package __init__ files are also rewritten
to import what the lab never uses only when it is first used (buildtools.lazy_imports).
"""
from __future__ import annotations

import base64
import hashlib
import zipfile
from dataclasses import dataclass, field
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from . import lazy_imports, patches, pins

# The environment of Pyodide 0.27.7 in a browser, for evaluating dependency markers.
PYODIDE_MARKER_ENV = {
    "implementation_name": "cpython",
    "implementation_version": "3.12.7",
    "os_name": "posix",
    "platform_machine": "wasm32",
    "platform_python_implementation": "CPython",
    "platform_release": "3.1.58",
    "platform_system": "Emscripten",
    "platform_version": "#1",
    "python_full_version": "3.12.7",
    "python_version": "3.12",
    "sys_platform": "emscripten",
    "extra": "",
}


@dataclass
class WheelInfo:
    path: Path
    name: str  # as the METADATA spells it
    version: str
    requires: list[str] = field(default_factory=list)  # canonical names needed at runtime
    imports: list[str] = field(default_factory=list)  # top-level importable names

    @property
    def key(self) -> str:
        return canonicalize_name(self.name)


def read_wheel(path: Path) -> WheelInfo:
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta_name = next(n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(z.read(meta_name).decode("utf-8"))
        top_level = None
        tl_name = meta_name.replace("METADATA", "top_level.txt")
        if tl_name in names:
            top_level = [t.strip() for t in z.read(tl_name).decode().splitlines() if t.strip()]
    requires = []
    for raw in meta.get_all("Requires-Dist") or []:
        req = Requirement(raw)
        if req.marker is not None and not req.marker.evaluate(PYODIDE_MARKER_ENV):
            continue
        requires.append(canonicalize_name(req.name))
    imports = _top_level_imports(names) if not top_level else top_level
    imports = sorted({i for i in imports if i.isidentifier() and not i.startswith("_")} or set(imports))
    return WheelInfo(path, meta["Name"], meta["Version"], sorted(set(requires)), imports)


def _top_level_imports(names: list[str]) -> list[str]:
    tops = set()
    for n in names:
        first = n.split("/")[0]
        if first.endswith((".dist-info", ".data")):
            continue
        if "/" in n:
            tops.add(first)
        elif n.endswith((".py", ".pyc")):  # a top-level module, as source or (bytecode stage) sourceless
            tops.add(n.rsplit(".", 1)[0])
    return sorted(tops)


# -- slimming -----------------------------------------------------------------------------

def _panel_rule(name: str) -> str:
    """keep or drop, for one file of the Panel wheel.

    Under panel/dist, Panel's Python reads css/ and assets/; everything else there is the JS
    and its bundled dependencies, which the page loads from the site's own copies. Panel asks
    whether a bundled file exists only to choose its URL in HTML it writes (buildtools.convert,
    at build time, with the build's own Panel), never in the worker: the worker's document of
    every chapter is the same without them (checked in Pyodide), and fewer files to unpack
    shorten every start.
    """
    if name.startswith("panel/tests/"):
        return "drop"
    # The TypeScript and Less sources of Panel's JS bundle (only `panel build` reads them) and the
    # npm lock of that build; package.json stays (Panel reads its version from it).
    if (name.startswith(("panel/models/", "panel/styles/")) and name.endswith((".ts", ".less"))
            or name in ("panel/index.ts", "panel/package-lock.json", "panel/tsconfig.json")):
        return "drop"
    if name.startswith("panel/dist/"):
        if name.startswith(("panel/dist/css/", "panel/dist/assets/")):
            return "keep"
        return "drop"
    return "keep"


BOKEH_VERSION = next(spec.split("==")[1] for spec in pins.PURE_WHEELS if spec.startswith("bokeh=="))


def _bokeh_rule(name: str) -> str:
    """Panel's own recipe for the Bokeh wheel it ships to Pyodide, and what no import reads:
    typing stubs (`.pyi`, `typings/`), the Sphinx extension, and the subresource-integrity
    hashes of other BokehJS releases (bokeh.resources reads its own version's)."""
    if name.startswith("bokeh/core/_templates"):
        return "keep"
    if name.endswith(("bokeh.json", ".js", ".d.ts", ".tsbuildinfo", ".pyi")):
        return "drop"
    if name.startswith(("typings/", "bokeh/sphinxext/")):
        return "drop"
    if name.startswith("bokeh/_sri/") and name != f"bokeh/_sri/{BOKEH_VERSION}.json":
        return "drop"
    return "keep"


# Build and typing inputs no import ever reads: C headers and static libraries, Cython
# declarations, typing stubs, pkg-config files.
_NUMPY_BUILD_INPUTS = (".pyi", ".h", ".a", ".c", ".pxd", ".pyx", ".pc", ".ini", ".build", ".template")


def _numpy_rule(name: str) -> str:
    """The official Pyodide numpy wheel, less what cannot run in a browser or is never imported.

    Kept byte for byte: every compiled extension (even the C test modules: numpy's import adds
    docstrings to one) and every Python module but f2py (a Fortran wrapper generator: it needs a
    compiler, which a browser does not have). Left out: build inputs (headers, static libraries,
    Cython declarations, stubs), the PyInstaller hook and the Cython examples. Licences stay.
    """
    base = name.rsplit("/", 1)[-1]
    if base.startswith("LICENSE"):
        return "keep"
    if name.startswith(("numpy/f2py/", "numpy/_pyinstaller/", "numpy/random/_examples/",
                        "numpy/_core/include/", "numpy/_core/lib/", "numpy/random/lib/")):
        return "drop"
    if name.endswith(_NUMPY_BUILD_INPUTS):
        return "drop"
    return "keep"


SLIM_RULES = {"panel": _panel_rule, "bokeh": _bokeh_rule, "numpy": _numpy_rule}
SLIM_PATCHES = {"panel": "panel.slim-wheel", "bokeh": "bokeh.slim-wheel", "numpy": "numpy.slim-wheel"}
# What a kept file becomes (given the wheel's version): Panel's package __init__ files, and Bokeh's
# PyYAML imports, import what the lab never uses lazily; Bokeh's version is written in.
SLIM_REWRITES = {"panel": lazy_imports.rewrite, "bokeh": lazy_imports.rewrite_bokeh}
SLIM_RECIPE = "8"  # part of the slimmed copies' cache path: bump when a rule changes


def slim_wheel(src: Path, dest_dir: Path) -> Path:
    """Write a slimmed copy of src (same file name) into dest_dir; RECORD is rewritten."""
    key = canonicalize_name(src.name.split("-")[0])
    rule, rewrite = SLIM_RULES[key], SLIM_REWRITES.get(key, lambda name, data, version: data)
    version = src.name.split("-")[1]
    patches.applies(SLIM_PATCHES[key], version, src.name)
    dest_dir = dest_dir / f"r{SLIM_RECIPE}"
    dest_dir.mkdir(parents=True, exist_ok=True)
    dest = dest_dir / src.name
    if dest.exists() and dest.stat().st_mtime >= src.stat().st_mtime:
        return dest

    def slim(item, data):
        action = rule(item.filename)
        if action == "drop":
            return None
        return item.filename, b"" if action == "empty" else rewrite(item.filename, data, version)

    rewrite_wheel(src, dest, slim)
    return dest


def record_line(name: str, data: bytes) -> str:
    """A RECORD line: the member's name, its sha256 (urlsafe base64, no padding) and size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def rewrite_wheel(src: Path, dest: Path, transform, compresslevel=None, compression=zipfile.ZIP_DEFLATED) -> None:
    """Write `dest`: wheel `src` with each member through `transform(item, data)` -> (name, data),
    or None to leave it out, and a RECORD of what it then holds. Written atomically; members
    compressed with `compression` (ZIP_STORED: the whole wheel is compressed in transit)."""
    records, record_item = [], None
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp, "w", compression,
                                                      compresslevel=compresslevel) as zout:
        for item in zin.infolist():
            if item.filename.endswith(".dist-info/RECORD") and item.filename.count("/") == 1:
                record_item = item
                continue
            out = transform(item, zin.read(item))
            if out is None:
                continue
            name, data = out
            info = zipfile.ZipInfo(name, date_time=item.date_time)
            info.external_attr = item.external_attr
            info.compress_type = compression
            zout.writestr(info, data)
            records.append(record_line(name, data))
        if record_item is None:
            raise ValueError(f"{src.name} has no RECORD")
        records.append(f"{record_item.filename},,")
        info = zipfile.ZipInfo(record_item.filename, date_time=record_item.date_time)
        info.compress_type = compression
        zout.writestr(info, "\n".join(records) + "\n")
    tmp.replace(dest)

