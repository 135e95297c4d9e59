"""Chapter 4: the GRU's gates by hand. Four sliders pin z and r of the hand example's two units;
gleam's cell computes the candidate and the new state for the pinned gates.

A gate is pinned by giving the cell weights that make it a constant: zero input and recurrent
weights and a bias of logit(value), so that σ(bias) = value. The cell itself (gleam.cells) does
all the arithmetic; the convention toggle swaps `gru_textbook_step` for `gru_torch_step` on the
same numbers.
"""
import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, FactorRange, FixedTicker, Legend, LegendItem, Span
from bokeh.plotting import figure
from panel.io.document import unlocked

from app.common import chapter_layout, fmt_gate, gv, html_pane, table, widget_card
from gleam import cells, examples

HOLD_STEPS = 20                      # the meters' horizon: (keep)^20
CONVENTIONS = {"textbook": "textbook", "PyTorch": "torch"}
UNITS = ("unit 1", "unit 2")


def _logit(v):
    """σ⁻¹(v) for v in [0, 1] (±inf at the ends, where gleam's σ returns exactly 0 or 1)."""
    with np.errstate(divide="ignore"):
        return np.log(v) - np.log1p(-v)


def pinned_step(z, r, convention="textbook"):
    """One step of the hand example (input b, h_{t−1} from the example) with gates pinned.

    Returns gleam's cache: z, r, the candidate (h_tilde or n), h. Under "torch", z is the keep gate.
    """
    base = examples.chapter4_gru_hand_example(convention)
    x = np.array([0.0, 1.0, 0.0])                       # one-hot b
    h = np.array(base["h_prev"])
    z, r = _logit(np.asarray(z, float)), _logit(np.asarray(r, float))
    if convention == "textbook":
        p = examples.gru_hand_params()
        for gate, value in (("z", z), ("r", r)):
            p[f"W{gate}"][:] = 0.0
            p[f"U{gate}"][:] = 0.0
            p[f"b{gate}"] = value
        h_next, cache = cells.gru_textbook_step(x, h, p)
        return {"z": cache["z"], "r": cache["r"], "candidate": cache["h_tilde"], "h": h_next,
                "h_prev": h, "keep": 1 - cache["z"]}
    p = examples.gru_hand_params_torch()
    n = h.size
    for block, value in ((0, r), (1, z)):               # torch.nn.GRU's blocks: r, z, n
        rows = slice(block * n, (block + 1) * n)
        p["W_ih"][rows] = 0.0
        p["W_hh"][rows] = 0.0
        p["b_ih"][rows] = value
        p["b_hh"][rows] = 0.0
    h_next, cache = cells.gru_torch_step(x, h, p)
    return {"z": cache["z"], "r": cache["r"], "candidate": cache["n"], "h": h_next,
            "h_prev": h, "keep": cache["z"]}


