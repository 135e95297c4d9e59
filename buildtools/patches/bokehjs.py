"""BokehJS's bundles, as the site serves them (copied from the installed bokeh==3.9.2)."""
from . import Patch

PATCHES = (
    Patch("bokehjs.stylesheet-write-if-changed", "bokehjs", "3.9.2",
          target="InlineStyleSheet._update in bokeh-<version>.min.js",
          what="a stylesheet's text is written only when it changes (same text, same styles)",
          why="writing a <style>'s text, even unchanged, makes the next getComputedStyle recompute every "
              "style, many times a paint for every figure that repaints",
          test="tests/test_build.py::test_bokehjs_writes_a_stylesheet_only_when_its_text_changes",
          code="buildtools/bokehjs.py: rewrite_bundle",
          issue="https://github.com/bokeh/bokeh/issues/15286 (the computed-style reads at each paint)"),
)
