"""The build's changes to upstream behaviour as a managed set (buildtools.patches), and the
worker's Python as real modules (buildtools/worker/)."""
import ast
import dataclasses
import py_compile
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from buildtools import fetch, patches, pins, worker_prelude
from buildtools.errors import BuildError
from buildtools.patches import PatchError

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


# ---------------------------------------------------------------- the records

def test_every_patch_names_a_test_that_exists():
    """Each record's test is a pytest node id of a function defined in a file of tests/."""
    for patch in patches.PATCHES.values():
        path, _, func = patch.test.partition("::")
        assert func and (ROOT / path).is_file(), patch.name
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert func in defined, f"{patch.name}: {patch.test} does not exist"


def test_every_record_is_complete_and_at_a_version_of_its_upstream():
    known = patches.versions()
    for patch in patches.PATCHES.values():
        assert patch.name.startswith(patch.upstream + "."), patch.name
        assert all([patch.target, patch.what, patch.why, patch.code]), patch.name
        assert "\n" not in patch.why, patch.name                     # one line of why
        assert re.fullmatch(r"\d+\.\d+\.\d+", patch.version), patch.name
        assert patch.upstream in known or patch.upstream == "numpy", patch.name
        for path in re.findall(r"buildtools/[\w/]+\.py", patch.code):
            assert (ROOT / path).is_file(), f"{patch.name}: {path}"


def test_every_patch_is_checked_where_the_build_applies_it():
    """Each record's name is named by the code of buildtools outside buildtools/patches/ (where it
    calls patches.applies), and no call names a patch that has no record."""
    sources = {p: p.read_text(encoding="utf-8") for p in (ROOT / "buildtools").rglob("*.py")
               if "patches" not in p.relative_to(ROOT / "buildtools").parts}
    text = "\n".join(sources.values())
    for name in patches.PATCHES:
        assert f'"{name}"' in text, f"{name}: no build step checks it"
    named = set(re.findall(r'applies\(\s*"([^"]+)"', text))
    assert len(named) > 10 and named <= set(patches.PATCHES), named - set(patches.PATCHES)


# ---------------------------------------------------------------- the version checks

def other_version(monkeypatch, name, version="9.9.9"):
    monkeypatch.setitem(patches.PATCHES, name, dataclasses.replace(patches.PATCHES[name], version=version))


def test_the_build_refuses_a_patch_written_for_another_version_and_names_it(monkeypatch):
    """verify(), which build.py runs first, passes at the pinned versions and lists every patch of
    an upstream at another version; each build step refuses its own."""
    assert len(patches.verify()) >= len(patches.PATCHES) - 1
    found = patches.versions()
    found["bokeh"] = {"pinned": "3.10.0"}
    with pytest.raises(PatchError) as err:
        patches.verify(found)
    for name in (n for n, p in patches.PATCHES.items() if p.upstream == "bokeh"):
        assert repr(name) in str(err.value)
    assert "panel." not in str(err.value) and "bokeh 3.10.0 (pinned)" in str(err.value)

    from buildtools.bokehjs import rewrite_bundle
    js = "x._update(e){this.el.textContent=e}"
    assert "!==" in rewrite_bundle(js)
    with pytest.raises(PatchError, match="bokehjs.stylesheet-write-if-changed.*bokehjs 3.10.0"):
        rewrite_bundle(js, "3.10.0")
    other_version(monkeypatch, "bokehjs.stylesheet-write-if-changed")
    with pytest.raises(PatchError, match="'bokehjs.stylesheet-write-if-changed'.*written against bokehjs 9.9.9"):
        rewrite_bundle(js)

    other_version(monkeypatch, "jinja2.lazy-templates")
    with pytest.raises(PatchError, match="jinja2.lazy-templates.*tests/test_build.py::test_the_workers_templates"):
        worker_prelude.prelude()


def test_slimming_a_wheel_of_another_version_is_refused_naming_the_patch(tmp_path):
    from tests.test_build import make_wheel
    from buildtools.wheels import slim_wheel
    slim_wheel(make_wheel(tmp_path, "bokeh", "3.9.2", files={"bokeh/x.py": ""}), tmp_path / "slim")
    (tmp_path / "new").mkdir()
    newer = make_wheel(tmp_path / "new", "bokeh", "3.10.0", files={"bokeh/x.py": ""})
    with pytest.raises(PatchError, match=r"'bokeh.slim-wheel'.*bokeh 3.10.0 \(bokeh-3.10.0-py3-none-any.whl\)"):
        slim_wheel(newer, tmp_path / "slim")


