# Model.parameters() as the glyph methods read it: the positional arguments' names alone.
# Record: buildtools/patches/bokeh.py, "bokeh.light-glyph-parameters".

from inspect import Parameter as _Parameter
from bokeh.model.model import Model as _Model
def _parameters(cls, _P=_Parameter):
    return [(_P(name, _P.POSITIONAL_OR_KEYWORD), "", "") for name in cls._args]
_Model.parameters = classmethod(_parameters)
del _Parameter, _Model, _parameters
