"""The extrapolation lab's retrain figure, drawn when a retrained model is measured, from what the
run's figure() gives: a value head's mean prediction against the true value, with the identity
and the head's ceiling ("values"), or the test states' first two principal components coloured by
bracket depth ("states_by_depth"). A run with no figure draws nothing.
"""
import panel as pn

from app.widgets.figures import LinePlot, ScatterPlot
from app.widgets.page import gv, html_pane
from app.widgets.theme import PALETTE
from content import fmt_fixed

DEPTH_COLOURS = (PALETTE.muted, PALETTE.positive, PALETTE.secondary, PALETTE.negative, PALETTE.good)


class RetrainFigure:
    def __init__(self):
        self.values_plot = LinePlot({"prediction": ("mean prediction", PALETTE.positive, "solid"),
                                     "target": ("the true value", PALETTE.muted, "dashed"),
                                     "bound": ("the ceiling |b| + ‖w‖₁", PALETTE.negative, "dotted")},
                                    x_range=(0, 1), y_range=(0, 1), title="Your model: prediction against the true value",
                                    x_label="true value", y_label="prediction", height=240,
                                    css_class="gl-chextrapolation-values")
        self.states_plot = ScatterPlot("Your model: test states, first two principal components", "PC 1", "PC 2",
                                       DEPTH_COLOURS, css_class="gl-chextrapolation-pca")
        self.note = html_pane(css_classes=["gl-chextrapolation-figure-note"])
        self.values_pane = pn.pane.Bokeh(self.values_plot.fig, sizing_mode="stretch_width", visible=False)
        self.states_pane = pn.pane.Bokeh(self.states_plot.fig, sizing_mode="stretch_width", visible=False)
        self.text = ""
        self._say("")

    def _say(self, text):
        self.text = text
        self.note.object = f"<div class='gl-note'>{gv('extrapolation.figure', text)}</div>"

    def update(self, run):
        """Draw what `run` (the model as it is) calls for; None or another run: nothing."""
        self.values_pane.visible = self.states_pane.visible = False
        c = None if run is None else run.figure()
        if c is not None and c["kind"] == "values":
            top = max(c["values"] + [abs(p) for p in c["mean_prediction"]] + [max(c["bound"], 0)]) * 1.05 or 1.0
            self.values_plot.set_ranges(x=(0, max(c["values"]) or 1.0), y=(min(0.0, min(c["mean_prediction"])), top))
            self.values_plot.show(prediction=(c["values"], c["mean_prediction"]), target=(c["values"], c["values"]),
                                  bound=(c["values"], [c["bound"]] * len(c["values"])) if c["bound"] >= 0 else ([], []))
            self.values_pane.visible = True
            ceiling = "no linear ceiling" if c["bound"] < 0 else f"ceiling {fmt_fixed(c['bound'], 1)}"
            return self._say(f"{ceiling}; largest value trained on {c['max_train_value']}")
        if c is not None and c["kind"] == "states_by_depth":
            self.states_plot.show(c["x"], c["y"], c["depth"], label="depth")
            self.states_pane.visible = True
            return self._say(f"explained variance {fmt_fixed(c['explained'][0], 2)} and {fmt_fixed(c['explained'][1], 2)}; "
                             f"{len(c['x'])} states, coloured by bracket depth")
        self._say("")

    def panel(self):
        return pn.Column(self.note, self.values_pane, self.states_pane, sizing_mode="stretch_width")
