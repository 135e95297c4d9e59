"""Chapter 7's Bokeh views: the loss curve, the z / r gate heatmaps and the two HTML boxes.

Every range is a fixed `Range1d` that only Python moves (and no figure has tools), so while the lab
trains nothing flows from the browser back to Python: an auto-ranging DataRange1d would send its
computed range back after every redraw. The loss figure's y range opens at 0 .. 1.1 × ln V and
grows only when a loss rises above it (a run that blows up); its x range always starts at step 0 and
its end jumps to 1.5 × the step (and half a second of training ahead) whenever the steps pass it:
at most ~2 updates a second, rarer and rarer as the run goes on.

The loss curve keeps the whole run at a bounded cost: at most MAX_POINTS points a line (every
BokehJS repaint strokes them all, on the page's main thread). While the run is short a point is a
step; when the points would pass MAX_POINTS, neighbours are merged pairwise (one full replacement
of the data, log2(steps / MAX_POINTS) times in a whole run) and from then on a point stands for twice
as many steps: the per-chunk line shows their mean, the EMA line its value at the group's last step.
No Legend (BokehJS rebuilds a legend's DOM on every data change): the title says which line is which.
Both gate images live in one ColumnDataSource, so showing new gates is one change, not two.

The stats line and the sampled text (HTMLBox) are the Bokeh model a Panel HTML pane renders
(panel.models.HTML), set directly: a new text is one property change, while the pane runs its whole
update machinery for it (several times the worker time of the change itself, measured in the Pyodide
worker). Not a Bokeh Div: BokehJS re-lays out the page on every Div text change, Panel's model only
swaps its innerHTML.
"""
import html
import math
import time

import numpy as np
import panel as pn
from bokeh.models import ColorBar, ColumnDataSource, Label, LinearColorMapper, Range1d, Span
from bokeh.plotting import figure
from panel.io.document import unlocked
from panel.models import HTML as HTMLModel

from app.common import PANEL_CSS

MAX_POINTS = 1000          # points per line on the loss curve (merged pairwise beyond)
X_MIN_END = 200            # the x range opens on 0 .. 200 steps
Y_HEADROOM = 1.1           # y range: 0 .. 1.1 × ln V at first, 1.1 × the highest loss later
Y_CAP = 6.0                # ... but never above 6 × ln V (a diverged loss may be astronomically large)
COLUMNS = ("step", "ema", "loss")
AXIS_LABEL = "step (one 25-character chunk each)"


def _x_end(last, steps_per_s=0.0):
    """The x range's new end once step `last` passed the old one: 1.5 × last, and at least half a
    second of training ahead (so at most ~2 updates a second); a round number."""
    return int(math.ceil(max(X_MIN_END, 1.5 * last, last + 0.5 * steps_per_s) / 50.0) * 50)


