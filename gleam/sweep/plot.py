"""A static plot of one metric of a sweep against one config name: SVG written by hand.

plot_svg(records, metric, x, by) draws the "ok" records (summary.ok_records: the last of each
key) that report `metric`:
    points  one circle per record at (its config's value of x, its metric), so every seed shows,
            each group's shifted sideways by a few pixels so groups do not hide each other; its
            tooltip (an SVG title) gives its key, x and metric
    lines   per group (the configs that agree on every name in `by`; one group without `by`), a
            polyline through the mean of the metric at each x value, in x order, a square at
            each mean
    x axis  linear when every x value is a number (int or float, not bool); else categorical,
            the values evenly spaced in the order they first appear in `records`
    text    a title, the axis labels (x's name, the metric's name), a legend naming each group
            by its colour (groups in the order they first appear; Okabe & Ito's eight colours,
            repeated after eight groups)
A config without x (or without a name of `by`) reads as None there, as in summarize.
write_plot writes it to a file: FILE.svg as it is, FILE.html inside a minimal XHTML page.
"""
import json
import math
import numbers
import os
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from gleam.sweep.summary import ok_records

__all__ = ["plot_svg", "write_plot", "PLOT_SUFFIXES"]

PLOT_SUFFIXES = (".svg", ".html")
_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
            "#F0E442")
_W, _H, _LEFT, _TOP, _BOTTOM, _LEGEND = 760, 440, 80, 60, 60, 200   # px


def _text(value):
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _names(name, value, known, many):
    """`value` as a list of known names, or ValueError naming `name`."""
    values = value if many and isinstance(value, (list, tuple)) else [value]
    for v in values:
        if not (isinstance(v, str) and v in known):
            raise ValueError(f"{name} must be {'names' if many else 'one'} of {sorted(known)}, "
                             f"got {value!r:.80}")
    return list(values)


def _title(metric, x, by):
    return f"{metric} against {x}" + (f", by {', '.join(by)}" if by else "")


def _mean(values):
    """The mean of finite values, scaled against overflow as summarize's is."""
    a = np.asarray(values, dtype=np.float64)
    s = float(np.max(np.abs(a))) or 1.0
    return float(np.mean(a / s)) * s


def _range(values, name):
    """(lo, hi): the values' range, padded by 5% (by 1, or 10% of the value, when one value)."""
    lo, hi = min(values), max(values)
    if not math.isfinite(hi - lo):
        raise ValueError(f"the values of {name} span more than the float range")
    pad = (hi - lo) * 0.05 if hi > lo else (abs(lo) * 0.1 or 1.0)
    return lo - pad, hi + pad


def _ticks(lo, hi):
    """Round values (1, 2 or 5 times a power of ten apart, 3 to 8 of them) inside [lo, hi]."""
    raw = (hi - lo) / 8
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step)
    return [(first + i) * step + 0.0 for i in range(int((hi - lo) / step) + 2)
            if (first + i) * step <= hi]


