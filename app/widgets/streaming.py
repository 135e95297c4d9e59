"""The streaming training curve: a whole training run on fixed ranges, at a bounded cost.

Ranges are fixed `Range1d`s that only Python moves, and the figure has no tools, so while a lab
trains nothing flows from the browser back to Python. No Legend: BokehJS rebuilds a legend's DOM
on every data change, so the title says which line is which.
"""
import math
import time

import numpy as np
from bokeh.models import ColumnDataSource, Label, Range1d, Span
from bokeh.plotting import figure
from panel.io.document import unlocked

from gleam_lab.app.widgets.a11y import describe
from gleam_lab.app.widgets.theme import PALETTE

MAX_POINTS = 1000          # points per line (merged pairwise beyond)
X_MIN_END = 200            # the x range opens on 0 .. 200
Y_HEADROOM = 1.1           # y range: 0 .. 1.1 × y_end at first, 1.1 × the highest value later
Y_CAP = 6.0                # ... but never above 6 × y_end (a diverged loss may be astronomically large)
COLUMNS = ("step", "smooth", "raw")


def _x_end(last, steps_per_s=0.0):
    """The x range's new end once step `last` passed the old one: 1.5 × last, and at least half a
    second of training ahead (so at most ~2 updates a second); a round number."""
    return int(math.ceil(max(X_MIN_END, 1.5 * last, last + 0.5 * steps_per_s) / 50.0) * 50)


