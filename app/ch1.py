"""Chapter 1: step an Elman cell through the hand example "abc", one character at a time.

Two tiers of controls: Step/Reset move along the string, the W_h scale changes the weights; both
only re-run the three-step example through `gleam.examples.chapter1_hand_example` and patch the
bars' data source.
"""
import panel as pn
import param
from bokeh.models import ColumnDataSource, FactorRange, Span
from bokeh.plotting import figure
from panel.io.document import unlocked

from app.common import chapter_layout, fmt_fixed, gv, html_pane, table, widget_card
from gleam import examples

TEXT = "abc"
# (gv key, row label, bar group, field of the gleam step record)
TERMS = [("x", "input column W<sub>x</sub>x<sub>t</sub>", "input column", "input_column"),
         ("rec", "recurrent term W<sub>h</sub>h<sub>t−1</sub>", "recurrent term", "recurrent_term"),
         ("pre", "pre-activation a<sub>t</sub> (+ b)", "pre-activation", "pre_activation"),
         ("h", "new state h<sub>t</sub> = tanh(a<sub>t</sub>)", "new state", "state")]
POSITIVE, NEGATIVE = "#2f6fbf", "#d1495b"


class ElmanChapter(pn.viewable.Viewer):
    """The Elman cell, stepped by hand: input column, recurrent term, pre-activation, new state."""

    step = param.Integer(default=0, bounds=(0, len(TEXT)), doc="Characters consumed so far.")
    scale = param.Number(default=1.0, bounds=(0.0, 2.0), step=0.05, label="W_h scale",
                         doc="Multiplies all of W_h: 0 is memoryless, large values saturate.")
    advance = param.Event(label="Step")            # feed the next character
    reset = param.Event(label="Reset")             # back to h_0 = 0, before any character

    def __init__(self, **params):
        super().__init__(**params)
        self._run = None
        self._values = html_pane(min_width=380)
        self._sequence = html_pane()
        self._source = ColumnDataSource(self._bar_data(None))
        self._figure = self._make_figure()
        controls = pn.Row(
            pn.widgets.Button.from_param(self.param.advance, label="Step", color="primary",
                                         css_classes=["gl-ch1-step"], width=90),
            pn.widgets.Button.from_param(self.param.reset, label="Reset", css_classes=["gl-ch1-reset"],
                                         width=90),
            pn.widgets.FloatSlider.from_param(self.param.scale, label="W_h scale",
                                              css_classes=["gl-ch1-scale"], width=260),
            sizing_mode="stretch_width")
        widget = widget_card(
            controls, self._sequence,
            pn.Row(self._values, pn.pane.Bokeh(self._figure, sizing_mode="stretch_width", min_width=320),
                   sizing_mode="stretch_width"),
            layout=pn.Column, max_width=1100)
        self._layout = chapter_layout("1", widget)
        self._recompute()

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
        """Key -> displayed text, exactly what the gv spans hold."""
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
        v = self.values()
        rows = [[label] + [gv(f"ch1.{key}.{i}", v[f"ch1.{key}.{i}"]) for i in range(2)]
                for key, label, _, _ in TERMS]
        head = (f"<div>after {gv('ch1.step', v['ch1.step'])} of {len(TEXT)} characters; "
                f"input: <b>{gv('ch1.input', v['ch1.input'])}</b></div>")
        self._values.object = head + table(["", "unit 1", "unit 2"], rows)
        self._sequence.object = self._sequence_html()
        with unlocked():     # a raw Bokeh change: dispatch it whether or not we hold the lock
            self._source.patch({k: [(slice(0, len(col)), col)]
                                for k, col in self._bar_data(self.current()).items() if k != "x"})

    def _sequence_html(self):
        cells = []
        for i, ch in enumerate(TEXT):
            style = ("background:#2f6fbf;color:white" if i == self.step - 1 else
                     "background:#e5e7eb" if i < self.step else "background:white;color:#8c959f")
            cells.append(f'<span style="{style};padding:2px 10px;border:1px solid #d0d7de;'
                         f'border-radius:4px;font-family:monospace;font-size:1.2em">{ch}</span>')
        states = ["h<sub>0</sub> = (0, 0)"] + [
            f"h<sub>{t + 1}</sub> = ({fmt_fixed(s[0], 4)}, {fmt_fixed(s[1], 4)})"
            for t, s in enumerate(self._run["states"][:self.step])]
        return (f'<div style="display:flex;gap:6px;align-items:center">{"".join(cells)}'
                f'<span class="gl-note" style="margin-left:12px">{"; ".join(states)}</span></div>')

    @staticmethod
    def _bar_data(step):
        x, top, color = [], [], []
        for _, _, group, field in TERMS:
            for i in range(2):
                value = step[field][i] if step else 0.0
                x.append((group, f"unit {i + 1}"))
                top.append(value)
                color.append(POSITIVE if value >= 0 else NEGATIVE)
        return {"x": x, "top": top, "color": color}

    def _make_figure(self):
        factors = self._bar_data(None)["x"]
        fig = figure(x_range=FactorRange(*factors), y_range=(-1.6, 1.6), height=260,
                     toolbar_location=None, sizing_mode="stretch_width", min_width=320)
        fig.vbar(x="x", top="top", width=0.8, color="color", source=self._source)
        for y in (-1, 1):
            fig.add_layout(Span(location=y, dimension="width", line_dash="dashed",
                                line_color="#8c959f", line_width=1))
        fig.add_layout(Span(location=0, dimension="width", line_color="#57606a", line_width=1))
        fig.xaxis.major_label_text_font_size = "10pt"
        fig.xaxis.group_text_font_size = "10pt"
        fig.xgrid.grid_line_color = None
        fig.yaxis.axis_label = "value (dashed: tanh's range ±1)"
        return fig

    def __panel__(self):
        return self._layout
