"""The Python the site's worker runs once Pyodide has loaded, before the lab's own code
(buildtools.convert puts it into main.js right after loadPyodide).

Each piece is a real module under buildtools/worker/ (compiled by the tests like any other); the
build reads it, drops its leading comment lines, and puts it into a JavaScript template literal.
Each changes an upstream's behaviour and has a record in buildtools.patches.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import patches
from .errors import BuildError

WORKER_DIR = Path(__file__).with_name("worker")


def python(name: str) -> str:
    """buildtools/worker/<name>.py as the worker gets it: without its leading comment lines.
    Refused if it holds what a JS template literal would not pass on as written."""
    path = WORKER_DIR / f"{name}.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    code = "".join(lines)
    for bad in ("`", "${", "\\"):
        if bad in code:
            raise BuildError(f"{path}: {bad!r} would change meaning inside main.js's template literal")
    return code


JSNULL = python("jsnull")
NO_GC_AT_START = python("no_gc_at_start")
NO_DIAGNOSTICS = python("no_diagnostics")
LIGHT_MODEL_HOOK = python("light_model_hook")
LIGHT_GLYPH_PARAMETERS = python("light_glyph_parameters")
FAST_SERIALIZE = python("fast_serialize")
LAZY_TEMPLATES = python("lazy_templates")

# After the worker's message with the first document (RENDER_POSTED_RE): the collector on again.
GC_AFTER_RENDER = "\n    self.pyodide.runPython(" + json.dumps(python("gc_after_render").strip()) + ")"
RENDER_POSTED_RE = r"self\.postMessage\(\{\s*type: 'render',[^}]*\}\)"

WORKER_PRELUDE = ('''
  // Panel 1.9.4 expects Pyodide 0.29's pyodide.ffi.jsnull; on 0.27 JS null already
  // converts to None. Without this every widget change fails with an AttributeError.
  // Then no garbage collection until the first render, Bokeh's lighter model-class hook and
  // glyph-method signatures, no error diagnostics, a faster serialization and templates
  // compiled on first use (buildtools/worker_prelude.py).
  self.pyodide.runPython(`''' + JSNULL + NO_GC_AT_START + NO_DIAGNOSTICS + LIGHT_MODEL_HOOK
                  + LIGHT_GLYPH_PARAMETERS + FAST_SERIALIZE + LAZY_TEMPLATES + '''`);''')
# Their records (buildtools/patches/), in that order.
PATCHES = ("pyodide.jsnull", "pyodide.no-gc-at-start", "bokeh.no-error-diagnostics", "bokeh.light-model-hook",
           "bokeh.light-glyph-parameters", "bokeh.fast-serialize", "jinja2.lazy-templates")


def prelude() -> str:
    """WORKER_PRELUDE, once every patch in it is checked against the versions the site ships."""
    for name in PATCHES:
        patches.applies(name)
    return WORKER_PRELUDE