class StreamingCurve:
    """A training curve: a raw value per step (pale) and its smoothed value (dark), with
    horizontal reference lines, on ranges that only grow.

    The whole run is kept at a bounded cost: at most `max_points` points a line (every BokehJS
    repaint strokes them all, on the page's main thread). While the run is short a point is a
    step; when the points would pass the limit, neighbours are merged pairwise (one full
    replacement of the data, log2(steps / max_points) times in a whole run) and from then on a
    point stands for twice as many steps: the raw line shows their mean, the smooth line its
    value at the group's last step. The y range opens at 0 .. 1.1 × `y_end` and grows only when
    a value rises above it; the x range starts at 0 and its end jumps to 1.5 × the step (and half
    a second of training ahead) whenever the steps pass it.
    `lines`: name -> (label, colour, dash, "above" or "below") of the reference lines, placed by
    `restart`, each label above or below its line (put the higher line's label above, the lower
    one's below, and they never overlap however far the range grows).
    `x_log`: the steps on a log axis from step 1, so that a run's first hundred steps keep their
    room however long it grows (the steps count from 1 then).
    """

    def __init__(self, title, x_label, y_end, lines=(), max_points=None, height=250, css_class=None, x_log=False):
        self.x_label, self.max_points = x_label, max_points or MAX_POINTS
        self._x_start = 1 if x_log else 0
        self.source = ColumnDataSource(self._columns([]))
        self.fig = fig = figure(
            height=height, sizing_mode="stretch_width", tools="", toolbar_location=None, title=title,
            x_range=Range1d(self._x_start, X_MIN_END), y_range=Range1d(0, Y_HEADROOM * y_end),
            x_axis_type="log" if x_log else "linear", css_classes=[css_class] if css_class else [])
        fig.line("step", "raw", source=self.source, color=PALETTE.pale, alpha=0.6)
        fig.line("step", "smooth", source=self.source, color=PALETTE.positive, line_width=2)
        self._spans, self._labels = {}, {}
        for key, (text, color, dash, side) in dict(lines).items():
            self._spans[key] = Span(dimension="width", line_dash=dash, line_color=color, line_width=1.5)
            self._labels[key] = Label(x=6, x_units="screen", y=0, y_offset=3 if side == "above" else -15,
                                      text=text, text_color=color, text_font_size="9pt")
            fig.add_layout(self._spans[key])
            fig.add_layout(self._labels[key])
        fig.xaxis.axis_label = x_label
        describe(fig, f"Training curve: {title}, against {x_label}{' on a log scale' if x_log else ''}; "
                      "pale: each step, dark: smoothed"
                      + "".join(f"; {text} as a reference line" for text, *_ in dict(lines).values()))
        self._y_end = y_end
        self._clear()

    @staticmethod
    def _columns(points):
        # NumPy columns travel as binary buffers (no float-by-float JSON), here and in every stream
        return {name: np.array([p[i] for p in points], dtype=np.float64) for i, name in enumerate(COLUMNS)}

    def _clear(self):
        self.stride = 1            # steps per plotted point (a power of two)
        self.points = []           # what the source holds: (step, smooth, raw mean, n_steps)
        self._group = [0, 0.0, 0, 0.0]   # the next point so far: n, raw sum, last step, its smooth value
        self._x_moved = (time.perf_counter(), 0)   # when the x range last grew, and the step then

    def restart(self, y_end, lines=None):
        """Empty curve, opening ranges; `lines`: name -> y of the reference lines."""
        self._y_end = y_end
        self._clear()
        with unlocked():
            for key, y in (lines or {}).items():
                self._spans[key].location = self._labels[key].y = y
            self.source.data = self._columns([])
            self.fig.xaxis.axis_label = self.x_label
            self.fig.x_range.update(start=self._x_start, end=X_MIN_END)
            self.fig.y_range.update(start=0, end=Y_HEADROOM * y_end)

    def snapshot(self):
        """What the curve shows, for `restore` after a `restart` (a model set aside, then brought back)."""
        return {"points": list(self.points), "stride": self.stride, "group": list(self._group),
                "x_end": self.fig.x_range.end, "y_end": self.fig.y_range.end, "label": self.fig.xaxis.axis_label}

    def restore(self, state):
        self.points, self.stride, self._group = list(state["points"]), state["stride"], list(state["group"])
        with unlocked():
            self.source.data = self._columns(self.points)
            self.fig.xaxis.axis_label = state["label"]
            self.fig.x_range.end, self.fig.y_range.end = state["x_end"], state["y_end"]

    def fit_x(self):
        """Shrink the x range to the points there are (a run that stopped early, e.g. diverged,
        would otherwise be a tick squeezed against the axis)."""
        if self.points:
            with unlocked():
                self.fig.x_range.end = max(10, int(math.ceil(1.25 * self.points[-1][0])))

    def stream(self, steps, smooth, raw, final=False):
        """Add steps to the curve; `final`: show the last, incomplete group too (training stopped)."""
        new, group = [], self._group
        for step, s, v in zip(steps, smooth, raw):
            group[0] += 1
            group[1] += v
            group[2:] = step, s
            if group[0] >= self.stride:
                new.append((group[2], group[3], group[1] / group[0], group[0]))
                group[:2] = 0, 0.0
        if final and group[0]:
            new.append((group[2], group[3], group[1] / group[0], group[0]))
            group[:2] = 0, 0.0
        if new:
            with unlocked():
                self._add(new)

    def _add(self, new):
        self.points += new
        merged = len(self.points) > self.max_points
        while len(self.points) > self.max_points:    # merge neighbours: half the points, as often
            pts = self.points                        # as a long push (a throttled tab) needs
            self.points = [pts[i] if i + 1 == len(pts) else
                           (pts[i + 1][0], pts[i + 1][1],
                            (pts[i][2] * pts[i][3] + pts[i + 1][2] * pts[i + 1][3]) / (pts[i][3] + pts[i + 1][3]),
                            pts[i][3] + pts[i + 1][3]) for i in range(0, len(pts), 2)]
            self.stride *= 2
        if merged:
            self.source.data = self._columns(self.points)
            self.fig.xaxis.axis_label = f"{self.x_label}; a pale point is the mean of {self.stride} steps"
        else:
            self.source.stream(self._columns(new))
        x, y = self.fig.x_range, self.fig.y_range
        last = new[-1][0]
        if last > x.end:
            now = time.perf_counter()
            rate = (last - self._x_moved[1]) / max(now - self._x_moved[0], 1e-3)
            x.end = _x_end(last, rate)
            self._x_moved = (now, last)
        top = min(Y_HEADROOM * max(max(p[1], p[2]) for p in new), Y_CAP * self._y_end)
        if top > y.end:
            y.end = top
