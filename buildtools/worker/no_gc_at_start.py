# Nearly everything the start makes lives on: no cyclic collection until the first render
# (gc_after_render.py). Record: buildtools/patches/pyodide.py, "pyodide.no-gc-at-start".

import gc
gc.disable()
