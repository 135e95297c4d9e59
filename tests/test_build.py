"""Fast checks of build.py's pieces, without a browser.

The lock entries it writes, its refusal of a file whose hash is wrong, its rewriting of
what `panel convert` writes (nothing external left), the pages per chapter and how a page and
its worker agree on the chapter (deep links), the URL scanner itself, and the cache headers of
`build.py --serve`. The full build is exercised by test.sh and the browser tests; when site/
exists, its lock, URLs and chapter pages are checked here too.
"""
import base64
import hashlib
import html as htmllib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import types
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gleam_lab import content
from buildtools import bytecode, pins
from buildtools.convert import (
    FAST_SERIALIZE, GC_AFTER_RENDER, LAZY_TEMPLATES, LIGHT_GLYPH_PARAMETERS, LIGHT_MODEL_HOOK, NO_DIAGNOSTICS,
    NO_GC_AT_START, PYODIDE_DIR, add_deep_links, convert, page_name, rewrite_html, rewrite_worker, run_panel_convert,
)
from buildtools.errors import BuildError
from buildtools.fetch import check_sha256, extract_compiled, verify_official
from buildtools.lazy_imports import LAZY, LAZY_YAML, lazify
from buildtools.lock import build_lock, verify_lock
from buildtools.serve import IMMUTABLE, MIME, NO_CACHE, cache_control, make_server
from buildtools.verify import check_documents, doc_models, scan_site, scan_text
from buildtools.wheels import read_wheel, slim_wheel

ROOT = Path(__file__).resolve().parents[1]
SITE = Path(os.environ.get("GLEAM_SITE_DIR") or ROOT / "site").resolve()
BUILD_CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or ROOT / "build-cache").resolve()


def make_wheel(folder: Path, name: str, version: str, requires=(), files=None) -> Path:
    """A minimal wheel with METADATA and RECORD."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-py3-none-any.whl"
    files = files if files is not None else {f"{name.replace('-', '_')}/__init__.py": "x = 1\n"}
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as z:
        for fname, text in files.items():
            z.writestr(fname, text)
        z.writestr(f"{dist}.dist-info/METADATA", meta)
        z.writestr(f"{dist}.dist-info/RECORD", "")
    return path


OFFICIAL = {
    "info": {"version": pins.PYODIDE_VERSION, "python": "3.12.7"},
    "packages": {
        "numpy": {"name": "numpy", "version": "2.0.2", "file_name": "numpy-2.0.2-cp312-cp312-x.whl",
                  "sha256": "0" * 64, "depends": [], "imports": ["numpy"], "install_dir": "site",
                  "package_type": "package", "unvendored_tests": True},
        "pandas": {"name": "pandas", "version": "2.2.3", "file_name": "pandas.whl", "sha256": "1" * 64,
                   "depends": ["numpy"], "imports": ["pandas"], "install_dir": "site",
                   "package_type": "package", "unvendored_tests": True},
    },
}


# ---------------------------------------------------------------- lock entries

def test_lock_entry_of_a_pure_wheel_has_every_field_and_drops_left_out_deps(tmp_path):
    whl = make_wheel(tmp_path, "demo-pkg", "1.2.3",
                     requires=["numpy>=1", "pandas>=1", "tornado; sys_platform != 'emscripten'",
                               "pytest; extra == 'test'"])
    lock = build_lock(OFFICIAL, ["numpy"], [read_wheel(whl)])
    entry = lock["packages"]["demo-pkg"]
    assert entry == {
        "name": "demo-pkg", "version": "1.2.3", "file_name": whl.name, "install_dir": "site",
        "sha256": hashlib.sha256(whl.read_bytes()).hexdigest(), "package_type": "package",
        "imports": ["demo_pkg"], "depends": ["numpy"], "unvendored_tests": False,
    }
    assert "pandas" not in lock["packages"]  # official entries the site does not ship stay out
    assert lock["packages"]["numpy"] == OFFICIAL["packages"]["numpy"]
    assert lock["info"] == OFFICIAL["info"]


def test_lock_entry_of_a_rewritten_official_package_carries_the_shipped_file_hash(tmp_path):
    shipped = tmp_path / OFFICIAL["packages"]["numpy"]["file_name"]
    shipped.write_bytes(b"numpy, slimmed and compiled")
    lock = build_lock(OFFICIAL, ["numpy"], [], {"numpy": shipped})
    assert lock["packages"]["numpy"] == {**OFFICIAL["packages"]["numpy"],
                                         "sha256": hashlib.sha256(shipped.read_bytes()).hexdigest()}
    assert OFFICIAL["packages"]["numpy"]["sha256"] == "0" * 64        # (the official table is left alone)
    with pytest.raises(BuildError, match="not the file name"):
        build_lock(OFFICIAL, ["numpy"], [], {"numpy": tmp_path / "other.whl"})


def test_lock_refuses_a_dependency_the_site_does_not_ship(tmp_path):
    whl = make_wheel(tmp_path, "needy", "1.0", requires=["not-shipped-anywhere"])
    with pytest.raises(BuildError, match="not-shipped-anywhere"):
        build_lock(OFFICIAL, ["numpy"], [read_wheel(whl)])


def test_verify_lock_finds_missing_and_tampered_files(tmp_path):
    whl = make_wheel(tmp_path, "demo", "1.0")
    lock = build_lock({"info": {}, "packages": {}}, [], [read_wheel(whl)])
    (tmp_path / "pyodide-lock.json").write_text(json.dumps(lock))
    assert verify_lock(tmp_path / "pyodide-lock.json") == []
    whl.write_bytes(whl.read_bytes() + b"tampered")
    assert any("does not match its sha256" in p for p in verify_lock(tmp_path / "pyodide-lock.json"))
    whl.unlink()
    assert any("missing" in p for p in verify_lock(tmp_path / "pyodide-lock.json"))


def test_pins_leave_pandas_pillow_contourpy_out():
    for name in ("pandas", "pillow", "contourpy"):
        assert name in pins.DROPPED
        assert name not in pins.COMPILED_PACKAGES
        assert not any(spec.split("==")[0] == name for spec in pins.PURE_WHEELS)


# ---------------------------------------------------------------- hash refusal

def test_a_tampered_compiled_wheel_is_refused(tmp_path):
    good = b"official bytes"
    entry = {"file_name": "numpy-2.0.2-cp312-cp312-x.whl", "sha256": hashlib.sha256(good).hexdigest()}
    source = tmp_path / "source.whl"
    with zipfile.ZipFile(source, "w") as z:
        z.writestr(pins.COMPILED_PREFIX + entry["file_name"], good + b"!")
    with pytest.raises(BuildError, match="does not match the official pyodide-lock.json"):
        extract_compiled(source, {"numpy": entry}, ["numpy"], tmp_path / "out")

    f = tmp_path / "ok.whl"
    f.write_bytes(good)
    verify_official(f, entry)  # the untampered file passes


def test_a_pinned_download_with_another_hash_is_refused(tmp_path):
    f = tmp_path / "panel-1.9.4-py3-none-any.whl"
    f.write_bytes(b"not the real panel")
    with pytest.raises(BuildError, match="sha256 mismatch"):
        check_sha256(f, pins.PURE_WHEELS["panel==1.9.4"], "panel==1.9.4")


# ---------------------------------------------------------------- slimming

def test_slimmed_panel_keeps_python_css_and_assets(tmp_path):
    whl = make_wheel(tmp_path, "panel", "1.9.4", files={
        "panel/config.py": "x = 1\n",
        "panel/package.json": '{"version": "1.9.4"}',
        "panel/dist/bundled/big/lib.min.js": "a" * 10000,
        "panel/dist/panel.min.js": "b" * 100,
        "panel/dist/css/markdown.css": "p {}",
        "panel/dist/assets/logo.svg": "<svg/>",
        "panel/models/card.ts": "export class Card {}",
        "panel/styles/models/card.less": "a {}",
        "panel/package-lock.json": "{}",
        "panel/tests/test_x.py": "",
    })
    slim = slim_wheel(whl, tmp_path / "slim")
    with zipfile.ZipFile(slim) as z:
        names = z.namelist()
        assert z.read("panel/dist/css/markdown.css") == b"p {}"
        assert z.read("panel/dist/assets/logo.svg") == b"<svg/>"
        assert z.read("panel/package.json") == b'{"version": "1.9.4"}'       # Panel reads its version there
        for gone in ("panel/tests/test_x.py", "panel/dist/bundled/big/lib.min.js", "panel/dist/panel.min.js",
                     "panel/models/card.ts", "panel/styles/models/card.less", "panel/package-lock.json"):
            assert gone not in names, gone
        record = z.read("panel-1.9.4.dist-info/RECORD").decode()
    assert "panel/config.py,sha256=" in record and "panel/tests" not in record


LAZY_INIT = """from .a import A1, A2  # noqa
from . import b  # noqa
from .c import (  # noqa
    C1, C2,
)
from .d import D1 as Done
"""


def test_lazify_imports_the_listed_submodules_when_first_used(tmp_path, monkeypatch):
    pkg = tmp_path / "gl_lazy_toy"
    pkg.mkdir()
    (pkg / "log.py").write_text("names = []\n")
    for m in "abcd":
        (pkg / f"{m}.py").write_text(f"from .log import names\nnames.append({m!r})\n"
                                     f"class {m.upper()}1: pass\nclass {m.upper()}2: pass\n")
    (pkg / "__init__.py").write_text(lazify(LAZY_INIT, {"b": None, "c": {"C2"}, "d": None}))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        import gl_lazy_toy
        from gl_lazy_toy.log import names
        assert names == ["a", "c"]                 # a eager; c too, for C1, which stays eager
        assert gl_lazy_toy.C2.__name__ == "C2" and names == ["a", "c"]
        assert gl_lazy_toy.Done.__name__ == "D1" and names == ["a", "c", "d"]    # imported when used
        from gl_lazy_toy import b
        assert b.__name__ == "gl_lazy_toy.b" and names == ["a", "c", "d", "b"]
        with pytest.raises(AttributeError, match="no attribute 'nothing'"):
            gl_lazy_toy.nothing
    finally:
        for name in [n for n in sys.modules if n.startswith("gl_lazy_toy")]:
            del sys.modules[name]
    # a module or a name the rewrite expects and does not find stops the build
    with pytest.raises(BuildError, match="from .e import"):
        lazify(LAZY_INIT, {"e": None})
    with pytest.raises(BuildError, match="C3"):
        lazify(LAZY_INIT, {"c": {"C3"}})
    with pytest.raises(BuildError, match="lazy and eager modules together"):
        lazify("from . import b, e\n", {"b": None})
    # an import of the module that gives none of its lazy names is left exactly as it was
    out = lazify("from .c import C1\nfrom .c import C2\n", {"c": {"C2"}})
    assert out.startswith("from .c import C1\n") and "import C2" not in out.split("\n\n")[0]


def test_slimmed_panel_gets_the_lazy_package_inits(tmp_path):
    """The Panel wheel's package __init__ files come out of slimming rewritten (and the rest as
    they were); a Panel whose __init__ lacks an expected import stops the build."""
    init = "\n".join(f"from .{m} import X{i}" for i, m in enumerate(LAZY["panel/widgets/__init__.py"])) + "\n"
    whl = make_wheel(tmp_path, "panel", "1.9.4", files={"panel/widgets/__init__.py": init,
                                                          "panel/widgets/base.py": "from .x import y\n"})
    with zipfile.ZipFile(slim_wheel(whl, tmp_path / "slim")) as z:
        out = z.read("panel/widgets/__init__.py").decode()
        assert z.read("panel/widgets/base.py") == b"from .x import y\n"
    assert "from .terminal import" not in out and "'X0': ('.codeeditor', 'X0')" in out
    (tmp_path / "bad").mkdir()
    bad = make_wheel(tmp_path / "bad", "panel", "1.9.4", files={"panel/widgets/__init__.py": "x = 1\n"})
    with pytest.raises(BuildError, match="Panel's imports changed"):
        slim_wheel(bad, tmp_path / "slim-bad")


# bokeh/__init__.py as Bokeh 3.9 writes its version lookup (buildtools.lazy_imports.BOKEH_VERSION)
BOKEH_INIT = ('import importlib.metadata as importlib_metadata\n\n__all__ = ("__version__",)\n\n'
              '__version__ = importlib_metadata.version("bokeh")\n\ndel importlib_metadata\n')


def test_slimmed_bokeh_has_its_version_written_in(tmp_path):
    """The site's Bokeh does not read its version from its metadata (no importlib.metadata as it
    starts): the wheel's version is written in, checked in a fresh interpreter; a Bokeh whose
    lookup changed stops the build."""
    wheel = make_wheel(tmp_path, "bokeh", "3.9.2", files={"bokeh/__init__.py": BOKEH_INIT})
    with zipfile.ZipFile(slim_wheel(wheel, tmp_path / "slim")) as z:
        out = z.read("bokeh/__init__.py").decode()
    assert "importlib" not in out.split("#")[0]
    check = out + '\nimport sys\nassert "importlib.metadata" not in sys.modules, "imported"\nprint(__version__)\n'
    run = subprocess.run([sys.executable, "-S", "-c", check], capture_output=True, text=True)
    assert run.stdout.strip() == "3.9.2", run.stderr
    (tmp_path / "bad").mkdir()
    bad = make_wheel(tmp_path / "bad", "bokeh", "3.9.2", files={"bokeh/__init__.py": "from importlib.metadata import version\n"})
    with pytest.raises(BuildError, match="version lookup changed"):
        slim_wheel(bad, tmp_path / "slim-bad")


def test_slimmed_bokeh_imports_pyyaml_on_first_use(tmp_path):
    """Bokeh's settings and theme modules come out of slimming with a stand-in for PyYAML that
    imports it when first used (run in a fresh interpreter); a Bokeh without the expected
    `import yaml` stops the build."""
    module = "import os\n\nimport yaml\n\n\ndef load(text):\n    return yaml.load(text, Loader=yaml.SafeLoader)\n"
    files = {name: module for name in LAZY_YAML} | {"bokeh/__init__.py": BOKEH_INIT, "bokeh/other.py": module}
    with zipfile.ZipFile(slim_wheel(make_wheel(tmp_path, "bokeh", "3.9.2", files=files), tmp_path / "slim")) as z:
        out = {name: z.read(name).decode() for name in files}
    assert out["bokeh/other.py"] == module
    for name in LAZY_YAML:
        assert "\nimport yaml\n" not in out[name] and "_GlLazyYaml" in out[name]
        check = out[name] + """
