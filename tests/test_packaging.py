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
