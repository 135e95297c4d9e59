"""A value a page sends that a control cannot take is refused beside the control.

A client that bypasses a widget (or a page out of step) can send any value: out of the
parameter's bounds or options, not a number. Panel would raise in its event handler (a
traceback, and the page went on showing the refused value). `guard` checks the value first, the
way setting the parameter would (`url_state.refusal`), and on a refusal applies nothing, calls
back with the value and why, and sends the page the value in force again.
"""
import panel as pn

from gleam_lab.app.widgets import url_state
from gleam_lab.app.widgets.page import gv, html_pane

SENT = ("value", "value_throttled", "active")     # the properties a page changes a value by


def guard(widget, p, refused):
    """Check every value the page sends `widget` against parameter `p`; a refused one calls
    `refused(value as sent, why)` and is not applied."""
    process = widget._process_events

    def guarded(events):
        sent = {k: events[k] for k in SENT if k in events}
        if sent:
            raw = next(iter(sent.values()))
            try:
                values = widget._process_property_change(dict(sent))
                why = next(filter(None, (url_state.refusal(p, values[k]) for k in SENT[:2]
                                         if k in values)), None)
            except Exception as e:        # the widget cannot read it (e.g. not one of its options)
                why = url_state.refusal(p, raw) or str(e)
            if why is not None:
                refused(raw, why)
                widget.param.trigger("value")     # the page shows the value in force again
                return None
        return process(events)
    widget._process_events = guarded


class RefusalNote:
    """A short message beside a control (plain text, escaped), announced politely."""

    def __init__(self, key):
        self.key, self.text = key, ""
        self.pane = html_pane("", visible=False, margin=(0, 10, 4, 10), css_classes=["gl-refused"])

    @property
    def visible(self):
        return self.pane.visible

    def say(self, text):
        self.text = text
        self.pane.object = f"<div class='gl-error' aria-live='polite'>{gv(self.key, text)}</div>"
        self.pane.visible = True

    def clear(self):
        self.text, self.pane.visible = "", False


def insert_after(root, widget, pane):
    """Put `pane` just after `widget` in the layout holding it (at the top of `root` if none does)."""
    for layout in root.select(lambda o: isinstance(o, pn.layout.ListLike)):
        for i, obj in enumerate(layout.objects):
            if obj is widget:
                return layout.insert(i + 1, pane)
    root.insert(0, pane)
