"""The inspector's figures, each built once and fed new data: the states as heatmaps (units ×
characters, before and after the intervention; an LSTM's c too), the probe's reading after each
character beside the true label, the path of the states on the reference's first two principal
components, and the largest singular value of ∂h_{t+1}/∂h_t along the input."""
import numpy as np
import panel as pn

from gleam_lab.app.widgets.figures import Heatmaps, LinePlot
from gleam_lab.app.widgets.page import wrap_row
from gleam_lab.app.widgets.theme import PALETTE

C_RANGE = 3.0        # an LSTM's c is drawn on [−3, 3] (h lies in [−1, 1]); beyond, the colour saturates


class InspectorViews:
    """Every figure of the inspector, and `show(before, after, reading, labels)`."""

    def __init__(self):
        self.h = Heatmaps({"h_before": "h after each character", "h_after": "h with the intervention"},
                          8, 8, low=-1.0, high=1.0, x_label="character", y_label="unit",
                          css_prefix="gl-chinspector-heat")
        self.c = Heatmaps({"c_before": "an LSTM's c after each character",
                           "c_after": "c with the intervention"}, 8, 8, low=-C_RANGE, high=C_RANGE,
                          x_label="character", y_label="unit", css_prefix="gl-chinspector-heat")
        self.probe = LinePlot({"label": ("true label", PALETTE.faint, "dotted"),
                               "before": ("probe", PALETTE.positive, "solid"),
                               "after": ("probe, with the intervention", PALETTE.negative, "dashed")},
                              x_range=(0, 8), y_range=(-1, 1), title="The probe's reading after each character",
                              x_label="character", y_label="reading", height=230,
                              css_class="gl-chinspector-reading")
        self.path = LinePlot({"before": ("path", PALETTE.positive, "solid"),
                              "after": ("with the intervention", PALETTE.negative, "dashed")},
                             x_range=(-1, 1), y_range=(-1, 1), title="The states on the first two principal components",
                             x_label="PC 1", y_label="PC 2", height=260, css_class="gl-chinspector-path")
        self.sensitivity = LinePlot({"sigma": ("largest singular value", PALETTE.positive, "solid")},
                                    x_range=(0, 8), y_range=(0, 2), guides=(1.0,),
                                    title="How much one step stretches a perturbation", x_label="character",
                                    y_label="σ_max of ∂h_{t+1}/∂h_t", height=220,
                                    css_class="gl-chinspector-sensitivity")
        self.c_row = wrap_row(*[pn.pane.Bokeh(f, sizing_mode="stretch_width") for f in self.c.figs.values()])
        self.c_row.visible = False

    def panels(self):
        bokeh = lambda f: pn.pane.Bokeh(f, sizing_mode="stretch_width")  # noqa: E731
        # (side by side where the card is wide, one under the other on a phone)
        return [wrap_row(*[bokeh(f) for f in self.h.figs.values()]), self.c_row,
                wrap_row(bokeh(self.probe.fig), bokeh(self.path.fig)), bokeh(self.sensitivity.fig)]

    def show(self, before, after, reading=None, labels=None):
        """before, after: gleam.instruments.inspect Looks (after: the same as before with no
        intervention); reading: the probe's Reading or None; labels: its true label per character."""
        T, n = before.states.shape
        xs = np.arange(T) + 0.5
        self.h.resize(n, T)
        self.h.show(h_before=before.states.T, h_after=after.states.T)
        lstm = before.cells is not None
        self.c_row.visible = lstm
        if lstm:
            self.c.resize(n, T)
            self.c.show(c_before=before.cells.T, c_after=after.cells.T)
        if reading is not None:
            ys = [reading.per_char(look.states) for look in (before, after)]
            truth = np.asarray(labels if labels is not None else [], dtype=float)
            both = np.concatenate([*ys, truth])
            lo, hi = float(both.min()), float(both.max())
            pad = 0.1 * (hi - lo) + 0.5
            self.probe.set_ranges(x=(0, T), y=(lo - pad, hi + pad))
            self.probe.show(before=(xs, ys[0]), after=(xs, ys[1]), label=(xs[:len(truth)], truth))
        else:
            self.probe.show(before=([], []), after=([], []), label=([], []))
        pts = np.concatenate([before.path, after.path])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.1 * (hi - lo) + 0.05
        self.path.set_ranges(x=(lo[0] - pad[0], hi[0] + pad[0]), y=(lo[1] - pad[1], hi[1] + pad[1]))
        self.path.show(before=tuple(before.path.T), after=tuple(after.path.T))
        s = before.sensitivity
        self.sensitivity.set_ranges(x=(0, T), y=(0, max(1.5, 1.1 * float(s.max()) if len(s) else 1.5)))
        self.sensitivity.show(sigma=(np.arange(1, T) + 0.5, s))