import sys
assert "yaml" not in sys.modules
assert load("a: [1, 2]") == {"a": [1, 2]} and "yaml" in sys.modules
print("ok")
"""
        run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert run.stdout.strip() == "ok", run.stderr
    bad = {**files, LAZY_YAML[0]: "from yaml import safe_load\n"}
    (tmp_path / "bad").mkdir()
    with pytest.raises(BuildError, match="Bokeh's imports changed"):
        slim_wheel(make_wheel(tmp_path / "bad", "bokeh", "3.9.2", files=bad), tmp_path / "slim-bad")


def test_slimmed_bokeh_and_numpy_keep_what_runs(tmp_path):
    bokeh = make_wheel(tmp_path, "bokeh", "3.9.2", files={
        "bokeh/__init__.py": BOKEH_INIT, "bokeh/models/plots.pyi": "", "bokeh/server/static/js/bokeh.min.js": "x",
        "bokeh/core/_templates/file.html": "<html/>", "bokeh/_sri/3.9.2.json": "{}", "bokeh/_sri/3.1.0.json": "{}",
        "bokeh/sphinxext/bokeh_plot.py": "", "typings/selenium/webdriver.pyi": ""})
    with zipfile.ZipFile(slim_wheel(bokeh, tmp_path / "slim")) as z:
        assert sorted(n for n in z.namelist() if ".dist-info/" not in n) == [
            "bokeh/__init__.py", "bokeh/_sri/3.9.2.json", "bokeh/core/_templates/file.html"]
    numpy = make_wheel(tmp_path, "numpy", "2.0.2", files={
        "numpy/__init__.py": "", "numpy/__init__.pyi": "", "numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so": "\0asm",
        "numpy/_core/_multiarray_tests.cpython-312-wasm32-emscripten.so": "\0asm",
        "numpy/_core/include/numpy/ndarraytypes.h": "", "numpy/_core/lib/libnpymath.a": "", "numpy/f2py/__init__.py": "",
        "numpy/random/__init__.pxd": "", "numpy/random/LICENSE.md": "MIT", "numpy/random/_examples/cython/extending.pyx": "",
        "numpy/_pyinstaller/hook-numpy.py": ""})
    with zipfile.ZipFile(slim_wheel(numpy, tmp_path / "slim")) as z:
        assert sorted(n for n in z.namelist() if ".dist-info/" not in n) == [
            "numpy/__init__.py", "numpy/_core/_multiarray_tests.cpython-312-wasm32-emscripten.so",
            "numpy/_core/_multiarray_umath.cpython-312-wasm32-emscripten.so", "numpy/random/LICENSE.md"]


# ---------------------------------------------------------------- URL rewriting

TOY_APP = '''
import panel as pn
pn.extension("mathjax")
pn.Column(pn.pane.Markdown("$$x^2$$"), pn.widgets.FloatSlider(name="k")).servable()
'''


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """What `panel convert` writes for a small app (through the same converter build.py runs)."""
    tmp = tmp_path_factory.mktemp("convert")
    app = tmp / "toy.py"
    app.write_text(TOY_APP)
    return run_panel_convert(app, ROOT, tmp / "out")


def lock_of(**files):
    """A lock of packages {key: (file name, depends)}, as rewrite_worker reads one."""
    return {"packages": {k: {"file_name": f, "depends": list(d), "sha256": "%064x" % i}
                         for i, (k, (f, d)) in enumerate(files.items())}}


LOCK = lock_of(bokeh=("bokeh-3.9.2-py3-none-any.whl", ["numpy", "packaging"]),
               panel=("panel-1.9.4-py3-none-any.whl", ["bokeh"]),
               **{"pyodide-http": ("pyodide_http-0.2.1-py3-none-any.whl", [])},
               **{"gleam-rnn-lab": ("gleam_rnn_lab-0.1.0-py3-none-any.whl", ["numpy"])},
               numpy=("numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", []),
               packaging=("packaging-24.2-py3-none-any.whl", []))


def test_rewritten_page_and_worker_fetch_nothing_external(converted):
    html, js, _ = converted
    assert scan_text(Path("index.html"), html)[0], "the scanner should see panel convert's CDN URLs"
    html2, bundles = rewrite_html(html)
    js2 = rewrite_worker(js, LOCK)
    assert scan_text(Path("index.html"), html2) == ([], [])
    assert scan_text(Path("main.js"), js2) == ([], [])
    assert "http://" not in js2 and "https://" not in js2
    assert "cdn.bokeh.org" not in html2
    assert f"bokeh-mathjax-{bundles[0].split('-')[-1]}" in bundles
    assert f'importScripts("./{PYODIDE_DIR}/pyodide.js")' in js2
    # micropip is gone: every package, numpy too, is fetched before Pyodide is (while its wasm
    # compiles), with its lock hash, and unpacked after; loadPyodide loads none
    assert "micropip" in js and "micropip" not in js2
    load = re.search(r"loadPyodide\(\{(.*?)\}\);", js2, re.S).group(1)
    assert "packages: []" in load
    assert "PANEL_CDN_ROOT" in load and "indexURL" in load
    wheels = json.loads(re.search(r"const glWheels = (\[.*?\]).map", js2, re.S).group(1))
    assert wheels == [[LOCK["packages"][k]["file_name"], "sha256-" + base64.b64encode(
                       bytes.fromhex(LOCK["packages"][k]["sha256"])).decode()]
                      for k in ("bokeh", "gleam-rnn-lab", "numpy", "packaging", "panel", "pyodide-http")]
    assert js2.index("const glWheels") < js2.index("importScripts(") < js2.index("loadPyodide({")
    assert js2.index("loadPyodide({") < js2.index("glUnzip(new Uint8Array(await wheel)") < js2.index("pyodide.ffi.jsnull")
    assert js2.index("loadPyodide({") < js2.index("pyodide.ffi.jsnull = None") < js2.index("Executing code")
    assert js2.index("loadPyodide({") < js2.index(LIGHT_MODEL_HOOK) < js2.index("Executing code")
    assert js2.index("loadPyodide({") < js2.index(NO_DIAGNOSTICS) < js2.index("Executing code")
    assert js2.index(LIGHT_MODEL_HOOK) < js2.index(FAST_SERIALIZE) < js2.index("Executing code")
    assert js2.index("loadPyodide({") < js2.index(LAZY_TEMPLATES) < js2.index("Executing code")
    assert js2.index("loadPyodide({") < js2.index(LIGHT_GLYPH_PARAMETERS) < js2.index("Executing code")
    # no garbage collection from before the first import until the first document is posted
    assert js2.index("loadPyodide({") < js2.index(NO_GC_AT_START) < js2.index(LIGHT_MODEL_HOOK)
    assert js2.count("gc.enable()") == 1
    assert js2.index("type: 'render'") < js2.index(GC_AFTER_RENDER) < js2.index("} catch(e)")


def test_the_light_model_hook_keeps_what_bokeh_models_need():
    """With the worker's lighter hook, Bokeh's models still register and serialize as before;
    only the __init__ signatures (documentation) are gone. Run in a fresh interpreter."""
    check = LIGHT_MODEL_HOOK + """
import inspect, json
from bokeh.document import Document
from bokeh.model import Model
from bokeh.models import ColumnDataSource, Slider
from bokeh.plotting import figure
assert "__signature__" not in vars(Slider.__init__)        # the hook ran
assert Model.model_class_reverse_map["Slider"] is Slider and Slider.__view_model__ == "Slider"
class Mine(Slider):
    pass
assert Model.model_class_reverse_map[Mine.__qualified_model__] is Mine
doc = Document()
p = figure()
p.line("x", "y", source=ColumnDataSource({"x": [0, 1], "y": [1, 2]}))
doc.add_root(p)
doc.add_root(Slider(start=0, end=1, value=0.5, title="k"))
print(len(json.dumps(doc.to_json(), default=str)))
"""
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 1000


def test_the_light_glyph_parameters_keep_what_the_glyph_methods_do():
    """With the worker's LIGHT_GLYPH_PARAMETERS, Model.parameters() names every glyph's positional
    arguments in Bokeh's order (what a glyph method reads), and a figure drawn with positional
    values through many glyph methods is the same document as without it; only help() text is
    shorter. Fresh interpreters, with and without."""
    check = """
import hashlib, inspect, json
from inspect import Parameter
from bokeh.model import Model
bokehs = Model.parameters
PRELUDE
from bokeh.io import curdoc
from bokeh.models import glyphs
from bokeh.plotting import figure
from bokeh.plotting.glyph_api import GlyphAPI
named = 0
for cls in vars(glyphs).values():
    if isinstance(cls, type) and issubclass(cls, glyphs.Glyph) and cls._args:
        theirs = [p.name for p, _, _ in bokehs.__func__(cls) if p.kind == Parameter.POSITIONAL_OR_KEYWORD]
        ours = [p.name for p, _, _ in cls.parameters() if p.kind == Parameter.POSITIONAL_OR_KEYWORD]
        assert ours == theirs == list(cls._args), cls
        named += 1
p = figure()
p.line([0, 1, 2], [1, 0, 2])
p.scatter([0, 1], [2, 3], 9)
p.vbar([0, 1], 0.5, [3, 4])
p.quad([0], [1], [2], [3])
p.segment([0], [0], [1], [1])
p.text([0], [1], ["a"])
p.circle([1], [1], 0.3)
p.multi_line([[0, 1]], [[1, 0]])
p.patch([0, 1, 1], [0, 0, 1])
p.rect([0], [0], 1, 2)
p.wedge([0], [0], 1, 0.1, 0.2)
curdoc().add_root(p)
print(named, str(inspect.signature(GlyphAPI.line)),
      hashlib.sha256(json.dumps(curdoc().to_json(), sort_keys=True, default=str).encode()).hexdigest())
