"""The project as a distribution (pyproject.toml): its own name, the packages it lists are exactly
the checkout's package folders (app/ and content/ installed inside gleam_lab), and its commands
answer from a checkout. tests/browser/test_installed.py installs the wheel and serves from it."""
import subprocess
import sys
import tomllib
from pathlib import Path

from buildtools import pins

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_distribution_has_a_name_of_its_own():
    assert CONFIG["project"]["name"] == pins.PROJECT_NAME == "gleam-rnn-lab"
    assert CONFIG["project"]["scripts"] == {"gleam-lab": "gleam_lab.cli:main",
                                            "gleam-sweep": "gleam.sweep.__main__:main"}


def test_every_package_folder_is_listed_and_nothing_else():
    mapping = CONFIG["tool"]["setuptools"]["package-dir"]
    assert mapping == {"gleam_lab.app": "app", "gleam_lab.content": "content"}

    def name(folder: Path) -> str:
        rel = folder.relative_to(ROOT).as_posix()
        for package, where in mapping.items():
            if rel == where or rel.startswith(where + "/"):
                return package + rel[len(where):].replace("/", ".")
        return rel.replace("/", ".")
    folders = {name(p.parent) for top in ("gleam", "gleam_lab", "app", "content")
               for p in (ROOT / top).rglob("__init__.py") if "__pycache__" not in p.parts}
    assert sorted(CONFIG["tool"]["setuptools"]["packages"]) == sorted(folders)


def test_gleam_lab_finds_app_and_content_in_a_checkout():
    out = subprocess.run([sys.executable, "-c", "import gleam_lab.app, gleam_lab.content as c;"
                          "print(gleam_lab.app.__file__); print(c.__file__)"],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(ROOT / "app" / "__init__.py"), str(ROOT / "content" / "__init__.py")]


def test_gleam_lab_serve_runs_panel_on_the_app_folder():
    from gleam_lab import cli
    cmd = cli.serve_command(5123, "127.0.0.1", show=False)
    assert cmd[1:4] == ["-m", "panel", "serve"] and Path(cmd[4]) == ROOT / "app"
    assert "--allow-websocket-origin=127.0.0.1:5123" in cmd and "--show" not in cmd
    r = subprocess.run([sys.executable, "-m", "gleam_lab.cli", "serve", "--port", "x"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "invalid int value" in r.stderr


def test_the_suite_runs_in_two_workers_each_browser_test_with_the_others_of_its_mode():
    """test.sh runs pytest in two workers (pytest-xdist, a test dependency) with tests/conftest.py's
    scheduler: one unit of work per mode of the browser tests (tests/suite.py), every other test
    a unit of its own; a browser test whose id does not say the mode its fixtures use is refused."""
    import types

    import pytest

    from tests import suite
    sys.path.insert(0, str(ROOT / "tests" / "browser"))       # (as pytest puts it, for `helpers`)
    try:
        from tests.browser import conftest
    finally:
        sys.path.remove(str(ROOT / "tests" / "browser"))

    script = (ROOT / "test.sh").read_text(encoding="utf-8")
    assert 'pytest -q -rs -n 2 --dist loadscope -m "not core_once"' in script
    # the core's files run again on the current numpy are there to run
    from tests.core.conftest import ON_EVERY_NUMPY
    assert ON_EVERY_NUMPY <= {p.name for p in (ROOT / "tests" / "core").glob("test_*.py")}
    assert any(d.startswith("pytest-xdist") for d in CONFIG["project"]["optional-dependencies"]["test"])
    ids = {"tests/browser/test_a11y.py::test_phone[static]": "browser-static",
           "tests/browser/test_a11y.py::test_phone[serve]": "browser-serve",
           "tests/browser/test_chapters.py::test_chapter_loads[static-memory]": "browser-static",
           "tests/browser/test_shared_links.py::test_a_shared_url_reopens_every_changed_control[serve-static]":
               "browser-serve",
           "tests/browser/test_loading.py::test_the_article_fits_a_phone_and_follows_a_dark_system[7]":
               "browser-static:tests/browser/test_loading.py",
           "tests/browser/test_installed.py::test_the_wheel_holds_gleam_and_gleam_lab_and_two_commands":
               "browser-serve:tests/browser/test_installed.py",
           "tests/browser/test_sessions.py::test_two_sessions_train_independently": "browser-serve",
           "tests/core/test_cells.py::test_step[static]": "tests/core/test_cells.py::test_step[static]"}
    assert {i: suite.scope(i) for i in ids} == ids

    from tests.conftest import _BrowserLast
    queue = _BrowserLast([("browser-static", {}), ("browser-serve", {}), ("tests/a.py::t", {}), ("tests/b.py::t", {})])
    assert [queue.popitem(last=False)[0] for _ in range(4)] == [
        "tests/a.py::t", "tests/b.py::t", "browser-static", "browser-serve"]

    def item(nodeid, params=None, fixtures=()):
        it = types.SimpleNamespace(nodeid=nodeid, path=ROOT / nodeid.split("::")[0], fixturenames=list(fixtures))
        if params is not None:
            it.callspec = types.SimpleNamespace(params=params)
        return it
    good = [item("tests/browser/test_a11y.py::test_phone[static]", {"site": "static"}),
            item("tests/browser/test_loading.py::test_a_widget_embed_never_shows_the_article",
                 fixtures=["pages", "static_site", "static_server"]),
            item("tests/browser/test_sessions.py::test_two_sessions_train_independently", fixtures=["panel_server"]),
            item("tests/core/test_cells.py::test_step[static]", {"cell": "static"})]
    for it in good:
        conftest.pytest_runtest_setup(it)
    bad = item("tests/browser/test_theme.py::test_new", fixtures=["pages", "static_server"])
    with pytest.raises(pytest.fail.Exception, match="test_theme.py::test_new uses static, but its id says serve"):
        conftest.pytest_runtest_setup(bad)
