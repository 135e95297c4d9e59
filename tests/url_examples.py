"""Values to put in a chapter's URL, made from each control's own declaration (bounds, step,
objects), for the URL tests in Python (tests/app) and in the browser (tests/browser): one valid
value away from the default, and values that must be refused.

Nothing here names a chapter: a chapter added to the registry is covered as it is.
"""
import param

from gleam_lab.app import chapters
from gleam_lab.app.widgets import url_state


def chapters_with_controls():
    """Chapter id -> {parameter name: URL name}, for every chapter that has controls."""
    out = {}
    for cid in chapters.chapter_ids():
        names = url_state.url_names(chapters.viewer_class(cid))
        if names:
            out[cid] = names
    return out


def changed_value(p, default):
    """A valid value of parameter `p` other than `default` (on a slider's grid where it has one:
    the browser's slider holds it as it is)."""
    if isinstance(p, param.Boolean):
        return not default
    if isinstance(p, param.ListSelector):
        objects = list(p.objects)
        return objects[:1] if default != objects[:1] else objects[1:2]
    if isinstance(p, param.Selector):
        return next(o for o in p.objects if o != default)
    if isinstance(p, param.Integer):
        base = 0 if default is None else int(default)
        hi = p.bounds[1] if p.bounds else None
        return base + 1 if hi is None or base + 1 <= hi else base - 1
    if isinstance(p, param.Number):
        lo, hi = p.bounds if p.bounds else (None, None)
        if default is None:
            default = 0.5 if lo is None else lo
        if lo is None or hi is None:
            return default * 1.37 + 0.01
        aim = default + (hi - default) * 0.37 if hi > default else default - (default - lo) * 0.37
        step = p.step or (hi - lo) / 100
        value = lo + round((aim - lo) / step) * step
        if value == default:
            value = lo + (round((aim - lo) / step) + 1) * step
        return round(min(max(value, lo), hi), 12)      # the grid point itself, as a link writes it
    if isinstance(p, param.String):
        default = default or ""
        return default[::-1] if default[::-1] != default else default + "1"
    raise TypeError(f"no example value for a {type(p).__name__}")


def malformed_texts(p):
    """(text, what is wrong) pairs that must be refused for parameter `p`."""
    out = [("x" * (url_state.MAX_VALUE + 1), "too long")]
    if isinstance(p, param.Boolean):
        out.append(("maybe", "not true or false"))
    elif isinstance(p, param.Integer):
        out += [("1.5", "not a whole number"), ("ten", "not a whole number")]
    elif isinstance(p, param.Number):
        out += [("abc", "not a number"), ("nan", "not a finite number"), ("inf", "not a finite number")]
    elif isinstance(p, param.Selector):
        out.append(("no-such-choice", "not one of"))
    if isinstance(p, param.Number) and p.bounds and p.bounds[1] is not None:
        beyond = p.bounds[1] + 1
        out.append((str(int(beyond)) if isinstance(p, param.Integer) else repr(float(beyond)), "out of bounds"))
    return out


def widget_of(viewer, name):
    """The control's widget on the chapter's page (by its css class gl-ch{id}-{URL name}), or None
    if the chapter made none with that class."""
    cls = f"gl-ch{viewer.chapter_id}-{viewer.url_controls()[name]}"
    found = viewer.__panel__().select(lambda o: cls in (getattr(o, "css_classes", None) or [])
                                      and hasattr(o, "value"))
    return found[0] if found else None


def move(viewer, name, value):
    """What a learner does: set the control's widget (and, for a slider, release it there)."""
    widget = widget_of(viewer, name)
    if widget is None:
        setattr(viewer, name, value)
        return
    widget.value = value
    if "value_throttled" in widget.param:
        with param.edit_constant(widget):
            widget.value_throttled = widget.value


def changed_viewer(cid):
    """A new viewer of chapter `cid` with every control moved away from its default."""
    viewer = chapters.make_viewer(cid)
    viewer.__panel__()
    for name in viewer.url_controls():
        move(viewer, name, changed_value(viewer.param[name], viewer.defaults()[name]))
    return viewer
