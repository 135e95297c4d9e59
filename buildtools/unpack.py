"""The worker unpacks the site's wheels itself, in JS, instead of Pyodide's loadPackage.

Pyodide 0.27's loadPackage extracts a wheel with Python's zipfile (`shutil.unpack_archive`),
file by file, on the critical path of the worker's start. The site's wheels are stored, not
deflated (buildtools.bytecode; they are compressed in transit), so each file is a slice of the
archive: `glUnzip` reads the zip's central directory and writes every file into the Emscripten
filesystem with FS.writeFile, byte for byte the same tree. (Record: buildtools/patches/pyodide.py.)

numpy too: loadPackage compiles and links every one of its extension modules before Python
starts, the tests' and those the lab never imports among them. Unpacked like the others, each is
loaded when Python first imports it (Emscripten's dlopen reads it from the filesystem and compiles
it there and then, which a worker may do at any size). Only a shared library (a lock entry whose package_type is not "package"),
and a compiled package that links against one, is left to Pyodide, which loads those globally.

What changes in the worker (buildtools.convert.rewrite_worker):
- before `importScripts(pyodide.js)`, it fetches the wheels of the packages it installs (their
  closure in the site's lock), each with the lock's sha256 as subresource integrity, as Pyodide
  would, so they download while Pyodide's wasm compiles;
- `loadPyodide` is given only the rest (none, for the lab);
- once Python is up, the wheels go into site-packages, before any of them is imported.
Pyodide does not list these packages in `pyodide.loadedPackages`; nothing in the site asks it.
"""
from __future__ import annotations

import base64
import json
import zipfile
from pathlib import Path

from .errors import BuildError
from .lock import resolve_closure

# Only stored entries, no zip64 (the build writes both), no path leaving site-packages.
UNZIP_JS = r"""
// Added by build.py (buildtools/unpack.py): a stored wheel's files into the Emscripten FS.
function glUnzip(bytes, dest, FS) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let e = bytes.length - 22;
  while (e >= 0 && v.getUint32(e, true) !== 0x06054b50) e--;
  if (e < 0) throw new Error("not a zip archive");
  const count = v.getUint16(e + 10, true), dec = new TextDecoder(), made = new Set();
  let p = v.getUint32(e + 16, true);
  for (let i = 0; i < count; i++) {
    if (v.getUint32(p, true) !== 0x02014b50) throw new Error("a broken zip archive");
    const method = v.getUint16(p + 10, true), csize = v.getUint32(p + 20, true), size = v.getUint32(p + 24, true);
    const nlen = v.getUint16(p + 28, true), off = v.getUint32(p + 42, true);
    const name = dec.decode(bytes.subarray(p + 46, p + 46 + nlen));
    p += 46 + nlen + v.getUint16(p + 30, true) + v.getUint16(p + 32, true);
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(name + ": not a relative path");
    const dir = dest + name.slice(0, name.lastIndexOf("/") + 1);
    if (!made.has(dir)) { FS.mkdirTree(dir); made.add(dir); }
    if (name.endsWith("/")) continue;
    if (method !== 0 || csize !== size) throw new Error(name + ": compressed (the build stores every file)");
    const data = off + 30 + v.getUint16(off + 26, true) + v.getUint16(off + 28, true);
    FS.writeFile(dest + name, bytes.subarray(data, data + size));
  }
}
"""

FETCH_JS = """const glWheels = %(wheels)s.map(([file, integrity]) =>
  fetch(new URL("./%(dir)s/" + file, self.location.href), {integrity: integrity}).then((r) => {
    if (!r.ok) throw new Error(file + ": HTTP " + r.status);
    return r.arrayBuffer();
  }));
glWheels.forEach((w) => w.catch(() => {}));   // (a failure is reported where they are awaited)
"""

# Right after loadPyodide: into site-packages, and Python's import system told the folder changed
# (its finder's cache alone: importlib.invalidate_caches() would import importlib.metadata too).
INSTALL_JS = """
  {
    const sitePackages = self.pyodide.runPython("import site; site.getsitepackages()[0]");
    for (const wheel of glWheels) glUnzip(new Uint8Array(await wheel), sitePackages + "/", self.pyodide.FS);
    self.pyodide.runPython("import sys; [f.invalidate_caches() for f in [sys.path_importer_cache.get("
                           + JSON.stringify(sitePackages) + ")] if f is not None]");
  }"""


def is_pure(entry: dict) -> bool:
    return entry["file_name"].endswith("-none-any.whl")


def is_shared_library(entry: dict) -> bool:
    return entry.get("package_type", "package") != "package"


def split(lock: dict, names: list[str]) -> tuple[list[str], list[str]]:
    """(what loadPyodide loads, lock keys whose wheels the worker unpacks itself) for installing
    `names`: shared libraries, and the compiled packages whose closure has one, go to Pyodide with
    their whole closure; every other package of the closure is unpacked by the worker."""
    closure = resolve_closure(lock, names)
    packages = lock["packages"]
    linked = sorted(k for k in closure if is_shared_library(packages[k]) or (
        not is_pure(packages[k]) and any(is_shared_library(packages[d]) for d in resolve_closure(lock, [k]))))
    by_pyodide = resolve_closure(lock, linked) if linked else set()
    return sorted(by_pyodide), sorted(closure - by_pyodide)


def integrity(entry: dict) -> str:
    return "sha256-" + base64.b64encode(bytes.fromhex(entry["sha256"])).decode()


def fetch_js(lock: dict, keys: list[str], pyodide_dir: str) -> str:
    wheels = [[lock["packages"][k]["file_name"], integrity(lock["packages"][k])] for k in keys]
    return UNZIP_JS + FETCH_JS % {"wheels": json.dumps(wheels), "dir": pyodide_dir}


EXTENSION_SUFFIX = ".cpython-312-wasm32-emscripten.so"


def check_stored(wheel: Path) -> None:
    """glUnzip reads only stored entries, and Python's import loads only extension modules: refuse
    a wheel that has another entry, or another shared object (a library its extensions link to,
    which only Pyodide's loadPackage would load)."""
    with zipfile.ZipFile(wheel) as z:
        packed = [i.filename for i in z.infolist() if i.compress_type != zipfile.ZIP_STORED]
        libraries = [n for n in z.namelist() if ".so" in n.rsplit("/", 1)[-1] and not n.endswith(EXTENSION_SUFFIX)]
    if packed:
        raise BuildError(f"{wheel.name}: the worker unpacks it itself and reads only stored files, "
                         f"but {len(packed)} are compressed (e.g. {packed[0]})")
    if libraries:
        raise BuildError(f"{wheel.name}: the worker unpacks it itself, but it ships shared libraries that are "
                         f"not extension modules (e.g. {libraries[0]}): leave it to Pyodide's loadPackage")
