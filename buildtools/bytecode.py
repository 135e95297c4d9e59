"""Ship bytecode, not sources: the site's wheels and standard library compiled by the browser's
own Python.

The worker imports hundreds of modules of the standard library, numpy, Panel, Bokeh, param,
the project and their dependencies. Shipped as sources, each is compiled by the browser's CPython
on every load (and the `__pycache__` it writes lives in MEMFS, gone at the next visit). This
stage compiles them once, at build time, with the interpreter the browser runs: Pyodide's
CPython 3.12 under node (the host's 3.11 writes bytecode 3.12 cannot load), in one node
process for all wheels. Only the modules the lab imports (buildtools/imported_modules.txt,
buildtools.trace_imports) are compiled in the upstream archives: the others stay source,
which compresses better; the project's own modules are all compiled.

Layout: the legacy, sourceless one -- `pkg/mod.pyc` where `pkg/mod.py` was, the source
dropped -- which the import system loads with its SourcelessFileLoader (no stat of a
source, no timestamp check). Each module's `co_filename` is its installed path in the
browser (/lib/python3.12/site-packages/...), so tracebacks and the "find the caller"
stack walks of Panel, param and Bokeh warnings see the same paths as with sources.

Compiled without column ranges (PYTHONNODEBUGRANGES, `-X no_debug_ranges`): since 3.11 each
instruction carries its start and end column for the carets of a traceback, a good part of
the compressed bytecode. Tracebacks keep their line numbers;
only the carets under the failing expression are gone.

What stays as it was: everything that is not a `.py` module (templates, CSS, JSON, `.pth`,
the .dist-info), anything under a wheel's `.data/`, and KEEP_SOURCE: modules that are read
as text. The wheel keeps its file name, name and version; its RECORD is rewritten (sha256
and size of every file), so pyodide-lock.json, written after this stage from these very
files, stays consistent. Compiled wheels are cached under <cache>/bytecode keyed by the
input wheel's sha256 (and this recipe's version): a rebuild with unchanged inputs does
not start node. Pyodide's own `pyodide py-compile` (pyodide-build) does the same for its
distribution; it renames the wheel to a cp312 tag and leaves the RECORD alone, which the
site does not need and cannot use respectively.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from . import patches, pins
from .errors import BuildError
from .fetch import sha256_file
from .wheels import rewrite_wheel

# importlib.util.MAGIC_NUMBER of CPython 3.12 (Pyodide 0.27's interpreter); the stage
# checks that every .pyc it ships starts with it.
MAGIC_312 = b"\xcb\r\r\n"
SITE_PACKAGES = "/lib/python3.12/site-packages"  # where Pyodide installs a wheel's files
RECIPE = "4"  # part of the cache key: bump when what is compiled or how changes

# Modules whose source is read at run time: they ship as source, never as bytecode.
KEEP_SOURCE = {
    "gleam/chargru/standalone.py": "gleam.chargru.export reads it as text: it is the standalone "
                                   "script a learner downloads from chapter 7",
}

# Runs inside Pyodide under node. /job is the host's job folder (NODEFS): job.json lists
# [source, dfile] pairs relative to /job; result.json gets what could not be compiled and,
# per file, the ".py" file names its string constants mention (for the keep check).
COMPILE_PY = r"""
import ast, importlib.util, json, py_compile, sys
job = json.load(open("/job/job.json"))
failed, mentions = {}, {}
for src, dfile in job["files"]:
    path = "/job/" + src
    try:
        py_compile.compile(path, cfile=path + "c", dfile=dfile, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    except py_compile.PyCompileError as e:
        failed[src] = str(e.msg).strip().splitlines()[-1]
        continue
    try:
        tree = ast.parse(open(path, "rb").read())
    except SyntaxError:
        continue
    names = sorted({n.value.rsplit("/", 1)[-1] for n in ast.walk(tree)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                    and n.value.endswith(".py") and "\n" not in n.value})
    if names:
        mentions[src] = names
probe = compile("(a +\n b)", "probe", "eval")
json.dump({"version": sys.version, "magic": importlib.util.MAGIC_NUMBER.hex(),
           "column_ranges": any(col is not None for _, _, col, _ in probe.co_positions()),
           "failed": failed, "mentions": mentions}, open("/job/result.json", "w"))
"""

COMPILE_JS = r"""
const path = require("path");
const [core, root] = process.argv.slice(2);
(async () => {
  const { loadPyodide } = require(path.join(core, "pyodide.js"));
  const py = await loadPyodide({ indexURL: core + "/", env: { PYTHONNODEBUGRANGES: "1" },
                                 stdout: (s) => console.log(s), stderr: (s) => console.error(s) });
  py.FS.mkdirTree("/job");
  py.FS.mount(py.FS.filesystems.NODEFS, { root }, "/job");
  py.runPython(require("fs").readFileSync(path.join(root, "compile.py"), "utf8"));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def module_name(name: str) -> str:
    """The dotted name a module file is imported as ("pkg/__init__.py" -> "pkg")."""
    stem = name.rsplit(".", 1)[0]
    return stem[:-len("/__init__")].replace("/", ".") if stem.endswith("/__init__") else stem.replace("/", ".")


def to_compile(name: str, imported: frozenset[str] | None = None) -> bool:
    """Is this member of a wheel a module to ship as bytecode? With `imported`
    (buildtools.trace_imports: what the lab imports in the browser), only those modules are:
    source compresses better, and a module never imported costs nothing either way."""
    first = name.split("/", 1)[0]
    return (name.endswith(".py") and not first.endswith((".dist-info", ".data"))
            and name not in KEEP_SOURCE and (imported is None or module_name(name) in imported))


def cache_key(whl: Path, imported: frozenset[str] | None = None) -> str:
    selection = "" if imported is None else "-" + hashlib.sha256("\n".join(sorted(imported)).encode()).hexdigest()[:12]
    return f"{sha256_file(whl)[:24]}-py{pins.PYODIDE_VERSION}-r{RECIPE}{selection}"


def compile_wheels(wheels: list[Path], core: Path, cache: Path,
                   imported: frozenset[str] | None = None) -> tuple[list[Path], dict]:
    """Bytecode copies of `wheels` (same file names), from the cache or compiled now: every
    module, or with `imported` only those (the rest stay source).

    core: Pyodide's npm package folder (pyodide.js, the wasm, the stdlib). Returns the
    compiled wheels in the order given and a summary: how many were compiled now, how many
    modules, how many left as source because the lab does not import them, which files stayed
    source that would have been compiled (name -> why).
    """
    patches.applies("pyodide.bytecode")
    out_dir = cache / "bytecode"
    targets = {w: out_dir / cache_key(w, imported) / w.name for w in wheels}
    todo = [w for w, t in targets.items() if not t.exists()]
    summary = {"compiled_now": len(todo), "cached": len(wheels) - len(todo), "modules": 0, "source": 0,
               "kept": {}}
    if todo:
        if shutil.which("node") is None:
            raise BuildError("node is needed to compile the wheels with Pyodide's Python "
                             "(Debian: apt-get install nodejs)")
        with tempfile.TemporaryDirectory(prefix="gleam-bytecode-") as tmp:
            job = Path(tmp)
            files = _extract(todo, job, imported)
            print(f"[build]   compiling {len(files)} modules of {len(todo)} wheel(s) under node "
                  f"({len(wheels) - len(todo)} cached) ...", flush=True)
            result = _run_pyodide(core, job, files)
            for i, whl in enumerate(todo):
                _write_wheel(whl, job / str(i), f"{i}/", result, targets[whl], imported)
                print(f"[build]   {i + 1} of {len(todo)} compiled: {whl.name}", flush=True)
        _prune(out_dir, {t.parent.name for t in targets.values()}, {w.name for w in wheels})
    for t in targets.values():
        with zipfile.ZipFile(t) as z:
            summary["modules"] += sum(n.endswith(".pyc") for n in z.namelist())
            sources = [n for n in z.namelist() if is_kept_source(n)]
            kept = [n for n in sources if n in KEEP_SOURCE or to_compile(n, imported)]
            summary["source"] += len(sources) - len(kept)
            summary["kept"].update({n: KEEP_SOURCE.get(n, "does not compile with Python 3.12") for n in kept})
    return [targets[w] for w in wheels], summary


STDLIB_PATH = "/lib/python312.zip"  # where Pyodide puts python_stdlib.zip: on sys.path, zipimported


def stdlib_dropped(name: str) -> bool:
    """Is this member of python_stdlib.zip (a module, a package's file or folder) left out
    (pins.STDLIB_DROPPED)?"""
    dotted = module_name(name) if name.endswith(".py") else name.rstrip("/").replace("/", ".")
    return any(dotted == m or dotted.startswith(m + ".") for m in pins.STDLIB_DROPPED)


def compile_stdlib(core: Path, cache: Path, imported: frozenset[str] | None = None) -> tuple[Path, int]:
    """Pyodide's python_stdlib.zip with its modules as 3.12 bytecode (every one, or with
    `imported` those; the same layout as the wheels: `mod.pyc` where `mod.py` was, which
    zipimport loads without a source), members stored, less pins.STDLIB_DROPPED.

    Pyodide ships the standard library as source, so every start compiles each module it imports:
    its own `_pyodide` and `pyodide` packages, asyncio, zipfile and the rest. Returns the
    compiled zip (cached by the input's sha256) and its number of modules.
    """
    patches.applies("pyodide.bytecode")
    patches.applies("pyodide.stdlib-dropped")
    src = core / "python_stdlib.zip"
    target = cache / "bytecode" / f"stdlib-{cache_key(src, imported)}" / src.name
    if not target.exists():
        with tempfile.TemporaryDirectory(prefix="gleam-bytecode-") as tmp:
            job, files = Path(tmp), []
            with zipfile.ZipFile(src) as z:
                for name in z.namelist():
                    if to_compile(name, imported) and not stdlib_dropped(name):
                        dest = job / "stdlib" / name
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        dest.write_bytes(z.read(name))
                        files.append([f"stdlib/{name}", f"{STDLIB_PATH}/{name}"])
            print(f"[build]   compiling {len(files)} standard-library modules under node ...", flush=True)
            result = _run_pyodide(core, job, files)
            tmp_zip = target.with_suffix(".tmp")
            tmp_zip.parent.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(src) as zin, zipfile.ZipFile(tmp_zip, "w", zipfile.ZIP_STORED) as zout:
                for item in zin.infolist():
                    if stdlib_dropped(item.filename):
                        continue
                    name, data = item.filename, zin.read(item)
                    if (job / "stdlib" / (name + "c")).is_file() and f"stdlib/{name}" not in result["failed"]:
                        name, data = name + "c", (job / "stdlib" / (name + "c")).read_bytes()
                        if data[:4] != MAGIC_312:
                            raise BuildError(f"python_stdlib.zip: {name} is not CPython 3.12 bytecode")
                    info = zipfile.ZipInfo(name, date_time=item.date_time)
                    info.external_attr = item.external_attr
                    zout.writestr(info, data)
            tmp_zip.replace(target)
    for old in (cache / "bytecode").glob("stdlib-*"):         # other recipes', other selections'
        if old != target.parent:
            shutil.rmtree(old)
    with zipfile.ZipFile(target) as z:
        return target, sum(n.endswith(".pyc") for n in z.namelist())


def is_kept_source(name: str) -> bool:
    """A .py module a compiled wheel still ships as source (KEEP_SOURCE, or did not compile)."""
    return name.endswith(".py") and not name.split("/", 1)[0].endswith((".dist-info", ".data"))


def _extract(wheels: list[Path], job: Path, imported: frozenset[str] | None) -> list[list[str]]:
    files = []
    for i, whl in enumerate(wheels):
        with zipfile.ZipFile(whl) as z:
            for name in z.namelist():
                if to_compile(name, imported):
                    dest = job / str(i) / name
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(z.read(name))
                    files.append([f"{i}/{name}", f"{SITE_PACKAGES}/{name}"])
    return files


def _run_pyodide(core: Path, job: Path, files: list[list[str]]) -> dict:
    (job / "job.json").write_text(json.dumps({"files": files}))
    (job / "compile.py").write_text(COMPILE_PY)
    (job / "compile.js").write_text(COMPILE_JS)
    proc = subprocess.run(["node", str(job / "compile.js"), str(core.resolve()), str(job)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not (job / "result.json").exists():
        raise BuildError(f"compiling with Pyodide under node failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    result = json.loads((job / "result.json").read_text())
    if bytes.fromhex(result["magic"]) != MAGIC_312:
        raise BuildError(f"Pyodide's Python {result['version']} writes magic {result['magic']}, not 3.12's")
    if result["column_ranges"]:
        raise BuildError("Pyodide's Python under node still writes column ranges (PYTHONNODEBUGRANGES ignored)")
    return result


def _write_wheel(src: Path, root: Path, prefix: str, result: dict, dest: Path,
                 imported: frozenset[str] | None) -> None:
    """src with every compiled module replaced by its .pyc; RECORD rewritten; dest written atomically."""
    for rel, names in result["mentions"].items():
        if rel.startswith(prefix):
            _check_mentions(rel[len(prefix):], names, src, imported)

    def compiled(item, data):
        name = item.filename
        if name.endswith(".pyc") or "/__pycache__/" in f"/{name}":
            return None                   # stale bytecode of another Python: never shipped
        if to_compile(name, imported) and (prefix + name) not in result["failed"]:
            name, data = name + "c", (root / (name + "c")).read_bytes()
            if data[:4] != MAGIC_312:
                raise BuildError(f"{src.name}: {name} is not CPython 3.12 bytecode")
        return name, data

    try:
        # Stored, not deflated: one gzip over the whole wheel (buildtools.compress, sent with
        # Content-Encoding by a static host) is smaller than zip's file-by-file deflate of
        # hundreds of small .pyc files, and Python in the browser then unzips without inflating.
        rewrite_wheel(src, dest, compiled, compression=zipfile.ZIP_STORED)
    except ValueError as e:             # (no RECORD)
        raise BuildError(str(e)) from None


# File names a module may spell out without reading the source of its namesake beside it:
# conventions (any module), and reviewed cases ("module: name" -> what the name is there).
MENTION_CONVENTIONS = {"__init__.py", "__main__.py", "setup.py", "conftest.py", "app.py", "main.py"}
MENTION_OK = {
    "bokeh/application/handlers/directory.py: server_lifecycle.py":
        "the hook file of a user's app folder, not bokeh's module of that name",
    "panel/io/convert.py: convert.py": "a default output name of `panel convert`; never imported as text",
}


def _check_mentions(rel: str, names: list[str], whl: Path, imported: frozenset[str] | None = None) -> None:
    """Refuse to compile a module whose file name a sibling module spells out as a string
    (`Path(__file__).with_name("x.py").read_text()`): it is most likely read as text and
    must be in KEEP_SOURCE (or, if not read, named in MENTION_OK)."""
    folder = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
    with zipfile.ZipFile(whl) as z:
        siblings = {n[len(folder):] for n in z.namelist() if n.startswith(folder) and n.endswith(".py")}
    for n in names:
        if (n in siblings and n not in MENTION_CONVENTIONS and f"{rel}: {n}" not in MENTION_OK
                and to_compile(folder + n, imported)):
            raise BuildError(
                f"{whl.name}: {rel} mentions {n!r}, a module beside it: if it reads that file as "
                f"text, add {folder + n!r} to KEEP_SOURCE in buildtools/bytecode.py (if not, to MENTION_OK)")


def _prune(out_dir: Path, keep_keys: set[str], names: set[str]) -> None:
    """Drop cached compiles of these wheel names under other keys (older project wheels)."""
    for d in out_dir.iterdir():
        if d.is_dir() and d.name not in keep_keys and any((d / n).exists() for n in names):
            shutil.rmtree(d)
