"""Chapter 3: vanishing and exploding, and clipping.

Two widgets, each control one gleam call. The phase change, in two tiers: ρ and γ redraw the bound
(γρ)^T on a log scale at every move (`gleam.examples.chapter3_bound_curve`, ~1 ms); the measured
decay of a 64-unit tanh network beside W_h's bare growth rate ρ^t follows ρ once the slider is
released (`value_throttled`: `gleam.examples.chapter3_decay_curve`, cached per ρ in gleam, costs
~60 ms in Pyodide the first time). Clipping: two entries of a gradient and the same entries after
`gleam.optim.clip_global_norm` (through `gleam.examples.chapter3_clipping`), drawn as arrows.
"""
import math
from functools import partial

import panel as pn
import param
from bokeh.core.properties import field
from bokeh.models import Arrow, ColumnDataSource, FixedTicker, Label, Range1d, Span, VeeHead
from bokeh.plotting import figure
from panel.io.document import unlocked

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.a11y import describe
from gleam_lab.app.widgets.figures import LinePlot, fit_title
from gleam_lab.app.widgets.page import HTMLBox, card, gv, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed, fmt_num
from gleam import examples

BOUND_Y = (1e-30, 1e30)         # the bound's log axis
DECAY_Y = (-20.0, 10.0)         # decades (log10) of the measured norm
CLIP_KEYS = ("norm", "scale", "post", "cos", "before.0", "before.1", "after.0", "after.1")
BOX_CSS = (":host { font-size: 14px; } .gl-ch3-line { margin: 0.2em 0; } .gl-ch3-vanishing { color: var(--gl-positive); }"
           " .gl-ch3-critical { color: var(--gl-good); } .gl-ch3-exploding { color: var(--gl-negative); }")
FLUID = {"sizing_mode": "stretch_width", "max_width": 320}   # a control that may shrink on a narrow page


def log_text(x):
    """A log10 value with 2 decimals; −∞ for an exactly zero norm."""
    return "−∞" if x == -math.inf else fmt_fixed(x, 2)


