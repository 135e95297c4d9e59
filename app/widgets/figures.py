"""Figures several chapters use, each built once and then only fed new data (stream or patch):
signed bars, lines on fixed (linear or log) axes, heatmaps (the streaming training curve is in
app.widgets.streaming).

No figure sets a min_width: the layouts wrap (app.widgets.page.wrap_row) instead of widening
the page. Ranges are fixed `Range1d`s that only Python moves, and no figure has tools, so while a lab
trains nothing flows from the browser back to Python (an auto-ranging DataRange1d would send
its computed range back after every redraw). No Legend on a streaming figure: BokehJS rebuilds
a legend's DOM on every data change, so titles say which line is which.

A canvas neither wraps nor scrolls, so a figure is made to fit a phone (390 px: a figure ~330 px
wide, its frame, where a title and a legend above start, ~260 px): `fit_title` breaks a long title
into lines, `legend_above` lays a legend out in as many columns as fit, row under row.
"""
import math
import textwrap

import numpy as np
from bokeh.models import (ColorBar, ColumnDataSource, FactorRange, Label, Legend, LegendItem, LinearColorMapper,
                          Range1d, Span)
from bokeh.plotting import figure
from panel.io.document import unlocked

from gleam_lab.app.widgets.a11y import describe
from gleam_lab.app.widgets.theme import PALETTE

# A phone's frame in one line: a 13 px bold title ~6.5 px a character, a legend entry as much a
# character of its label plus its glyph; what one more line of a title or row of a legend takes.
TITLE_CHARS, TITLE_LINE_PX = 36, 17
LEGEND_PX, LEGEND_CHAR_PX, LEGEND_GLYPH_PX, LEGEND_ROW_PX = 250, 6.5, 40, 23


def wrap_text(text, chars=TITLE_CHARS):
    """`text` broken between words into lines of at most `chars` characters (a longer word keeps
    its line); the same text wrapped again gives the same lines."""
    return "\n".join(textwrap.wrap(" ".join(str(text).split()), chars, break_long_words=False,
                                   break_on_hyphens=False))


def fit_title(fig, text=None, chars=TITLE_CHARS):
    """Set the figure's title to `text` (or re-fit the one it has) in lines a phone shows whole,
    and grow (or shrink) the figure by the lines added, so that its frame keeps its height."""
    old = fig.title.text or ""
    new = wrap_text(old if text is None else text, chars)
    added = new.count("\n") - old.count("\n")
    with unlocked():
        fig.title.text = new
        if added and fig.height:
            fig.height += added * TITLE_LINE_PX


