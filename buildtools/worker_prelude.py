"""The Python the site's worker runs once Pyodide has loaded, before the lab's own code
(buildtools.convert puts it into main.js right after loadPyodide)."""

# Bokeh gives each of its ~500 model classes an __init__ signature and a docstring example as it
# is defined; nothing in the worker reads either, and skipping them takes ~0.2 s off a start.
# What Model's hook does besides (HasProps': view names, the model registry) stays.
LIGHT_MODEL_HOOK = """
from bokeh.model.model import Model as _Model
def _init_subclass(cls, _Model=_Model):
    super(_Model, cls).__init_subclass__()
_Model.__init_subclass__ = classmethod(_init_subclass)
del _Model, _init_subclass
"""

WORKER_PRELUDE = '''
  // Panel 1.9.4 expects Pyodide 0.29's pyodide.ffi.jsnull; on 0.27 JS null already
  // converts to None. Without this every widget change fails with an AttributeError.
  // Then Bokeh's lighter model-class hook (buildtools/worker_prelude.py).
  self.pyodide.runPython(`
import pyodide.ffi
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = None
''' + LIGHT_MODEL_HOOK + '''`);'''
