"""Chapter 0: one number of memory. Two sliders set the gain a and the start h₀ of
h_t = tanh(a h_{t−1}); gleam runs the recurrence for 64 steps and measures what survives of a
nudge to h₀ (`gleam.examples.chapter0_recurrence`). Presets: a weight of one on a saturated
start, and the factors 0.90 and 0.99 from a small start.
"""
import math

import panel as pn
import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.figures import LinePlot
from gleam_lab.app.widgets.page import card, gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed, fmt_gate, fmt_num
from gleam import examples

PRESETS = examples.chapter0_presets()
T = examples.chapter0_recurrence()["T"]
LOG_FLOOR = 1e-30          # the log plot's axis never goes below this
# gv key, row label
ROWS = [("ch0.hT", f"state after {T} steps, h<sub>{T}</sub>"),
        ("ch0.retained", f"retained fraction at T = {T}, |∂h<sub>{T}</sub>/∂h<sub>0</sub>|"),
        ("ch0.halflife", "half-life, measured (steps)"),
        ("ch0.sens1", "first step's sensitivity a (1 − tanh²(a h<sub>0</sub>))"),
        ("ch0.factor", "ln 0.5 / ln a: half-life of a constant factor a (steps)")]


def decade(x, up):
    """The power of ten at or beyond x (above it if up): the log axis ends on whole decades."""
    e = math.log10(x)
    return 10.0 ** (math.ceil(e) if up else math.floor(e))


class ScalarChapter(ChapterViewer):
    """The scalar recurrence: its state and its memory of h₀ over 64 steps."""

    chapter_id = "0"

    a = param.Number(default=PRESETS["0.90"]["a"], bounds=(0.0, 3.0), step=0.01, label="Gain a",
                     doc="The recurrent weight: h_t = tanh(a h_{t−1}).")
    h0 = param.Number(default=PRESETS["0.90"]["h0"], bounds=(-3.0, 3.0), step=0.01, label="Start value h₀",
                      doc="The state the input left behind at t = 0.")
    preset_saturated = param.Event(label="A weight of one, saturated (a = 1, h₀ = 2)")
    preset_090 = param.Event(label="Factor 0.90, small start")
    preset_099 = param.Event(label="Factor 0.99, small start")

    def __init__(self, **params):
        super().__init__(**params)
        self._run, self._error = None, ""
        self._values = html_pane()
        self._state = LinePlot({"h": ("hₜ", PALETTE.positive, "solid")}, x_range=(0, T), y_range=(-1.1, 1.1),
                               title=f"The state hₜ = tanh(a·hₜ₋₁), t = 0 … {T}", x_label="step t",
                               y_label="hₜ", height=230, guides=(-1.0, 1.0), css_class="gl-ch0-state")
        self._memory = LinePlot(
            {"retained": ("retained |∂hₜ/∂h₀|", PALETTE.positive, "solid"),
             "pure": ("aᵗ: a unit that never saturates", PALETTE.secondary, "dashed")},
            x_range=(0, T), y_range=(1e-3, 10.0), y_log=True, height=280, guides=(0.5,),
            markers={"half": (PALETTE.negative, "dotted")}, x_label="step t",
            y_label="fraction left (log scale)", css_class="gl-ch0-memory",
            title="What survives of a nudge to h₀ (dashed guide: one half)")
        self._recompute()

    def widget(self):
        w = pn.widgets
        sliders = [self.control("a", w.FloatSlider, label="Gain a (hₜ = tanh(a·hₜ₋₁))", format="0.00",
                                width=270),
                   self.control("h0", w.FloatSlider, label="Start value h₀ (set by the input)", format="0.00",
                                width=270)]
        presets = [self.control(name, w.Button, label=self.param[name].label, css_classes=[f"gl-ch0-{cls}"],
                                width=270)
                   for name, cls in (("preset_saturated", "saturated"), ("preset_090", "p090"),
                                     ("preset_099", "p099"))]
        about = pn.pane.HTML(
            f"<div class='gl-note'>A fixed horizon of {T} steps. The half-life is the first t at which "
            "the retained fraction is ½ or less, interpolated between steps on the log scale.</div>",
            width=270, margin=(4, 10))
        controls = pn.Column(*sliders, *presets, about, width=290)
        plots = pn.Column(self._values, pn.pane.Bokeh(self._state.fig, sizing_mode="stretch_width"),
                          pn.pane.Bokeh(self._memory.fig, sizing_mode="stretch_width"),
                          sizing_mode="stretch_width")
        return card(wrap_row(controls, plots, basis=420), layout=pn.Column,
                    max_width=1100)

    # ------------------------------------------------------------ controls
    def _preset(self, name):
        self.param.update(**PRESETS[name])

    @param.depends("preset_saturated", watch=True)
    def _saturated(self):
        self._preset("saturated")

    @param.depends("preset_090", watch=True)
    def _p090(self):
        self._preset("0.90")

    @param.depends("preset_099", watch=True)
    def _p099(self):
        self._preset("0.99")

    @param.depends("a", "h0", watch=True)
    def _recompute(self):
        try:
            self._run, self._error = examples.chapter0_recurrence(self.a, self.h0, T), ""
        except ValueError as e:
            self._run, self._error = None, f"Not computed: {e}"
        self._redraw()

    # ------------------------------------------------------------ view
    def values(self):
        r = self._run
        out = {"ch0.error": self._error}
        if r is None:
            return {**{key: "—" for key, _ in ROWS}, **out}
        if r["half_life"] is None:
            half = f"not within {T} steps"
        else:
            half = fmt_fixed(r["half_life"], 1)
        if r["factor_half_life"] is not None:
            factor = fmt_fixed(r["factor_half_life"], 1)
        elif r["factor_never_halves"]:
            factor = "never halves (a = 1)" if r["a"] == 1 else "never halves (a > 1 grows)"
        else:
            factor = "none (a = 0 erases h₀ at once)"
        return {"ch0.hT": fmt_gate(r["h_T"]), "ch0.retained": fmt_num(r["retained_T"], text=True),
                "ch0.halflife": half, "ch0.sens1": fmt_gate(r["first_sensitivity"]),
                "ch0.factor": factor, **out}

    def _redraw(self):
        v, r = self.values(), self._run
        self._values.object = (table(["", "value"], [[label, gv(key, v[key])] for key, label in ROWS])
                               + f"<div class='gl-error'>{gv('ch0.error', v['ch0.error'])}</div>")
        if r is None:
            return
        t, hs = r["t"], r["states"]
        extent = 1.1 * max(max(abs(h) for h in hs), 0.01)
        self._state.set_ranges(y=(-extent, extent))
        self._state.show(h=(t, hs))
        shown = [x for x in r["retained"] + r["pure"] if x > 0]
        low = decade(max(min(shown + [0.1]), LOG_FLOOR), up=False)
        self._memory.set_ranges(y=(low, decade(max(shown + [2.0]), up=True)))
        self._memory.show(retained=(t, r["retained"]), pure=(t, r["pure"]))
        half = r["half_life"]
        self._memory.mark("half", half, "" if half is None else f"half-life {fmt_fixed(half, 1)}")
