"""The build's changes to upstream behaviour as a managed set (buildtools.patches), and the
worker's Python as real modules (buildtools/worker/)."""
import py_compile
from pathlib import Path

import pytest

from buildtools import worker_prelude
from buildtools.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]


def test_the_workers_python_modules_compile(tmp_path):
    """Every buildtools/worker/*.py compiles as Python (what main.js carries of each is its code)."""
    modules = sorted(worker_prelude.WORKER_DIR.glob("*.py"))
    assert len(modules) >= 9, modules
    for path in modules:
        py_compile.compile(str(path), cfile=str(tmp_path / (path.stem + ".pyc")), doraise=True)
        code = worker_prelude.python(path.stem)
        assert code.strip() and not code.lstrip().startswith("#"), path     # the header comment is dropped
        assert code in path.read_text(encoding="utf-8")


def test_the_workers_python_is_what_main_js_carries():
    """The prelude carries each module's code, in order, inside one template literal."""
    names = ["jsnull", "no_gc_at_start", "no_diagnostics", "light_model_hook", "light_glyph_parameters",
             "fast_serialize", "lazy_templates"]
    prelude = worker_prelude.WORKER_PRELUDE
    body = prelude[prelude.index("runPython(`") + len("runPython(`"):prelude.rindex("`);")]
    assert body == "".join(worker_prelude.python(n) for n in names)
    compile(body, "prelude", "exec")
    assert worker_prelude.GC_AFTER_RENDER.strip() == 'self.pyodide.runPython("import gc; gc.freeze(); gc.enable()")'


def test_a_worker_module_that_a_template_literal_would_change_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(worker_prelude, "WORKER_DIR", tmp_path)
    (tmp_path / "ok.py").write_text("# why\n\nx = 1\n")
    assert worker_prelude.python("ok") == "\nx = 1\n"
    for bad in ("x = `1`", "x = '${y}'", "x = '\\n'"):
        (tmp_path / "bad.py").write_text(bad + "\n")
        with pytest.raises(BuildError, match="template literal"):
            worker_prelude.python("bad")
