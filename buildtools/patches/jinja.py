"""Jinja, as the site's worker runs it (jinja2==3.1.6 in buildtools/pins.py)."""
from . import Patch

PATCHES = (
    Patch("jinja2.lazy-templates", "jinja2", "3.1.6",
          target="jinja2.Environment.get_template",
          what="returns a Template stand-in (for `{% extends %}` and isinstance) that loads the real one, "
               "with Jinja's own get_template, at the first read of any attribute; a name with no template "
               "is refused at that first use instead of when asked for",
          why="Bokeh and Panel compile their templates as they are imported; the worker renders none of them",
          test="tests/test_build.py::test_the_workers_templates_compile_on_first_use_and_render_as_before",
          code="buildtools/worker/lazy_templates.py"),
)
