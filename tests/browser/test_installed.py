"""The lab as a Python user gets it: its wheel (gleam-rnn-lab, with the research labs' results and
weights), installed by pip into a fresh virtualenv with no checkout on the path and no network (its
dependencies from build-cache/wheelhouse, which scripts/setup.sh --tests fills), serves the whole lab
with one command, `gleam-lab serve`; a research lab's page shows the shipped records' numbers."""
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from buildtools.fetch import build_project_wheel
from conftest import ROOT, Server, Site, free_port
from test_ui_memory_lab import check_trained_tables

pytestmark = pytest.mark.ui

WHEELHOUSE = Path(os.environ.get("GLEAM_BUILD_CACHE", ROOT / "build-cache")) / "wheelhouse"


def clean_env():
    """This process's environment without anything that would put the checkout on the path."""
    return {k: v for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the wheel, the fresh virtualenv's bin folder, a folder outside the checkout)."""
    if not any(WHEELHOUSE.glob("panel-*.whl")):
        pytest.fail(f"no wheels in {WHEELHOUSE}: run scripts/setup.sh --tests (it downloads them)")
    tmp = tmp_path_factory.mktemp("installed")
    wheel = build_project_wheel(ROOT, tmp / "dist", weights=True)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=clean_env())
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", "--no-compile",
                    "--find-links", str(WHEELHOUSE), f"{wheel}[app]"], check=True, cwd=tmp, env=clean_env())
    return wheel, venv / "bin", tmp


def test_the_wheel_holds_gleam_and_gleam_lab_and_two_commands(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"gleam", "gleam_lab"}                     # no top-level app or content
    assert {"gleam_lab/app/main.py", "gleam_lab/content/memory.md", "gleam/data/memory.json",
            "gleam/data/memory.weights.npz"} <= set(names)
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    scripts = zipfile.ZipFile(wheel).read(entry).decode().split("[console_scripts]")[1].split("\n[")[0]
    assert {line.split("=")[0].strip() for line in scripts.splitlines() if "=" in line} == {"gleam-lab", "gleam-sweep"}


def test_the_installed_lab_is_the_wheels_not_the_checkouts(installed):
    _, bin_, tmp = installed
    out = subprocess.run([str(bin_ / "python"), "-c", "import gleam, gleam_lab.app, gleam_lab.content as c;"
                          "print(gleam.__file__); print(gleam_lab.app.__file__); print(c.__file__)"],
                         cwd=tmp, env=clean_env(), capture_output=True, text=True, check=True).stdout.split()
    assert all(Path(f).is_relative_to(bin_.parent) for f in out), out
    for name in ("app", "content"):                 # nothing of that name is installed
        r = subprocess.run([str(bin_ / "python"), "-c", f"import {name}"], cwd=tmp, env=clean_env(),
                           capture_output=True, text=True)
        assert r.returncode != 0 and "ModuleNotFoundError" in r.stderr


def test_the_commands_answer_outside_a_checkout(installed):
    _, bin_, tmp = installed
    build = subprocess.run([str(bin_ / "gleam-lab"), "build"], cwd=tmp, env=clean_env(), capture_output=True, text=True)
    assert build.returncode == 2 and "from a checkout" in build.stderr
    sweep = subprocess.run([str(bin_ / "gleam-sweep"), "--help"], cwd=tmp, env=clean_env(), capture_output=True, text=True)
    assert sweep.returncode == 0 and "--dry-run" in sweep.stdout


def test_gleam_lab_serve_serves_a_research_lab_with_its_records(installed, pages, tmp_path):
    _, bin_, tmp = installed
    port = free_port()
    server = Server("gleam-lab serve", [str(bin_ / "gleam-lab"), "serve", "--port", str(port)], port, "/app",
                    tmp_path / "serve.log", cwd=tmp, env=clean_env())
    try:
        server.wait()
        lab = pages.new(Site("serve", f"http://127.0.0.1:{port}/app", server.log_path))
        lab.open("memory")
        check_trained_tables(lab)
        pages.close()
    finally:
        server.stop()