class LossPlot:
    """The loss figure: per-chunk loss and its EMA (whole run, decimated), chance and unigram lines."""

    def __init__(self, model):
        self.source = ColumnDataSource(self._columns([]))
        self.fig = fig = figure(
            height=250, sizing_mode="stretch_width", tools="", toolbar_location=None,
            x_range=Range1d(0, X_MIN_END), y_range=Range1d(0, Y_HEADROOM * model.chance_loss),
            title="Training loss, nats per character: pale line each chunk, dark line the EMA (decay 0.97)")
        fig.line("step", "loss", source=self.source, color="#9ecae1", alpha=0.6)
        fig.line("step", "ema", source=self.source, color="#2f6fbf", line_width=2)
        self._spans, self._labels = {}, {}
        for key, text, color, dash in (("chance", "chance ln V", "#d1495b", "dashed"),
                                       ("unigram", "unigram", "#e07b00", "dotted")):
            self._spans[key] = Span(dimension="width", line_dash=dash, line_color=color, line_width=1.5)
            self._labels[key] = Label(x=6, x_units="screen", y=0, y_offset=-15, text=text,
                                      text_color=color, text_font_size="9pt")
            fig.add_layout(self._spans[key])
            fig.add_layout(self._labels[key])
        fig.xaxis.axis_label = AXIS_LABEL
        self._set_lines(model)
        self._clear()

    @staticmethod
    def _columns(points):
        # NumPy columns travel as binary buffers (no float-by-float JSON), here and in every stream
        return {name: np.array([p[i] for p in points], dtype=np.float64) for i, name in enumerate(COLUMNS)}

    def _set_lines(self, model):
        for key, y in (("chance", model.chance_loss), ("unigram", model.unigram_loss)):
            self._spans[key].location = self._labels[key].y = y
        self._chance = model.chance_loss

    def _clear(self):
        self.stride = 1            # steps per plotted point (a power of two)
        self._points = []          # what the source holds: (step, ema, loss, n_steps)
        self._group = [0, 0.0, 0, 0.0]   # the next point so far: n, loss sum, last step, its EMA
        self._x_moved = (time.perf_counter(), 0)   # when the x range last grew, and the step then

    def restart(self, model):
        """Empty curve, opening ranges, the lines of `model` (a new corpus moves them)."""
        self._set_lines(model)
        self._clear()
        self.source.data = self._columns([])
        self.fig.xaxis.axis_label = AXIS_LABEL
        self.fig.x_range.update(start=0, end=X_MIN_END)
        self.fig.y_range.update(start=0, end=Y_HEADROOM * model.chance_loss)

    def stream(self, steps, emas, losses, final=False):
        """Add steps to the curve; `final`: show the last, incomplete group too (training stopped)."""
        new, group = [], self._group
        for step, e, loss in zip(steps, emas, losses):
            group[0] += 1
            group[1] += loss
            group[2:] = step, e
            if group[0] >= self.stride:
                new.append((group[2], group[3], group[1] / group[0], group[0]))
                group[:2] = 0, 0.0
        if final and group[0]:
            new.append((group[2], group[3], group[1] / group[0], group[0]))
            group[:2] = 0, 0.0
        if not new:
            return
        self._points += new
        if len(self._points) > MAX_POINTS:           # merge neighbours: half the points
            pts = self._points
            self._points = [pts[i] if i + 1 == len(pts) else
                            (pts[i + 1][0], pts[i + 1][1],
                             (pts[i][2] * pts[i][3] + pts[i + 1][2] * pts[i + 1][3]) / (pts[i][3] + pts[i + 1][3]),
                             pts[i][3] + pts[i + 1][3]) for i in range(0, len(pts), 2)]
            self.stride *= 2
            self.source.data = self._columns(self._points)
            self.fig.xaxis.axis_label = f"{AXIS_LABEL}; a pale point is the mean of {self.stride} steps"
        else:
            self.source.stream(self._columns(new))
        x, y = self.fig.x_range, self.fig.y_range
        last = new[-1][0]
        if last > x.end:
            now = time.perf_counter()
            rate = (last - self._x_moved[1]) / max(now - self._x_moved[0], 1e-3)
            x.end = _x_end(last, rate)
            self._x_moved = (now, last)
        top = min(Y_HEADROOM * max(max(p[1], p[2]) for p in new), Y_CAP * self._chance)
        if top > y.end:
            y.end = top


class GatePlots:
    """Two heatmaps (z and r: rows units, columns the steps of the last chunk) on one source."""

    def __init__(self, H, K):
        self.source = ColumnDataSource(self._data(np.zeros((H, K)), np.zeros((H, K))))
        self.z_fig = self._figure("z", "update gate z (rows: units; columns: last chunk's steps)", H, K)
        self.r_fig = self._figure("r", "reset gate r", H, K)

    def _figure(self, column, title, H, K):
        fig = figure(height=230, sizing_mode="stretch_width", tools="", toolbar_location=None, title=title,
                     x_range=Range1d(0, K), y_range=Range1d(0, H), min_width=200)
        mapper = LinearColorMapper(palette="Viridis256", low=0.0, high=1.0)
        fig.image(image=column, x=0, y=0, dw="dw", dh="dh", source=self.source, color_mapper=mapper)
        fig.add_layout(ColorBar(color_mapper=mapper, width=8), "right")
        fig.xaxis.axis_label = "step in chunk"
        fig.yaxis.axis_label = "unit"
        fig.title.text_font_size = "9pt"
        return fig

    @staticmethod
    def _data(z, r):
        H, K = z.shape
        as_image = lambda g: np.ascontiguousarray(g, dtype=np.float32)  # noqa: E731  (half the bytes)
        return {"z": [as_image(z)], "r": [as_image(r)], "dw": [K], "dh": [H]}

    def show(self, z, r):
        self.source.data = self._data(z, r)

    def resize(self, H, K):
        for fig in (self.z_fig, self.r_fig):
            fig.y_range.end = H
            fig.x_range.end = K


class HTMLBox:
    """Trusted HTML (built with html.escape / gv) in the chapter's styles, without a Panel pane.

    `.object` reads and sets the HTML, like a Panel HTML pane's; `.pane` goes into the layout."""

    def __init__(self, min_height, css=""):
        self._html = ""
        # like pn.pane.HTML: the model's text is the escaped HTML, decoded in the browser
        self.model = HTMLModel(text="", disable_math=True, run_scripts=False, sizing_mode="stretch_width",
                               min_height=min_height, stylesheets=[PANEL_CSS + css], margin=(5, 10, 5, 10))
        self.pane = pn.pane.Bokeh(self.model, sizing_mode="stretch_width")

    @property
    def object(self):
        return self._html

    @object.setter
    def object(self, text):
        if text != self._html:
            self._html = text
            with unlocked():     # a raw Bokeh change: dispatched whether or not we hold the lock
                self.model.text = html.escape(text)
