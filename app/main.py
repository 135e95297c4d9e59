"""The lab's entry point: `panel serve app/` (from the repo root) serves it at /app, and
`panel convert app/main.py --to pyodide-worker` turns the same file into the static site.

Every session runs this file afresh, so every visitor gets their own Lab, models and RNGs.
"""
import sys
from pathlib import Path

try:
    import gleam_lab.app.lab  # noqa: F401  (the project is normally pip-installed)
except ImportError:  # a plain checkout: the repo root holds gleam_lab (which finds app/ and content/ there) and gleam
    if "__file__" not in globals():  # in the browser's worker the wheel must provide them
        raise
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import panel as pn
from panel.io.resources import LOCAL_DIST

from gleam_lab import content
from gleam_lab.app.widgets.page import served

# Under `panel serve --num-procs N` the page and its websocket may reach different worker
# processes; the second then makes the session from the websocket alone, and Panel, which learns
# where its own stylesheets are only while rendering the page, would point them at its CDN. They
# are this server's (the page's own relative path), wherever the session is made. (Only under a
# real server: the static site's build and its worker run on a mock session.)
if served():
    pn.state.curdoc._template_variables.setdefault("dist_url", LOCAL_DIST)

# MathJax must be named here: Panel only looks at top-level roots when deciding to load it. The
# static site's prose is typeset when it is built (content.typeset): it needs no MathJax at all.
# Nor does it use any Panel extension another package would register: no scan of every installed
# distribution's entry points as it starts.
pn.extension(*([] if content.typeset() else ["mathjax"]), sizing_mode="stretch_width", load_entry_points=False)

from gleam_lab.app.lab import Lab  # noqa: E402

lab = Lab()
# under panel serve the page opens titled with its chapter; the static site's pages (one head for
# all, while they are converted) are retitled when built (buildtools.meta)
lab.servable(title=content.page_title(lab.chapter) if served() else content.SITE_TITLE)
