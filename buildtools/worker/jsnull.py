# Panel 1.9.4 calls Pyodide 0.29's pyodide.ffi.jsnull, which 0.27 lacks (its JS null is None already).
# Record: buildtools/patches/pyodide.py, "pyodide.jsnull".

import pyodide.ffi
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = None
