"""Chapter 4: the GRU's gates by hand. Four sliders pin z and r of the hand example's two units;
gleam computes the candidate and the new state for the pinned gates
(`gleam.examples.chapter4_pinned_gates`, over `gleam.cells.pin_gates`), in either reset
convention: the toggle swaps the textbook cell for PyTorch's on the same numbers.
"""
import panel as pn
import param
from bokeh.models import CDSView, ColumnDataSource, FactorRange, FixedTicker, GroupFilter, LegendItem, Span
from bokeh.plotting import figure
from panel.io.document import unlocked

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.a11y import describe
from gleam_lab.app.widgets.figures import fit_title, legend_above
from gleam_lab.app.widgets.page import card, gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_gate
from gleam import examples

CONVENTIONS = {"textbook": "textbook", "PyTorch": "torch"}
UNITS = ("unit 1", "unit 2")
GATES = ("z1", "z2", "r1", "r2")
METER_FLOOR = 1e-21        # the carry meters' log axis starts here
METER_LABEL_X = 3.0        # the meters' numbers stand right of the dashed line at 1 (nothing exceeds 1),
                           # in the room up to 1e7 (on a phone's ~260 px frame, ~65 px: '1.75e-10' whole)
MEANING = {"textbook": {"z": "write", "r": "reset"}, "PyTorch": {"z": "keep", "r": "reset"}}


