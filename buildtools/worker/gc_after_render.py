# After the first render: the start's objects frozen out of every later collection, the collector on.
# Record: buildtools/patches/pyodide.py, "pyodide.no-gc-at-start". (One line: it is a JS string.)
import gc; gc.freeze(); gc.enable()
