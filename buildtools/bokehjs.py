"""BokehJS as the site serves it: the bundles the pages name, copied from the installed bokeh,
with one rewrite of the main bundle.

At every paint of a figure, BokehJS 3.9 writes each of its renderers' positions into a stylesheet
of the renderer's own (a <style> element), the same text as before when nothing moved. Then it
reads the renderer's visual properties through getComputedStyle, in case a `--bk-*` CSS variable
sets one (bokeh/bokeh#15286). Writing a <style> element's text, even unchanged, makes the
document's styles stale, so each of those reads made Chrome recompute them: many times a paint,
for every figure that repaints. Here a stylesheet's text is written only when it changes. Every
figure draws the same: the same text gives the same styles. (Record: buildtools/patches/bokehjs.py.)
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import patches
from .errors import BuildError, sub_once

BOKEH_DIR = "bokeh"

# InlineStyleSheet._update(css) in the minified bundle: the one place that writes its text.
STYLESHEET_WRITE_RE = r"_update\((\w+)\)\{this\.el\.textContent=\1\}"
STYLESHEET_WRITE_IF_CHANGED = r"_update(\1){this.el.textContent!==\1&&(this.el.textContent=\1)}"


def rewrite_bundle(js: str, version: str | None = None) -> str:
    """The main bundle (bokeh-<version>.min.js; by default the build's BokehJS) with stylesheets
    written only when they change."""
    patches.applies("bokehjs.stylesheet-write-if-changed", version, "the bundle")
    return sub_once(STYLESHEET_WRITE_RE, STYLESHEET_WRITE_IF_CHANGED, js, "BokehJS's InlineStyleSheet._update")


def installed_bundles() -> Path:
    """The folder of the installed bokeh's BokehJS bundles (`bokeh.min.js`, ...)."""
    import bokeh
    return Path(bokeh.__file__).parent / "server" / "static" / "js"


def copy_bokeh_js(bundles: list[str], site: Path) -> None:
    """Copy the BokehJS bundles the pages name (`bokeh-3.9.2.min.js`, ...) into site/bokeh/."""
    import bokeh
    static = installed_bundles()
    dest = site / BOKEH_DIR
    dest.mkdir(parents=True, exist_ok=True)
    for fname in bundles:
        stem, version = fname[: -len(".min.js")].rsplit("-", 1)
        if version != bokeh.__version__:
            raise BuildError(f"the page wants BokehJS {version} but bokeh {bokeh.__version__} is installed")
        if stem == "bokeh":
            source = (static / f"{stem}.min.js").read_bytes().decode("utf-8")
            (dest / fname).write_bytes(rewrite_bundle(source, version).encode("utf-8"))
        else:
            shutil.copy2(static / f"{stem}.min.js", dest / fname)