class GRUChapter(ChapterViewer):
    """The GRU hand example with pinned gates, number lines and carry meters."""

    chapter_id = "4"

    z1 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.01, label="z₁")
    z2 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.01, label="z₂")
    r1 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.01, label="r₁")
    r2 = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.01, label="r₂")
    convention = param.Selector(default="textbook", objects=list(CONVENTIONS), label="Convention")
    preset_hand = param.Event(label="Back to the hand example")
    preset_hold = param.Event(label="Unit 1 writes, unit 2 holds")

    def __init__(self, **params):
        hand = examples.chapter4_gru_hand_example("textbook")   # the sliders open here
        own = set(GATES) & set(params)
        params = {"z1": hand["z"][0], "z2": hand["z"][1], "r1": hand["r"][0], "r2": hand["r"][1],
                  **params}
        super().__init__(**params)
        self._result = None
        self._preset = None if own else "hand"   # the preset the sliders show (None once one moves)
        self._setting = False              # a preset is moving the sliders
        self._sliders = {name: self.control(name, pn.widgets.FloatSlider, format="0.0000", width=220)
                         for name in GATES}
        self._label_sliders()
        self._values = html_pane()
        self._lines = ColumnDataSource({"x": [], "y": [], "kind": []})
        self._meters = ColumnDataSource({"y": [], "right": [], "label": []})
        self._line_fig = self._make_lines()
        self._meter_fig = self._make_meters(hand["T"])
        self._recompute()

    def widget(self):
        controls = pn.Column(
            self.control("convention", pn.widgets.RadioButtonGroup, label="Convention", width=220),
            *self._sliders.values(),
            self.control("preset_hand", pn.widgets.Button, label="Back to the hand example",
                         css_classes=["gl-ch4-preset-hand"], width=220),
            self.control("preset_hold", pn.widgets.Button, label="Unit 1 writes, unit 2 holds",
                         css_classes=["gl-ch4-preset-hold"], width=220),
            width=240)
        plots = pn.Column(self._values,
                          pn.pane.Bokeh(self._line_fig, sizing_mode="stretch_width"),
                          pn.pane.Bokeh(self._meter_fig, sizing_mode="stretch_width"),
                          sizing_mode="stretch_width")
        return card(wrap_row(controls, plots, basis=360), layout=pn.Column, max_width=1100)

    def _apply(self, preset):
        """Move the sliders to a preset in the current convention: the hand example's gates, or
        unit 1 writing and unit 2 holding ("write" is z = 1 in the textbook convention and z = 0 in
        PyTorch's, where z keeps)."""
        self._preset, self._setting = preset, True
        try:
            self.param.update(**dict(zip(GATES, self._preset_gates(preset))))
        finally:
            self._setting = False
        self._redraw()                     # (the sliders may not have moved)

    # ------------------------------------------------------------ controls
    @param.depends("preset_hand", watch=True)
    def _preset_hand(self):
        self._apply("hand")

    @param.depends("preset_hold", watch=True)
    def _preset_hold(self):
        self._apply("hold")

    @param.depends("z1", "z2", "r1", "r2", watch=True)
    def _moved(self):
        if not self._setting and not self._at_preset():
            self._preset = None            # the learner's own gates from now on

    def _at_preset(self):
        """The sliders still show the preset's gates (to 1e-9: the two conventions compute the
        same gates with sums in another order, which can differ in the last bit; a slider's
        step is 1e-4)."""
        return self._preset is not None and all(
            abs(getattr(self, g) - w) <= 1e-9 for g, w in zip(GATES, self._preset_gates(self._preset)))

    def _preset_gates(self, preset):
        """(z1, z2, r1, r2) of a preset in the current convention."""
        example = examples.chapter4_gru_hand_example(CONVENTIONS[self.convention])
        z = example["z"] if preset == "hand" else (1.0, 0.0) if self.convention == "textbook" else (0.0, 1.0)
        return (*z, *example["r"])

    def _label_sliders(self):
        """Say on every slider what its gate does in this convention."""
        for name, slider in self._sliders.items():
            slider.name = f"{self.param[name].label} ({MEANING[self.convention][name[0]]})"

    @param.depends("convention", watch=True)
    def _relabel(self):
        """A preset keeps its meaning (unit 1 writes, unit 2 holds) when the convention changes;
        gates set by hand keep their values, and the labels say what they now mean."""
        self._label_sliders()
        if self._preset is not None:
            self._apply(self._preset)

    @param.depends("z1", "z2", "r1", "r2", "convention", watch=True)
    def _recompute(self):
        self._result = examples.chapter4_pinned_gates((self.z1, self.z2), (self.r1, self.r2),
                                                      CONVENTIONS[self.convention])
        self._redraw()

    # ------------------------------------------------------------ view
    def values(self):
        res, out = self._result, {}
        T = res["T"]
        for i in range(2):
            for key, field in (("z", "z"), ("r", "r"), ("htilde", "candidate"), ("h", "h"),
                               ("keep", "carry_multiplier"), ("keep20", f"carry_multiplier_{T}")):
                out[f"ch4.{key}.{i}"] = fmt_gate(res[field][i])
        out["ch4.preset"] = {"hand": "the hand example's gates", "hold": "unit 1 writes, unit 2 holds",
                             None: "your gates (their meaning follows the convention)"}[self._preset]
        return out

    def _labels(self):
        T = self._result["T"]
        if self.convention == "textbook":
            return {"z": "z (write gate)", "htilde": "candidate h̃", "h": "h' = (1−z)h + z h̃",
                    "keep": "keep = 1 − z", "keep20": f"(1 − z)^{T}"}
        return {"z": "z (keep gate)", "htilde": "candidate n", "h": "h' = (1−z)n + z h",
                "keep": "keep = z", "keep20": f"z^{T}"}

    def _redraw(self):
        v, res, labels = self.values(), self._result, self._labels()
        keep_T = res[f"carry_multiplier_{res['T']}"]
        rows = [["h<sub>t−1</sub> (input b)"] + [f"{res['h_prev'][i]:.1f}" for i in range(2)]]
        for key, label in (("z", labels["z"]), ("r", "r (reset gate)"), ("htilde", labels["htilde"]),
                           ("h", labels["h"]), ("keep", labels["keep"]), ("keep20", labels["keep20"])):
            rows.append([label] + [gv(f"ch4.{key}.{i}", v[f"ch4.{key}.{i}"]) for i in range(2)])
        note = ("textbook convention: reset before U<sub>h</sub>, z writes" if self.convention == "textbook"
                else "PyTorch convention: reset after the hidden matmul, z keeps")
        self._values.object = (f'<div class="gl-note">{note}; gates pinned at the sliders\' values: '
                               f'{gv("ch4.preset", v["ch4.preset"])}</div>' + table(["", *UNITS], rows))
        xs, ys, kinds = [], [], []
        for i, unit in enumerate(UNITS):
            for kind, field in (("h_prev", "h_prev"), ("candidate", "candidate"), ("h", "h")):
                xs.append(float(res[field][i]))
                ys.append(unit)
                kinds.append(kind)
        meters_y, right, text = [], [], []
        for i, unit in enumerate(UNITS):
            for name, value in ((labels["keep"], res["carry_multiplier"][i]), (labels["keep20"], keep_T[i])):
                meters_y.append((unit, name))
                right.append(max(float(value), METER_FLOOR))
                text.append(fmt_gate(value))
        with unlocked():     # raw Bokeh changes: dispatch them whether or not we hold the lock
            self._lines.data = {"x": xs, "y": ys, "kind": kinds}
            if list(self._meter_fig.y_range.factors) != meters_y[::-1]:
                self._meter_fig.y_range.factors = meters_y[::-1]     # unit 1 on top
            self._meters.data = {"y": meters_y, "right": right, "label": text}

    def _make_lines(self):
        fig = figure(y_range=FactorRange(*reversed(UNITS)), x_range=(-1.05, 1.05), height=210,
                     toolbar_location=None, sizing_mode="stretch_width", title="Where each unit moves",
                     css_classes=["gl-ch4-lines"])
        # the new h first (largest, underneath), so equal values stay visible
        styles = {"h": (PALETTE.positive, "circle", 18, "new h"),
                  "h_prev": (PALETTE.muted, "circle", 9, "previous h"),
                  "candidate": (PALETTE.secondary, "diamond", 13, "candidate")}
        items = []
        for kind, (color, marker, size, label) in styles.items():
            view = CDSView(filter=GroupFilter(column_name="kind", group=kind))
            r = fig.scatter(x="x", y="y", source=self._lines, view=view, marker=marker, size=size,
                            color=color, alpha=0.9)
            items.append(LegendItem(label=label, renderers=[r]))
        legend_above(fig, items)
        for x in (-1, 0, 1):
            fig.add_layout(Span(location=x, dimension="height", line_color=PALETTE.border,
                                line_dash="dashed" if x else "solid"))
        fig.xaxis.axis_label = "value in [−1, 1]"
        return describe(fig, "Number lines, one per unit, on [−1, 1]: the previous h, the candidate and "
                             "the new h, which lies between them as far toward the candidate as z says")

    def _make_meters(self, T):
        fig = figure(y_range=FactorRange(), x_axis_type="log", x_range=(METER_FLOOR, 1e7), height=200,
                     toolbar_location=None, sizing_mode="stretch_width", css_classes=["gl-ch4-meters"],
                     title=f"Carry meters: what survives one step, and {T} steps (log scale)")
        fig.hbar(y="y", left=METER_FLOOR, right="right", height=0.7, source=self._meters, color=PALETTE.good)
        fig.text(x=METER_LABEL_X, y="y", text="label", source=self._meters, x_offset=4,
                 text_baseline="middle", text_font_size="9pt")
        fig.ygrid.grid_line_color = None
        fig.xaxis.ticker = FixedTicker(ticks=[1e-20, 1e-15, 1e-10, 1e-5, 1.0])
        fig.add_layout(Span(location=1.0, dimension="height", line_color=PALETTE.muted, line_dash="dashed"))
        fit_title(fig)
        return describe(fig, f"Carry meters on a log scale, two bars per unit: keep = 1 − z, what survives "
                             f"one step, and (1 − z)^{T}, what survives {T} steps")
