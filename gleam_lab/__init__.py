"""The lab: `gleam_lab.app` (the Panel pages, one per chapter), `gleam_lab.content` (the chapters'
prose) and `gleam_lab.cli` (the `gleam-lab` command). The core, `gleam`, never imports them.

An installed wheel holds app and content inside this package. A checkout keeps them at its root,
beside gleam/, so that `panel serve app/` runs there; in a checkout this package finds them there.
"""
from pathlib import Path as _Path

_here = _Path(__file__).resolve().parent
if not (_here / "app").is_dir() and (_here.parent / "app" / "main.py").is_file():
    __path__.append(str(_here.parent))      # a checkout: gleam_lab.app is <root>/app
