"""A value a page sends that a control cannot take — out of its bounds, not one of its options, not
a number: what a client that bypasses the widget can send — is refused beside the control, and the
control shows the value in force again. Checked on every bounded control of every chapter, the way
a page sends it: by setting the control's Bokeh model."""
import math

import param
import pytest
from bokeh.document import Document

from gleam_lab.app.chapters import chapter_ids, make_viewer, viewer_class
from gleam_lab.app.widgets import url_state


def _bad_values(p):
    """Values the parameter refuses, with a word on each."""
    if isinstance(p, param.Selector):
        return ["no such option", 10 ** 9]
    if isinstance(p, param.Number) and p.bounds is not None:
        lo, hi = p.bounds
        out = [math.nan, "abc"]
        if lo is not None:
            out.append(lo - 1000)
        if hi is not None:
            out.append(hi + 1000)
        return out
    return []


CASES = [(cid, name, bad) for cid in chapter_ids()
         for name, p in url_state.controls(viewer_class(cid)).items() for bad in _bad_values(p)]


def _client(viewer, name, root=None):
    """The Bokeh model of a control's widget in a document (a fresh one unless `root` is given):
    what a page changes."""
    root = root if root is not None else viewer.__panel__().get_root(Document())
    widget = viewer._widgets[name]
    return widget, widget._models[root.ref["id"]][0]


def test_there_are_bounded_controls_in_most_chapters():
    assert len({cid for cid, _, _ in CASES}) >= 6 and len(CASES) >= 30


def _refused(viewer, root, name, bad):
    """One bad value sent to one control of a chapter's page: refused beside it, the value in
    force shown again, and the message gone once a good value is taken."""
    widget, model = _client(viewer, name, root)
    before = getattr(viewer, name)
    attr = "active" if "active" in model.properties() else "value"   # a button group sends an index
    shown = getattr(model, attr)
    if attr == "active":
        if isinstance(bad, str):
            return                   # an index only: Bokeh cannot send a text
        bad = 99
    try:
        setattr(model, attr, bad)
    except ValueError:           # Bokeh's own property check refused it: the page cannot send it
        assert getattr(viewer, name) == before
        return
    assert getattr(viewer, name) == before, "the refused value was applied"
    assert getattr(model, attr) == shown, "the control does not show the value in force"
    message = viewer.refused_message(name)
    label = viewer.param[name].label
    assert message.startswith(f"{label}: ") and "was not applied" in message, message
    assert message.endswith(f"it stays at {url_state.format_value(viewer.param[name], before)}.")
    # the message is in the page, beside the control, and goes once a value is taken
    pane = viewer._refusals[name].pane
    layout = next(lay for lay in viewer.__panel__().select(lambda o: hasattr(o, "objects"))
                  if any(o is pane for o in lay.objects))
    index = [i for i, o in enumerate(layout.objects) if o is pane][0]
    assert layout.objects[index - 1] is widget
    good = viewer.param[name]
    other = next((o for o in good.objects if o != before), None) if isinstance(good, param.Selector) else None
    if other is not None:
        widget.value = other
        assert viewer.refused_message(name) == "" and not pane.visible


@pytest.mark.parametrize("cid", sorted({c for c, _, _ in CASES}, key=chapter_ids().index))
def test_a_refused_value_is_named_beside_its_control_and_the_control_shows_the_value_in_force(cid):
    """Every bad value of every bounded control of the chapter, one after another on one page (a
    refusal changes nothing, so each case starts from the page the last one left)."""
    viewer = make_viewer(cid)
    root = viewer.__panel__().get_root(Document())
    failures = []
    for c, name, bad in CASES:
        if c != cid:
            continue
        if name not in viewer._widgets:
            failures.append(f"{name}: no widget")
            continue
        try:
            _refused(viewer, root, name, bad)
        except AssertionError as e:
            failures.append(f"{name} = {bad!r}: {e}")
    assert not failures, f"chapter {cid}:\n" + "\n".join(failures)


def test_the_message_is_text_not_html():
    viewer = make_viewer("7")
    widget, model = _client(viewer, "hidden")
    model.value = "<img src=x onerror=alert(1)>"
    assert viewer.hidden == 32
    html = viewer._refusals["hidden"].pane.object
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_ch7_hidden_size_and_temperature_from_a_client_keep_the_model():
    viewer = make_viewer("7")
    model_before = viewer.model
    for name, bad in (("hidden", "0"), ("hidden", "100000"), ("temperature", 0.0), ("temperature", math.nan)):
        _, model = _client(viewer, name)
        model.value = bad
        assert viewer.model is model_before
    assert viewer.refused_message("temperature").startswith("Temperature: nan was not applied (not a finite number)")
