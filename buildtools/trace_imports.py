"""Which modules the lab imports in the browser: the site's worker code, run in Pyodide under node.

    python -m buildtools.trace_imports [--site site] [--chapters 0 7 ...]   # rewrites IMPORTED_FILE
    python -m buildtools.trace_imports --profile 7 [--top 30]   # where the start's imports spend time

The build ships these modules as bytecode and every other module as source (buildtools.bytecode):
source compresses better, and a module that is never imported costs nothing to start either
way; one imported later than the list says is compiled when imported, as any source is. The list
is made from a built site, opening every chapter (`Lab()` builds only the chapter it opens), and
kept in the repository, so a build needs no run of the lab; tests/test_build.py runs this trace on
the built site and fails if a module the lab imports would ship as source.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NamedTuple

from . import pins
from .errors import BuildError

IMPORTED_FILE = Path(__file__).with_name("imported_modules.txt")
HEADER = ("# Modules the lab imports in the browser, over every chapter (python -m buildtools.trace_imports).\n"
          "# Shipped as bytecode; every other module ships as source (buildtools.bytecode).\n")

# Node stands in for the worker: what Panel's Pyodide module and the lab look up in its globals.
TRACE_JS = r"""
const path = require("path"), fs = require("fs");
const [core, job] = process.argv.slice(2);
const { chapter, code, profile } = JSON.parse(fs.readFileSync(path.join(job, "job.json"), "utf8"));
globalThis.XMLHttpRequest = class { open() {} send() {} };
globalThis.location = { search: "?chapter=" + chapter, href: "http://127.0.0.1/main.js" };
(async () => {
  const { loadPyodide } = require(path.join(core, "pyodide.js"));
  const py = await loadPyodide({ indexURL: core + "/", packages: PACKAGES,
                                 env: { HOME: "/home/pyodide", GLEAM_CHAPTER: chapter,
                                       ...(profile ? { PYTHONPROFILEIMPORTTIME: "1" } : {}) } });
  py.globals.set("sendPatch", () => {});
  // the files the site serves beside its pages (the labs' weights, which the inspector reads),
  // where the page's worker puts them once fetched (app/chapters/inspector/weights.py)
  const data = path.join(core, "..", "..", "data");
  for (const name of fs.existsSync(data) ? fs.readdirSync(data) : [])
    py.FS.writeFile("/lib/python3.12/site-packages/gleam/data/" + name, fs.readFileSync(path.join(data, name)));
  for (const literal of code) await py.runPythonAsync(eval(literal));
  const names = py.runPython(`
import sys
sorted(n for n, m in list(sys.modules.items())
       if (getattr(getattr(m, "__spec__", None), "origin", None) or "").startswith("/lib/python"))
`).toJs();
  fs.writeFileSync(path.join(job, "result.json"), JSON.stringify(names));
})().catch((e) => { console.error(e); process.exit(1); });
"""


def worker_code(site: Path) -> list[str]:
    """The Python the site's worker runs once its packages are loaded, up to its first render
    (main.js), as the JavaScript template literals that hold it (node evaluates them)."""
    js = (site / "main.js").read_text(encoding="utf-8")
    chunks = re.findall(r"runPython(?:Async)?\((`.*?`)\)", js, re.S)
    main = next((c for c in chunks if "write_doc" in c and "init_doc" in c), None)
    if main is None:
        raise BuildError(f"{site / 'main.js'}: no worker code with init_doc/write_doc")
    return chunks[:chunks.index(main) + 1]


def _open_lab(site: Path, chapters: list[str], profile: bool = False) -> list[tuple[set[str], str]]:
    """Open the lab on each of `chapters` in the site's own Pyodide (one node process each):
    the modules then imported from site-packages or the standard library, and node's stderr."""
    if shutil.which("node") is None:
        raise BuildError("node is needed to run the site's Pyodide (Debian: apt-get install nodejs)")
    core = site / f"pyodide/{pins.PYODIDE_VERSION}"
    packages = json.dumps(list(pins.WORKER_INSTALLS))
    code = worker_code(site)
    runs = []
    with tempfile.TemporaryDirectory(prefix="gleam-trace-") as tmp:
        job = Path(tmp)
        (job / "trace.js").write_text(TRACE_JS.replace("PACKAGES", packages))
        for chapter in chapters:
            (job / "job.json").write_text(json.dumps({"chapter": chapter, "code": code, "profile": profile}))
            proc = subprocess.run(["node", str(job / "trace.js"), str(core.resolve()), str(job)],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                raise BuildError(f"the lab did not open chapter {chapter} under node:\n{proc.stderr[-3000:]}")
            runs.append((set(json.loads((job / "result.json").read_text())), proc.stderr))
    return runs


def trace(site: Path, chapters: list[str]) -> set[str]:
    """Every module imported from site-packages or the standard library when the lab opens on
    each of `chapters`, in the site's own Pyodide."""
    return set().union(*(names for names, _ in _open_lab(site, chapters)))


class Import(NamedTuple):
    """One line of `python -X importtime`: microseconds in the module's own code and with its
    imports, and how deep it was imported (0: by the code that was run)."""
    self_us: int
    cumulative_us: int
    depth: int
    name: str
    importers: tuple[str, ...]          # who imported it, nearest first, up to depth 0


IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\s*$")


def parse_importtime(text: str) -> list[Import]:
    """The imports `-X importtime` reports in `text`, in its order (a module after those it
    imported; each nesting level indents the name by two spaces)."""
    rows = [(int(m[1]), int(m[2]), len(m[3]) // 2, m[4])
            for m in map(IMPORTTIME.match, text.splitlines()) if m]
    out, above = [], []                 # above[d]: the nearest later import at depth d
    for self_us, cum, depth, name in reversed(rows):
        out.append(Import(self_us, cum, depth, name, tuple(reversed(above[:depth]))))
        above[depth:] = [name]
    return out[::-1]


def profile(site: Path, chapter: str) -> list[Import]:
    """The imports of the lab's start on `chapter`, timed, in the site's own Pyodide under node."""
    [(_, stderr)] = _open_lab(site, [chapter], profile=True)
    return parse_importtime(stderr)


def profile_table(imports: list[Import], top: int = 30) -> str:
    """The `top` imports by cumulative and by own time, with the chain that imported each."""
    total = sum(i.cumulative_us for i in imports if i.depth == 0)
    lines = [f"{len(imports)} imports, {total / 1e6:.2f} s at the top level (importtime's own overhead included)",
             "", f"{'cum ms':>7} {'self ms':>7}  module <- imported by"]
    for key in ("cumulative_us", "self_us"):
        for i in sorted(imports, key=lambda i: -getattr(i, key))[:top]:
            lines.append(f"{i.cumulative_us / 1e3:7.0f} {i.self_us / 1e3:7.0f}  "
                         + " <- ".join((i.name, *i.importers)))
        lines.append("")
    return "\n".join(lines)


def read_imported(path: Path = IMPORTED_FILE) -> frozenset[str]:
    return frozenset(line.strip() for line in path.read_text(encoding="utf-8").splitlines()
                     if line.strip() and not line.startswith("#"))


def main(argv: list[str] | None = None) -> int:
    from gleam_lab import content
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path, default=Path(__file__).resolve().parents[1] / "site")
    ap.add_argument("--chapters", nargs="*", default=None, help="default: every chapter")
    ap.add_argument("--profile", metavar="CHAPTER", help="print where opening CHAPTER spends its imports' time")
    ap.add_argument("--top", type=int, default=30, help="rows of each --profile table")
    args = ap.parse_args(argv)
    if args.profile is not None:
        print(profile_table(profile(args.site, args.profile), args.top))
        return 0
    names = trace(args.site, args.chapters or content.chapter_ids())
    IMPORTED_FILE.write_text(HEADER + "".join(f"{n}\n" for n in sorted(names)), encoding="utf-8")
    print(f"{len(names)} modules -> {IMPORTED_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
