"""Panel's converter, once per chapter, in ONE process (run by convert.py in a subprocess).

    python -m buildtools.panel_pages APP OUT REQUIREMENT [CHAPTER ...]

For each CHAPTER this calls `panel.io.convert.convert_app` -- the function `panel convert APP
--to pyodide-worker --requirements REQUIREMENT` runs, with the same arguments -- with the
environment variable GLEAM_CHAPTER set to it (app.lab.Lab then opens on that chapter), and
writes OUT/<CHAPTER>/<app>.html and .js. Without chapters it converts once, GLEAM_CHAPTER unset,
into OUT/_/. Panel, Bokeh and the app are imported once for all the pages, not once per
`panel convert` (which spawns a second Python). (Record: buildtools/patches/panel.py.)

The environment (PANEL_CDN_ROOT, PYTHONPATH) is the caller's.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    app, out, requirement, chapters = Path(argv[0]).resolve(), Path(argv[1]), argv[2], argv[3:]
    from panel.io.convert import convert_app

    for chapter in chapters or [None]:
        if chapter is None:
            os.environ.pop("GLEAM_CHAPTER", None)
        else:
            os.environ["GLEAM_CHAPTER"] = chapter
        dest = out / (chapter or "_")
        dest.mkdir(parents=True, exist_ok=True)
        # What the CLI passes (panel/command/convert.py, Panel 1.9.4) for these options.
        done = convert_app(app, dest, requirements=[requirement], runtime="pyodide-worker",
                           prerender=True, manifest=None, panel_version="auto", http_patch=True,
                           inline=False, compiled=False, verbose=False)
        if done is None:  # convert_app prints the exception and returns None
            print(f"panel_pages: converting {app} failed (chapter {chapter!r})", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