class GRUChapter(pn.viewable.Viewer):
    """The GRU hand example with pinned gates, number lines and carry meters."""

    z1 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.001, label="z₁")
    z2 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.001, label="z₂")
    r1 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.001, label="r₁")
    r2 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.001, label="r₂")
    convention = param.Selector(default="textbook", objects=list(CONVENTIONS), label="Convention")
    preset_hand = param.Event(label="Back to the hand example")
    preset_hold = param.Event(label="Unit 1 writes, unit 2 holds")

    def __init__(self, **params):
        hand = examples.chapter4_gru_hand_example("textbook")   # the sliders open here
        params = {"z1": hand["z"][0], "z2": hand["z"][1], "r1": hand["r"][0], "r2": hand["r"][1],
                  **params}
        super().__init__(**params)
        self._result = None
        self._values = html_pane(min_width=420)
        self._lines = ColumnDataSource({"x": [], "y": [], "kind": []})
        self._meters = ColumnDataSource({"y": [], "right": [], "label": []})
        self._line_fig = self._make_lines()
        self._meter_fig = self._make_meters()
        sliders = [pn.widgets.FloatSlider.from_param(self.param[name], label=self.param[name].label,
                                                     css_classes=[f"gl-ch4-{name}"], format="0.0000",
                                                     width=220)
                   for name in ("z1", "z2", "r1", "r2")]
        controls = pn.Column(
            pn.widgets.RadioButtonGroup.from_param(self.param.convention, label="Convention",
                                                   css_classes=["gl-ch4-convention"],
                                                   width=220),
            *sliders,
            pn.widgets.Button.from_param(self.param.preset_hand, label="Back to the hand example",
                                         css_classes=["gl-ch4-preset-hand"], width=220),
            pn.widgets.Button.from_param(self.param.preset_hold, label="Unit 1 writes, unit 2 holds",
                                         css_classes=["gl-ch4-preset-hold"], width=220),
            width=240)
        plots = pn.Column(self._values,
                          pn.pane.Bokeh(self._line_fig, sizing_mode="stretch_width"),
                          pn.pane.Bokeh(self._meter_fig, sizing_mode="stretch_width"),
                          sizing_mode="stretch_width")
        self._layout = chapter_layout("4", widget_card(controls, plots, max_width=1100))
        self._recompute()

    def _set_gates(self, example, z=None):
        z = example["z"] if z is None else z
        self.param.update(z1=z[0], z2=z[1], r1=example["r"][0], r2=example["r"][1])

    # ------------------------------------------------------------ controls
    @param.depends("preset_hand", watch=True)
    def _preset_hand(self):
        self._set_gates(examples.chapter4_gru_hand_example(CONVENTIONS[self.convention]))

    @param.depends("preset_hold", watch=True)
    def _preset_hold(self):
        # "write" is z = 1 in the textbook convention and z = 0 in PyTorch's (where z keeps)
        z = (1.0, 0.0) if self.convention == "textbook" else (0.0, 1.0)
        self._set_gates(examples.chapter4_gru_hand_example(CONVENTIONS[self.convention]), z=z)

    @param.depends("z1", "z2", "r1", "r2", "convention", watch=True)
    def _recompute(self):
        self._result = pinned_step((self.z1, self.z2), (self.r1, self.r2), CONVENTIONS[self.convention])
        self._redraw()

    # ------------------------------------------------------------ view
    def values(self):
        """Key -> displayed text, exactly what the gv spans hold."""
        res, out = self._result, {}
        for i in range(2):
            out[f"ch4.z.{i}"] = fmt_gate(res["z"][i])
            out[f"ch4.r.{i}"] = fmt_gate(res["r"][i])
            out[f"ch4.htilde.{i}"] = fmt_gate(res["candidate"][i])
            out[f"ch4.h.{i}"] = fmt_gate(res["h"][i])
            out[f"ch4.keep.{i}"] = fmt_gate(res["keep"][i])
            out[f"ch4.keep20.{i}"] = fmt_gate(res["keep"][i] ** HOLD_STEPS)
        return out

    def _labels(self):
        if self.convention == "textbook":
            return {"z": "z (write gate)", "htilde": "candidate h̃", "h": "h' = (1−z)h + z h̃",
                    "keep": "keep = 1 − z", "keep20": f"(1 − z)^{HOLD_STEPS}"}
        return {"z": "z (keep gate)", "htilde": "candidate n", "h": "h' = (1−z)n + z h",
                "keep": "keep = z", "keep20": f"z^{HOLD_STEPS}"}

    def _redraw(self):
        v, res, labels = self.values(), self._result, self._labels()
        rows = [["h<sub>t−1</sub> (input b)"] + [f"{res['h_prev'][i]:.1f}" for i in range(2)]]
        for key, label in (("z", labels["z"]), ("r", "r (reset gate)"), ("htilde", labels["htilde"]),
                           ("h", labels["h"]), ("keep", labels["keep"]), ("keep20", labels["keep20"])):
            rows.append([label] + [gv(f"ch4.{key}.{i}", v[f"ch4.{key}.{i}"]) for i in range(2)])
        note = ("textbook convention: reset before U<sub>h</sub>, z writes" if self.convention == "textbook"
                else "PyTorch convention: reset after the hidden matmul, z keeps")
        self._values.object = (f'<div class="gl-note">{note}; gates pinned at the sliders\' values</div>'
                               + table(["", "unit 1", "unit 2"], rows))
        xs, ys, kinds = [], [], []
        for i, unit in enumerate(UNITS):
            for kind, value in (("h_prev", res["h_prev"][i]), ("candidate", res["candidate"][i]),
                                ("h", res["h"][i])):
                xs.append(float(value))
                ys.append(unit)
                kinds.append(kind)
        lines = {"x": xs, "y": ys, "kind": kinds}
        meters_y, right, text = [], [], []
        for i, unit in enumerate(UNITS):
            for name, value in ((labels["keep"], res["keep"][i]),
                                (labels["keep20"], res["keep"][i] ** HOLD_STEPS)):
                meters_y.append((unit, name))
                right.append(max(float(value), 1e-21))
                text.append(fmt_gate(value))
        with unlocked():     # raw Bokeh changes: dispatch them whether or not we hold the lock
            self._lines.data = lines
            if list(self._meter_fig.y_range.factors) != meters_y[::-1]:
                self._meter_fig.y_range.factors = meters_y[::-1]     # unit 1 on top
            self._meters.data = {"y": meters_y, "right": right, "label": text}

    def _make_lines(self):
        fig = figure(y_range=FactorRange(*reversed(UNITS)), x_range=(-1.05, 1.05), height=210,
                     toolbar_location=None, sizing_mode="stretch_width", title="Where each unit moves")
        # the new h first (largest, underneath), so equal values stay visible
        styles = {"h": ("#2f6fbf", "circle", 18, "new h"),
                  "h_prev": ("#57606a", "circle", 9, "previous h"),
                  "candidate": ("#e07b00", "diamond", 13, "candidate")}
        items = []
        for kind, (color, marker, size, label) in styles.items():
            view = _filter(self._lines, kind)
            r = fig.scatter(x="x", y="y", source=self._lines, view=view, marker=marker, size=size,
                            color=color, alpha=0.9)
            items.append(LegendItem(label=label, renderers=[r]))
        fig.add_layout(Legend(items=items, orientation="horizontal", location="top_left"), "above")
        for x in (-1, 0, 1):
            fig.add_layout(Span(location=x, dimension="height", line_color="#d0d7de",
                                line_dash="dashed" if x else "solid"))
        fig.xaxis.axis_label = "value in [−1, 1]"
        return fig

    def _make_meters(self):
        fig = figure(y_range=FactorRange(), x_axis_type="log", x_range=(1e-21, 1e4), height=200,
                     toolbar_location=None, sizing_mode="stretch_width",
                     title=f"Carry meters: what survives one step, and {HOLD_STEPS} steps (log scale)")
        fig.hbar(y="y", left=1e-21, right="right", height=0.7, source=self._meters, color="#1a7f37")
        fig.text(x="right", y="y", text="label", source=self._meters, x_offset=4,
                 text_baseline="middle", text_font_size="9pt")
        fig.ygrid.grid_line_color = None
        fig.xaxis.ticker = FixedTicker(ticks=[1e-20, 1e-15, 1e-10, 1e-5, 1.0])
        fig.add_layout(Span(location=1.0, dimension="height", line_color="#57606a", line_dash="dashed"))
        return fig

    def __panel__(self):
        return self._layout


def _filter(source, kind):
    from bokeh.models import CDSView, GroupFilter
    return CDSView(filter=GroupFilter(column_name="kind", group=kind))
