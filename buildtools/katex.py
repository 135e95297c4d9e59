"""KaTeX at build time: the chapters' TeX turned into HTML once, by node, for the static pages.

    fetch_katex(cache)          `npm pack katex@<pin>` into <cache>/npm/, checked against its pinned
                                npm integrity, extracted once to <cache>/npm/katex-<pin>/
    render(items, katex_dir)    [(tex, display), ...] -> KaTeX HTML strings, one node process for all
    copy_assets(katex_dir, site) katex.min.css (woff2 fonts only) and those fonts into site/katex/

The page then needs KaTeX's CSS and fonts only: no KaTeX script runs in the browser.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import patches, pins
from .errors import BuildError
from .fetch import extract_npm_package, npm_tarball

CSS = "dist/katex.min.css"
SCRIPT = "dist/katex.js"

# Reads [[tex, display], ...] as JSON on stdin, writes [{"html": ...} | {"error": ...}, ...].
# strict "ignore": KaTeX's LaTeX-compatibility warnings (e.g. unicode text in math mode) are not
# errors for us; a TeX KaTeX cannot parse still throws (throwOnError).
NODE_JS = r"""
const katex = require(process.argv[1]);
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(([tex, display]) => {
    try {
      return {html: katex.renderToString(tex, {displayMode: display, output: "html",
                                               throwOnError: true, strict: "ignore"})};
    } catch (e) {
      return {error: String(e && e.message || e)};
    }
  });
  process.stdout.write(JSON.stringify(out));
});
"""


def fetch_katex(cache: Path) -> Path:
    """The pinned KaTeX package, fetched with npm once, checked on every call, extracted once;
    returns the extracted package/ folder, <cache>/npm/katex-<version>/."""
    tgz = npm_tarball(cache, "katex", pins.KATEX_VERSION, pins.KATEX_NPM_INTEGRITY)
    out = tgz.parent / f"katex-{pins.KATEX_VERSION}"
    if not ((out / SCRIPT).exists() and (out / CSS).exists()):
        extract_npm_package(tgz, out)
    return out


def render(items: list[tuple[str, bool]], katex_dir: Path) -> list[str]:
    """KaTeX's HTML for each (TeX without delimiters, display?) pair, in order, from one node run.
    A TeX that KaTeX refuses fails the build, naming the TeX and KaTeX's message (all of them)."""
    if not items:
        return []
    node = shutil.which("node")
    if node is None:
        raise BuildError("node is needed to render the math with KaTeX (Debian: apt-get install nodejs)")
    script = Path(katex_dir) / SCRIPT
    if not script.exists():
        raise BuildError(f"{script} is missing: fetch KaTeX first (buildtools.katex.fetch_katex)")
    payload = json.dumps([[tex, bool(display)] for tex, display in items])
    proc = subprocess.run([node, "-e", NODE_JS, str(script.resolve())], input=payload,
                          capture_output=True, text=True, encoding="utf-8", check=False)
    if proc.returncode != 0:
        raise BuildError(f"node (KaTeX) failed ({proc.returncode}):\n{proc.stderr}")
    results = json.loads(proc.stdout)
    if len(results) != len(items):
        raise BuildError(f"KaTeX returned {len(results)} results for {len(items)} formulas")
    refused = [f"  {' '.join(tex.split())}  ->  {r['error']}" for (tex, _), r in zip(items, results) if "error" in r]
    if refused:
        raise BuildError(f"KaTeX refused {len(refused)} formula(s):\n" + "\n".join(refused))
    return [r["html"] for r in results]


_FONT_FACE = re.compile(r"@font-face\s*\{[^}]*\}")
_SRC = re.compile(r"src\s*:\s*([^;}]*)")
_URL = re.compile(r"url\(\s*['\"]?([^'\")]+?)['\"]?\s*\)")


def woff2_only(css: str) -> str:
    """The CSS with every @font-face `src` list cut down to its woff2 entry."""
    def face(m):
        block = m.group(0)
        src = _SRC.search(block)
        entries = [e.strip() for e in src.group(1).split(",")] if src else []
        woff2 = [e for e in entries if re.search(r"\.woff2['\"]?\s*\)", e)]
        if not woff2:
            raise BuildError(f"KaTeX CSS: a @font-face without a woff2 source: {block[:120]}")
        return block[:src.start(1)] + ",".join(woff2) + block[src.end(1):]
    return _FONT_FACE.sub(face, css)


def copy_assets(katex_dir: Path, site: Path) -> list[str]:
    """site/katex/<version>/katex.min.css (woff2 sources only) and the woff2 fonts it names, under
    site/katex/<version>/fonts/ (the version in the path: a service worker may keep them for
    good, buildtools.offline); returns the site-relative paths written, the CSS first."""
    katex_dir, site = Path(katex_dir), Path(site)
    version = json.loads((katex_dir / "package.json").read_text(encoding="utf-8"))["version"]
    patches.applies("katex.woff2-only", version, f"{katex_dir.name}/package.json")
    css = woff2_only((katex_dir / CSS).read_text(encoding="utf-8"))
    dest = site / "katex" / pins.KATEX_VERSION
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for ref in sorted(set(_URL.findall(css))):
        src = (katex_dir / CSS).parent / ref
        if not src.is_file():
            raise BuildError(f"KaTeX CSS names {ref}, which the package does not hold")
        target = dest / ref
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
        written.append(target.relative_to(site).as_posix())
    (dest / "katex.min.css").write_text(css, encoding="utf-8")
    return [f"katex/{pins.KATEX_VERSION}/katex.min.css", *written]


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    print(fetch_katex(Path(sys.argv[1]) if len(sys.argv) > 1 else root / "build-cache"))
