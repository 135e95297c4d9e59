"""Bokeh's Python, as the site's worker runs it (bokeh==3.9.2 in buildtools/pins.py)."""
from . import Patch

T = "tests/test_build.py::"

PATCHES = (
    Patch("bokeh.light-model-hook", "bokeh", "3.9.2",
          target="bokeh.model.Model.__init_subclass__",
          what="the hook of every model class skips writing its __init__ signature and docstring example; "
               "HasProps' part (view names, the model registry) still runs",
          why="nothing in the worker reads them, and every one of Bokeh's model classes pays for them at import",
          test=T + "test_the_light_model_hook_keeps_what_bokeh_models_need",
          code="buildtools/worker/light_model_hook.py"),
    Patch("bokeh.light-glyph-parameters", "bokeh", "3.9.2",
          target="bokeh.model.Model.parameters",
          what="gives the positional arguments' names alone, in Bokeh's order (what the glyph methods read); "
               "help() on a glyph method in the worker lists only those",
          why="figure's glyph methods are built at import from every property of every glyph, for help() text",
          test=T + "test_the_light_glyph_parameters_keep_what_the_glyph_methods_do",
          code="buildtools/worker/light_glyph_parameters.py"),
    Patch("bokeh.fast-serialize", "bokeh", "3.9.2",
          target="bokeh.core.has_props.HasProps.query_properties_with_values",
          what="with include_defaults=False, reads only the properties it keeps, in Bokeh's order and with its "
               "rules (themed values count as set, an unmodified default container does not); other calls go "
               "to Bokeh's own. Unlike Bokeh's, it does not raise at a required property left unset (the "
               "tests and `panel serve` run Bokeh's own on every chapter)",
          why="Bokeh computes every property's value, defaults included, before dropping those not set "
              "(its own TODO says so)",
          test=T + "test_the_workers_serialization_keeps_what_bokehs_own_keeps",
          code="buildtools/worker/fast_serialize.py"),
    Patch("bokeh.no-error-diagnostics", "bokeh", "3.9.2",
          target="BOKEH_PERFORM_ERROR_DIAGNOSTICS (bokeh.settings)",
          what="Bokeh's own setting, off in the worker: no signature check of each connected callback, no "
               "close-match hints in a misspelt attribute's error",
          why="Panel connects hundreds of callbacks to render a chapter, each checked with inspect.signature",
          test=T + "test_the_worker_skips_bokehs_callback_signature_checks",
          code="buildtools/worker/no_diagnostics.py"),
    Patch("bokeh.slim-wheel", "bokeh", "3.9.2",
          target="the files of the bokeh wheel",
          what="Panel's recipe for its Pyodide Bokeh (no .js/.d.ts/.tsbuildinfo/bokeh.json outside "
               "bokeh/core/_templates), and no typing stubs, Sphinx extension or other releases' SRI hashes",
          why="the page loads BokehJS from the site's own copy; no import in the worker reads the rest",
          test=T + "test_slimmed_bokeh_and_numpy_keep_what_runs",
          code="buildtools/wheels.py: _bokeh_rule"),
    Patch("bokeh.lazy-yaml", "bokeh", "3.9.2",
          target="`import yaml` in bokeh/settings.py and bokeh/themes/theme.py",
          what="a stand-in that imports PyYAML on the first use of any of its names",
          why="PyYAML is read only for a bokeh.yaml config or a theme file, which the lab never has",
          test=T + "test_slimmed_bokeh_imports_pyyaml_on_first_use",
          code="buildtools/lazy_imports.py: LAZY_YAML, rewrite_bokeh"),
    Patch("bokeh.version-written-in", "bokeh", "3.9.2",
          target="bokeh/__init__.py: __version__ = importlib_metadata.version('bokeh')",
          what="the wheel's version written in as a string",
          why="reading it imports importlib.metadata (email, csv, zipfile) and parses METADATA as Bokeh starts",
          test=T + "test_slimmed_bokeh_has_its_version_written_in",
          code="buildtools/lazy_imports.py: BOKEH_VERSION, rewrite_bokeh"),
    Patch("bokeh.dropped-dependencies", "bokeh", "3.9.2",
          target="bokeh's Requires-Dist: contourpy, narwhals, pillow, xyzservices",
          what="left out of the site's lock and of bokeh's dependencies there (pins.DROPPED says why, each)",
          why="Bokeh imports each only for a feature the lab does not use",
          test="tests/test_build.py::test_lock_entry_of_a_pure_wheel_has_every_field_and_drops_left_out_deps",
          code="buildtools/pins.py: DROPPED; buildtools/lock.py: pure_entry"),
)
