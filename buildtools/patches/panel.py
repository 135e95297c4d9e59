"""Panel: its wheel as the site's worker gets it, and the page and worker `panel convert` writes
(panel==1.9.4 in buildtools/pins.py, and installed on the host, where the build runs its converter)."""
from . import Patch

T = "tests/test_build.py::"

PATCHES = (
    Patch("panel.slim-wheel", "panel", "1.9.4",
          target="the files of the panel wheel",
          what="keeps panel/dist/css and assets (Panel's Python reads them) and drops the rest of panel/dist, "
               "the tests and the TypeScript/Less sources of its JS bundle; package.json stays",
          why="the page loads Panel's JS from the site's own copy; the worker's documents are the same without them",
          test=T + "test_slimmed_panel_keeps_python_css_and_assets",
          code="buildtools/wheels.py: _panel_rule"),
    Patch("panel.lazy-imports", "panel", "1.9.4",
          target="the __init__.py of panel, panel.layout, panel.pane and panel.widgets",
          what="the submodules in LAZY (chat, templates, rarely used panes, widgets and layouts) imported on "
               "first access to one of their names (PEP 562 __getattr__); `panel serve` runs Panel unmodified",
          why="`import panel` imports every pane, widget, layout and the chat components; the lab uses few",
          test=T + "test_slimmed_panel_gets_the_lazy_package_inits",
          code="buildtools/lazy_imports.py: LAZY, rewrite"),
    Patch("panel.dropped-dependencies", "panel", "1.9.4",
          target="panel's Requires-Dist: markdown, narwhals, nh3, pandas, panel-material-ui, requests, tqdm, "
                 "typing-extensions",
          what="left out of the site's lock and of panel's dependencies there (pins.DROPPED says why, each)",
          why="Panel imports each lazily or optionally, for a feature the lab does not use",
          test=T + "test_lock_entry_of_a_pure_wheel_has_every_field_and_drops_left_out_deps",
          code="buildtools/pins.py: DROPPED; buildtools/lock.py: pure_entry"),
    Patch("panel.convert-in-process", "panel", "1.9.4",
          target="panel/command/convert.py (the CLI) -> panel.io.convert.convert_app",
          what="convert_app called with the arguments the CLI passes, once per chapter in one process",
          why="one `panel convert` per chapter would start Python and import Panel and the app each time",
          test=T + "test_a_page_per_chapter_each_prerendering_its_chapter",
          code="buildtools/panel_pages.py; buildtools/convert.py: convert_pages"),
    Patch("panel.worker-local-pyodide", "panel", "1.9.4",
          target="the pyodide-worker template: importScripts(pyodide.js), loadPyodide(), the micropip install block",
          what="Pyodide from the site; loadPyodide given indexURL, env and no packages; micropip gone: the "
               "worker fetches the lock's wheels itself (pyodide.unpack-wheels) and runs the prelude "
               "(buildtools/worker_prelude.py) right after loadPyodide",
          why="the site fetches nothing from a CDN or a package index",
          test=T + "test_rewritten_page_and_worker_fetch_nothing_external",
          code="buildtools/convert.py: rewrite_worker"),
    Patch("panel.queued-patches", "panel", "1.9.4",
          target="the pyodide-worker template's patch handler (one global `patch`, an un-awaited runPythonAsync)",
          what="incoming patches queued and applied in arrival order",
          why="two patches arriving together (a click while a figure streams its range back) lost the first",
          test=T + "test_worker_queues_incoming_patches_in_order",
          code="buildtools/convert.py: QUEUED_PATCH_HANDLER; buildtools/worker/queued_patches*.py"),
    Patch("panel.startup-catch", "panel", "1.9.4",
          target="the pyodide-worker template's startApplication()",
          what="a failure before Panel's own try (loading Python or a package) is posted as a status the page names",
          why="the page would otherwise wait forever under its spinner",
          test="tests/browser/test_loading.py::test_a_worker_that_fails_is_named_not_left_spinning",
          code="buildtools/convert.py: STARTUP_CATCH"),
    Patch("panel.ordered-send-queue", "panel", "1.9.4",
          target="the page's send_change queue (pyodideWorker.queue) in the pyodide-worker page template",
          what="every event queued in order while the worker is busy; a newer value of a property replaces an "
               "older one only if nothing was queued after it",
          why="a click could overtake a value changed before it (a slider moved, then Reset: the reset landed first)",
          test=T + "test_the_page_queues_every_event_in_order_while_the_worker_is_busy",
          code="buildtools/convert.py: rewrite_send_queue"),
    Patch("panel.page-local-bokehjs", "panel", "1.9.4",
          target="the page's BokehJS <script>s (cdn.bokeh.org)",
          what="loaded from the site; the WebGL bundle left out (no plot has output_backend='webgl')",
          why="the site fetches nothing from a CDN, and loads no bundle its pages cannot use",
          test=T + "test_pages_load_no_mathjax_or_webgl_bundle_the_lab_does_not_need",
          code="buildtools/convert.py: rewrite_html"),
    Patch("panel.page-boot", "panel", "1.9.4",
          target="the pyodide-worker page template: scripts in <head>, es-module-shims, DOMContentLoaded, "
                 "embed_items, new Worker, the render message",
          what="BokehJS and Panel's JS load after the first paint; es-module-shims is not loaded; the "
               "pre-rendered view and the worker's render wait for BokehJS; the page names the worker's phase",
          why="the chapter's prose shows before any large script, and controls say they are not live yet",
          test=T + "test_boot_rewrite_refuses_a_page_it_does_not_recognise",
          code="buildtools/boot.py: apply"),
    Patch("panel.page-deep-links", "panel", "1.9.4",
          target="the page template's `new Worker(\"./main.js\")`",
          what="the worker is started first in <head> with the page's chapter in its URL, and Panel's script "
               "takes it (glPage.takeWorker)",
          why="Python starts sooner, on the chapter the page shows",
          test=T + "test_every_page_starts_the_shared_worker_with_its_chapter",
          code="buildtools/deeplinks.py: add_deep_links"),
    Patch("panel.page-policy", "panel", "1.9.4",
          target="the page template's <head>",
          what="a Content-Security-Policy <meta> first: scripts only from the site or inline ones the build hashed",
          why="injected markup cannot run a script, and nothing is fetched from elsewhere",
          test=T + "test_built_pages_carry_a_policy_that_hashes_exactly_their_inline_scripts",
          code="buildtools/csp.py: add_policy"),
)