def test_an_sdist_is_built_with_its_pure_python_setting_and_must_come_out_pure(tmp_path, monkeypatch):
    """build_sdist_wheel runs pip wheel with SDIST_ENV (the pure-Python fallback of each) and refuses
    a wheel that is not py3-none-any; an sdist with no record is refused. (pip is not run.)"""
    calls = []

    def fake_run(cmd, cwd=None, env=None):
        calls.append(env)
        (tmp_path / "built" / f"markupsafe-3.0.3-{tag}.whl").write_bytes(b"")

    monkeypatch.setattr(fetch, "pip_download", lambda spec, dest, sha, binary=True: tmp_path / "x.tar.gz")
    monkeypatch.setattr(fetch, "run", fake_run)
    tag = "py3-none-any"
    assert fetch.build_sdist_wheel("markupsafe==3.0.3", "0" * 64, tmp_path).name.endswith("py3-none-any.whl")
    assert calls == [pins.SDIST_ENV["markupsafe"]] == [{"CC": "/bin/false"}]
    shutil.rmtree(tmp_path / "built")
    tag = "cp311-cp311-linux_x86_64"
    with pytest.raises(BuildError, match="not a py3-none-any wheel"):
        fetch.build_sdist_wheel("markupsafe==3.0.3", "0" * 64, tmp_path)
    with pytest.raises(PatchError, match="markupsafe.pure-build"):
        fetch.build_sdist_wheel("markupsafe==3.1.0", "0" * 64, tmp_path)
    with pytest.raises(BuildError, match="no patch record named 'other.pure-build'"):
        fetch.build_sdist_wheel("other==1.0.0", "0" * 64, tmp_path)


def test_an_sdist_is_downloaded_with_its_build_dependencies_as_wheels(tmp_path, monkeypatch):
    """Only the package itself comes as source: `--no-binary=:all:` would build its build
    dependencies from source too (Cython, minutes of compiling, for pyyaml). (pip is not run.)"""
    cmds = []

    def fake_run(cmd, cwd=None, env=None):
        cmds.append(cmd)
        (tmp_path / "sdist" / "pyyaml-6.0.3.tar.gz").write_bytes(b"sdist")

    monkeypatch.setattr(fetch, "run", fake_run)
    monkeypatch.setattr(fetch, "check_sha256", lambda path, sha, spec: None)
    assert fetch.pip_download("pyyaml==6.0.3", tmp_path / "sdist", "0" * 64, binary=False).name == "pyyaml-6.0.3.tar.gz"
    [cmd] = cmds
    assert "--no-binary=pyyaml" in cmd and not any(":all:" in c for c in cmd) and "--no-deps" in cmd


# ---------------------------------------------------------------- the checklist

def test_the_checklist_lists_every_patch_with_its_upstream_target_and_version():
    run = subprocess.run([sys.executable, "-m", "buildtools.patches"], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    for p in patches.PATCHES.values():
        assert f"  {p.name}  [written against {p.upstream} {p.version}]" in run.stdout
        assert f"target: {p.target}" in run.stdout
    assert f"{len(patches.PATCHES)} patch(es), all at their versions" in run.stdout
    only = subprocess.run([sys.executable, "-m", "buildtools.patches", "--upstream", "jinja2"],
                          capture_output=True, text=True, cwd=ROOT)
    assert "jinja2.lazy-templates" in only.stdout and "bokeh." not in only.stdout


def test_the_checklist_marks_a_patch_to_recheck(monkeypatch, capsys):
    from buildtools.patches.__main__ import main
    other_version(monkeypatch, "panel.page-boot", "1.8.0")
    assert main(["--upstream", "panel"]) == 1
    out = capsys.readouterr().out
    assert "panel.page-boot  [written against panel 1.8.0]  RECHECK" in out and out.count("RECHECK") == 1


# ---------------------------------------------------------------- pins

def test_pyproject_pins_agree_with_the_sites_pins():
    """The host's app extra and the site's pins name the same versions: a package pinned == in
    pyproject.toml is that version in buildtools/pins.py, and every other requirement of a pinned
    package admits the pinned version."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = {canonicalize_name(s.split("==")[0]): s.split("==")[1] for s in (*pins.PURE_WHEELS, *pins.SDIST_WHEELS)}
    exact = {}
    for raw in [*project["dependencies"], *(r for group in project["optional-dependencies"].values() for r in group)]:
        req = Requirement(raw)
        name = canonicalize_name(req.name)
        if name not in site:
            continue
        assert req.specifier.contains(site[name]), f"pyproject.toml {raw!r} but pins.py has {name}=={site[name]}"
        exact.update({name: s.version for s in req.specifier if s.operator == "=="})
    assert {k: site[k] for k in exact} == exact
    assert {"panel", "bokeh", "param"} <= set(exact)
