"""Chapter 1: step an Elman cell through the hand example "abc", one character at a time.

Two tiers of controls: Step/Reset move along the string, the W_h scale changes the weights; both
only re-run the three-step example through `gleam.examples.chapter1_hand_example` and patch the
bars' data source.
"""
import panel as pn
import param
from bokeh.models import Range1d

from app.chapters.base import ChapterViewer
from app.widgets.figures import SignedBars
from app.widgets.page import card, gv, html_pane, table
from content import fmt_fixed
from gleam import examples

TEXT = "abc"
UNITS = ("unit 1", "unit 2")
# (gv key, row label, bar group, field of the gleam step record)
TERMS = [("x", "input column W<sub>x</sub>x<sub>t</sub>", "input column", "input_column"),
         ("rec", "recurrent term W<sub>h</sub>h<sub>t−1</sub>", "recurrent term", "recurrent_term"),
         ("pre", "pre-activation a<sub>t</sub> (+ b)", "pre-activation", "pre_activation"),
         ("h", "new state h<sub>t</sub> = tanh(a<sub>t</sub>)", "new state", "state")]

SEQUENCE_CSS = """
.gl-seq { display: flex; gap: 6px; align-items: center; }
.gl-char { padding: 2px 10px; border: 1px solid var(--gl-border); border-radius: 4px;
           font-family: var(--gl-mono); font-size: 1.2em; background: var(--gl-page); color: var(--gl-faint); }
.gl-char-read { background: var(--gl-rule); color: var(--gl-text); }
.gl-char-now { background: var(--gl-positive); color: var(--gl-on-accent); }
.gl-seq .gl-note { margin-left: 12px; }
"""


class ElmanChapter(ChapterViewer):
    """The Elman cell, stepped by hand: input column, recurrent term, pre-activation, new state."""

    chapter_id = "1"

    step = param.Integer(default=0, bounds=(0, len(TEXT)), doc="Characters consumed so far.")
    scale = param.Number(default=1.0, bounds=(0.0, 2.0), step=0.05, label="W_h scale",
                         doc="Multiplies all of W_h: 0 is memoryless, large values saturate.")
    advance = param.Event(label="Step")            # feed the next character
    reset = param.Event(label="Reset")             # back to h_0 = 0, before any character

    def __init__(self, **params):
        super().__init__(**params)
        self._run = None
        self._values = html_pane(min_width=380)
        self._sequence = html_pane(stylesheets=[SEQUENCE_CSS])
        self._bars = SignedBars([(group, unit) for _, _, group, _ in TERMS for unit in UNITS],
                                y_range=Range1d(-1.6, 1.6), guides=(-1, 1), css_class="gl-ch1-bars",
                                y_label="value (dashed: tanh's range ±1)")
        self._recompute()

    def widget(self):
        controls = pn.Row(
            pn.widgets.Button.from_param(self.param.advance, label="Step", color="primary",
                                         css_classes=["gl-ch1-step"], width=90),
            pn.widgets.Button.from_param(self.param.reset, label="Reset", css_classes=["gl-ch1-reset"],
                                         width=90),
            pn.widgets.FloatSlider.from_param(self.param.scale, label="W_h scale",
                                              css_classes=["gl-ch1-scale"], width=260),
            sizing_mode="stretch_width")
        return card(controls, self._sequence,
                    pn.Row(self._values, pn.pane.Bokeh(self._bars.fig, sizing_mode="stretch_width",
                                                       min_width=320), sizing_mode="stretch_width"),
                    layout=pn.Column, max_width=1100)

    # ------------------------------------------------------------ controls -> state
    @param.depends("advance", watch=True)
    def _advance(self):
        if self.step < len(TEXT):
            self.step += 1

    @param.depends("reset", watch=True)
    def _reset(self):
        self.step = 0

    @param.depends("scale", watch=True)
    def _rescale(self):
        self._recompute()

    @param.depends("step", watch=True)
    def _moved(self):
        self._redraw()

    # ------------------------------------------------------------ gleam -> view
    def _recompute(self):
        """The whole three-step run at the current scale (three tiny gleam steps)."""
        self._run = examples.chapter1_hand_example(text=TEXT, wh_scale=self.scale)
        self._redraw()

    def current(self):
        """The step record shown (None before the first character)."""
        return self._run["steps"][self.step - 1] if self.step else None

    def values(self):
        s = self.current()
        out = {"ch1.step": str(self.step), "ch1.input": s["input"] if s else "—"}
        for key, _, _, field in TERMS:
            for i in range(2):
                if s is None:
                    out[f"ch1.{key}.{i}"] = "0.0000" if key == "h" else "—"
                else:
                    out[f"ch1.{key}.{i}"] = fmt_fixed(s[field][i], 4)
        return out

    def _redraw(self):
        v, s = self.values(), self.current()
        rows = [[label] + [gv(f"ch1.{key}.{i}", v[f"ch1.{key}.{i}"]) for i in range(2)]
                for key, label, _, _ in TERMS]
        head = (f"<div>after {gv('ch1.step', v['ch1.step'])} of {len(TEXT)} characters; "
                f"input: <b>{gv('ch1.input', v['ch1.input'])}</b></div>")
        self._values.object = head + table(["", *UNITS], rows)
        self._sequence.object = self._sequence_html()
        self._bars.show([s[field][i] if s else 0.0 for _, _, _, field in TERMS for i in range(2)])

    def _sequence_html(self):
        cells = []
        for i, ch in enumerate(TEXT):
            state = " gl-char-now" if i == self.step - 1 else " gl-char-read" if i < self.step else ""
            cells.append(f'<span class="gl-char{state}">{ch}</span>')
        states = ["h<sub>0</sub> = (0, 0)"] + [
            f"h<sub>{t + 1}</sub> = ({fmt_fixed(s[0], 4)}, {fmt_fixed(s[1], 4)})"
            for t, s in enumerate(self._run["states"][:self.step])]
        return f'<div class="gl-seq">{"".join(cells)}<span class="gl-note">{"; ".join(states)}</span></div>'
