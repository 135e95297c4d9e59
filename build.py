#!/usr/bin/env python
"""Build site/: the lab as a static, self-contained Pyodide site (no server code, no CDN).

    python build.py                  # build site/ (first run fetches into build-cache/)
    python build.py --serve --open   # build if needed, serve on 127.0.0.1:8000, open a browser
    python build.py --serve --no-build --port 8001

Pages and deep links, e.g. http://127.0.0.1:8000/chapter-7.html (every page shares one
worker, main.js, and every asset):
    index.html                   the lab, opening on chapter 0
    chapter-<id>.html            the lab opening on chapter <id> (ids 0..9, memory, extrapolation),
                                 e.g. chapter-7.html: that chapter's text and a pre-rendered view
                                 show while Python starts, and Python starts on that chapter
    index.html?chapter=<id>      also works: it loads chapter-<id>.html?chapter=<id> first thing
    (any page)?chapter=<id>      likewise; moving between chapters inside the lab never reloads
                                 the page or Python, it only updates ?chapter= in the address bar

Stages: Pyodide core (npm) -> compiled wheels (checked against the official lock) ->
pure wheels (PyPI, pinned by hash; markupsafe/pyyaml built pure from sdists; Panel and
Bokeh slimmed) -> the research labs' results checked (gleam/data, shipped with the code and made by
python -m gleam.pretrained --train: the build never trains) -> the project's wheel -> every pure wheel compiled to 3.12 bytecode
(Pyodide under node; buildtools/bytecode.py) -> the site's pyodide-lock.json -> each chapter's
title, prose and math as static HTML (KaTeX under node) -> panel convert (once per chapter, in
one process) and rewrites (buildtools/convert.py, boot.py: prose first, honest loading) ->
verification (no external fetch, every reference local, lock hashes) -> the service worker
(buildtools/offline.py) -> brotli and gzip copies.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

from gleam_lab import content
from gleam_lab.content.render import TYPESET_FILE
from gleam import pretrained
from buildtools import meta, patches, pins
from buildtools.convert import PYODIDE_DIR, convert
from buildtools.errors import BuildError
from buildtools.fetch import (
    build_project_wheel, build_sdist_wheel, extract_compiled, fetch_compiled_source, fetch_pyodide_core,
    pip_download,
)
from buildtools.lock import build_lock, resolve_closure
from buildtools.bytecode import compile_stdlib, compile_wheels
from buildtools.trace_imports import read_imported
from buildtools.compress import precompress
from buildtools import static_prose
from buildtools.katex import copy_assets, fetch_katex
from buildtools.offline import REGISTER_SCRIPT, write_service_worker
from buildtools.serve import serve
from buildtools.verify import site_summary, verify_site
from buildtools.wheels import SLIM_RULES, read_wheel, slim_wheel

REPO = Path(__file__).resolve().parent
STAMP_INPUTS = ("app", "content", "gleam", "gleam_lab", "pyproject.toml", "build.py", "buildtools")


class Stages:
    """Prints one line per stage with its duration."""

    def __init__(self):
        self.t0 = time.perf_counter()

    def __call__(self, label: str):
        class _Stage:
            def __enter__(self):
                self.t = time.perf_counter()
                print(f"[build] {label} ...", flush=True)

            def __exit__(self, *exc):
                if exc[0] is None:
                    print(f"[build]   done in {time.perf_counter() - self.t:.1f} s", flush=True)
        return _Stage()

    def total(self) -> float:
        return time.perf_counter() - self.t0

    def progress(self, every: float = 5.0):
        """A progress(done, total, done_bytes, total_bytes) callback for a long stage: a line at
        most every `every` seconds, and one at the end."""
        last = [time.perf_counter()]

        def tell(done: int, total: int, done_bytes: int, total_bytes: int) -> None:
            now = time.perf_counter()
            if done == total or now - last[0] >= every:
                last[0] = now
                print(f"[build]   {done} of {total} files, {done_bytes / 1e6:.1f} of {total_bytes / 1e6:.1f} MB",
                      flush=True)
        return tell


COMPRESS_STAGE = ("12/12 compress: a brotli and a gzip copy of each text, wasm and stored archive, "
                  "as a static host sends them")


def compress_site(site: Path, cache: Path, stage: Stages, background: bool = False) -> None:
    with stage(COMPRESS_STAGE + (" (in the background, while serving)" if background else "")):
        count, before, br, gz = precompress(site, cache / "brotli", stage.progress(), background)
        print(f"[build]   {count} files, {before / 1e6:.1f} MB -> {br / 1e6:.1f} MB brotli, {gz / 1e6:.1f} MB gzip")


def build(app: Path, site: Path, cache: Path, site_url: str | None = None, compress: bool = True) -> None:
    """Build site/ from `app`. With compress=False the site is complete but for its compressed
    copies (stage 12), which `build.py --serve` makes while it serves."""
    stage = Stages()
    checked = patches.verify()   # every change to an upstream meets the version it was written against
    print(f"[build] {len(checked)} patches to upstreams checked against the versions built with "
          "(python -m buildtools.patches lists them)", flush=True)
    chapters = content.chapter_ids()
    cache.mkdir(parents=True, exist_ok=True)
    new = cache / "site.new"  # staged here, swapped in only once verified
    shutil.rmtree(new, ignore_errors=True)
    pyo = new / PYODIDE_DIR
    pyo.mkdir(parents=True)

    with stage(f"1/12 Pyodide {pins.PYODIDE_VERSION} core files (npm pack pyodide)"):
        core = fetch_pyodide_core(cache)
        for f in pins.PYODIDE_CORE_FILES:
            shutil.copy2(core / f, pyo / f)
        official = json.loads((core / "pyodide-lock.json").read_text())

    with stage(f"2/12 compiled wheels {list(pins.COMPILED_PACKAGES)} from {pins.COMPILED_SOURCE}, "
               "checked against the official lock"):
        source = fetch_compiled_source(cache)
        compiled = extract_compiled(source, official["packages"], list(pins.COMPILED_PACKAGES),
                                    cache / "compiled")
        # numpy less its build inputs (headers, stubs, ...) and f2py (buildtools.wheels._numpy_rule);
        # compiled to bytecode with the pure wheels (stage 7), its extensions byte for byte
        compiled = {name: slim_wheel(path, cache / "slim") if name in SLIM_RULES else path
                    for name, path in compiled.items()}

    with stage(f"3/12 pure wheels: {len(pins.PURE_WHEELS)} from PyPI, {len(pins.SDIST_WHEELS)} built "
               "from sdists, Panel and Bokeh slimmed"):
        pure = []
        for i, (spec, sha) in enumerate(pins.PURE_WHEELS.items()):
            print(f"[build]   {i + 1} of {len(pins.PURE_WHEELS)} wheels: {spec}", flush=True)
            whl = pip_download(spec, cache / "pypi", sha)
            if spec.split("==")[0] in ("panel", "bokeh"):
                whl = slim_wheel(whl, cache / "slim")
            pure.append(whl)
        for i, (spec, sha) in enumerate(pins.SDIST_WHEELS.items()):
            print(f"[build]   {i + 1} of {len(pins.SDIST_WHEELS)} from an sdist: {spec}", flush=True)
            pure.append(build_sdist_wheel(spec, sha, cache))

    with stage("4/12 the research labs' results (gleam/data: shipped with the code, checked against its specs; never trained here)"):
        for lab in pretrained.SPECS:
            doc = pretrained.document(lab)      # refuses data made from other specs
            print(f"[build]   {lab}: {sum(len(e['records']) for e in doc['experiments'].values())} records, "
                  f"made from {doc['provenance'].get('commit')}")

    with stage(f"5/12 static prose: each chapter's title, prose and math as HTML (KaTeX {pins.KATEX_VERSION})"):
        katex = fetch_katex(cache)
        prose = static_prose.prose(chapters, katex)
        articles = static_prose.articles(chapters, katex, prose)
        css = copy_assets(katex, new)
        typeset = json.dumps({"css": css[0], "chapters": prose}, sort_keys=True)
        (cache / "typeset.json").write_text(typeset, encoding="utf-8")
        head = (f'<link rel="stylesheet" href="./{css[0]}" type="text/css" />\n'
                f"<style>{static_prose.STATIC_CSS}</style>\n{REGISTER_SCRIPT}\n")
        print(f"[build]   {len(articles)} articles, {sum(map(len, articles.values())) / 1e3:.0f} kB of HTML; "
              f"{len(css)} KaTeX files")

    with stage(f"6/12 project wheel ({pins.PROJECT_NAME}: packages gleam (with the labs' results, not their weights) and gleam_lab (app, content + the typeset prose))"):
        project = build_project_wheel(REPO, cache / "project", {f"content/{TYPESET_FILE}": typeset})
        pure.append(project)

    with stage("7/12 bytecode: every wheel's modules and the standard library compiled by Pyodide's Python 3.12 under node"):
        # the modules the lab imports (buildtools/imported_modules.txt); the project's, all of them
        imported = read_imported()
        names = list(compiled)
        others = [w for w in pure if w != project]
        upstream, summary = compile_wheels([compiled[n] for n in names] + others, core, cache, imported)
        [project], ours = compile_wheels([project], core, cache)
        wheels = upstream + [project]
        compiled, pure = dict(zip(names, wheels)), wheels[len(names):]
        for whl in wheels:
            shutil.copy2(whl, pyo / whl.name)
        stdlib, stdlib_modules = compile_stdlib(core, cache, imported)
        shutil.copy2(stdlib, pyo / "python_stdlib.zip")
        print(f"[build]   {summary['modules'] + ours['modules']} modules in {len(wheels)} wheels "
              f"({summary['compiled_now'] + ours['compiled_now']} compiled now), {stdlib_modules} in the "
              f"standard library; {summary['source']} the lab does not import left as source; kept as "
              "source: " + (", ".join({**summary["kept"], **ours["kept"]}) or "none"))

    with stage("8/12 pyodide-lock.json for exactly the shipped packages"):
        infos = [read_wheel(pyo / w.name) for w in pure]
        lock = build_lock(official, list(pins.COMPILED_PACKAGES), infos,
                          {name: pyo / path.name for name, path in compiled.items()})
        (pyo / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
        loaded = resolve_closure(lock, list(pins.WORKER_INSTALLS))
        unused = sorted(set(lock["packages"]) - loaded)
        if unused:
            raise BuildError(f"lock entries nothing installs: {unused}")
        print(f"[build]   {len(lock['packages'])} packages, all loaded by the worker")

    with stage(f"9/12 panel convert {app} --to pyodide-worker, a page per chapter, rewrite to local URLs"):
        result = convert(app, REPO, new, lock, chapters, articles, head, cache / "typeset.json", site_url)
        print(f"[build]   {len(result['pages'])} pages ({', '.join(result['pages'][:3])}, ...), "
              f"one worker {result['worker']}; {len(result['previews'])} link preview cards, "
              + (f"named at {site_url}" if site_url else "not named (no --site-url)"))

        weights = sorted((REPO / "gleam" / "data").glob("*.weights.npz"))
        (new / "data").mkdir(exist_ok=True)
        for w in weights:        # the model inspector fetches them when it first needs one (not in the wheel)
            shutil.copy2(w, new / "data" / w.name)
        print(f"[build]   the labs' trained weights for the model inspector: "
              f"{', '.join(f'data/{w.name} ({w.stat().st_size / 1e6:.1f} MB)' for w in weights)}")

    with stage("10/12 service worker: sw.js caches this build, for fast and offline second visits"):
        sw = write_service_worker(new)
        print(f"[build]   build {sw['build']}: {sw['files']} files ({sw['bytes'] / 1e6:.1f} MB), "
              f"{sw['pinned']} of them pinned upstream copies served from the cache first")

    with stage("11/12 verify: no external fetch, local references, lock hashes"):
        notes = verify_site(new, result["worker"], f"{PYODIDE_DIR}/pyodide-lock.json")
        for n in notes:
            print(f"[build]   {n}")

    if compress:
        compress_site(new, cache, stage)

    shutil.rmtree(site, ignore_errors=True)
    new.rename(site)
    total, count, sizes = site_summary(site)
    print(f"[build] {site.name}/: {count} files, {total / 1e6:.1f} MB; largest: "
          + ", ".join(f"{Path(n).name} {s / 1e6:.1f} MB" for s, n in sizes[:4]))
    print(f"[build] built {site} in {stage.total():.1f} s"
          + ("" if compress else "; its compressed copies are made next, while it is served"))


def input_stamp(app: Path) -> str:
    """A fingerprint of everything the site is built from (paths, sizes, mtimes)."""
    h = hashlib.sha256(str(app.resolve()).encode())
    paths = [app]
    for item in STAMP_INPUTS:
        p = REPO / item
        paths += sorted(p.rglob("*")) if p.is_dir() else [p]
    for p in paths:
        if p.is_file() and "__pycache__" not in p.parts:
            st = p.stat()
            h.update(f"{p}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", type=Path, default=REPO / "app" / "main.py", help="Panel app to convert")
    ap.add_argument("--site", type=Path, default=REPO / "site", help="output folder")
    ap.add_argument("--cache", type=Path, default=REPO / "build-cache", help="download/build cache")
    ap.add_argument("--serve", action="store_true", help="serve the site on 127.0.0.1 after building")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--no-build", action="store_true", help="with --serve: serve what is there")
    ap.add_argument("--open", action="store_true", help="with --serve: open a browser if there is one")
    ap.add_argument("--force", action="store_true", help="with --serve: rebuild even if up to date")
    ap.add_argument("--site-url", help="the site's public address (https://example.org/rnn-lab/): each page's "
                                       "link preview then names its preview card, which needs an absolute address")
    args = ap.parse_args(argv)
    app, site = args.app.resolve(), args.site.resolve()
    try:
        site_url = meta.check_site_url(args.site_url) if args.site_url else None
    except ValueError as e:
        ap.error(str(e))
    cache = args.cache.resolve()
    stamp_file = cache / "site-stamp.json"
    uncompressed = False     # a site built for --serve, served while its compressed copies are made
    try:
        if not args.no_build:
            stamp = input_stamp(app) + (f" {site_url}" if site_url else "")
            kept = json.loads(stamp_file.read_text()) if stamp_file.exists() else {}
            fresh = (args.serve and not args.force and (site / "index.html").exists()
                     and kept.get("stamp") == stamp)
            if fresh:
                print("[build] site/ is up to date with its inputs; not rebuilding (--force to rebuild)")
                uncompressed = not kept.get("compressed", True)
            else:
                stamp_file.unlink(missing_ok=True)
                build(app, site, cache, site_url, compress=not args.serve)
                uncompressed = args.serve
                cache.mkdir(parents=True, exist_ok=True)
                stamp_file.write_text(json.dumps({"stamp": stamp, "app": str(app), "compressed": not uncompressed}))
    except BuildError as e:
        print(f"[build] FAILED: {e}", file=sys.stderr)
        return 1
    if args.serve:
        if not (site / "index.html").exists():
            print(f"[build] nothing to serve: {site}/index.html is missing", file=sys.stderr)
            return 1

        def finish() -> None:
            compress_site(site, cache, Stages(), background=True)
            stamp_file.write_text(json.dumps({**json.loads(stamp_file.read_text()), "compressed": True}))
            print(f"[build] {site.name}/ is complete, its compressed copies made", flush=True)
        serve(site, args.port, open_browser=args.open, meanwhile=finish if uncompressed else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
