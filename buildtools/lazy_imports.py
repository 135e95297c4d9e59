"""Panel's packages, as the browser gets them, import what the lab never uses only when it is used
(and Bokeh's, PyYAML and importlib.metadata: see LAZY_YAML and BOKEH_VERSION at the end).

`import panel` imports every pane, widget, layout and the chat components, a large part of the
Python the worker runs before the first render. Here the `__init__.py` of panel, panel.pane,
panel.widgets and panel.layout are rewritten (in the slimmed wheel, buildtools.wheels) so that
the submodules in LAZY are imported on first access to one of their names (PEP 562
`__getattr__`): `pn.widgets.Terminal` and `from panel.widgets import Terminal` still work, and
import the module then. Nothing else of Panel changes, and `panel serve` runs the unmodified
package.

Only modules that nothing else of Panel imports at start are listed (the others would be
imported anyway: panel.param imports the tables and the file selector, Bokeh's pane the image
and ipywidget panes, the HoloViews pane the Plotly one). The templates are among them: the lab
names none (no `pn.config.template`). A
pane that is not yet imported is also not a candidate of `pn.panel(obj)`; the lab names its
panes (HTML, Bokeh).
Every rewrite must find exactly the imports it expects: a Panel upgrade that moves them stops
the build (and tests/test_build.py imports every lazy name in the site's Pyodide).
"""
from __future__ import annotations

import ast

from . import patches
from .errors import BuildError

# file -> {module: None (every name it gives) or the names of it to import lazily}
LAZY = {
    "panel/__init__.py": {"chat": None, "pipeline": None, "template": None,
                          "layout": {"Feed", "FloatPanel", "GridStack", "Modal", "Swipe"}},
    "panel/layout/__init__.py": dict.fromkeys(["feed", "float", "gridstack", "modal", "swipe"]),
    "panel/pane/__init__.py": dict.fromkeys(["alert", "deckgl", "echarts", "equation", "media", "perspective",
                                             "streamz", "textual", "vega", "vizzu", "vtk"]),
    "panel/widgets/__init__.py": dict.fromkeys(["codeeditor", "debugger", "speech_to_text", "terminal",
                                                "text_to_speech", "texteditor"]),
}

GETATTR = '''

# Added by the lab's build (buildtools/lazy_imports.py): these names are imported on first use.
_GL_LAZY = {table!r}


def __getattr__(name):
    if name not in _GL_LAZY:
        raise AttributeError(f"module {{__name__!r}} has no attribute {{name!r}}")
    import importlib
    module, attr = _GL_LAZY[name]
    value = importlib.import_module(module, __name__)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value
'''


def lazify(source: str, lazy: dict[str, set[str] | None], what: str = "") -> str:
    """`source` (a package's __init__.py) with its top-level `from .m import A, B` and
    `from . import m` made lazy for each m in `lazy` (all its names, or the given ones)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    table: dict[str, tuple[str, str | None]] = {}
    edits: list[tuple[int, int, str]] = []          # (first line, end line, replacement)
    seen: dict[str, set[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level != 1:
            continue
        if node.module is None:                     # from . import m
            hit = [a for a in node.names if a.name in lazy and lazy[a.name] is None]
            if not hit:
                continue
            if len(hit) != len(node.names):
                raise BuildError(f"{what}: line {node.lineno} imports lazy and eager modules together")
            for a in hit:
                table[a.asname or a.name] = ("." + a.name, None)
                seen[a.name] = set()
            edits.append((node.lineno - 1, node.end_lineno, ""))
        elif node.module in lazy:                   # from .m import A, B
            names = lazy[node.module]
            hit = [a for a in node.names if names is None or a.name in names]
            if not hit:
                continue
            for a in hit:
                table[a.asname or a.name] = ("." + node.module, a.name)
            seen.setdefault(node.module, set()).update(a.name for a in hit)
            keep = [a for a in node.names if a not in hit]
            kept = ("from .%s import %s  # noqa\n" % (node.module, ", ".join(
                a.name + (f" as {a.asname}" if a.asname else "") for a in keep))) if keep else ""
            edits.append((node.lineno - 1, node.end_lineno, kept))
    for module, names in lazy.items():
        if module not in seen or (names is not None and seen[module] != names):
            raise BuildError(f"{what}: expected to find `from .{module} import "
                             f"{', '.join(sorted(names or ['...']))}`; Panel's imports changed?")
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    return "".join(lines) + GETATTR.format(table=dict(sorted(table.items())))


def rewrite(name: str, data: bytes, version: str = "") -> bytes:
    """A member of the Panel wheel, lazified if LAZY names it."""
    if name not in LAZY:
        return data
    patches.applies("panel.lazy-imports", version or None, name)
    return lazify(data.decode("utf-8"), LAZY[name], name).encode("utf-8")


# Bokeh imports PyYAML as it starts (bokeh.settings, bokeh.themes.theme) only
# to read a bokeh.yaml config or a theme file, which the lab never does. In the site's Bokeh their
# `import yaml` gives a stand-in that imports PyYAML on first use of any of its names.
LAZY_YAML = ("bokeh/settings.py", "bokeh/themes/theme.py")
YAML_IMPORT = "\nimport yaml\n"
YAML_STAND_IN = """
class _GlLazyYaml:  # Added by the lab's build (buildtools/lazy_imports.py): PyYAML on first use.
    def __getattr__(self, name):
        import yaml as module
        return getattr(module, name)


yaml = _GlLazyYaml()
"""


# Bokeh reads its own version from its installed metadata as it starts: importlib.metadata, with the
# email, csv and zipfile modules it imports, and a parse of Bokeh's METADATA, which nothing else of the lab's start needs (app/main.py loads no Panel entry points, and
# the worker refreshes only site-packages' import cache). The site's Bokeh has its version written in.
BOKEH_VERSION = ("bokeh/__init__.py", {
    "import importlib.metadata as importlib_metadata\n": "",
    '__version__ = importlib_metadata.version("bokeh")\n':
        '__version__ = "{version}"  # written in by the lab\'s build (buildtools/lazy_imports.py)\n',
    "del importlib_metadata\n": ""})


def rewrite_bokeh(name: str, data: bytes, version: str = "") -> bytes:
    """A member of the Bokeh wheel (of `version`), its PyYAML import made lazy if LAZY_YAML names
    it, its version written in if BOKEH_VERSION does."""
    if name == BOKEH_VERSION[0]:
        patches.applies("bokeh.version-written-in", version or None, name)
        source = data.decode("utf-8")
        for line, new in BOKEH_VERSION[1].items():
            if source.count(line) != 1:
                raise BuildError(f"{name}: expected one line {line.strip()!r}; Bokeh's version lookup changed?")
            source = source.replace(line, new.format(version=version), 1)
        return source.encode("utf-8")
    if name not in LAZY_YAML:
        return data
    patches.applies("bokeh.lazy-yaml", version or None, name)
    source = data.decode("utf-8")
    if source.count(YAML_IMPORT) != 1:
        raise BuildError(f"{name}: expected one top-level `import yaml`; Bokeh's imports changed?")
    return source.replace(YAML_IMPORT, "\n" + YAML_STAND_IN, 1).encode("utf-8")
