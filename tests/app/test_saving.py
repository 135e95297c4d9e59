"""app.widgets.saving: every figure of every chapter, as the lab builds it, has one tool, a save
button shown above it, under a file name of its own."""
import panel as pn
from bokeh.models import Plot, SaveTool, TapTool

from gleam_lab.app import chapters
from gleam_lab.app.lab import Lab
from gleam_lab.app.widgets.saving import DEFAULT_TOOLS, add_save_buttons, slug


def test_every_figure_of_the_lab_saves_under_a_name_of_its_own():
    lab = Lab(chapter="0")
    names = []
    for cid in chapters.chapter_ids():
        plots = [p for pane in lab.view(cid).__panel__().select(pn.pane.Bokeh) if pane.object is not None
                 for p in pane.object.select({"type": Plot})]
        for plot in plots:
            shown = [t for t in plot.tools if t.visible]
            assert [type(t) for t in shown] == [SaveTool], (cid, plot.tools)
            assert not [t for t in plot.tools if isinstance(t, DEFAULT_TOOLS) and not isinstance(t, SaveTool)]
            assert plot.toolbar_location == "right" and plot.toolbar.logo is None
            names.append(shown[0].filename)
    assert len(names) >= 20 and len(set(names)) == len(names), sorted(names)
    assert all(n.startswith("rnn-lab-") and n == n.lower() and " " not in n for n in names)


def test_a_figure_is_given_its_button_once_and_one_with_a_toolbar_is_left_alone():
    from bokeh.plotting import figure
    hidden = figure(tools="", toolbar_location=None, title="Loss, per chunk (nats)")
    tapped = figure(toolbar_location=None, css_classes=["gl-ch8-tree"])      # Bokeh's default tools
    tapped.add_tools(TapTool())
    shown = figure(tools="pan", toolbar_location="right")
    layout = pn.Column(pn.pane.Bokeh(hidden), pn.pane.Bokeh(shown), pn.pane.Bokeh(tapped))
    assert add_save_buttons("7", layout) == [hidden, tapped]
    assert add_save_buttons("7", layout) == []
    assert [(type(t).__name__, t.visible) for t in tapped.tools] == [("TapTool", False), ("SaveTool", True)]
    assert tapped.tools[1].filename == "rnn-lab-ch8-tree"
    assert hidden.tools[0].filename == "rnn-lab-ch7-loss-per-chunk-nats"
    assert [type(t).__name__ for t in shown.tools] == ["PanTool"]
    assert slug("  Élan: 3 × 4 ") == "lan-3-4" and slug("") == "figure"