def legend_above(fig, items, phone_px=LEGEND_PX):
    """A legend above the frame, its entries in as many columns as fit `phone_px`, row under row;
    the figure grows by the rows added, so that its frame keeps its height."""
    widest = max(LEGEND_GLYPH_PX + LEGEND_CHAR_PX * len(str(item.label.value if hasattr(item.label, "value")
                                                                  else item.label)) for item in items)
    ncols = max(1, min(len(items), int(phone_px // widest)))
    rows = math.ceil(len(items) / ncols)
    fig.add_layout(Legend(items=items, orientation="horizontal", location="top_left", ncols=ncols), "above")
    if rows > 1 and fig.height:
        fig.height += (rows - 1) * LEGEND_ROW_PX


class SignedBars:
    """Vertical bars over factors (strings, or (group, label) pairs), coloured by sign, on a
    fixed y range.

    `show(values)` patches the bar heights and colours in place (one value per factor);
    `colors` overrides the sign's colour bar by bar (e.g. PALETTE.faint for bars left out)."""

    def __init__(self, factors, y_range, height=260, guides=(), y_label="", x_label="", css_class=None):
        self.factors = list(factors)
        self.source = ColumnDataSource(self._data([0.0] * len(self.factors)))
        self.fig = fig = figure(x_range=FactorRange(*self.factors), y_range=y_range, height=height,
                                toolbar_location=None, sizing_mode="stretch_width",
                                css_classes=[css_class] if css_class else [])
        fig.vbar(x="x", top="top", width=0.8, color="color", source=self.source)
        for y in guides:
            fig.add_layout(Span(location=y, dimension="width", line_dash="dashed",
                                line_color=PALETTE.faint, line_width=1))
        fig.add_layout(Span(location=0, dimension="width", line_color=PALETTE.muted, line_width=1))
        fig.xaxis.major_label_text_font_size = "10pt"
        fig.xaxis.group_text_font_size = "10pt"
        fig.xgrid.grid_line_color = None
        fig.xaxis.axis_label = x_label
        fig.yaxis.axis_label = y_label
        names = ", ".join(" ".join(f) if isinstance(f, tuple) else str(f) for f in self.factors[:12])
        describe(fig, f"Bar chart of {y_label or 'values'}, one signed bar each for {names}"
                      + (f" ({x_label})" if x_label else "") + "; bars below zero are values < 0.")

    def _data(self, values, colors=None):
        colors = colors or [PALETTE.positive if v >= 0 else PALETTE.negative for v in values]
        return {"x": self.factors, "top": [float(v) for v in values], "color": list(colors)}

    def show(self, values, colors=None):
        data = self._data(values, colors)
        with unlocked():     # a raw Bokeh change: dispatch it whether or not we hold the lock
            self.source.patch({k: [(slice(0, len(col)), col)] for k, col in data.items() if k != "x"})


# ---------------------------------------------------------------- lines

class LinePlot:
    """Named lines on fixed ranges that only Python moves, linear or log in y; each `show`
    replaces the lines' data whole (they are short: a widget's curve, not a training run).

    `series`: name -> (legend label, colour, dash); `markers`: name -> (colour, dash) of vertical
    marker lines placed by `mark`; `guides`: y values drawn as dashed horizontal lines. On a log
    axis values <= 0 are shown at the bottom of the range (a log axis cannot draw them).
    `legend`: "above" the plot (a row), or a corner inside it ("bottom_left", ...), stacked.
    """

    def __init__(self, series, x_range, y_range, y_log=False, title="", x_label="", y_label="",
                 height=260, guides=(), markers=(), css_class=None, legend="above"):
        self.y_log = y_log
        self.sources = {name: ColumnDataSource({"x": [], "y": []}) for name in series}
        self.fig = fig = figure(
            height=height, sizing_mode="stretch_width", tools="", toolbar_location=None, title=title,
            x_range=Range1d(*x_range), y_range=Range1d(*y_range), y_axis_type="log" if y_log else "linear",
            css_classes=[css_class] if css_class else [])
        items = []
        for name, (label, color, dash) in series.items():
            r = fig.line("x", "y", source=self.sources[name], color=color, line_dash=dash, line_width=2)
            if label:          # a series without a label (another seed of a labelled one) has no entry
                items.append(LegendItem(label=label, renderers=[r]))
        if len(items) > 1 and legend == "above":
            legend_above(fig, items)
        elif len(items) > 1:
            fig.add_layout(Legend(items=items, orientation="vertical", location=legend, background_fill_alpha=0.8))
        for y in guides:
            fig.add_layout(Span(location=y, dimension="width", line_dash="dashed",
                                line_color=PALETTE.faint, line_width=1))
        self.markers = {}
        for name, (color, dash) in dict(markers).items():
            self.markers[name] = (Span(location=x_range[0], dimension="height", line_color=color,
                                       line_dash=dash, line_width=1.5, visible=False),
                                  Label(x=x_range[0], y=8, y_units="screen", x_offset=4, text="", text_color=color,
                                        text_font_size="9pt", visible=False))
            for model in self.markers[name]:
                fig.add_layout(model)
        fig.xaxis.axis_label = x_label
        fig.yaxis.axis_label = y_label
        labels = ", ".join(label for label, _, _ in series.values() if label)
        describe(fig, f"Line chart{': ' + title if title else ''}. {labels or 'a line'} against "
                      f"{x_label or 'x'}" + (f", y: {y_label}" if y_label else "") + (" on a log scale" if y_log else ""))
        fit_title(fig)

    def show(self, **lines):
        """name=(xs, ys) for each line to replace."""
        floor = self.fig.y_range.start
        with unlocked():
            for name, (xs, ys) in lines.items():
                ys = np.asarray(ys, dtype=np.float64)
                if self.y_log:
                    ys = np.where(ys > 0, ys, floor)
                self.sources[name].data = {"x": np.asarray(xs, dtype=np.float64), "y": ys}

    def mark(self, name, x=None, text=""):
        """Move the vertical marker `name` to x with a label (None hides it)."""
        span, label = self.markers[name]
        with unlocked():
            visible = x is not None and math.isfinite(x)
            span.visible = label.visible = visible
            if visible:
                span.location = label.x = float(x)
                label.text = text

    def set_ranges(self, x=None, y=None):
        with unlocked():
            if x is not None:
                self.fig.x_range.update(start=x[0], end=x[1])
            if y is not None:
                self.fig.y_range.update(start=y[0], end=y[1])

    def data(self, name):
        """The (x, y) a line shows now."""
        d = self.sources[name].data
        return list(d["x"]), list(d["y"])


class SeedCurves:
    """Many lines in a few groups (every seed's curve of each setting), one multi-line renderer per
    group on fixed ranges: a few Bokeh models however many seeds (a renderer per line made a
    chapter of 160 curves take seconds to build).

    `groups`: name -> (legend label, colour, dash); `show(**{name: [(xs, ys), ...]})` replaces a
    group's lines whole; `data("name.i")` is the i-th line of a group as (xs, ys)."""

    def __init__(self, groups, x_range, y_range, title="", x_label="", y_label="", height=240, guides=(),
                 css_class=None):
        self.sources = {name: ColumnDataSource({"xs": [], "ys": []}) for name in groups}
        self.fig = fig = figure(height=height, sizing_mode="stretch_width", tools="", toolbar_location=None,
                                title=title, x_range=Range1d(*x_range), y_range=Range1d(*y_range),
                                css_classes=[css_class] if css_class else [])
        items = []
        for name, (label, color, dash) in groups.items():
            r = fig.multi_line("xs", "ys", source=self.sources[name], color=color, line_dash=dash, line_width=2)
            if label:
                items.append(LegendItem(label=label, renderers=[r]))
        if len(items) > 1:
            legend_above(fig, items)
        for y in guides:
            fig.add_layout(Span(location=y, dimension="width", line_dash="dashed",
                                line_color=PALETTE.faint, line_width=1))
        fig.xaxis.axis_label = x_label
        fig.yaxis.axis_label = y_label
        labels = ", ".join(label for label, _, _ in groups.values() if label)
        describe(fig, f"Line chart{': ' + title if title else ''}. {labels or 'lines'} against "
                      f"{x_label or 'x'}" + (f", y: {y_label}" if y_label else "") + ", one line per seed")
        fit_title(fig)

    def show(self, **groups):
        with unlocked():
            for name, lines in groups.items():
                self.sources[name].data = {"xs": [[float(x) for x in xs] for xs, _ in lines],
                                           "ys": [[float(y) for y in ys] for _, ys in lines]}

    def data(self, name):
        """The (xs, ys) of line i of a group, named "group.i"."""
        group, i = name.rsplit(".", 1)
        d = self.sources[group].data
        return list(d["xs"][int(i)]), list(d["ys"][int(i)])


class ScatterPlot:
    """Points coloured by a small integer class (a label such as depth), on fixed ranges that only
    Python moves; `show(xs, ys, classes)` replaces them whole. Colours cycle through `colours`."""

    def __init__(self, title, x_label, y_label, colours, height=260, css_class=None):
        self.colours = list(colours)
        self.source = ColumnDataSource({"x": [], "y": [], "colour": [], "label": []})
        self.fig = fig = figure(height=height, sizing_mode="stretch_width", tools="", toolbar_location=None,
                                title=title, x_range=Range1d(-1, 1), y_range=Range1d(-1, 1),
                                css_classes=[css_class] if css_class else [])
        fig.scatter("x", "y", source=self.source, color="colour", size=4, alpha=0.7, legend_group="label")
        fig.xaxis.axis_label, fig.yaxis.axis_label = x_label, y_label
        describe(fig, f"Scatter plot: {title}; {x_label} against {y_label}, coloured by class")
        fit_title(fig)

    def show(self, xs, ys, classes, label="class"):
        xs, ys = np.asarray(xs, dtype=np.float64), np.asarray(ys, dtype=np.float64)
        pad = lambda lo, hi: (lo - 0.05 * (hi - lo + 1e-9), hi + 0.05 * (hi - lo + 1e-9))  # noqa: E731
        with unlocked():
            self.source.data = {"x": xs, "y": ys,
                                "colour": [self.colours[int(c) % len(self.colours)] for c in classes],
                                "label": [f"{label} {int(c)}" for c in classes]}
            if len(xs):
                self.fig.x_range.update(**dict(zip(("start", "end"), pad(xs.min(), xs.max()))))
                self.fig.y_range.update(**dict(zip(("start", "end"), pad(ys.min(), ys.max()))))

    def data(self):
        d = self.source.data
        return list(d["x"]), list(d["y"]), list(d["label"])


# ---------------------------------------------------------------- heatmaps

class Heatmaps:
    """Heatmaps of (rows, cols) arrays on one colour scale, all in one ColumnDataSource, so
    showing new values is one change, not one per map. `titles`: name -> title."""

    def __init__(self, titles, rows, cols, low=0.0, high=1.0, x_label="", y_label="", height=230,
                 css_prefix=None):
        self.names = list(titles)
        self.source = ColumnDataSource(self._data({n: np.zeros((rows, cols)) for n in self.names}))
        self.figs = {name: self._figure(name, title, rows, cols, low, high, x_label, y_label, height,
                                        f"{css_prefix}-{name}" if css_prefix else None)
                     for name, title in titles.items()}

    def _figure(self, name, title, rows, cols, low, high, x_label, y_label, height, css_class):
        fig = figure(height=height, sizing_mode="stretch_width", tools="", toolbar_location=None, title=title,
                     x_range=Range1d(0, cols), y_range=Range1d(0, rows),
                     css_classes=[css_class] if css_class else [])
        mapper = LinearColorMapper(palette=PALETTE.heatmap, low=low, high=high)
        fig.image(image=name, x=0, y=0, dw="dw", dh="dh", source=self.source, color_mapper=mapper)
        fig.add_layout(ColorBar(color_mapper=mapper, width=8), "right")
        fig.xaxis.axis_label = x_label
        fig.yaxis.axis_label = y_label
        fig.title.text_font_size = "9pt"
        describe(fig, f"Heatmap: {title}, {rows} rows by {cols} columns"
                      + (f" ({y_label} by {x_label})" if x_label and y_label else "")
                      + f", coloured from {low:g} to {high:g}")
        fit_title(fig, chars=40)
        return fig

    def _data(self, arrays):
        rows, cols = np.shape(arrays[self.names[0]])
        as_image = lambda a: np.ascontiguousarray(a, dtype=np.float32)  # noqa: E731  (half the bytes)
        return {**{n: [as_image(arrays[n])] for n in self.names}, "dw": [cols], "dh": [rows]}

    def show(self, **arrays):
        """New values for every map (same shape for all)."""
        with unlocked():
            self.source.data = self._data(arrays)

    def resize(self, rows, cols):
        with unlocked():
            for fig in self.figs.values():
                fig.y_range.end = rows
                fig.x_range.end = cols
