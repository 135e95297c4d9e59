"""KaTeX's CSS and fonts, as the site serves them (katex 0.16.47 in buildtools/pins.py)."""
from . import Patch

PATCHES = (
    Patch("katex.woff2-only", "katex", "0.16.47",
          target="every @font-face src list of dist/katex.min.css",
          what="cut down to its woff2 entry; only the woff2 fonts are copied into the site",
          why="every browser the site runs in reads woff2; the other formats would only be shipped",
          test="tests/test_static_prose.py::test_copy_assets_writes_css_whose_every_url_is_a_written_woff2",
          code="buildtools/katex.py: woff2_only, copy_assets"),
)