"""
    runs = [subprocess.run([sys.executable, "-c", check.replace("PRELUDE", prelude)], capture_output=True,
                           text=True, timeout=300) for prelude in ("", LIGHT_GLYPH_PARAMETERS)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr[-2000:] for r in runs]
    (n0, *sig0, doc0), (n1, *sig1, doc1) = (r.stdout.split() for r in runs)
    assert int(n0) == int(n1) > 30
    assert " ".join(sig1) == "(self, x, y, **kwargs) -> 'GlyphRenderer'" and "line_width" in " ".join(sig0)
    assert doc1 == doc0                                               # the same figure


def test_the_workers_serialization_keeps_what_bokehs_own_keeps():
    """FAST_SERIALIZE's properties_with_values(include_defaults=False) gives what Bokeh's own
    gives (called after it, on the same state) for every model of every chapter's document, in
    both themes, one of them under a document theme (light without, dark with, and the other way
    round in every other chapter); the documents still turn into JSON. Run in a fresh interpreter
    with the patch."""
    check = FAST_SERIALIZE + """
import json
from bokeh.core.has_props import HasProps
from bokeh.document import Document
from bokeh.themes import Theme
from gleam_lab.app import chapters
from gleam_lab.app.lab import Lab
bokehs = HasProps.query_properties_with_values.__kwdefaults__["_all"]
assert bokehs.__module__ == "bokeh.core.has_props" and bokehs is not HasProps.query_properties_with_values
serialized = lambda p: p.serialized
theme = Theme(json={"attrs": {"Grid": {"band_fill_color": "#123456"}, "Title": {"text_font_size": "9px"}}})
checked = themed_models = 0
for i, cid in enumerate(chapters.chapter_ids()):
    lab = Lab(chapter=cid)
    for shown in ("light", "dark"):
        lab.theme.state.value = shown
        for themed in [(shown == "dark") != bool(i % 2)]:
            doc = Document()
            root = lab.__panel__().get_root(doc)
            doc.add_root(root)
            if themed:
                doc.theme = theme
                themed_models += sum(bool(m.themed_values()) for m in doc.models)
            for model in doc.models:
                fast = model.properties_with_values(include_defaults=False)
                assert fast == bokehs(model, serialized, include_defaults=False), (cid, model)
                assert model.properties_with_values() == bokehs(model, serialized)
                checked += 1
            assert len(json.dumps(doc.to_json(), default=str)) > 1000
            lab.__panel__()._cleanup(root)
assert themed_models > 10, themed_models
print(checked)
"""
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, cwd=root, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    # about 5,000 models (12 chapters x 2 documents); a floor well under it, so that a change that
    # drops whole chapters or documents from the check fails it
    assert int(run.stdout.strip().splitlines()[-1]) > 3_500


def test_the_workers_templates_compile_on_first_use_and_render_as_before():
    """With LAZY_TEMPLATES, importing Panel and the lab compiles no Jinja template (without it,
    Bokeh's and Panel's compile at import); a standalone Bokeh page and a saved Panel page are
    what they are without it (element ids aside), though Panel's page extends a stand-in; a
    name with no template is refused at its first use. Fresh interpreters, with and without."""
    check = """
import hashlib, io, jinja2, re
compiled = []
_compile = jinja2.Environment.compile
def count(self, source, name=None, *args, **kwargs):
    compiled.append(name)
    return _compile(self, source, name, *args, **kwargs)
jinja2.Environment.compile = count
import panel as pn
import panel.io.notebook, panel.io.resources
import gleam_lab.app.lab
at_import = len(compiled)
from bokeh.embed import file_html
from bokeh.models import Slider
from bokeh.resources import CDN
page = file_html(Slider(start=0, end=1, value=0.5, title="k"), resources=CDN, title="t")
out = io.StringIO()
pn.Column(pn.pane.Markdown("# hi"), pn.widgets.IntSlider(value=3)).save(out, resources="cdn")
ids = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
pages = re.sub(ids, "ID", page + out.getvalue())
try:
    panel.io.resources._env.get_template("no-such-template.html").render()
    refused = "no"
except jinja2.TemplateNotFound:
    refused = "yes"
print(at_import, type(panel.io.resources.BASE_TEMPLATE).__name__, len(pages) > 10_000, refused,
      hashlib.sha256(pages.encode()).hexdigest())
"""
    runs = [subprocess.run([sys.executable, "-c", prelude + check], capture_output=True, text=True, cwd=ROOT,
                           timeout=300) for prelude in ("", LAZY_TEMPLATES)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr[-2000:] for r in runs]
    eager, lazy = (r.stdout.split() for r in runs)
    assert int(eager[0]) >= 10 and eager[1] == "Template"            # (what the stand-ins save)
    assert int(lazy[0]) == 0 and lazy[1] == "_LazyTemplate"
    assert eager[2:4] == lazy[2:4] == ["True", "yes"]
    assert lazy[4] == eager[4]                                        # the same pages


def test_the_worker_skips_bokehs_callback_signature_checks():
    """NO_DIAGNOSTICS turns off Bokeh's check of each connected callback's signature, which
    rejects a callback of the wrong arity; callbacks of the right one still run. Run in fresh
    interpreters, with and without it."""
    check = """
from bokeh.models import Slider
s = Slider(start=0, end=1, value=0.5)
seen = []
s.on_change("value", lambda attr, old, new: seen.append(new))
s.value = 0.25
assert seen == [0.25], seen
try:
    s.on_change("value", lambda only_one: None)
    print("accepted")
except ValueError:
    print("refused")
