"""`gleam-lab`: serve the lab (`gleam-lab serve`), or build its static site (`gleam-lab build`,
from a checkout: the build reads the project's sources and fetches Pyodide)."""
import argparse
import subprocess
import sys
from pathlib import Path

from gleam_lab import app

APP_DIR = Path(app.__file__).resolve().parent
CHECKOUT = APP_DIR.parent           # in a checkout, the folder holding app/, content/, gleam/, build.py


def serve_command(port: int, address: str, show: bool) -> list[str]:
    """`panel serve` on the lab's app folder: the lab is then at http://<address>:<port>/app."""
    cmd = [sys.executable, "-m", "panel", "serve", str(APP_DIR), "--address", address, "--port", str(port),
           f"--allow-websocket-origin={address}:{port}", f"--allow-websocket-origin=localhost:{port}"]
    return cmd + (["--show"] if show else [])


def _run(cmd: list[str]) -> int:
    try:
        return subprocess.call(cmd)
    except KeyboardInterrupt:
        return 130


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="gleam-lab", description="An interactive lab on recurrent neural networks.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve the lab live (panel serve), every visitor with their own models")
    s.add_argument("--port", type=int, default=5006)
    s.add_argument("--address", default="127.0.0.1")
    s.add_argument("--show", action="store_true", help="open it in a browser")
    b = sub.add_parser("build", help="build the static, offline site (from a checkout); "
                                     "the arguments after it go to build.py (e.g. --serve --open)")
    b.add_argument("args", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if a.command == "serve":
        print(f"gleam-lab: serving the lab at http://{a.address}:{a.port}/app", flush=True)
        return _run(serve_command(a.port, a.address, a.show))
    build = CHECKOUT / "build.py"
    if not build.is_file():
        print("gleam-lab build: the static site is built from a checkout of the project's source "
              "(its build.py, next to app/ and gleam/); this installation has none. "
              "`gleam-lab serve` runs the same lab.", file=sys.stderr)
        return 2
    return _run([sys.executable, str(build), *a.args])


if __name__ == "__main__":
    sys.exit(main())
