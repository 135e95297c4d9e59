"""Chapter 7's layout: the controls column beside the views (figures line, loss curve, gate
heatmaps, sample), and the curve's x-axis label, which says what one step trains on."""
import html

import panel as pn
from panel.io.document import unlocked

from gleam_lab.app.chapters.ch7_live import limits
from gleam_lab.app.widgets.figures import fit_title
from gleam_lab.app.widgets.page import PASTE_LIMIT, card, html_pane, wrap_row


def curve_x_label(model):
    """One step is one K-character chunk, or B of them side by side."""
    if model.B == 1:
        return f"step, log scale (one {model.K}-character chunk each)"
    return f"step, log scale ({model.B} parallel chunks of {model.K} characters each)"


def gate_x_label(model):
    """The heatmaps show the last chunk's gates: stream 0's when there are B."""
    return "step in the last chunk" + ("" if model.B == 1 else f" (stream 0 of {model.B})")


def label_views(chapter, model):
    """The axis labels that name what a step is, for `model`."""
    chapter._curve.x_label = curve_x_label(model)
    with unlocked():
        for fig in chapter._gates.figs.values():
            fig.xaxis.axis_label = gate_x_label(model)


def note_line(text):
    """A short plain-text note under a control."""
    return html_pane(f"<div class='gl-note'>{html.escape(text)}</div>", width=300, margin=(0, 10),
                     css_classes=["gl-ch7-limit"])


def page_widget(chapter):
    """The interactive part of a LiveLabChapter: its controls (made with `chapter.control`) and
    its views."""
    w, c = pn.widgets, chapter.control
    controls = pn.Column(
        chapter.loop.controls("gl-ch7"), chapter.undo.button,
        c("lr", w.FloatInput, label="Learning rate", step=0.01, width=300),
        c("hidden", w.Select, label="Hidden size H", width=300),
        c("streams", w.Select, label="Parallel streams B", width=300),
        *([note_line(limits.NOTE)] if chapter.shared else []),
        c("seed", w.IntInput, label="Seed", width=300),
        c("temperature", w.FloatSlider, label="Temperature", width=300),
        c("experiment", w.Select, label="Experiment", width=300),
        c("draft", w.TextAreaInput, label="Corpus", height=170, width=300, max_length=PASTE_LIMIT),
        c("apply_corpus", w.Button, label="Apply corpus", css_classes=["gl-ch7-apply"], width=300),
        *chapter.files.controls(), width=320)
    fit_title(chapter._curve.fig)         # its long title in lines a phone shows whole
    views = pn.Column(
        chapter._stats.pane, pn.pane.Bokeh(chapter._curve.fig, sizing_mode="stretch_width"),
        wrap_row(*[pn.pane.Bokeh(fig, sizing_mode="stretch_width") for fig in chapter._gates.figs.values()],
                 basis=260),
        chapter._sample_head, chapter._sample.pane, sizing_mode="stretch_width")
    return card(wrap_row(controls, views, basis=300), layout=pn.Column)   # beside at 700 px (an embed)
