# Bokeh's properties_with_values(include_defaults=False) reading only the properties it keeps.
# Record: buildtools/patches/bokeh.py, "bokeh.fast-serialize".

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
