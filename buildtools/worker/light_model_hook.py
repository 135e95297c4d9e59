# Bokeh's model-class hook without the __init__ signature and docstring nothing in the worker reads.
# Record: buildtools/patches/bokeh.py, "bokeh.light-model-hook".

from bokeh.model.model import Model as _Model
def _init_subclass(cls, _Model=_Model):
    super(_Model, cls).__init_subclass__()
_Model.__init_subclass__ = classmethod(_init_subclass)
del _Model, _init_subclass
