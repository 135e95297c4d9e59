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

# Bokeh's figure builds each glyph method (line, scatter, ...: ~65 of them) as its module is imported,
# from Model.parameters(): every property of the glyph, its default evaluated and its Sphinx type
# link written, for the method's help() signature and docstring. The method itself reads only the
# positional arguments' names (to pass positional values on as keywords). Here parameters() gives
# just those, in Bokeh's order; its only other caller is the model-class hook above. help() on a
# glyph method in the worker then lists the positional arguments alone.
LIGHT_GLYPH_PARAMETERS = """
from inspect import Parameter as _Parameter
from bokeh.model.model import Model as _Model
def _parameters(cls, _P=_Parameter):
    return [(_P(name, _P.POSITIONAL_OR_KEYWORD), "", "") for name in cls._args]
_Model.parameters = classmethod(_parameters)
del _Parameter, _Model, _parameters
"""

# Bokeh checks every callback's signature as it is connected (inspect.signature): Panel connects
# ~350 to render one chapter, ~0.1 s of a start in the worker. Bokeh's own setting turns the check
# (and the close-match hints of a misspelt attribute's error) off; read at each call, so set first.
NO_DIAGNOSTICS = """
import os
os.environ.setdefault("BOKEH_PERFORM_ERROR_DIAGNOSTICS", "false")
"""

# The cyclic garbage collector runs ~200 times while the lab starts (imports, then the first
# chapter's Panel and Bokeh objects, nearly all of which live on), ~0.2 s of the worker's start.
# It is off until the first document is posted to the page. Then what the start made is frozen
# (gc.freeze: moved out of every later collection, at no cost now) and the collector is on again
# (GC_AFTER_RENDER, after the worker's `render` message). A full collection at that point took
# ~0.1 s in Pyodide under node and found ~500 unreachable objects of ~150,000: those are kept, and
# every later collection no longer walks the start's objects, so one never stalls a click.
NO_GC_AT_START = """
import gc
gc.disable()
"""
GC_AFTER_RENDER = """
    self.pyodide.runPython("import gc; gc.freeze(); gc.enable()")"""
# (the worker's message with the first document, which GC_AFTER_RENDER follows)
RENDER_POSTED_RE = r"self\.postMessage\(\{\s*type: 'render',[^}]*\}\)"

# Bokeh serializes a model with the properties set on it (properties_with_values(include_defaults=
# False)), but computes the value of every property first, defaults included, before dropping those
# not set (its own TODO says so): ~60% of turning the first document into JSON. Here only the
# properties it keeps are read, in its order and with its rules (a theme's values count as set, an
# unmodified default container does not); every other call goes to Bokeh's own. One difference:
# Bokeh's raises at a required property left unset, which this skips (a mistake in a model of the
# lab's; the tests and `panel serve` run Bokeh's own on every chapter, where it would raise).
FAST_SERIALIZE = """
from bokeh.core.has_props import HasProps as _HasProps
from bokeh.core.property.wrappers import PropertyValueContainer as _Container
def _query(self, query, *, include_defaults=True, include_undefined=False,
           _all=_HasProps.query_properties_with_values, _Container=_Container):
    if include_defaults or include_undefined:
        return _all(self, query, include_defaults=include_defaults, include_undefined=include_undefined)
    themed = self.themed_values() or {}
    unstable = self._unstable_default_values
    selected = self._property_values.keys() | unstable.keys() | themed.keys()
    result = {}
    for key in self.properties(_with_props=True):
        if key in selected and query(descriptor := self.lookup(key)):
            value = descriptor.get_value(self)
            if key in themed or key not in unstable or not isinstance(value, _Container):
                result[key] = value
    return result
_HasProps.query_properties_with_values = _query
del _HasProps, _Container, _query
"""

# Jinja compiles a template when it is asked for, and Bokeh and Panel ask for ~20 of theirs as they
# are imported (standalone and notebook pages, server and login pages): ~0.08 s of CPython, which
# the worker spends before its first render and renders none of them. Here get_template returns a
# stand-in that compiles on its first use: it is a Template (for `{% extends %}`, `isinstance`),
# and at the first read of any attribute it loads the real template (Jinja's own get_template,
# same arguments) and takes on its state. A name with no template is refused at that first use
# instead of when asked for.
LAZY_TEMPLATES = """
import jinja2 as _jinja2
class _LazyTemplate(_jinja2.Template):
    def __new__(cls, load):
        self = object.__new__(cls)
        self.__dict__["_gl_load"] = load
        return self
    def __init__(self, load):
        pass
    def __getattr__(self, name):
        load = self.__dict__.get("_gl_load")
        if load is None:
            raise AttributeError(name)
        self.__dict__.update(load().__dict__)
        del self.__dict__["_gl_load"]
        return getattr(self, name)
def _get_template(self, name, parent=None, globals=None, _get=_jinja2.Environment.get_template,
                  _Template=_jinja2.Template, _Lazy=_LazyTemplate):
    if isinstance(name, _Template):
        return name
    return _Lazy(lambda: _get(self, name, parent, globals))
_jinja2.Environment.get_template = _get_template
del _jinja2, _LazyTemplate, _get_template
"""

WORKER_PRELUDE = ('''
  // Panel 1.9.4 expects Pyodide 0.29's pyodide.ffi.jsnull; on 0.27 JS null already
  // converts to None. Without this every widget change fails with an AttributeError.
  // Then no garbage collection until the first render, Bokeh's lighter model-class hook and
  // glyph-method signatures, no error diagnostics, a faster serialization and templates
  // compiled on first use (buildtools/worker_prelude.py).
  self.pyodide.runPython(`
import pyodide.ffi
if not hasattr(pyodide.ffi, "jsnull"):
    pyodide.ffi.jsnull = None
''' + NO_GC_AT_START + NO_DIAGNOSTICS + LIGHT_MODEL_HOOK + LIGHT_GLYPH_PARAMETERS + FAST_SERIALIZE + LAZY_TEMPLATES
                  + '''`);''')
