"""Chapter 2: backpropagation through time, by hand and truncated.

Part 1 walks the hand example's backward pass right to left, one press per step
(`gleam.examples.chapter2_backward_walk`); w and u re-run the example. Part 2 shows how much of
dL/dw each of 12 steps contributes and what a window of the last k steps keeps
(`gleam.examples.chapter2_truncation_window`, over gleam.sequence.backward(truncate=k)).
"""
import panel as pn
import param
from bokeh.models import Range1d

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.figures import SignedBars
from gleam_lab.app.widgets.page import card, gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed, fmt_pct
from gleam import examples

HAND = examples.chapter2_backward_walk()
STEPS = HAND["T"]
WINDOW = examples.chapter2_truncation_window()
BAR_TOP = 0.42             # the bars' fixed y range (the largest bar for u in [0, 1.2] is ~0.38)
# gv key, row label, field of a step record, forward (the forward pass's rows are always shown)
ROWS = [("x", "input x<sub>t</sub>", "x", True), ("hprev", "h<sub>t−1</sub>", "h_prev", True),
        ("h", "h<sub>t</sub> = tanh(w x<sub>t</sub> + u h<sub>t−1</sub>)", "h", True),
        ("dtanh", "1 − h<sub>t</sub><sup>2</sup>", "tanh_derivative", True),
        ("delta", "δ<sub>t</sub> = ∂L/∂h<sub>t</sub>", "delta", False),
        ("dw", "term of dL/dw: δ<sub>t</sub> (1 − h<sub>t</sub><sup>2</sup>) x<sub>t</sub>", "dL_dw_term", False),
        ("du", "term of dL/du: δ<sub>t</sub> (1 − h<sub>t</sub><sup>2</sup>) h<sub>t−1</sub>", "dL_du_term", False)]
WALK_NOTES = [
    "Press <b>Backward one step</b>. The pass starts at the loss: δ<sub>3</sub> = ∂L/∂h<sub>3</sub> = h<sub>3</sub> − y.",
    "Step 3: its terms are added to the gradients (+=). It sends δ<sub>2</sub> = δ<sub>3</sub> "
    "(1 − h<sub>3</sub><sup>2</sup>) u back to step 2.",
    "Step 2: its terms are added (+=); δ<sub>1</sub> = δ<sub>2</sub> (1 − h<sub>2</sub><sup>2</sup>) u goes "
    "back to step 1.",
    "Step 1 adds nothing to dL/du: its term multiplies h<sub>0</sub> = 0. Done: the sums are dL/dw and "
    "dL/du.",
]


