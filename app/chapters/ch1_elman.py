"""Chapter 1: step an Elman cell through a short input, one character at a time.

Two tiers of controls: Step/Reset move along the input; the input box and the W_h scale change
the run. Each re-runs the example through `gleam.examples.chapter1_hand_example` (a few tiny gleam
steps) and patches the bars' data source.
"""
import html

import panel as pn
import param
from bokeh.models import Range1d

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.figures import SignedBars
from gleam_lab.app.widgets.page import PASTE_LIMIT, card, gv, html_pane, table, wrap_row
from gleam_lab.content import fmt_fixed
from gleam import examples

UNITS = ("unit 1", "unit 2")
# (gv key, row label, bar group, field of the gleam step record)
TERMS = [("x", "input column W<sub>x</sub>x<sub>t</sub>", "input column", "input_column"),
         ("rec", "recurrent term W<sub>h</sub>h<sub>t−1</sub>", "recurrent term", "recurrent_term"),
         ("pre", "pre-activation a<sub>t</sub> (+ b)", "pre-activation", "pre_activation"),
         ("h", "new state h<sub>t</sub> = tanh(a<sub>t</sub>)", "new state", "state")]
SATURATE = ("aaaaaaaa", 2.0)       # the prose's saturation case: one character over and over, W_h doubled

SEQUENCE_CSS = """
.gl-seq { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
.gl-char { padding: 2px 10px; border: 1px solid var(--gl-border); border-radius: 4px;
           font-family: var(--gl-mono); font-size: 1.2em; background: var(--gl-page); color: var(--gl-faint); }
.gl-char-read { background: var(--gl-rule); color: var(--gl-text); }
.gl-char-now { background: var(--gl-positive); color: var(--gl-on-accent); }
.gl-seq .gl-note { margin-left: 12px; }
"""


class ElmanChapter(ChapterViewer):
    """The Elman cell, stepped by hand: input column, recurrent term, pre-activation, new state."""

    chapter_id = "1"

    text = param.String(default="abc", label="Input (a, b, c)",
                        doc=f"The characters to step through (1 to {examples.MAX_TEXT}).")
    step = param.Integer(default=0, bounds=(0, examples.MAX_TEXT), precedence=-1,
                         doc="Characters consumed so far (state: Step and Reset move it).")
    scale = param.Number(default=1.0, bounds=(0.0, 3.0), step=0.05, label="Scale of Wₕ",
                         doc="Multiplies all of W_h: 0 is memoryless, large values saturate.")
    advance = param.Event(label="Step")            # feed the next character
    reset = param.Event(label="Reset")             # back to h_0 = 0, before any character
    saturate = param.Event(label="Saturate: aaaaaaaa at ×2")
    message = param.String(default="", precedence=-1, doc="Why the input was refused, or that it is used up.")

    def __init__(self, **params):
        super().__init__(**params)
        self._run, self._used = None, self.text      # the input being stepped through
        self._values = html_pane(width=320, sizing_mode="fixed")   # (wraps above the bars on a narrow page)
        self._sequence = html_pane(stylesheets=[SEQUENCE_CSS])
        self._bars = SignedBars([(group, unit[-1]) for _, _, group, _ in TERMS for unit in UNITS],
                                y_range=Range1d(-3.2, 3.2), guides=(-1, 1), css_class="gl-ch1-bars",
                                y_label="value (dashed: tanh's range ±1)", x_label="unit, in each group")
        self._step_button = self.control("advance", pn.widgets.Button, label="Step", color="primary",
                                         css_classes=["gl-ch1-step"], width=90)
        self._recompute()

    def widget(self):
        w = pn.widgets
        controls = wrap_row(
            self._step_button,
            self.control("reset", w.Button, label="Reset", width=90),
            # a long paste arrives whole: gleam refuses it, saying its length and the limit
            # (examples.check_text), and the last input stays in use
            self.control("text", w.TextInput, label="Input (a, b, c)", width=170, max_length=PASTE_LIMIT),
            self.control("scale", w.FloatSlider, label="Scale of Wₕ", width=240),
            self.control("saturate", w.Button, label="Saturate: aaaaaaaa at ×2", width=200,
                         margin=(23, 10, 5, 10)))
        return card(controls, self._sequence,
                    wrap_row(self._values, pn.pane.Bokeh(self._bars.fig, sizing_mode="stretch_width")),
                    layout=pn.Column, max_width=1100)

    # ------------------------------------------------------------ controls -> state
    @param.depends("advance", watch=True)
    def _advance(self):
        if self.step < len(self._used):
            self.step += 1

    @param.depends("reset", watch=True)
    def _reset(self):
        self.step = 0

    @param.depends("saturate", watch=True)
    def _saturate(self):
        self.param.update(text=SATURATE[0], scale=SATURATE[1])

    @param.depends("scale", "text", watch=True)
    def _rerun(self):
        self._recompute()

    @param.depends("step", watch=True)
    def _moved(self):
        self._redraw()

    # ------------------------------------------------------------ gleam -> view
    def _recompute(self):
        """The whole run at the current input and scale; a refused input keeps the last one."""
        try:
            run = examples.chapter1_hand_example(text=self.text, wh_scale=self.scale)
        except ValueError as e:
            self.message = f"Input not used: {e}. Still stepping through {self._used!r}."
        else:
            if self.text != self._used:
                self.step = min(self.step, len(self.text)) if self.text.startswith(self._used) else 0
            self._run, self._used, self.message = run, self.text, ""
        self._redraw()

    def current(self):
        """The step record shown (None before the first character)."""
        return self._run["steps"][self.step - 1] if self.step else None

    def values(self):
        s = self.current()
        end = self.step == len(self._used)
        message = self.message or ("End of the input: press Reset, or type a longer input." if end else "")
        out = {"ch1.step": str(self.step), "ch1.input": s["input"] if s else "—", "ch1.message": message}
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
        head = (f"<div>after {gv('ch1.step', v['ch1.step'])} of {len(self._used)} characters; "
                f"input: <b>{gv('ch1.input', v['ch1.input'])}</b></div>")
        self._values.object = (head + table(["", *UNITS], rows)
                               + f"<div class='gl-note'>{gv('ch1.message', v['ch1.message'])}</div>")
        self._sequence.object = self._sequence_html()
        self._step_button.disabled = self.step >= len(self._used)
        self._bars.show([s[field][i] if s else 0.0 for _, _, _, field in TERMS for i in range(2)])

    def _sequence_html(self):
        cells = []
        for i, ch in enumerate(self._used):
            state = " gl-char-now" if i == self.step - 1 else " gl-char-read" if i < self.step else ""
            cells.append(f'<span class="gl-char{state}">{html.escape(ch)}</span>')
        states = ["h<sub>0</sub> = (0, 0)"] + [
            f"h<sub>{t + 1}</sub> = ({fmt_fixed(s[0], 4)}, {fmt_fixed(s[1], 4)})"
            for t, s in enumerate(self._run["states"][:self.step])][-4:]
        return f'<div class="gl-seq">{"".join(cells)}<span class="gl-note">{"; ".join(states)}</span></div>'
