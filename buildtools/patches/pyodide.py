"""Pyodide's runtime, standard library and official numpy wheel, as the site ships and runs them
(Pyodide 0.27.7 in buildtools/pins.py; its numpy 2.0.2)."""
from . import Patch

T = "tests/test_build.py::"

PATCHES = (
    Patch("pyodide.jsnull", "pyodide", "0.27.7",
          target="pyodide.ffi.jsnull",
          what="defined as None when missing (in 0.27 a JS null already converts to None)",
          why="Panel 1.9.4 expects Pyodide 0.29's jsnull: without it every widget change from the page fails",
          test="tests/browser/test_ui_ch0_scalar.py::test_sliders",
          code="buildtools/worker/jsnull.py"),
    Patch("pyodide.no-gc-at-start", "pyodide", "0.27.7",
          target="CPython's cyclic garbage collector (gc) in the worker",
          what="off from before the first import until the first document is posted; then what the start "
               "made is frozen (gc.freeze) and the collector is on again",
          why="nearly all the start's objects live on: collecting them finds almost nothing, and later "
              "collections no longer walk them",
          test="tests/browser/test_loading.py::test_the_worker_collects_garbage_again_once_the_lab_is_live",
          code="buildtools/worker/no_gc_at_start.py, gc_after_render.py"),
    Patch("pyodide.unpack-wheels", "pyodide", "0.27.7",
          target="loadPackage / micropip.install of the site's wheels",
          what="the worker fetches the wheels (lock sha256 as subresource integrity) while the wasm compiles and "
               "writes their stored files into site-packages itself (glUnzip); only a shared library would "
               "still go to loadPyodide; pyodide.loadedPackages does not list them",
          why="loadPackage extracts file by file with Python's zipfile, and links every numpy extension "
              "before Python starts",
          test="tests/test_unpack.py::test_glunzip_writes_the_same_files_as_pythons_zipfile_in_the_sites_pyodide",
          code="buildtools/unpack.py; buildtools/convert.py: rewrite_worker"),
    Patch("pyodide.bytecode", "pyodide", "0.27.7",
          target="every module the lab imports, in the wheels and python_stdlib.zip",
          what="shipped as sourceless CPython 3.12 bytecode compiled by Pyodide's own Python, without column "
               "ranges (tracebacks keep line numbers, lose their carets); KEEP_SOURCE stays source",
          why="otherwise the browser compiles every imported module on every load",
          test=T + "test_compiled_wheel_is_sourceless_312_bytecode_with_a_consistent_record",
          code="buildtools/bytecode.py"),
    Patch("pyodide.stdlib-dropped", "pyodide", "0.27.7",
          target="python_stdlib.zip",
          what="the modules of pins.STDLIB_DROPPED left out (dead batteries, socket clients and servers, "
               "multiprocessing, developer tools)",
          why="the lab imports none of them and none could work in a browser's worker",
          test=T + "test_built_site_ships_the_standard_library_as_312_bytecode",
          code="buildtools/pins.py: STDLIB_DROPPED; buildtools/bytecode.py: stdlib_dropped"),
    Patch("numpy.slim-wheel", "numpy", "2.0.2",
          target="the files of Pyodide's official numpy wheel",
          what="without build inputs (headers, static libraries, Cython declarations, stubs), f2py, the "
               "PyInstaller hook and the Cython examples; every compiled extension kept byte for byte",
          why="none of it can run in a browser or is ever imported",
          test=T + "test_slimmed_bokeh_and_numpy_keep_what_runs",
          code="buildtools/wheels.py: _numpy_rule"),
)
