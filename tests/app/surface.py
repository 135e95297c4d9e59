"""Reading a chapter the way the page does: through its layout (`viewer.__panel__()`), finding
widgets and figures by their `gl-...` css classes and values by their `span.gv[data-key]` — the
surface the browser tests read — never through private attributes.
"""
import html
import re

import panel as pn
from bokeh.models import GlyphRenderer
from panel.models import HTML as HTMLModel

_SPAN = re.compile(r'<span class="gv[^"]*" data-key="([^"]+)"[^>]*>(.*?)</span>')


def _with_class(cls):
    return lambda obj: cls in (getattr(obj, "css_classes", None) or [])


def find(viewer, cls):
    """The one widget or pane of the chapter with css class `cls`."""
    found = viewer.__panel__().select(_with_class(cls))
    assert len(found) == 1, f"{len(found)} objects with css class {cls!r}"
    return found[0]


def click(viewer, cls):
    """What a click on the button of class `cls` does in the browser."""
    button = find(viewer, cls)
    if isinstance(button, pn.widgets.Toggle):
        button.value = not button.value
    else:
        button.param.trigger("value")
        button.clicks += 1


def set_value(viewer, cls, value):
    find(viewer, cls).value = value


def bokeh_models(viewer):
    """Every Bokeh model the chapter puts on the page directly (figures, fast HTML boxes)."""
    return [p.object for p in viewer.__panel__().select(pn.pane.Bokeh)]


def html_texts(viewer):
    """The HTML of every pane of the chapter, as the browser receives it."""
    texts = [p.object for p in viewer.__panel__().select(pn.pane.HTML)]
    return texts + [html.unescape(m.text) for m in bokeh_models(viewer) if isinstance(m, HTMLModel)]


def shown(viewer):
    """data-key -> text of every value span on the chapter's page (unescaped)."""
    out = {}
    for text in html_texts(viewer):
        for key, value in _SPAN.findall(text):
            assert key not in out, f"value {key!r} shown twice"
            out[key] = html.unescape(value)
    return out


def exact(viewer, key):
    """The data-exact digits of the one value span `key` (a value shown rounded carries them)."""
    found = [m for text in html_texts(viewer)
             for m in re.findall(rf'data-key="{re.escape(key)}" data-exact="([^"]+)"', text)]
    assert len(found) == 1, f"{len(found)} exact values for {key!r}"
    return html.unescape(found[0])


def html_with(viewer, needle):
    """The one pane's HTML that contains `needle`."""
    found = [t for t in html_texts(viewer) if needle in t]
    assert len(found) == 1, f"{len(found)} panes contain {needle!r}"
    return found[0]


def figure(viewer, cls):
    """The chapter's Bokeh figure with css class `cls`."""
    found = [m for m in bokeh_models(viewer) if cls in (getattr(m, "css_classes", None) or [])]
    assert len(found) == 1, f"{len(found)} figures with css class {cls!r}"
    return found[0]


def figure_data(viewer, cls):
    """The data of the (first) glyph of the figure with css class `cls`."""
    renderers = [r for r in figure(viewer, cls).renderers if isinstance(r, GlyphRenderer)]
    return renderers[0].data_source.data