class BPTTChapter(ChapterViewer):
    """BPTT on a three-step scalar RNN, walked by hand; what truncation to k steps keeps."""

    chapter_id = "2"
    url_names = {"trunc_u": "tu"}

    w = param.Number(default=HAND["w"], bounds=(-2.0, 2.0), step=0.05, label="Input weight w")
    u = param.Number(default=HAND["u"], bounds=(-2.0, 2.0), step=0.05, label="Recurrent weight u (by hand)")
    back = param.Event(label="Backward one step")
    reset = param.Event(label="Reset")
    walked = param.Integer(default=0, bounds=(0, STEPS), precedence=-1,
                           doc="Backward steps taken so far (state: the buttons move it).")
    trunc_u = param.Number(default=WINDOW["u"], bounds=(0.0, 1.2), step=0.05,
                           label="Recurrent weight u (window)")
    k = param.Integer(default=WINDOW["k"], bounds=(1, WINDOW["T"]), label="Window k (steps kept)")

    def __init__(self, **params):
        super().__init__(**params)
        self._hand, self._window = None, None
        self._walk_values = html_pane()
        self._window_values = html_pane()
        self._bars = SignedBars([str(t) for t in range(1, WINDOW["T"] + 1)], y_range=Range1d(0, BAR_TOP),
                                height=250, css_class="gl-ch2-bars", y_label="|contribution to dL/dw|",
                                x_label="step t (faint: outside the window, dropped)")
        self._hand = examples.chapter2_backward_walk(self.w, self.u)
        self._window = examples.chapter2_truncation_window(self.trunc_u, self.k)
        self._redraw_hand()
        self._redraw_window()

    def widget(self):
        w = pn.widgets
        walk_controls = pn.Column(
            self.control("w", w.FloatSlider, label="Input weight w", format="0.00", width=250),
            self.control("u", w.FloatSlider, label="Recurrent weight u (by hand)", format="0.00", width=250),
            pn.Row(self.control("back", w.Button, label="Backward one step", color="primary", width=150),
                   self.control("reset", w.Button, label="Reset", width=90)),
            pn.pane.HTML(f"<div class='gl-note'>Fixed: x = (1, 1, 1), target y = {HAND['y']}, h<sub>0</sub> = 0, "
                         f"loss L = ½ (h<sub>3</sub> − y)<sup>2</sup>.</div>", width=250, margin=(4, 10)),
            width=270)
        window_controls = pn.Column(
            self.control("trunc_u", w.FloatSlider, label="Recurrent weight u (window)", format="0.00", width=250),
            self.control("k", w.IntSlider, label="Window k (last steps kept)", width=250),
            pn.pane.HTML(f"<div class='gl-note'>{WINDOW['T']} steps, input alternating ±{WINDOW['amplitude']}, "
                         f"w = {WINDOW['w']}, h<sub>0</sub> = 0, loss ½ (h<sub>{WINDOW['T']}</sub> − "
                         f"{WINDOW['y']})<sup>2</sup>.</div>", width=250, margin=(4, 10)),
            width=270)
        heading = "<h2 style='font-size: 1.17em; margin: 4px 0'>{}</h2>"
        return card(
            pn.pane.HTML(heading.format("1 · The backward pass, step by step"), sizing_mode="stretch_width"),
            wrap_row(walk_controls, self._walk_values, basis=420),
            pn.pane.HTML(heading.format("2 · Truncation: what a window of k steps keeps"),
                         sizing_mode="stretch_width"),
            wrap_row(window_controls,
                     pn.Column(self._window_values, pn.pane.Bokeh(self._bars.fig, sizing_mode="stretch_width"),
                               sizing_mode="stretch_width"), basis=420),
            layout=pn.Column, max_width=1100)

    # ------------------------------------------------------------ controls
    @param.depends("back", watch=True)
    def _back(self):
        if self.walked < STEPS:
            self.walked += 1

    @param.depends("reset", watch=True)
    def _reset(self):
        self.walked = 0

    @param.depends("w", "u", watch=True)
    def _recompute_hand(self):
        self._hand = examples.chapter2_backward_walk(self.w, self.u)
        self._redraw_hand()

    @param.depends("walked", watch=True)
    def _walk(self):
        self._redraw_hand()

    @param.depends("trunc_u", "k", watch=True)
    def _recompute_window(self):
        self._window = examples.chapter2_truncation_window(self.trunc_u, self.k)
        self._redraw_window()

    # ------------------------------------------------------------ view
    def revealed(self, t):
        """Has the backward pass reached step t (1-based)? It runs from the last step down."""
        return t > STEPS - self.walked

    def values(self):
        hand, win = self._hand, self._window
        out = {}
        for s in hand["steps"]:
            for key, _, field, forward in ROWS:
                shown = forward or self.revealed(s["t"])
                out[f"ch2.{key}.{s['t']}"] = fmt_fixed(s[field], 4) if shown else "—"
        running = hand["running"][self.walked]
        share = "—" if win["share_kept"] is None else fmt_pct(win["share_kept"])
        out.update({"ch2.walked": str(self.walked), "ch2.loss": fmt_fixed(hand["loss"], 4),
                    "ch2.sum_dw": fmt_fixed(running["dL_dw"], 4), "ch2.sum_du": fmt_fixed(running["dL_du"], 4),
                    "ch2.share": share, "ch2.trunc_dw": fmt_fixed(win["dL_dw_truncated"], 4),
                    "ch2.full_dw": fmt_fixed(win["dL_dw"], 4)})
        return out

    def _redraw_hand(self):
        v = self.values()
        header = ["", *(f"step {t}" for t in range(1, STEPS + 1))]
        rows = [[label, *(gv(f"ch2.{key}.{t}", v[f"ch2.{key}.{t}"]) for t in range(1, STEPS + 1))]
                for key, label, _, _ in ROWS]
        sums = (f"<div>loss L = {gv('ch2.loss', v['ch2.loss'])} &nbsp;·&nbsp; after "
                f"{gv('ch2.walked', v['ch2.walked'])} of {STEPS} backward steps: "
                f"dL/dw = {gv('ch2.sum_dw', v['ch2.sum_dw'])}, dL/du = {gv('ch2.sum_du', v['ch2.sum_du'])}</div>")
        note = (f"<div class='gl-note'>{WALK_NOTES[self.walked]} w and u are shared by every step, so each "
                "gradient is a sum over steps: <code>grad += term</code>, never <code>=</code>.</div>")
        self._walk_values.object = table(header, rows) + sums + note

    def _redraw_window(self):
        v, win = self.values(), self._window
        self._window_values.object = (
            f"<div>The last {win['k']} of {win['T']} steps hold {gv('ch2.share', v['ch2.share'])} % of "
            f"Σ<sub>t</sub> |contribution<sub>t</sub>|. dL/dw truncated to k = {win['k']}: "
            f"{gv('ch2.trunc_dw', v['ch2.trunc_dw'])}; full BPTT: {gv('ch2.full_dw', v['ch2.full_dw'])}</div>"
            "<div class='gl-note'>The contributions alternate in sign with the input, so the truncated "
            "gradient can land above or below the full one.</div>")
        colors = [PALETTE.positive if kept else PALETTE.faint for kept in win["kept"]]
        self._bars.show(win["abs_contributions"], colors)