class VanishingChapter(ChapterViewer):
    """The bound against T, the measured decay for ρ, and clipping by global norm."""

    chapter_id = "3"

    rho = param.Number(default=0.9, bounds=(0.0, 3.0), step=0.05, label="Spectral radius ρ of Wₕ")
    settled_rho = param.Number(default=0.9, bounds=(0.0, 3.0), precedence=-1,
                               doc="ρ where the slider was released (its value_throttled): the measured curve's ρ.")
    gamma = param.Number(default=0.5, bounds=(0.0, 1.0), step=0.01, label="Average tanh derivative γ")
    threshold = param.Number(default=5.0, bounds=(0.5, 60.0), step=0.1, label="Clipping threshold c")
    g1 = param.Number(default=12.0, bounds=(-20.0, 20.0), step=0.1, label="Shown component g₁")
    g2 = param.Number(default=-0.4, bounds=(-20.0, 20.0), step=0.1, label="Shown component g₂")
    norm = param.Number(default=47.3, bounds=(0.5, 100.0), step=0.1, label="Global norm ‖g‖ (all entries)")

    def __init__(self, **params):
        super().__init__(**params)
        self._bound_run, self._measured, self._clip, self._clip_error = None, None, None, ""
        self._bound_box = HTMLBox(min_height=110, css=BOX_CSS, css_classes=["gl-ch3-bound-values"])
        self._measured_box = HTMLBox(min_height=110, css=BOX_CSS, css_classes=["gl-ch3-measured-values"])
        self._clip_box = HTMLBox(min_height=150, css=BOX_CSS, css_classes=["gl-ch3-clip-values"])
        self._bound = LinePlot({"bound": ("bound (γρ)ᵀ", PALETTE.positive, "solid")}, (1, 100), BOUND_Y,
                               y_log=True, title="The bound (γρ)ᵀ after T steps (log scale)",
                               x_label="steps back T", y_label="bound (γρ)ᵀ", guides=(1.0,),
                               markers={"read": (PALETTE.muted, "dashed")}, css_class="gl-ch3-bound")
        self._decay = LinePlot({"measured": ("measured (64 units)", PALETTE.positive, "solid"),
                                "alone": ("ρᵗ: Wₕ alone, no tanh", PALETTE.secondary, "dashed")},
                               (1, 50), DECAY_Y, title="", x_label="step t", y_label="log₁₀ ‖∂hₜ/∂h₀‖",
                               guides=(0.0,), css_class="gl-ch3-decay",
                               legend="bottom_left")      # inside the plot: both figures the same height
        self._label_bound_guides()
        self._arrows = ColumnDataSource({"x0": [], "y0": [], "x1": [], "y1": [], "color": [], "name": []})
        self._arrow_fig = self._make_arrows()
        self._recompute_bound()
        self._recompute_measured()
        self._recompute_clip()

    def widget(self):
        slider = partial(self.control, widget_type=pn.widgets.FloatSlider)
        rho = slider("rho", format="0.00", **FLUID)
        # the measured curve's tier: where the slider comes to rest (a release, a key press)
        rho.param.watch(lambda event: setattr(self, "settled_rho", event.new), "value_throttled")
        phase = card(
            wrap_row(rho, slider("gamma", format="0.00", **FLUID)),
            wrap_row(*[pn.Column(pn.pane.Bokeh(plot.fig, sizing_mode="stretch_width"), box.pane, sizing_mode="stretch_width")
                     for box, plot in ((self._bound_box, self._bound), (self._measured_box, self._decay))]),
            layout=pn.Column)
        controls = [slider(name, format="0.0", **FLUID) for name in ("threshold", "g1", "g2", "norm")]
        clip = card(wrap_row(pn.Column(pn.pane.HTML("<b>Clipping by global norm</b>", margin=(4, 10, 0, 10)),
                                     *controls, sizing_mode="stretch_width"),
                           pn.pane.Bokeh(self._arrow_fig),
                           pn.Column(self._clip_box.pane, sizing_mode="stretch_width")),
                    layout=pn.Column)
        return pn.Column(phase, clip, sizing_mode="stretch_width")

    # ------------------------------------------------------------ controls
    @param.depends("rho", "gamma", watch=True)
    def _recompute_bound(self):
        self._bound_run = examples.chapter3_bound_curve(self.rho, self.gamma)
        self._redraw_bound()

    @param.depends("settled_rho", watch=True)
    def _recompute_measured(self):
        self._measured = examples.chapter3_decay_curve(self.settled_rho)
        self._redraw_measured()

    @param.depends("threshold", "g1", "g2", "norm", watch=True)
    def _recompute_clip(self):
        try:
            self._clip = examples.chapter3_clipping(self.norm, self.threshold, (self.g1, self.g2))
            self._clip_error = ""
        except ValueError as e:
            self._clip, self._clip_error = None, f"Not clipped: {e}."
        self._redraw_clip()

    # ------------------------------------------------------------ view
    def values(self):
        return {**self._bound_values(), **self._measured_values(), **self._clip_values()}

    def _bound_values(self):
        b = self._bound_run
        return {"ch3.product": fmt_fixed(b["product"], 4), "ch3.bound20": fmt_num(b["bound_at"], text=True),
                "ch3.regime": b["regime"], "ch3.eps": fmt_num(b["float32_epsilon"], text=True)}

    def _measured_values(self):
        m, out = self._measured, {}
        for s, x, a in zip(m["read_at"], m["log10_norm_at"], m["log10_rho_power_at"]):
            out[f"ch3.decay.{s}"], out[f"ch3.alone.{s}"] = log_text(x), log_text(a)
        return out

    def _clip_values(self):
        c = self._clip
        shown = {"norm": (c["pre_clip_norm"], 2), "scale": (c["scale"], 4), "post": (c["post_clip_norm"], 4),
                 "cos": (c["cosine_before_after"], 4),
                 **{f"before.{i}": (c["components"][i], 1) for i in range(2)},
                 **{f"after.{i}": (c["clipped_components"][i], 4) for i in range(2)}} if c else {}
        out = {f"ch3.clip.{key}": fmt_fixed(*shown[key]) if c else "—" for key in CLIP_KEYS}
        out["ch3.clip.error"] = self._clip_error
        return out

    def _redraw_bound(self):
        v, b = self._bound_values(), self._bound_run
        self._bound_box.object = (
            f"<div class='gl-ch3-line'>per-step factor γρ = <b>{gv('ch3.product', v['ch3.product'])}</b>"
            f" &nbsp;·&nbsp; regime: <b class='gl-ch3-{b['regime']}'>{gv('ch3.regime', v['ch3.regime'])}</b></div>"
            f"<div class='gl-ch3-line'>bound after T = {b['read_at']} steps: "
            f"<b>{gv('ch3.bound20', v['ch3.bound20'])}</b> (float32 resolves about 7 digits, "
            f"ε = {gv('ch3.eps', v['ch3.eps'])}: below the dotted line a gradient is rounding noise)</div>"
            "<div class='gl-note'>The bound takes ρ as the per-step gain of Wₕ. Strictly, one step is bounded "
            "by the largest singular value σ<sub>max</sub> ≥ ρ; over many steps ρ sets the rate.</div>")
        self._bound.show(bound=(b["T"], b["bound"]))
        self._bound.mark("read", b["read_at"], f"T = {b['read_at']}")

    def _redraw_measured(self):
        v, m = self._measured_values(), self._measured
        rows = [[label] + [gv(f"ch3.{key}.{s}", v[f"ch3.{key}.{s}"]) for s in m["read_at"]]
                for key, label in (("decay", "measured"), ("alone", "ρᵗ, Wₕ alone"))]
        zero = ("<div class='gl-note'>ρ = 0: Wₕ = 0, so the gradient is exactly zero after one step "
                "(log₁₀ 0 = −∞, nothing to draw).</div>" if m["zero"] else "")
        self._measured_box.object = (
            f"<div class='gl-ch3-line'>log₁₀ ‖∂hₜ/∂h₀‖ of the 64-unit network at ρ = {fmt_fixed(m['rho'], 2)}:</div>"
            + table(["", *[f"t = {s}" for s in m["read_at"]]], rows) + zero +
            "<div class='gl-note'>Try ρ = 1.5: the measured curve stays nearly flat while Wₕ alone (dashed) "
            "grows by orders of magnitude, because saturated units have small tanh derivatives. At ρ = 0.9 it "
            "falls below the dashed line: saturation makes vanishing worse.</div>")
        lines = ((m["t"], m["log10_norm"]), (m["t"], m["log10_rho_power"])) if not m["zero"] else (([], []),) * 2
        self._decay.show(measured=lines[0], alone=lines[1])
        fit_title(self._decay.fig, f"Measured decay at ρ = {fmt_fixed(m['rho'], 2)} (seeds 0 and 1)")

    def _redraw_clip(self):
        v, c = self._clip_values(), self._clip
        cell = lambda key: gv(f"ch3.clip.{key}", v[f"ch3.clip.{key}"])  # noqa: E731
        rows = [["gradient g", cell("before.0"), cell("before.1"), cell("norm")],
                ["clipped", cell("after.0"), cell("after.1"), cell("post")]]
        if c is None:
            state = ""
        elif c["clipped"]:
            state = f"‖g‖ > c = {fmt_fixed(c['max_norm'], 1)}: every entry is multiplied by the same factor"
        else:
            state = f"‖g‖ ≤ c = {fmt_fixed(c['max_norm'], 1)}: the gradient passes unchanged"
        self._clip_box.object = (
            table(["", "g₁", "g₂", "global norm"], rows)
            + f"<div class='gl-ch3-line'>scale factor: <b>{cell('scale')}</b> &nbsp;·&nbsp; cosine between "
              f"g and the clipped g: <b>{cell('cos')}</b> (direction unchanged)</div>"
            + f"<div class='gl-note'>{state}</div><div class='gl-error'>{cell('error')}</div>"
            "<div class='gl-note'>The arrows show two of the gradient's entries; the global norm counts all "
            "of them. Clipping only shortens: a gradient that has vanished stays vanished.</div>")
        arrows = [("gradient g", self.g1, self.g2, PALETTE.muted)]
        if c is not None:
            arrows.append(("clipped", *c["clipped_components"], PALETTE.positive))
        reach = max([1.0] + [abs(a) for _, x, y, _ in arrows for a in (x, y)]) * 1.15
        with unlocked():
            self._arrows.data = {"x0": [0.0] * len(arrows), "y0": [0.0] * len(arrows),
                                 "x1": [a[1] for a in arrows], "y1": [a[2] for a in arrows],
                                 "color": [a[3] for a in arrows], "name": [a[0] for a in arrows]}
            for rng in (self._arrow_fig.x_range, self._arrow_fig.y_range):
                rng.update(start=-reach, end=reach)

    # ------------------------------------------------------------ figures, built once
    def _label_bound_guides(self):
        fig, eps = self._bound.fig, examples.chapter3_bound_curve()["float32_epsilon"]
        fig.yaxis.ticker = FixedTicker(ticks=[10.0 ** k for k in range(-30, 31, 10)])
        fig.add_layout(Span(location=eps, dimension="width", line_dash="dotted", line_color=PALETTE.negative))
        for y, text, color, base in ((1.0, "critical: γρ = 1", PALETTE.muted, "bottom"),
                                     (eps, "float32 ε", PALETTE.negative, "top")):
            fig.add_layout(Label(x=100, y=y, text=text, text_align="right", text_baseline=base,
                                 text_font_size="9pt", text_color=color, x_offset=-4))

    def _make_arrows(self):
        fig = figure(width=360, height=360, sizing_mode="scale_width", max_width=380, tools="", toolbar_location=None,
                     x_range=Range1d(-1, 1), y_range=Range1d(-1, 1), css_classes=["gl-ch3-arrows"],
                     title="Two entries of the gradient, before and after")
        fig.segment("x0", "y0", "x1", "y1", source=self._arrows, color="color", line_width=3, legend_field="name")
        fig.add_layout(Arrow(end=VeeHead(size=14, fill_color=field("color"), line_color=field("color")),
                             x_start="x0", y_start="y0", x_end="x1", y_end="y1", line_alpha=0.0,
                             source=self._arrows))
        for dim in ("width", "height"):
            fig.add_layout(Span(location=0, dimension=dim, line_color=PALETTE.border))
        fig.legend.location = "top_left"
        fig.xaxis.axis_label, fig.yaxis.axis_label = "g₁", "g₂"
        return describe(fig, "Arrows of two gradient entries (g₁, g₂): as computed, and after clipping by the "
                             "global norm, which shortens the arrow without turning it")