"""
    env = {k: v for k, v in os.environ.items() if k != "BOKEH_PERFORM_ERROR_DIAGNOSTICS"}
    runs = [subprocess.run([sys.executable, "-c", prelude + check], capture_output=True, text=True, env=env)
            for prelude in ("", NO_DIAGNOSTICS)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert [r.stdout.strip() for r in runs] == ["refused", "accepted"]


def test_worker_queues_incoming_patches_in_order(converted):
    """Panel's template keeps one global `patch`: two patches arriving together lose the first
    (a Pause click while the loss plot streams). The rewrite queues them instead."""
    js = converted[1]
    assert "globals.set('patch', msg.patch)" in js
    js2 = rewrite_worker(js, LOCK)
    assert "globals.set('patch'" not in js2
    assert "self._glPatches.append(msg.patch)" in js2
    assert "while _gl_patches:" in js2 and "_gl_patches.pop(0)" in js2


def test_worker_rewrite_refuses_a_package_not_in_the_lock(converted):
    with pytest.raises(BuildError, match="package index"):
        rewrite_worker(converted[1], {"packages": {k: v for k, v in LOCK["packages"].items() if k != pins.PROJECT_NAME}})


# ---------------------------------------------------------------- a page per chapter, deep links

TOY_CHAPTERS_APP = '''
import os
import panel as pn
pn.extension("mathjax")
chapter = os.environ.get("GLEAM_CHAPTER", "none")
pn.Column(pn.pane.Markdown(f"toy text of chapter {chapter}"), pn.widgets.FloatSlider(name="k")).servable()
'''
TOY_IDS = ["0", "7", "memory"]
WORKER_LINE = re.compile(r'worker = new Worker\("\./(\w+)\.js" \+ workerQuery\)')


def embedded_document(page_html):
    """The Bokeh document a page pre-renders (the JSON panel convert embeds)."""
    m = re.search(r'<script type="application/json" id="[^"]+">\s*(.*?)\s*</script>', page_html, re.S)
    assert m, "the page embeds no document"
    return json.loads(htmllib.unescape(m.group(1)))


def _without_meta(page):
    """A page less what buildtools.meta adds (its title to its icon link): the index and chapter 0's
    page differ only there."""
    return re.sub(r"<title>.*?<link rel=\"icon\"[^>]*>", "", page, flags=re.S)


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory):
    """convert() as build.py runs it, on a small app whose text names GLEAM_CHAPTER."""
    tmp = tmp_path_factory.mktemp("pages")
    app = tmp / "toy.py"
    app.write_text(TOY_CHAPTERS_APP)
    site = tmp / "site"
    (site / PYODIDE_DIR).mkdir(parents=True)
    for entry in LOCK["packages"].values():    # (convert checks that the worker can unpack them)
        with zipfile.ZipFile(site / PYODIDE_DIR / entry["file_name"], "w", zipfile.ZIP_STORED) as z:
            z.writestr("toy/__init__.py", "")
    result = convert(app, ROOT, site, LOCK, TOY_IDS)
    return site, result


def test_a_page_per_chapter_each_prerendering_its_chapter(toy_site):
    site, result = toy_site
    assert result["pages"] == ["index.html"] + [page_name(c) for c in TOY_IDS]
    assert result["worker"] == "toy.js"
    assert sorted(p.name for p in site.glob("*.js")) == ["toy.js"]  # one worker for all pages
    for cid in TOY_IDS:
        text = json.dumps(embedded_document((site / page_name(cid)).read_text()))
        assert f"toy text of chapter {cid}" in text
        assert not any(f"toy text of chapter {o}" in text for o in TOY_IDS if o != cid)
    assert _without_meta((site / "index.html").read_text()) == _without_meta((site / page_name("0")).read_text())
    assert json.loads((site / "manifest.webmanifest").read_text())["icons"][0]["src"] == "./icon.svg"
    assert (site / "icon.svg").read_text().startswith("<svg") and result["manifest"] == ["manifest.webmanifest", "icon.svg"]


def test_each_page_says_its_chapter_in_its_title_and_description():
    """A link preview's title and description: the chapter's heading and its line on the first
    screen (content/start.md); the index and any other page describe the lab."""
    from buildtools import meta
    page = "<head><title>Panel's</title></head>"
    four = meta.add_meta(page, "4")
    summary = content.chapters.summaries()["4"]
    assert f"<title>{content.heading('4')} · {meta.SITE_TITLE}</title>" in four
    assert f'<meta name="description" content="{summary[0].upper() + summary[1:]}">' in four
    assert four.count("og:title") == 1 and '<link rel="manifest" href="./manifest.webmanifest">' in four
    index = meta.add_meta(page, None)
    assert f"<title>{meta.SITE_TITLE}</title>" in index and meta.SITE_DESCRIPTION in index
    assert meta.add_meta(page, "not-a-chapter") == index
    assert set(content.chapters.summaries()) == set(content.chapter_ids())
    assert "og:image" not in four and "og:url" not in four          # no address known: no card named


def test_with_the_sites_address_each_page_names_its_preview_card():
    from buildtools import meta
    page = "<head><title>Panel's</title></head>"
    url = meta.check_site_url("https://example.org/rnn-lab")
    assert url == "https://example.org/rnn-lab/"
    four = meta.add_meta(page, "4", url)
    assert '<meta property="og:image" content="https://example.org/rnn-lab/previews/4.png">' in four
    assert '<meta property="og:url" content="https://example.org/rnn-lab/chapter-4.html">' in four
    assert '<meta property="og:url" content="https://example.org/rnn-lab/index.html">' in meta.add_meta(page, None, url)
    for bad in ("example.org/rnn-lab", "ftp://example.org/", "https://", "https://x.org/?a=1", "/rnn-lab/"):
        with pytest.raises(ValueError, match="absolute address"):
            meta.check_site_url(bad)
    r = subprocess.run([sys.executable, "build.py", "--site-url", "example.org"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and "absolute address" in r.stderr


def test_every_page_starts_the_shared_worker_with_its_chapter(toy_site):
    site, _ = toy_site
    for cid in TOY_IDS:
        page = (site / page_name(cid)).read_text()
        assert WORKER_LINE.findall(page) == ["toy"]
        assert 'new Worker("./toy.js")' not in page
        # started by the deep-link script, first in <head>, before any stylesheet; Panel's script takes it
        assert page.index("new Worker(") < page.index("</head>") < page.index("const pyodideWorker = glPage.takeWorker()")
        assert not re.search(r"<link[^>]*stylesheet|<style", page[:page.index("new Worker(")])
        assert f"var page = {json.dumps(cid)}, ids = {json.dumps(TOY_IDS)};" in page
        # the deep-link script runs before any other script on the page
        assert page.index("var glPage") < page.index("<script", page.index("var glPage"))
        assert page.index("<script") == page.index("<script>\n  // Added by build.py")
        assert 'query.set("chapter", page)' in page and "window.location.replace(" in page


def test_deep_links_refuse_an_id_that_is_not_a_plain_name(converted):
    with pytest.raises(BuildError, match="plain names"):
        add_deep_links(converted[0], "x", ["x", "a/b"])
    with pytest.raises(BuildError, match="new Worker"):
        add_deep_links('<meta charset="utf-8">no worker here', "0", ["0"])


@pytest.fixture
def no_location_hints(monkeypatch):
    monkeypatch.delenv("GLEAM_CHAPTER", raising=False)
    monkeypatch.delitem(sys.modules, "js", raising=False)


def test_the_lab_opens_on_gleam_chapter_and_builds_only_that_chapter(monkeypatch, no_location_hints):
    from gleam_lab.app.lab import Lab
    monkeypatch.setenv("GLEAM_CHAPTER", "7")
    lab = Lab()
    assert lab.chapter == "7" and lab.built_chapters() == ["7"]
    monkeypatch.setenv("GLEAM_CHAPTER", "no-such-chapter")
    assert Lab().chapter == "0"


def test_first_chapter_sources_in_order(monkeypatch, no_location_hints):
    from gleam_lab.app.lab import initial_chapter
    loc = types.SimpleNamespace
    assert initial_chapter() == "0"
    monkeypatch.setenv("GLEAM_CHAPTER", "memory")
    assert initial_chapter() == "memory"
    assert initial_chapter(loc(search="")) == "memory"
    assert initial_chapter(loc(search="?x=1&chapter=4")) == "4"          # the page's query first
    assert initial_chapter(loc(search="?chapter=bogus")) == "0"          # unknown -> "0"
    # in Pyodide: the worker's own URL (main.js?chapter=9), when the location says nothing yet
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setitem(sys.modules, "js", types.SimpleNamespace(location=loc(search="?chapter=9")))
    assert initial_chapter(loc(search="")) == "9"
    assert initial_chapter(None) == "9"
    assert initial_chapter(loc(search="?chapter=2")) == "2"


def test_the_url_query_and_the_chapter_stay_in_sync(no_location_hints):
    import panel as pn
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from gleam_lab.app.lab import Lab
    with set_curdoc(Document()):
        location = pn.state.location
        location.search = "?chapter=4"
        lab = Lab()
        assert lab.chapter == "4" and lab.built_chapters() == ["4"]
        location.search = "?x=1&chapter=2"                 # the page's URL changes
        assert lab.chapter == "2" and location.search == "?chapter=2"      # (x refused, dropped)
        assert lab.message == "Not applied from the link: x=1 (no such control in this chapter)."
        lab.chapter = "9"                                  # the lab moves: the URL follows
        assert location.search == "?chapter=9"
        location.search = "?chapter=nope"                  # an unknown id is said, the chapter stays
        assert lab.chapter == "9" and location.search == "?chapter=9"
        assert lab.message == "Not applied from the link: chapter=nope (no such chapter: pick one in the contents)."


def test_pages_load_no_mathjax_or_webgl_bundle_the_lab_does_not_need():
    cdn = "https://cdn.bokeh.org/bokeh/release/"
    html = "".join(f'<script type="text/javascript" src="{cdn}{b}-3.9.2.min.js"></script>\n'
                   for b in ("bokeh", "bokeh-gl", "bokeh-widgets"))
    out, bundles = rewrite_html(html)
    assert bundles == ["bokeh-3.9.2.min.js", "bokeh-widgets-3.9.2.min.js"]   # no MathJax added, no WebGL
    assert out.count("<script") == 2 and "https://" not in out and "bokeh-gl" not in out


def test_a_document_that_would_need_mathjax_or_webgl_is_refused(tmp_path):
    doc = {"roots": [{"type": "object", "name": "HTML", "id": "p1",
                      "attributes": {"text": "a formula $$x^2$$", "disable_math": False}}]}
    page = tmp_path / "index.html"
    page.write_text(f'<script type="application/json" id="p2">{json.dumps(doc)}</script>')
    assert any("x^2" in p for p in check_documents(tmp_path))
    doc["roots"][0]["attributes"]["disable_math"] = True             # typeset already: fine
    page.write_text(f'<script type="application/json" id="p2">{json.dumps(doc)}</script>')
    assert check_documents(tmp_path) == []
    doc["roots"].append({"type": "object", "name": "Figure", "id": "p3", "attributes": {"output_backend": "webgl"}})
    page.write_text(f'<script type="application/json" id="p2">{json.dumps(doc)}</script>')
    assert any("webgl" in p for p in check_documents(tmp_path))
    page.write_text('<script type="application/json" id="p2">{"roots": [</script>')   # unreadable: not passed over
    assert any("not JSON" in p for p in check_documents(tmp_path))


@pytest.mark.parametrize("text", [
    '<script src="https://cdn.example.org/x.js"></script>',
    '<link rel="stylesheet" href="//cdn.example.org/x.css">',
    'importScripts("https://cdn.example.org/pyodide.js");',
    "await micropip.install(['https://example.org/panel-1.9.4-py3-none-any.whl'])",
    '{"stylesheets": ["https://cdn.example.org/panel/dist/css/markdown.css"]}',
    "fetch('http://example.org/data.json')",
    "loadPyodide({indexURL: 'https://cdn.example.org/pyodide/'})",
    '@import url("https://fonts.example.org/font.css");',
])
def test_scanner_catches_external_fetches(text):
    problems, _ = scan_text(Path("index.html"), text)
    assert problems, text


def test_scanner_ignores_links_and_namespaces_and_scopes_its_allow_list():
    text = ('<a href="https://arxiv.org/abs/1412.3555">paper</a>'
            '<svg xmlns="http://www.w3.org/2000/svg"></svg>')
    assert scan_text(Path("index.html"), text) == ([], [])
    mathjax = 't.src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-svg.js"'
    assert scan_text(Path("bokeh/bokeh-3.9.2.min.js"), mathjax)[0] == []
    assert scan_text(Path("main.js"), mathjax)[0]  # allowed only inside BokehJS itself


def test_documents_with_third_party_models_are_refused(tmp_path):
    (tmp_path / "index.html").write_text('{"type":"object","name":"TablerIcon","id":"p1"}')
    assert check_documents(tmp_path)


# ---------------------------------------------------------------- serving

@pytest.mark.parametrize("path, expected", [
    ("index.html", NO_CACHE),
    ("main.js", NO_CACHE),
    (f"{PYODIDE_DIR}/pyodide-lock.json", NO_CACHE),
    (f"{PYODIDE_DIR}/gleam_rnn_lab-0.1.0-py3-none-any.whl", NO_CACHE),
    (f"{PYODIDE_DIR}/pyodide.asm.wasm", IMMUTABLE),
    (f"{PYODIDE_DIR}/python_stdlib.zip", IMMUTABLE),
    (f"{PYODIDE_DIR}/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", IMMUTABLE),
    ("bokeh/bokeh-mathjax-3.9.2.min.js", IMMUTABLE),
    ("panel-cdn/1.9.4/dist/panel.min.js", IMMUTABLE),
])
def test_cache_headers(path, expected):
    assert cache_control(path) == expected


def test_a_browser_dropping_a_connection_is_not_logged_as_an_error(tmp_path, capsys):
    """`index.html?chapter=7` leaves for chapter-7.html while its scripts load: the browser
    resets those connections. The browser tests read the server's log for tracebacks."""
    server = make_server(tmp_path, 0)
    try:
        for exc in (ConnectionResetError(104, "reset"), BrokenPipeError(32, "pipe")):
            try:
                raise exc
            except OSError:
                server.handle_error(None, ("127.0.0.1", 1))
        assert capsys.readouterr().err == ""
        try:
            raise ValueError("a real error")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
        assert "ValueError: a real error" in capsys.readouterr().err
    finally:
        server.server_close()


def test_mime_types():
    assert MIME[".wasm"] == "application/wasm"
    assert MIME[".js"] == MIME[".mjs"] == "text/javascript"
    assert MIME[".json"] == "application/json"
    assert MIME[".whl"] == "application/octet-stream"


# ---------------------------------------------------------------- the built site, if any

built = pytest.mark.skipif(not (SITE / "index.html").exists(), reason="site/ not built (python build.py)")


@built
def test_built_site_lock_matches_its_files():
    assert verify_lock(SITE / PYODIDE_DIR / "pyodide-lock.json") == []
    lock = json.loads((SITE / PYODIDE_DIR / "pyodide-lock.json").read_text())
    assert not {"pandas", "pillow", "contourpy"} & set(lock["packages"])
    assert pins.PROJECT_NAME in lock["packages"]


@built
def test_built_site_has_no_external_fetch():
    problems, _ = scan_site(SITE)
    assert problems == []


