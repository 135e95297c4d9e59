"""Every figure saveable as a PNG image: a save button in its toolbar (Bokeh's SaveTool: Enter or a
click saves the file, Space or a long press opens its menu of save, copy and open), named after the
chapter and the figure, e.g. `rnn-lab-ch3-bound.png`. The figures are built with no
tools (a learner's drag or scroll moves the page, not the plot); this button is the only one."""
import re

import panel as pn
from bokeh.models import BoxZoomTool, HelpTool, PanTool, Plot, ResetTool, SaveTool, WheelZoomTool

# what bokeh.plotting.figure gives a figure made without `tools=`
DEFAULT_TOOLS = (PanTool, WheelZoomTool, BoxZoomTool, SaveTool, ResetTool, HelpTool)

PREFIX = "rnn-lab"
DESCRIPTION = "Save this figure as a PNG image"


def slug(text, limit=48):
    """Lower-case words joined by hyphens, at most `limit` characters: a file name's part."""
    words = re.findall(r"[a-z0-9]+", (text or "").lower())
    out = "-".join(words)[:limit].strip("-")
    return out or "figure"


def _name(plot):
    """The figure's own class ("gl-ch3-bound" -> "ch3-bound": stable while its title follows the
    controls), else its title."""
    own = [c[3:] for c in (plot.css_classes or []) if c.startswith("gl-")]
    if own:
        return own[0]
    title = plot.title
    return getattr(title, "text", title) if title is not None else ""


def add_save_buttons(chapter_id, layout):
    """Give every figure in a chapter's layout (a Panel object) whose toolbar is hidden a save button
    as its only button, once; returns the figures that got one."""
    added = []
    for pane in layout.select(pn.pane.Bokeh):
        if pane.object is None:
            continue
        for plot in pane.object.select({"type": Plot}):
            if plot.toolbar_location is not None:       # given its toolbar already
                continue
            name = f"{PREFIX}-{slug(_name(plot))}" if plot.css_classes else f"{PREFIX}-ch{slug(str(chapter_id))}-{slug(_name(plot))}"
            # the only button: a figure's own tools (a tap that selects) keep working, unseen as
            # before; Bokeh's default tools, which a figure made without `tools=""` had active
            # unseen (a drag panned it), go
            kept = [t for t in plot.tools if not isinstance(t, DEFAULT_TOOLS)]
            for t in kept:
                t.visible = False
            plot.tools = kept + [SaveTool(filename=name, description=DESCRIPTION)]
            plot.toolbar.logo = None
            plot.toolbar.autohide = False
            plot.toolbar_location = "right"
            added.append(plot)
    return added
