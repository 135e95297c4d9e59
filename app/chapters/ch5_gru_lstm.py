"""Chapter 5: GRU against LSTM.

Three parts, each control one gleam call:
- the input drive runs one LSTM unit and one GRU unit with the same weights on the same constant
  input (`gleam.examples.chapter5_trajectories`): the LSTM's c leaves [−1, 1], the h's cannot;
- d and n count both cells' parameters and MACs and the GRU width on the LSTM's budget
  (`gleam.examples.chapter5_counts`); bad sizes show gleam's message;
- the forget-gate bias gives the fraction kept with the input ignored, σ(b)^t
  (`gleam.examples.chapter5_forget_bias`).
"""
import panel as pn
import param
from bokeh.models import FixedTicker

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.figures import LinePlot
from gleam_lab.app.widgets.page import HTMLBox, card, gv, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_gate, fmt_pct
from gleam import examples

BOX_CSS = ":host { font-size: 14px; } .gl-ch5-line { margin: 0.25em 0; }"
FLUID = {"sizing_mode": "stretch_width", "max_width": 320}     # a control that may shrink
STATE_Y = (-2.5, 8.0)
KEEP_Y = (1e-32, 3.0)
# gv key -> (chapter5_counts field, format): counts with thousands separators, a width as typed
COUNTS = {"gru_params": ("gru_params", fmt_comma), "lstm_params": ("lstm_params", fmt_comma),
          "gru_macs": ("gru_macs", fmt_comma), "lstm_macs": ("lstm_macs", fmt_comma),
          "match_n": ("gru_width_matching_lstm", str), "match_params": ("gru_matching_params", fmt_comma),
          "saving": ("gru_saving", lambda x: fmt_pct(x, 0))}