def plot_svg(records, metric, x, by=None):
    """The plot (module docstring) as SVG text. records: a results file's records; metric: a
    metric they report; x: a config name; by: None or a list of config names."""
    ok = ok_records(records)
    metrics = {m for r in ok for m in r["metrics"]}
    metric = _names("metric", metric, metrics, many=False)[0]
    names = {k for r in ok for k in r["config"]}
    x = _names("x", x, names, many=False)[0]
    by = [] if by is None else _names("by", by, names, many=True)
    runs = [r for r in ok if metric in r["metrics"]]
    xs = [r["config"].get(x) for r in runs]
    ys = [r["metrics"][metric] for r in runs]
    numeric = all(map(_number, xs))
    if numeric:
        x_lo, x_hi = _range(xs, repr(x))
        categories, where = None, xs
    else:
        categories = list(dict.fromkeys(_text(v) for v in xs))
        x_lo, x_hi = -0.5, len(categories) - 0.5
        where = [categories.index(_text(v)) for v in xs]
    y_lo, y_hi = _range(ys, repr(metric))
    groups = {}
    for r, u, y, v in zip(runs, where, ys, xs):
        label = ", ".join(f"{k}={_text(r['config'].get(k))}" for k in by) or "all runs"
        groups.setdefault(label, []).append((u, y, r["key"], v))
    h = max(_H, _TOP + 24 * (len(groups) + 2))
    right, bottom = _W - _LEGEND, h - _BOTTOM

    def px(u):
        return _LEFT + (u - x_lo) / (x_hi - x_lo) * (right - _LEFT)

    def py(y):
        return bottom - (y - y_lo) / (y_hi - y_lo) * (bottom - _TOP)

    title = _title(metric, x, by)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{h}" '
           f'viewBox="0 0 {_W} {h}" role="img" aria-labelledby="plot-title" '
           f'font-family="sans-serif" font-size="12">',
           f'<title id="plot-title">{escape(title)}</title>',
           f'<rect width="{_W}" height="{h}" fill="#ffffff"/>',
           f'<text x="{_W / 2}" y="24" text-anchor="middle" font-size="16">{escape(title)}</text>',
           f'<text x="{_W / 2}" y="42" text-anchor="middle" fill="#555555">dots: the {len(runs)} '
           f'runs; lines: the mean at each {escape(x)}</text>',
           f'<g stroke="#000000"><line x1="{_LEFT}" y1="{bottom}" x2="{right}" y2="{bottom}"/>'
           f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{bottom}"/></g>']
    x_ticks = ([(px(t), f"{t:.6g}") for t in _ticks(x_lo, x_hi)] if numeric else
               [(px(i), c if len(c) <= 18 else c[:17] + "…") for i, c in enumerate(categories)])
    for u, label in x_ticks:
        out.append(f'<line x1="{u:.2f}" y1="{bottom}" x2="{u:.2f}" y2="{bottom + 5}" '
                   f'stroke="#000000"/><text x="{u:.2f}" y="{bottom + 18}" '
                   f'text-anchor="middle">{escape(label)}</text>')
    for t in _ticks(y_lo, y_hi):
        out.append(f'<line x1="{_LEFT - 5}" y1="{py(t):.2f}" x2="{_LEFT}" y2="{py(t):.2f}" '
                   f'stroke="#000000"/><text x="{_LEFT - 8}" y="{py(t) + 4:.2f}" '
                   f'text-anchor="end">{t:.6g}</text>')
    out.append(f'<text x="{(_LEFT + right) / 2}" y="{bottom + 40}" text-anchor="middle">'
               f'{escape(x)}</text>')
    out.append(f'<text transform="translate(18 {(_TOP + bottom) / 2}) rotate(-90)" '
               f'text-anchor="middle">{escape(metric)}</text>')
    spacing = min(6.0, 30.0 / len(groups))         # px between groups' points at one x
    for i, (label, points) in enumerate(groups.items()):
        colour = _COLOURS[i % len(_COLOURS)]
        shift = (i - (len(groups) - 1) / 2) * spacing
        at = {}
        for u, y, _, _ in points:
            at.setdefault(u, []).append(y)
        means = [(px(u), py(_mean(v))) for u, v in sorted(at.items())]
        out.append(f'<g class="group" fill={quoteattr(colour)}>')
        out.append('<polyline class="mean" fill="none" stroke-width="2" stroke='
                   f'{quoteattr(colour)} points="'
                   + " ".join(f"{a:.2f},{b:.2f}" for a, b in means) + '"/>')
        out += [f'<rect class="mean" x="{a - 3:.2f}" y="{b - 3:.2f}" width="6" height="6"/>'
                for a, b in means]
        out += [f'<circle class="run" cx="{px(u) + shift:.2f}" cy="{py(y):.2f}" r="3" '
                f'fill-opacity="0.5"><title>{escape(f"{key}: {x}={_text(v)}, {metric}={y!r}")}'
                f'</title></circle>' for u, y, key, v in points]
        out.append('</g>')
        ly = _TOP + 24 * i
        out.append(f'<line x1="{right + 20}" y1="{ly}" x2="{right + 44}" y2="{ly}" '
                   f'stroke={quoteattr(colour)} stroke-width="2"/>'
                   f'<rect x="{right + 29}" y="{ly - 3}" width="6" height="6" '
                   f'fill={quoteattr(colour)}/><text x="{right + 52}" y="{ly + 4}">'
                   f'{escape(label if len(label) <= 24 else label[:23] + "…")}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_plot(records, out, metric, x, by=None):
    """Write plot_svg(records, metric, x, by) to `out`: a .svg file, or an .html page holding
    the SVG -> out."""
    if not isinstance(out, (str, os.PathLike)) or isinstance(out, bytes):
        raise ValueError(f"out must be a file path (str or os.PathLike), got {out!r:.80}")
    out = os.fspath(out)
    suffix = os.path.splitext(out)[1].lower()
    if suffix not in PLOT_SUFFIXES:
        raise ValueError(f"out = {out!r} must end in {' or '.join(PLOT_SUFFIXES)}")
    svg = plot_svg(records, metric, x, by)
    if suffix == ".html":
        svg = (f'<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en">\n'
               f'<head><meta charset="utf-8"/><title>{escape(_title(metric, x, by))}</title>'
               f'</head>\n'
               f'<body>\n{svg}</body>\n</html>\n')
    try:
        with open(out, "w", encoding="utf-8") as f:
            f.write(svg)
    except OSError as e:
        raise ValueError(f"out = {out!r} cannot be written: {e.strerror or e}") from None
    return out
