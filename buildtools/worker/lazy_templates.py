# Jinja's get_template returning a Template that compiles on its first use: the worker renders none.
# Record: buildtools/patches/jinja.py, "jinja2.lazy-templates".

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