class GRUvsLSTMChapter(ChapterViewer):
    """One unit of each cell on the same input, the live parameter counter, the forget bias."""

    chapter_id = "5"
    url_names = {"forget_bias": "bias"}

    drive = param.Number(default=1.0, bounds=(0.0, 3.0), step=0.05, label="Input drive x (every step)")
    d = param.Integer(default=128, allow_None=True, label="Input width d")
    n = param.Integer(default=256, allow_None=True, label="State width n")
    forget_bias = param.Number(default=1.0, bounds=(-3.0, 5.0), step=0.1, label="Forget-gate bias")

    def __init__(self, **params):
        super().__init__(**params)
        self._run, self._counts, self._count_error, self._keep = None, None, "", None
        self._run_box = HTMLBox(min_height=120, css=BOX_CSS, css_classes=["gl-ch5-run-values"])
        self._count_box = HTMLBox(min_height=120, css=BOX_CSS, css_classes=["gl-ch5-count-values"])
        self._keep_box = HTMLBox(min_height=90, css=BOX_CSS, css_classes=["gl-ch5-keep-values"])
        self._states = LinePlot({"lstm_c": ("LSTM c (cell state)", PALETTE.secondary, "solid"),
                                 "lstm_h": ("LSTM h", PALETTE.positive, "dashed"),
                                 "gru_h": ("GRU h", PALETTE.good, "solid")},
                                (0, 30), STATE_Y, title="State over 30 steps of the same input (dashed: ±1)",
                                x_label="step t", y_label="state value", guides=(-1.0, 1.0),
                                css_class="gl-ch5-states", legend="bottom_right")  # (states start at 0, rise)
        self._kept = LinePlot({"kept": ("kept", PALETTE.good, "solid")}, (1, 112), KEEP_Y, y_log=True,
                              title="Fraction of the cell state kept after t steps, σ(bias)ᵗ (log scale)",
                              x_label="steps t", y_label="fraction kept",
                              markers={"t30": (PALETTE.muted, "dashed"), "t100": (PALETTE.muted, "dashed")},
                              css_class="gl-ch5-kept")
        self._kept.fig.yaxis.ticker = FixedTicker(ticks=[10.0 ** -k for k in range(0, 33, 8)])
        self._recompute_run()
        self._recompute_counts()
        self._recompute_keep()

    def widget(self):
        w = pn.widgets
        run = card(wrap_row(
            pn.Column(pn.pane.HTML("<b>Same input, same weights</b>", margin=(4, 10, 0, 10)),
                      self.control("drive", w.FloatSlider, format="0.00", **FLUID),
                      self._run_box.pane, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._states.fig, sizing_mode="stretch_width")), layout=pn.Column)
        counts = card(wrap_row(
            pn.Column(pn.pane.HTML("<b>Parameter and MAC counter</b>", margin=(4, 10, 0, 10)),
                      self.control("d", w.IntInput, **FLUID),
                      self.control("n", w.IntInput, **FLUID),
                      sizing_mode="stretch_width"),
            pn.Column(self._count_box.pane, sizing_mode="stretch_width")), layout=pn.Column)
        keep = card(wrap_row(
            pn.Column(pn.pane.HTML("<b>The forget-gate bias</b>", margin=(4, 10, 0, 10)),
                      self.control("forget_bias", w.FloatSlider, format="0.0", **FLUID),
                      self._keep_box.pane, sizing_mode="stretch_width"),
            pn.pane.Bokeh(self._kept.fig, sizing_mode="stretch_width")), layout=pn.Column)
        return pn.Column(run, counts, keep, sizing_mode="stretch_width")

    # ------------------------------------------------------------ controls
    @param.depends("drive", watch=True)
    def _recompute_run(self):
        self._run = examples.chapter5_trajectories(self.drive)
        self._redraw_run()

    @param.depends("d", "n", watch=True)
    def _recompute_counts(self):
        try:
            self._counts, self._count_error = examples.chapter5_counts(self.d, self.n), ""
        except ValueError as e:
            self._counts, self._count_error = None, f"Not counted: {e}."
        self._redraw_counts()

    @param.depends("forget_bias", watch=True)
    def _recompute_keep(self):
        self._keep = examples.chapter5_forget_bias(self.forget_bias)
        self._redraw_keep()

    # ------------------------------------------------------------ view
    def values(self):
        return {**self._run_values(), **self._count_values(), **self._keep_values()}

    def _run_values(self):
        r, g = self._run, self._run["gates"]
        return {"ch5.maxc": fmt_fixed(r["max_abs_lstm_c"], 4), "ch5.maxh_lstm": fmt_fixed(r["max_abs_lstm_h"], 4),
                "ch5.maxh_gru": fmt_fixed(r["max_abs_gru_h"], 4),
                **{f"ch5.gate.{name}": fmt_fixed(g[name], 4) for name in ("f", "i", "o", "z", "gru_keep")}}

    def _count_values(self):
        c = self._counts
        out = {f"ch5.{key}": "—" if c is None else fmt(c[field]) for key, (field, fmt) in COUNTS.items()}
        out["ch5.count_error"] = self._count_error
        return out

    def _keep_values(self):
        k = self._keep
        return {"ch5.forget": fmt_fixed(k["forget_gate"], 4),
                **{f"ch5.keep{T}": fmt_gate(v) for T, v in zip(k["T"], k["retained"])}}

    def _redraw_run(self):
        v, r = self._run_values(), self._run
        s = lambda key: gv(f"ch5.{key}", v[f"ch5.{key}"])  # noqa: E731
        self._run_box.object = (
            table(["over the run", "max |value|"],
                  [["LSTM cell state c", s("maxc")], ["LSTM output h", s("maxh_lstm")], ["GRU state h", s("maxh_gru")]])
            + f"<div class='gl-note'>One unit each, input x<sub>t</sub> = {fmt_fixed(r['drive'], 2)} at every step. "
            "Both candidates are tanh(1 · x); every recurrent weight is 0 and every gate is its bias alone: "
            f"LSTM forget f = {s('gate.f')}, input i = {s('gate.i')}, output o = {s('gate.o')}; GRU update "
            f"z = {s('gate.z')}, so it keeps 1 − z = {s('gate.gru_keep')}, the same share as the LSTM. "
            "The LSTM writes i on top of what f keeps, so c piles up; the GRU can only write the share it does not "
            "keep, a blend that never leaves [−1, 1]. h = o · tanh(c) is bounded too.</div>")
        self._states.show(**{name: (r["t"], r[name]) for name in ("lstm_c", "lstm_h", "gru_h")})

    def _redraw_counts(self):
        v, c = self._count_values(), self._counts
        s = lambda key: gv(f"ch5.{key}", v[f"ch5.{key}"])  # noqa: E731
        n = str(c["n"]) if c else "—"
        rows = [["GRU", n, s("gru_params"), s("gru_macs")], ["LSTM", n, s("lstm_params"), s("lstm_macs")],
                ["GRU on the LSTM's budget", s("match_n"), s("match_params"), ""]]
        self._count_box.object = (
            table(["cell", "width n", "parameters", "MACs per token"], rows)
            + f"<div class='gl-ch5-line'>At equal width the GRU has {s('saving')} % fewer parameters: "
              "three blocks of weights, 3(nd + n² + n), against the LSTM's four.</div>"
            + f"<div class='gl-error'>{s('count_error')}</div>")

    def _redraw_keep(self):
        v, k = self._keep_values(), self._keep
        s = lambda key: gv(f"ch5.{key}", v[f"ch5.{key}"])  # noqa: E731
        self._keep_box.object = (
            f"<div class='gl-ch5-line'>forget gate f = σ({fmt_fixed(k['bias'], 1)}) = <b>{s('forget')}</b></div>"
            f"<div class='gl-ch5-line'>kept after 30 steps: <b>{s('keep30')}</b> &nbsp;·&nbsp; after 100 steps: "
            f"<b>{s('keep100')}</b></div>"
            "<div class='gl-note'>With the input ignored the cell keeps the fraction f of c at every step. "
            "A bias of 0 forgets half each step; 1 is the common default.</div>")
        self._kept.show(kept=(k["t"], k["curve"]))
        for T in k["T"]:
            self._kept.mark(f"t{T}", T, f"t = {T}")