@built
def test_built_site_has_a_page_per_chapter_prerendering_its_prose():
    from gleam_lab import content
    from gleam_lab.app.widgets.page import title_pane
    ids = content.chapter_ids()
    pages = {cid: (SITE / page_name(cid)).read_text(encoding="utf-8") for cid in ids}
    assert _without_meta((SITE / "index.html").read_text(encoding="utf-8")) == _without_meta(pages["0"])
    assert all(f"<title>{htmllib.escape(content.page_title(cid))}</title>" in pages[cid] for cid in ids)
    assert sorted(p.name for p in SITE.glob("*.js")) == ["main.js", "sw.js"]
    # the prose as the site's wheel ships it, typeset when the site was built
    wheel = next((SITE / PYODIDE_DIR).glob(f"{pins.PROJECT_WHEEL}-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        typeset = json.loads(z.read("gleam_lab/content/typeset.json"))
    assert set(typeset["chapters"]) == set(ids) and (SITE / typeset["css"]).is_file()
    for cid, page in pages.items():
        models = doc_models(embedded_document(page))
        texts = [htmllib.unescape(a["text"]) for _, a in models if isinstance(a.get("text"), str)]
        h1 = [t for t in texts if t.startswith("<h1>")]
        assert h1 == [title_pane(cid).object], cid
        prose = [htmllib.unescape(a["text"]) for _, a in models if "gl-prose" in (a.get("css_classes") or [])]
        assert prose == [f'<div class="gl-prose-body">{typeset["chapters"][cid]}</div>'], cid
        assert WORKER_LINE.findall(page) == ["main"], cid
        assert f"var page = {json.dumps(cid)}, ids = {json.dumps(ids)};" in page


@built
def test_built_site_ships_every_module_of_the_project():
    """The project's wheel in the site holds every module and chapter text of gleam and the lab
    (the checkout's app/ and content/ as gleam_lab/app/ and gleam_lab/content/; a subpackage missing
    from the packaging only fails inside the browser)."""
    wheel = next((SITE / PYODIDE_DIR).glob(f"{pins.PROJECT_WHEEL}-*-py3-none-any.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    shipped = set(names) | {n[:-1] for n in names if n.endswith(".pyc")}  # a module as bytecode or source
    sources = {("" if d.startswith("gleam") else "gleam_lab/") + p.relative_to(ROOT).as_posix()
               for d in ("gleam", "gleam_lab", "app", "content")
               for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".md") and "__pycache__" not in p.parts}
    assert sources and sources <= shipped, sorted(sources - shipped)


@built
def test_built_site_ships_the_labs_results_as_the_checkout_has_them_and_no_weights():
    """The research labs' results ship in the site's wheel as gleam/data/<lab>.json, byte for byte
    the checkout's (the build trains nothing); the trained weights stay out of the site."""
    from gleam import pretrained
    wheel = next((SITE / PYODIDE_DIR).glob(f"{pins.PROJECT_WHEEL}-*-py3-none-any.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    for lab in pretrained.SPECS:
        shipped = zipfile.ZipFile(wheel).read(f"gleam/data/{lab}.json")
        assert shipped == (ROOT / "gleam" / "data" / f"{lab}.json").read_bytes()
    assert not [n for n in names if n.endswith(".npz")]


# Every result SYLLABUS.md prints, as it prints it (with ≈: the tolerance it implies; "≈ 743 bits"
# are whole bits of 743.6), by chapter.
# Inputs (weights, sizes, thresholds) are not here: only numbers a computation produces.
SYLLABUS_RESULTS = {
    "0": ["0.00118", "6.6", "69"],
    "1": ["0.8005", "-0.0997", "0.0202", "0.6171", "0.1845", "-0.0277"],
    "2": ["0.6640", "0.8848", "0.9211", "0.559", "0.217", "0.152", "0.0887", "0.0826", "0.0647",
          "0.07628", "7.6"],
    "3": ["1.16e-7", "0.1057", "1.268", "-0.0423"],
    "4": ["0.6748", "0.3775", "0.5200", "0.6660", "0.5753", "0.2488", "0.5508", "-0.0306", "0.122",
          "9.5e-7", "1e-20"],
    "5": ["295,680", "394,240", "304", "0.740", "9.3e-10", "0.731", "8.3e-5", "0.366", "2.7e-5",
          "7.9e-31", "0.953", "0.0078"],
    "6": ["0.5250", "0.6444", "0.93", "1.6094", "0.7767", "0.3580"],
    "7": ["3.178", "4.59", "5,376", ("400,000", 50_000), "33"],
    "8": ["295,680", "393,984", "689,664", "691,200", "512", "591,360", "14.87", ("743", 1.0), ("7,436", 1.0)],
    "9": ["4,096", "8,192", ("82e6", 0.5e6), ("2.75e6", 0.005e6)],
}
_PAGE_NUMBER = re.compile(r"(?<![\w.])10\^\{(-?\d+)\}"
                          r"|(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)(?:\s*\\times\s*10\^\{(-?\d+)\})?")


def _numbers(text):
    """Every number in a text as the lab prints them: 0.8005, -0.0997, 295,680, 1.16 \\times 10^{-7}, 10^{-20}."""
    out = []
    for m in _PAGE_NUMBER.finditer(text.replace("\u2212", "-")):
        if m.group(1) is not None:
            out.append(10.0 ** int(m.group(1)))
        else:
            out.append(float(m.group(2).replace(",", "")) * 10.0 ** int(m.group(3) or 0))
    return out


def test_numbers_are_read_as_the_lab_prints_them():
    got = _numbers(r"h = (0.8005, -0.0997), 295,680 and \(1.16 \times 10^{-7}\), \(10^{-20}\); x2 or v1.5")
    assert got == pytest.approx([0.8005, -0.0997, 295680.0, 1.16e-7, 1e-20])
    assert _wanted("0.0826") == (0.0826, pytest.approx(5e-5)) and _wanted("9.5e-7")[1] == pytest.approx(5e-9)


def _wanted(item):
    """(value, tolerance): half a unit of the syllabus's last printed digit, or its ≈ tolerance."""
    text, tol = item if isinstance(item, tuple) else (item, None)
    value = float(text.replace(",", ""))
    if tol is None:
        mantissa, _, exp = text.replace(",", "").partition("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        tol = 0.5 * 10.0 ** (int(exp or 0) - decimals) * (1 + 1e-9)
    return value, tol


class _ProseText(HTMLParser):
    """Text of prose HTML in which each formula counts as its TeX: the `.gl-math` span's label
    (what the reader's screen reader says), not KaTeX's glyph-by-glyph spans."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.depth = [], 0       # depth > 0: inside a typeset formula

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.depth:
            self.depth += tag not in VOID
        elif tag == "span" and "gl-math" in (attrs.get("class") or "").split():
            self.parts.append(" " + attrs.get("aria-label", "") + " ")
            self.depth = 1
        else:
            self.parts.append(" ")

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
        else:
            self.parts.append(" ")

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


VOID = {"br", "img", "hr", "wbr", "input", "meta", "link"}


def _prose_text(page):
    models = doc_models(embedded_document(page))
    prose = [htmllib.unescape(a["text"]) for _, a in models if "gl-prose" in (a.get("css_classes") or [])]
    assert len(prose) == 1
    parser = _ProseText()
    parser.feed(prose[0])
    return "".join(parser.parts)


@built
@pytest.mark.parametrize("cid", sorted(SYLLABUS_RESULTS))
def test_built_pages_show_every_syllabus_number_from_a_placeholder(cid):
    """Each chapter's page, as built, shows every result the syllabus prints for it (to the
    syllabus's precision), and none of them is typed into the chapter's Markdown source: outside
    its {{ }} placeholders the source holds no number equal to one of them."""
    from gleam_lab import content
    shown = _numbers(_prose_text((SITE / page_name(cid)).read_text(encoding="utf-8")))
    source = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", " ", content.source(cid), flags=re.S)
    typed = _numbers(source)
    for item in SYLLABUS_RESULTS[cid]:
        value, tol = _wanted(item)
        assert any(abs(x - value) <= tol for x in shown), f"chapter {cid}'s page does not show {item}"
        assert not any(abs(x - value) <= tol for x in typed), f"{item} is typed into {content.filename(cid)}"


# ---------------------------------------------------------------- precompressed files, as a host sends them

def _get(server, path, encoding=None, since=None):
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    headers = {"Accept-Encoding": encoding} if encoding else {}
    if since:
        headers["If-Modified-Since"] = since
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    out = response.status, dict(response.getheaders()), response.read()
    conn.close()
    return out


@pytest.fixture
def small_site(tmp_path):
    from buildtools.compress import precompress
    (tmp_path / "sub").mkdir()
    page = "<!doctype html><title>t</title>" + "<p>the same words again and again</p>" * 200
    (tmp_path / "index.html").write_text(page)
    (tmp_path / "sub" / "app.js").write_text("console.log('x');\n" * 400)
    (tmp_path / "sub" / "tiny.js").write_text("1;")
    (tmp_path / "sub" / "noise.wasm").write_bytes(os.urandom(4096))     # does not shrink: no copy
    told = []
    count, before, br, gz = precompress(tmp_path, tmp_path.parent / f"{tmp_path.name}-brotli",
                                        lambda *a: told.append(a))
    assert count == 2 and br < before / 5 and gz < before / 5
    # progress: one call per file considered (the tiny one is not), counting up to the whole
    sizes = sorted(f.stat().st_size for f in tmp_path.rglob("*") if f.suffix in (".html", ".js", ".wasm")
                   and f.stat().st_size >= 1024)
    assert [(d, n) for d, n, _, _ in told] == [(i + 1, 3) for i in range(3)]
    assert told[-1][2:] == (sum(sizes), sum(sizes)) and all(a[2] < b[2] for a, b in zip(told, told[1:]))
    for f in ("tiny.js", "noise.wasm"):
        assert not (tmp_path / "sub" / f"{f}.gz").exists() and not (tmp_path / "sub" / f"{f}.br").exists()
    server = make_server(tmp_path, 0)
    import threading
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, server, page
    server.shutdown()
    server.server_close()


def test_a_precompressed_file_is_sent_compressed_only_to_who_accepts_it(small_site):
    import gzip

    import brotli
    root, server, page = small_site
    status, headers, body = _get(server, "/sub/app.js", "gzip, deflate, br, zstd")   # (chromium's)
    assert status == 200 and headers["Content-Encoding"] == "br" and headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"] == "text/javascript" and int(headers["Content-Length"]) == len(body)
    assert brotli.decompress(body) == (root / "sub" / "app.js").read_bytes()
    for refused in ("gzip, deflate", "gzip, br;q=0", "br;q=0.0, gzip;q=0.5"):
        status, headers, body = _get(server, "/sub/app.js", refused)          # gzip where brotli is not taken
        assert headers["Content-Encoding"] == "gzip", refused
        assert gzip.decompress(body) == (root / "sub" / "app.js").read_bytes()
    status, headers, body = _get(server, "/sub/app.js")                    # no gzip: the file itself
    assert status == 200 and "Content-Encoding" not in headers and body == (root / "sub" / "app.js").read_bytes()
    status, headers, body = _get(server, "/?chapter=3", "gzip")             # the entry page too
    assert headers.get("Content-Encoding") == "gzip" and gzip.decompress(body).decode() == page
    assert headers["Content-Type"].startswith("text/html")
    status, headers, body = _get(server, "/sub/tiny.js", "gzip")             # no copy: as it is
    assert "Content-Encoding" not in headers and body == b"1;"
    status, headers, body = _get(server, "/sub/app.js", "gzip;q=0, br;q=0, identity")
    assert "Content-Encoding" not in headers and body == (root / "sub" / "app.js").read_bytes()


def test_brotli_copies_are_kept_by_content_and_pruned(small_site, monkeypatch):
    from buildtools import compress
    root, server, page = small_site
    cache = root.parent / f"{root.name}-brotli"
    kept = sorted(p.name for p in cache.glob("*.br"))
    assert len(kept) == 2
    monkeypatch.setattr(compress.brotli, "compress", lambda *a, **k: pytest.fail("compressed again"))
    compress.precompress(root, cache)                                       # unchanged: from the cache
    monkeypatch.undo()
    (root / "sub" / "app.js").write_text("console.log('y');\n" * 400)        # changed: its old copy goes
    compress.precompress(root, cache)
    now = sorted(p.name for p in cache.glob("*.br"))
    assert len(now) == 2 and len(set(now) & set(kept)) == 1


def _build_module():
    spec = importlib.util.spec_from_file_location("build_for_test", ROOT / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_serve_serves_first_and_compresses_while_serving(tmp_path, monkeypatch):
    """`build.py --serve` (./lab.sh) serves the site as soon as it is built and makes its compressed
    copies meanwhile, at a lower priority; a later --serve finishes what a stopped one left."""
    build = _build_module()
    site, cache = tmp_path / "site", tmp_path / "cache"
    built, served = [], []

    def fake_build(app, to, cache_dir, site_url=None, compress=True):
        built.append(compress)
        to.mkdir(exist_ok=True)
        (to / "index.html").write_text("<p>words</p>" * 500)
        (to / "app.js").write_text("let x = 1;\n" * 500)

    def fake_serve(where, port, open_browser=False, meanwhile=None):
        assert where == site and (meanwhile is None) == bool(list(site.rglob("*.br"))), "served at once"
        served.append(meanwhile)

    monkeypatch.setattr(build, "build", fake_build)
    monkeypatch.setattr(build, "serve", fake_serve)
    argv = ["--serve", "--site", str(site), "--cache", str(cache)]
    assert build.main(argv) == 0 and built == [False] and served[-1] is not None
    stamp = cache / "site-stamp.json"
    assert json.loads(stamp.read_text())["compressed"] is False
    (site / "app.js.br.part").write_bytes(b"half a copy")          # as a stop mid-write leaves it
    assert build.main(argv) == 0 and built == [False]              # up to date: not built again,
    assert served[-1] is not None                                  # but its copies still to make
    served[-1]()
    assert json.loads(stamp.read_text())["compressed"] is True
    assert sorted(p.name for p in site.iterdir()) == ["app.js", "app.js.br", "app.js.gz", "index.html",
                                                        "index.html.br", "index.html.gz"]
    assert build.main(argv) == 0 and built == [False] and served[-1] is None      # nothing left to do
    assert build.main(["--site", str(site), "--cache", str(cache)]) == 0 and built == [False, True]


def test_a_copy_appears_whole(tmp_path, monkeypatch):
    """A server sending the site while it is compressed sees each copy whole or not at all."""
    from buildtools import compress
    (tmp_path / "a.js").write_text("let y = 2;\n" * 500)
    seen = []
    real = Path.write_bytes

    def watch(self, data):
        seen.append((self.name, self.with_suffix("").exists()))        # the copy's own name, before
        return real(self, data)
    monkeypatch.setattr(Path, "write_bytes", watch)
    compress.precompress(tmp_path, tmp_path / "cache", background=True)
    assert [name for name, _ in seen if name.startswith("a.js")] == ["a.js.gz.part", "a.js.br.part"]
    assert not any(there for name, there in seen if name.startswith("a.js"))
    assert brotli_of(tmp_path / "a.js.br") == (tmp_path / "a.js").read_bytes()


def brotli_of(path):
    import brotli
    return brotli.decompress(path.read_bytes())


def test_an_unchanged_file_revalidates_to_a_304_compressed_or_not(small_site):
    """A service worker filling its cache (buildtools.offline) revalidates every file: what the
    browser holds already must cost a 304, not the file again."""
    root, server, page = small_site
    for path, encoding in (("/sub/app.js", "gzip"), ("/sub/tiny.js", "gzip"), ("/sub/app.js", None)):
        status, headers, _ = _get(server, path, encoding)
        assert status == 200 and headers["Last-Modified"], path
        status, _, body = _get(server, path, encoding, since=headers["Last-Modified"])
        assert status == 304 and body == b"", (path, encoding)
    os.utime(root / "sub" / "app.js", (2e9, 2e9))                        # changed since: sent again
    status, headers, body = _get(server, "/sub/app.js", "gzip", since="Thu, 01 Jan 2026 00:00:00 GMT")
    assert status == 200 and headers["Content-Encoding"] == "gzip" and body


def test_the_server_lists_no_directory_and_names_no_version(small_site):
    root, server, page = small_site
    status, headers, body = _get(server, "/sub/")
    assert status == 404 and b"app.js" not in body
    for path in ("/sub/app.js", "/sub/", "/missing"):
        status, headers, body = _get(server, path)
        assert headers["Server"] == "static" and not re.search(rb"Python|SimpleHTTP|\d+\.\d+\.\d+", body)


@built
def test_built_site_compressed_copies_match_their_files():
    import gzip

    import brotli
    for suffix, decompress in ((".gz", gzip.decompress), (".br", brotli.decompress)):
        copies = sorted(SITE.rglob(f"*{suffix}"))
        names = {c.name for c in copies}
        assert {f"pyodide.asm.wasm{suffix}", f"index.html{suffix}", f"python_stdlib.zip{suffix}"} <= names
        for c in copies:
            assert decompress(c.read_bytes()) == c.with_name(c.name[:-3]).read_bytes(), c


# ---------------------------------------------------------------- bytecode (Pyodide's Python under node)

CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or ROOT / "build-cache").resolve()
PYODIDE_CORE = CACHE / "npm" / f"pyodide-{pins.PYODIDE_VERSION}"
needs_pyodide = pytest.mark.skipif(
    not (PYODIDE_CORE / "pyodide.js").exists() or shutil.which("node") is None,
    reason="needs node and Pyodide's npm package in the build cache (python build.py fetches it)")


def read_record(z: zipfile.ZipFile) -> dict:
    name = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    rows = [line.split(",") for line in z.read(name).decode().splitlines() if line]
    return {path: (digest, size) for path, digest, size in rows}


def assert_record_consistent(z: zipfile.ZipFile):
    record = read_record(z)
    assert set(record) == set(z.namelist()), set(record) ^ set(z.namelist())
    for name in z.namelist():
        if name.endswith(".dist-info/RECORD"):
            assert record[name] == ("", "")
            continue
        data = z.read(name)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert record[name] == (f"sha256={digest}", str(len(data))), name


def run_in_pyodide(code: str) -> str:
    """What `code` prints when Pyodide's Python runs it under node."""
    script = ("const { loadPyodide } = require(process.argv[1] + '/pyodide.js');\n"
              "loadPyodide({ indexURL: process.argv[1] + '/' })"
              ".then((py) => py.runPython(require('fs').readFileSync(0, 'utf8')));\n")
    out = subprocess.run(["node", "-e", script, str(PYODIDE_CORE)], input=code, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


TOY_FILES = {
    "toy/__init__.py": "from .mod import f\n",
    "toy/mod.py": "def f():\n    return 'compiled'\n",
    "toy/keep.py": "SOURCE = 'read as text'\n",
    "toy/templates/page.html": "<p>{{ x }}</p>\n",
    "toy/__pycache__/mod.cpython-311.pyc": "stale",
    "toy.pth": "import toy\n",
}


@needs_pyodide
def test_compiled_wheel_is_sourceless_312_bytecode_with_a_consistent_record(tmp_path, monkeypatch):
    monkeypatch.setitem(bytecode.KEEP_SOURCE, "toy/keep.py", "read as text by the test")
    src = make_wheel(tmp_path, "toy", "1.0", files=TOY_FILES)
    [out], summary = bytecode.compile_wheels([src], PYODIDE_CORE, tmp_path / "cache")
    assert out.name == src.name and summary["compiled_now"] == 1
    assert summary["kept"] == {"toy/keep.py": "read as text by the test"}
    with zipfile.ZipFile(out) as z, zipfile.ZipFile(src) as zin:
        names = set(z.namelist())
        assert {"toy/__init__.pyc", "toy/mod.pyc"} <= names
        assert not {"toy/__init__.py", "toy/mod.py", "toy/__pycache__/mod.cpython-311.pyc"} & names
        for n in ("toy/keep.py", "toy/templates/page.html", "toy.pth"):
            assert z.read(n) == zin.read(n)
        pyc = z.read("toy/mod.pyc")
        assert pyc[:4] == b"\xcb\r\r\n"  # importlib.util.MAGIC_NUMBER of CPython 3.12
        assert pyc[4:8] == (1).to_bytes(4, "little")  # hash-based, unchecked: the same bytes every build
        assert b"/lib/python3.12/site-packages/toy/mod.py" in pyc  # co_filename: where Pyodide installs it
        assert read_wheel(out).name == "toy" and read_wheel(out).version == "1.0"
        assert_record_consistent(z)
    # no column ranges (the traceback carets), line numbers kept: read back by Pyodide's own Python
    positions = run_in_pyodide(
        "import json, marshal\n"
        f"code = marshal.loads(bytes.fromhex('{pyc[16:].hex()}'))\n"
        "f = next(c for c in code.co_consts if hasattr(c, 'co_positions'))\n"
        "print(json.dumps(sorted(set(f.co_positions()), key=str)))")
    assert [2, 2, None, None] in json.loads(positions) and all(p[2] is None for p in json.loads(positions))
    # unchanged input: from the cache, node is not started
    monkeypatch.setattr(bytecode, "_run_pyodide", lambda *a: pytest.fail("node ran for a cached wheel"))
    [again], summary = bytecode.compile_wheels([src], PYODIDE_CORE, tmp_path / "cache")
    assert again == out and summary == {**summary, "compiled_now": 0, "cached": 1}


@needs_pyodide
def test_a_module_read_as_text_by_its_neighbour_must_be_kept_as_source(tmp_path):
    files = {"toy/__init__.py": "",
             "toy/export.py": "from pathlib import Path\nT = Path(__file__).with_name('script.py')\n",
             "toy/script.py": "print('hello')\n"}
    src = make_wheel(tmp_path, "toy", "1.0", files=files)
    with pytest.raises(BuildError, match="toy/script.py.*KEEP_SOURCE"):
        bytecode.compile_wheels([src], PYODIDE_CORE, tmp_path / "cache")


@built
def test_built_site_ships_its_pure_wheels_as_312_bytecode():
    """Every module of the pure wheels that the lab imports is bytecode, apart from the files kept
    on purpose (the rest stay source: buildtools.trace_imports); the project's are all bytecode."""
    from buildtools.trace_imports import read_imported
    imported = read_imported()
    lock = json.loads((SITE / PYODIDE_DIR / "pyodide-lock.json").read_text())
    pure = [e for k, e in lock["packages"].items() if k not in pins.COMPILED_PACKAGES]
    assert len(pure) == len(pins.PURE_WHEELS) + len(pins.SDIST_WHEELS) + 1
    kept = set()
    for entry in pure:
        with zipfile.ZipFile(SITE / PYODIDE_DIR / entry["file_name"]) as z:
            names = z.namelist()
            sources = [n for n in names if bytecode.is_kept_source(n)]
            kept_here = {n for n in sources if n in bytecode.KEEP_SOURCE or bytecode.to_compile(n, imported)}
            assert kept_here <= set(bytecode.KEEP_SOURCE), (entry["file_name"], kept_here)
            kept |= kept_here
            if entry["name"] == pins.PROJECT_NAME:
                assert set(sources) <= set(bytecode.KEEP_SOURCE), sources
            pycs = [n for n in names if n.endswith(".pyc")]
            # (PyYAML's modules are imported only when used: buildtools.lazy_imports.LAZY_YAML)
            assert pycs or entry["name"] == "PyYAML", entry["file_name"]
            assert all(z.read(n)[:4] == bytecode.MAGIC_312 for n in pycs), entry["file_name"]
            assert not any("__pycache__/" in n for n in names)
            assert_record_consistent(z)
    assert kept == set(bytecode.KEEP_SOURCE)


def _official_numpy() -> Path:
    official = json.loads((PYODIDE_CORE / "pyodide-lock.json").read_text())["packages"]["numpy"]
    return CACHE / "compiled" / official["file_name"]


@built
@needs_pyodide
def test_built_site_ships_numpy_as_bytecode_with_the_official_extensions():
    """numpy is the official Pyodide wheel, slimmed (wheels._numpy_rule) and compiled: every
    extension module byte for byte, every module the lab imports as 3.12 bytecode, the others
    as their source."""
    from buildtools.trace_imports import read_imported
    from buildtools.wheels import _numpy_rule
    imported = read_imported()
    shipped = SITE / PYODIDE_DIR / _official_numpy().name
    with zipfile.ZipFile(_official_numpy()) as zo, zipfile.ZipFile(shipped) as zs:
        names = set(zs.namelist())
        for n in zo.namelist():
            if n.endswith(".dist-info/RECORD"):
                continue
            kept = _numpy_rule(n) == "keep"
            if n.endswith(".py"):
                as_pyc = kept and bytecode.module_name(n) in imported
                assert (n + "c" in names, n in names) == (as_pyc, kept and not as_pyc), n
                if as_pyc:
                    pyc = zs.read(n + "c")
                    assert pyc[:4] == bytecode.MAGIC_312 and f"/lib/python3.12/site-packages/{n}".encode() in pyc
                elif kept:
                    assert zs.read(n) == zo.read(n), n
            else:
                assert (n in names) == kept, n
                if kept:
                    assert zs.read(n) == zo.read(n), n
        assert sum(n.endswith(".so") for n in names) == sum(n.endswith(".so") for n in zo.namelist())
        assert_record_consistent(zs)


@built
@needs_pyodide
def test_built_site_ships_the_standard_library_as_312_bytecode():
    """python_stdlib.zip: Pyodide's, every module the lab imports compiled (zipimport loads
    `mod.pyc` without a source; its file name in tracebacks is where Pyodide mounts the zip),
    what pins.STDLIB_DROPPED names (never imported by the lab) left out, the rest as it was."""
    from buildtools.trace_imports import read_imported
    imported = read_imported()
    with zipfile.ZipFile(PYODIDE_CORE / "python_stdlib.zip") as zo, \
            zipfile.ZipFile(SITE / PYODIDE_DIR / "python_stdlib.zip") as zs:
        shipped = {i.filename: i for i in zs.infolist()}
        assert all(i.compress_type == zipfile.ZIP_STORED for i in shipped.values())   # sent brotli'd whole
        dropped = [n for n in zo.namelist() if bytecode.stdlib_dropped(n)]
        assert {"pydoc.py", "multiprocessing/pool.py", "xmlrpc/", "http/server.py"} <= set(dropped)
        assert not bytecode.stdlib_dropped("http/client.py") and not bytecode.stdlib_dropped("traceback.py")
        assert not {bytecode.module_name(n) for n in dropped if n.endswith(".py")} & imported
        compiled = [n for n in zo.namelist() if n.endswith(".py") and bytecode.module_name(n) in imported]
        assert len(compiled) > 150 and "asyncio/base_events.py" in compiled
        for n in compiled:
            pyc = zs.read(n + "c")
            assert pyc[:4] == bytecode.MAGIC_312 and f"{bytecode.STDLIB_PATH}/{n}".encode() in pyc, n
        others = [n for n in zo.namelist() if n not in compiled and n not in dropped]
        assert set(shipped) == {n + "c" for n in compiled} | set(others)
        for n in others:
            assert zs.read(n) == zo.read(n), n


def test_only_the_modules_the_lab_imports_are_chosen_for_bytecode():
    imported = frozenset({"pkg", "pkg.used", "top"})
    assert bytecode.module_name("pkg/__init__.py") == "pkg" and bytecode.module_name("pkg/a/b.py") == "pkg.a.b"
    assert [n for n in ("pkg/__init__.py", "pkg/used.py", "pkg/unused.py", "top.py", "pkg/data.json",
                        "pkg-1.0.dist-info/x.py") if bytecode.to_compile(n, imported)] == [
        "pkg/__init__.py", "pkg/used.py", "top.py"]
    assert bytecode.to_compile("pkg/unused.py")                            # without a selection: every module
    assert bytecode.cache_key(Path(__file__), imported) != bytecode.cache_key(Path(__file__))


@built
@needs_pyodide
def test_every_module_the_lab_imports_ships_as_bytecode():
    """The lab, opened on two chapters in the site's own Pyodide (under node): every module it
    imports from the site's archives is bytecode there. One that is not means
    buildtools/imported_modules.txt is out of date: `python -m buildtools.trace_imports`."""
    from buildtools.trace_imports import trace
    shipped = {}
    lock = json.loads((SITE / PYODIDE_DIR / "pyodide-lock.json").read_text())
    archives = [SITE / PYODIDE_DIR / e["file_name"] for e in lock["packages"].values()]
    for archive in [*archives, SITE / PYODIDE_DIR / "python_stdlib.zip"]:
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                if n.endswith((".py", ".pyc")) and ".dist-info/" not in n:
                    shipped[bytecode.module_name(n)] = n
    imported = trace(SITE, ["0", "7"])
    assert len(imported) > 500 and {"panel", "bokeh.models", "numpy", "asyncio", "gleam.chargru"} <= imported
    as_source = sorted(m for m in imported if shipped.get(m, ".pyc").endswith(".py")
                       and shipped[m] not in bytecode.KEEP_SOURCE)
    assert not as_source, as_source
    assert any(n.endswith(".py") for n in shipped.values())            # (what the lab never imports)


IMPORTTIME_SAMPLE = """\
import time: self [us] | cumulative | imported package
import time:       120 |        120 |     c
import time:        30 |        150 |   b
import time:        40 |         40 |   d
import time:        10 |        200 | a
noise that is not an import line
import time:         5 |          5 | e
"""


def test_parse_importtime_names_each_import_and_who_imported_it():
    from buildtools.trace_imports import parse_importtime
    rows = {r.name: r for r in parse_importtime(IMPORTTIME_SAMPLE)}
    assert list(rows) == ["c", "b", "d", "a", "e"]
    assert (rows["c"].self_us, rows["c"].cumulative_us, rows["c"].depth) == (120, 120, 2)
    assert rows["c"].importers == ("b", "a")
    assert rows["d"].importers == ("a",) and rows["a"].importers == () and rows["e"].depth == 0


@built
@needs_pyodide
def test_the_import_profile_times_the_labs_start_in_its_own_pyodide():
    """`python -m buildtools.trace_imports --profile 7`: every import of the lab's start, timed
    in the site's Pyodide, panel's cost containing its subpackages' and each chain ending at the top."""
    from buildtools.trace_imports import profile, profile_table
    rows = profile(SITE, "7")
    by_name = {}
    for r in rows:
        by_name.setdefault(r.name, r)
    assert len(rows) > 500 and {"panel", "bokeh.models", "gleam.chargru"} <= set(by_name)
    assert by_name["panel"].cumulative_us >= by_name["panel.layout"].cumulative_us > 0
    assert all(r.depth == 0 or len(r.importers) == r.depth for r in rows)
    assert "panel.layout <- panel" in profile_table(rows, len(rows))     # (its rank is timing: not asked)


LAZY_CHECK = """
import importlib, json, sys
import panel
lazy = json.loads(LAZY_JSON)
early = sorted(m for m in sys.modules if m in lazy["modules"])
resolved = {p: sorted(n for n in names if getattr(importlib.import_module(p), n, None) is not None)
            for p, names in lazy["names"].items()}
yaml_early = "yaml" in sys.modules
from bokeh.themes import Theme
import bokeh.settings
open("/tmp/gl-theme.yaml", "w").write("attrs:\\n  Plot:\\n    width: 123\\n")
themed = Theme(filename="/tmp/gl-theme.yaml")._json["attrs"]["Plot"]["width"]
print(json.dumps({"early": early, "resolved": resolved, "yaml_early": yaml_early,
                  "yaml": bokeh.settings.yaml.safe_load("a: 1"), "themed": themed}))
"""


def lazy_expectations():
    """From the Panel the build runs (the same release, unmodified): the submodules LAZY makes
    lazy, and per package every name its __init__ imports from them."""
    import ast

    import panel
    modules, names = set(), {}
    for path, lazy in LAZY.items():
        package = path.removesuffix("/__init__.py").replace("/", ".")
        modules |= {f"{package}.{m}" for m, only in lazy.items() if only is None}
        source = (Path(panel.__file__).parents[1] / path).read_text(encoding="utf-8")
        names[package] = []
        for node in ast.parse(source).body:
            if not (isinstance(node, ast.ImportFrom) and node.level == 1):
                continue
            for a in node.names:
                module = node.module or a.name
                if module in lazy and (lazy[module] is None or a.name in lazy[module]):
                    names[package].append(a.asname or a.name)
        names[package].sort()
    return modules, names


@built
def test_built_site_imports_panel_lazily_and_every_lazy_name_resolves():
    """In the site's own Pyodide (under node), `import panel` imports none of the modules
    buildtools.lazy_imports makes lazy, and each name they give resolves (importing them) when asked for;
    nor PyYAML, which Bokeh's settings then import when used."""
    if shutil.which("node") is None:
        pytest.fail("node is needed to run the site's Pyodide")
    modules, names = lazy_expectations()
    assert {"panel.chat", "panel.widgets.terminal", "panel.pane.vtk"} <= modules
    assert {"chat", "GridStack"} <= set(names["panel"]) and "Terminal" in names["panel.widgets"]
    script = ("globalThis.XMLHttpRequest = class { open() {} send() {} };\n"
              "const { loadPyodide } = require(process.argv[1] + '/pyodide.js');\n"
              "loadPyodide({ indexURL: process.argv[1] + '/', packages: ['panel', 'pyodide-http'] })"
              ".then((py) => py.runPython(require('fs').readFileSync(0, 'utf8')));\n")
    code = LAZY_CHECK.replace("LAZY_JSON", repr(json.dumps({"modules": sorted(modules), "names": names})))
    out = subprocess.run(["node", "-e", script, str((SITE / PYODIDE_DIR).resolve())], input=code,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, re.findall(r"\w*Error: [^\n]{0,300}", out.stderr)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"early": [], "resolved": names, "yaml_early": False, "yaml": {"a": 1}, "themed": 123}


def test_a_sourceless_top_level_module_is_still_an_import_of_its_wheel(tmp_path):
    whl = make_wheel(tmp_path, "solo", "1.0", files={"solo.pyc": "x", "pkg/__init__.pyc": "x"})
    assert read_wheel(whl).imports == ["pkg", "solo"]


@built
def test_built_pages_show_their_chapter_before_any_script_is_fetched():
    """Prose first: a page's <head> fetches no script (BokehJS and Panel's JS are loaded by the
    boot script after the first paint) and its <body> opens with the chapter's title, prose and
    typeset math as plain HTML, the same as buildtools.static_prose makes from content."""
    from gleam_lab import content
    from buildtools.katex import fetch_katex
    from buildtools.static_prose import articles
    made = articles(content.chapter_ids(), fetch_katex(BUILD_CACHE))
    for cid in content.chapter_ids():
        page = (SITE / page_name(cid)).read_text(encoding="utf-8")
        head, body = page.split("</head>", 1)
        assert not re.search(r"<script[^>]*\bsrc=", head), cid
        assert re.search(r'<link rel="stylesheet" href="\./katex/[\d.]+/katex\.min\.css"', head), cid
        first = body.index("<article")
        assert "<script" not in body[:first], cid
        assert body[first:].startswith(made[cid]), cid
        assert "<h1" in made[cid] and htmllib.escape(content.heading(cid), quote=False) in made[cid]
        urls = json.loads(re.search(r"glBoot\.load\((\[.*?\])\);", page).group(1))
        assert any("/bokeh-3" in u for u in urls) and urls[-1].endswith("/panel.min.js")


@built
def test_built_service_worker_names_this_build_and_every_file():
    from buildtools.offline import build_id, site_files
    sw = (SITE / "sw.js").read_text(encoding="utf-8")
    files = site_files(SITE)
    # every file but the trained weights (data/, fetched by the inspector alone) is cached when it
    # installs; the weights are cached once fetched; all of them name the build
    weights = [f for f in files if f.startswith("data/")]
    assert weights == ["data/extrapolation.weights.npz", "data/memory.weights.npz"]
    assert json.loads(re.search(r"const FILES = (\[.*?\]);", sw, re.S).group(1)) == [f for f in files if f not in weights]
    assert json.loads(re.search(r"const ON_DEMAND = (\[.*?\]);", sw, re.S).group(1)) == ["data/"]
    assert "if (keep && response.ok)" in sw and "cache.put(new URL(path, SCOPE).href, copy)" in sw
    assert f'const BUILD = "{build_id(SITE, files)}";' in sw
    files = [f for f in files if f not in weights]
    pinned = json.loads(re.search(r"const PINNED = new Set\((\[.*?\])\);", sw, re.S).group(1))
    assert pinned and set(pinned) < set(files)
    # what the build rewrites is never served from the cache first: pages, worker, lock, wheels it makes
    for rel in files:
        rewritten = rel.endswith((".html", "main.js", "pyodide-lock.json", ".whl", "python_stdlib.zip"))
        assert not (rewritten and rel in pinned), rel
    assert "pyodide/0.27.7/pyodide.asm.wasm" in pinned and "index.html" in files
    # ... but a pinned .wasm is answered by the HTTP cache first (where Chromium keeps its machine code)
    through = json.loads(re.search(r"const PASS_THROUGH = new Set\((\[.*?\])\);", sw, re.S).group(1))
    assert through == [f for f in pinned if f.endswith(".wasm")] == ["pyodide/0.27.7/pyodide.asm.wasm"]
    assert 'PASS_THROUGH.has(path) ? fetch(request, {cache: "force-cache"}) : fetch(request)' in sw
    # a wheel is answered from the cache first only when Pyodide asks for exactly this build's bytes
    integrity = json.loads(re.search(r"const INTEGRITY = (\{.*?\});", sw, re.S).group(1))
    lock = json.loads((SITE / PYODIDE_DIR / "pyodide-lock.json").read_text())
    assert integrity == {f"{PYODIDE_DIR}/{e['file_name']}":
                         "sha256-" + base64.b64encode(bytes.fromhex(e["sha256"])).decode()
                         for e in lock["packages"].values()}
    assert "request.integrity && INTEGRITY[path] === request.integrity" in sw


def test_pinned_means_an_upstream_copy_whose_path_names_its_version():
    from buildtools.offline import is_pinned
    v = pins.PYODIDE_VERSION
    assert is_pinned(f"pyodide/{v}/pyodide.asm.wasm")
    assert not is_pinned(f"pyodide/{v}/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl")  # compiled here
    assert not is_pinned(f"pyodide/{v}/python_stdlib.zip")                  # compiled here
    assert not is_pinned(f"pyodide/{v}/panel-1.9.4-py3-none-any.whl")     # slimmed and compiled here
    assert not is_pinned(f"pyodide/{v}/pyodide-lock.json") and not is_pinned("main.js")
    assert is_pinned("bokeh/bokeh-3.9.2.min.js") and is_pinned("panel-cdn/1.9.4/dist/panel.min.js")
    assert is_pinned(f"katex/{pins.KATEX_VERSION}/katex.min.css") and not is_pinned("katex/katex.min.css")
    assert not is_pinned("chapter-1.html") and not is_pinned("index.html")


def test_boot_rewrite_refuses_a_page_it_does_not_recognise(converted):
    """buildtools.boot rewrites Panel's page in several places; a template it does not know (no
    BokehJS in <head>, or a piece it rewrites missing) stops the build instead of a half-honest page."""
    from buildtools import boot
    html = rewrite_html(converted[0])[0]
    page = boot.apply(html, "<article id='gl-static'>x</article>")
    assert "glBoot.load([" in page and page.index("<body") < page.index("<article id='gl-static'>") < page.index("data-root-id", page.index("<body"))
    with pytest.raises(BuildError, match="BokehJS"):
        boot.apply(re.sub(r'<script type="text/javascript" src="[^"]*"></script>', "", html))
    with pytest.raises(BuildError, match="embed_items"):
        boot.apply(html.replace("root.Bokeh.embed.embed_items(docs_json, render_items);", ""))


@built
def test_built_pages_carry_a_policy_that_hashes_exactly_their_inline_scripts():
    """Content-Security-Policy: every page allows only its own origin (plus what Pyodide and
    BokehJS need) and only the inline scripts the build wrote, by hash; an injected one is not."""
    from buildtools.csp import inline_hashes
    for cid in content_ids():
        page = (SITE / page_name(cid)).read_text(encoding="utf-8")
        head = page.split("</head>", 1)[0]
        metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', head)
        assert len(metas) == 1, cid
        assert head.index("Content-Security-Policy") < head.index("<script")     # before any script
        directives = dict(d.strip().split(" ", 1) for d in metas[0].split(";"))
        assert directives["default-src"] == "'self'" and directives["connect-src"] == "'self'"
        assert directives["object-src"] == "'none'" and "'unsafe-inline'" not in directives["script-src"]
        allowed = set(re.findall(r"'sha256-[^']+'", directives["script-src"]))
        assert allowed == set(inline_hashes(page)) and len(allowed) >= 5, cid
        assert not set(inline_hashes(page.replace("</body>", "<script>alert(1)</script></body>"))) <= allowed
        for value in metas[0].split():
            assert not value.startswith(("http:", "https:", "*")), value    # no other origin at all


def content_ids():
    from gleam_lab import content
    return content.chapter_ids()


def test_the_server_sends_the_worker_its_policy(small_site):
    from buildtools.csp import WORKER_POLICY
    root, server, page = small_site
    (root / "main.js").write_text("self.onmessage = () => {};")
    status, headers, _ = _get(server, "/main.js")
    assert status == 200 and headers["Content-Security-Policy"] == WORKER_POLICY
    assert "'wasm-unsafe-eval'" in WORKER_POLICY and "default-src 'self'" in WORKER_POLICY
    status, headers, _ = _get(server, "/sub/app.js")                 # not a worker: the page's meta rules
    assert "Content-Security-Policy" not in headers


def test_the_page_queues_every_event_in_order_while_the_worker_is_busy(converted):
    """Panel's page sent a click at once but held a changed value until the worker was idle, so
    the click could overtake it; the rewrite queues both, in order."""
    from buildtools.convert import rewrite_send_queue
    html = rewrite_html(converted[0])[0]
    assert "pyodideWorker.busy && event.model && event.attr" in html
    out = rewrite_send_queue(html)
    assert "} else if (pyodideWorker.busy) {" in out and "queue.push(event)" in out
    assert "pyodideWorker.busy && event.model && event.attr" not in out
    with pytest.raises(BuildError, match="send_change"):
        rewrite_send_queue(out)


def benchmark_module(name):
    """benchmarks/<name>.py as a module (benchmarks/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@built
def test_the_benchmarks_phase_marks_find_their_anchors_in_the_built_worker(tmp_path):
    """benchmarks/phases.py (floor.py --phases) marks each phase boundary of the site's worker
    script: every anchor is in the built worker once, each mark lands once, the marked worker is
    still valid JavaScript, and a worker without an anchor is refused by the phase's name (a
    change to the worker shows up here, not as a phase silently missing from a benchmark)."""
    phases = benchmark_module("phases")
    js = (SITE / "main.js").read_text(encoding="utf-8")
    marked = phases.instrument_worker(js)
    for name, *_ in phases.ANCHORS:
        assert marked.count(f"glMark('{name}')") == 1, name
    (tmp_path / "marked.js").write_text(marked, encoding="utf-8")
    check = subprocess.run(["node", "--check", str(tmp_path / "marked.js")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with pytest.raises(ValueError, match="'loadPyodide'"):
        phases.instrument_worker(js.replace("const sitePackages", "const packages"))
    marks = [("worker started", 10.0), ("pyodide.js loaded", 10.25), ("loadPyodide", 12.0)]
    assert phases.durations(marks) == {"pyodide.js loaded": 0.25, "loadPyodide": 1.75}


def test_the_load_traces_summary_counts_self_time_per_thread_and_whole_page_paints():
    """benchmarks/trace_load.py's arithmetic on a small trace of known shape: an event's self
    time leaves out what is nested in it, a thread's busy time counts only its outermost events
    (in the 0.5 s bucket each starts in), and only paints of the whole document are counted."""
    trace = benchmark_module("trace_load")

    def x(name, ts_ms, dur_ms, **args):
        return {"ph": "X", "name": name, "ts": ts_ms * 1000, "dur": dur_ms * 1000, "pid": 1, "tid": 2, "args": args}

    events = [x("RunTask", 0, 100), x("FunctionCall", 10, 60), x("GC", 20, 15),   # GC nested in the call
              x("RunTask", 600, 30), x("Paint", 605, 20, data={"nodeName": "#document"}),
              x("Paint", 700, 5, data={"nodeName": "DIV id='gl-boot'"}),
              {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}}]
    own = trace.self_times(events)
    assert own == {"RunTask": 100 - 60 + 30 - 20, "FunctionCall": 60 - 15, "GC": 15, "Paint": 25}
    assert trace.busy(events, 0) == {0.0: 100, 0.5: 30 + 5}
    assert trace.document_paints(events) == (1, 20)
    assert trace.thread_names(events) == {(1, 2): "CrRendererMain"}


def test_the_browser_benchmark_takes_its_training_ratios_within_each_round():
    """benchmarks/browser.py's over_rounds: a ratio is the median of each round's own (lab, model
    alone and JS taken seconds apart), not the ratio of the sides' medians; each side is its
    median round, and a round where a side measured nothing is left out of that side's ratio."""
    bench = benchmark_module("browser")

    def side(rate):
        return {"chars_per_s": rate, "steps_per_s": rate / 200, "frames": {}} if rate else {"chars_per_s": None}

    # (lab, JS, model alone) in three rounds: the lab's rounds 1.0, 0.5, 0.5 and JS's 1.0, 1.0, 0.4
    # give lab ÷ JS 1.0, 0.5, 1.25 (median 1.0), where the sides' medians would give 0.5 ÷ 1.0
    rounds = [{"lab": side(lab), "js": side(js), "model": side(model)}
              for lab, js, model in ((1.0, 1.0, 1.25), (0.5, 1.0, None), (0.5, 0.4, 0.5))]
    got = bench.over_rounds(rounds)
    assert got["lab_over_js"]["rounds"] == pytest.approx([1.0, 0.5, 1.25])
    assert got["lab_over_js"]["median"] == pytest.approx(1.0)
    assert got["lab"]["chars_per_s"] == pytest.approx(0.5) and got["js"]["chars_per_s"] == pytest.approx(1.0)
    assert got["lab_over_model"]["rounds"] == pytest.approx([0.8, 1.0])        # round 2 has no model
    assert got["lab_over_model"]["median"] == pytest.approx(0.9)
    assert got["model"]["rounds_chars_per_s"] == [1.25, 0.5]
    assert got["model"]["chars_per_s"] == pytest.approx(0.875)


# ---------------------------------------------------------------- BokehJS as served (buildtools/bokehjs.py)
# The bundle's InlineStyleSheet._update, taken out of the minified file, as the method of a stylesheet
# whose <style> element counts the writes of its text; node runs it for a sequence of texts.
STYLESHEET_WRITES_JS = r"""
const method = process.argv[1];
const el = {text: "", writes: 0, get textContent() { return this.text; },
            set textContent(v) { this.text = v; this.writes++; }};
const sheet = eval(`({el, ${method}})`);
for (const css of JSON.parse(process.argv[2])) sheet._update(css);
console.log(JSON.stringify([el.writes, el.text]));
"""


def stylesheet_writes(bundle, texts):
    """(writes of the <style> element's text, its last text) when `bundle`'s _update gets `texts`."""
    method = re.search(r"_update\((\w+)\)\{[^{}]*\}", bundle).group(0)
    out = subprocess.run(["node", "-e", STYLESHEET_WRITES_JS, method, json.dumps(texts)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return tuple(json.loads(out.stdout))


def test_bokehjs_writes_a_stylesheet_only_when_its_text_changes():
    """BokehJS rewrites every renderer's position stylesheet at each paint, most often with the
    same text; the site's bundle writes it only when the text differs (the installed bundle,
    rewritten as the build does, run by node)."""
    from buildtools.bokehjs import installed_bundles, rewrite_bundle
    if shutil.which("node") is None:
        pytest.fail("node is needed to run BokehJS's code")
    installed = (installed_bundles() / "bokeh.min.js").read_text(encoding="utf-8")
    texts = [":host { top: 1px; }"] * 3 + [":host { top: 2px; }"] * 2 + [""]
    assert stylesheet_writes(installed, texts) == (6, "")            # BokehJS's own: every call writes
    assert stylesheet_writes(rewrite_bundle(installed), texts) == (3, "")   # the site's: the 3 changes
    assert stylesheet_writes(rewrite_bundle(installed), texts[:4]) == (2, ":host { top: 2px; }")


def test_bokehjs_rewrite_stops_the_build_if_bokeh_changed_the_method():
    from buildtools.bokehjs import rewrite_bundle
    with pytest.raises(BuildError, match="InlineStyleSheet._update"):
        rewrite_bundle("class y{_update(t){this.el.innerHTML=t}}")
    with pytest.raises(BuildError, match="found 2"):
        rewrite_bundle("_update(t){this.el.textContent=t}" * 2)


@built
def test_built_site_serves_the_rewritten_bokehjs():
    import bokeh

    from buildtools.bokehjs import installed_bundles, rewrite_bundle
    static = installed_bundles()
    served = (SITE / "bokeh" / f"bokeh-{bokeh.__version__}.min.js").read_bytes()
    assert served == rewrite_bundle((static / "bokeh.min.js").read_bytes().decode("utf-8")).encode("utf-8")
    for bundle in ("bokeh-widgets", "bokeh-tables"):
        assert (SITE / "bokeh" / f"{bundle}-{bokeh.__version__}.min.js").read_bytes() == \
               (static / f"{bundle}.min.js").read_bytes()


@built
def test_built_site_has_a_preview_card_per_page_that_no_visitor_downloads():
    from PIL import Image

    from buildtools import meta
    cards = sorted(p.name for p in (SITE / meta.PREVIEWS).iterdir())
    assert cards == sorted(["index.png"] + [f"{cid}.png" for cid in content.chapter_ids()])
    for name in cards:
        with Image.open(SITE / meta.PREVIEWS / name) as img:
            assert img.format == "PNG" and img.size == meta.CARD
    assert f"{meta.PREVIEWS}/" not in (SITE / "sw.js").read_text()       # not precached for offline use
    # the card shows the page's own words: a card of another chapter differs
    assert meta.preview_card("4") != meta.preview_card("5")
