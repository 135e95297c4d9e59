"""Downloads, as wheels, what the lab's own wheel needs to serve (its dependencies and its `app`
extra, as pyproject.toml declares them) into a folder: tests/test_packaging.py installs the lab
into a fresh virtualenv from there, with no network. `python scripts/wheelhouse.py DIR`."""
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["dependencies"] + project["optional-dependencies"]["app"]


if __name__ == "__main__":
    dest = Path(sys.argv[1])
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(dest),
                    *requirements()], check=True)
