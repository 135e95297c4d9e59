"""Summaries of a sweep's results: per group of configs, each metric over its runs.

Records: the "ok" records of a results file (gleam.sweep.results), one per key (the last "ok"
of each key); "error" records are left out. Groups: runs whose configs agree on every name in
`by` (default: every config name but "seed", so a group is one setting over its seeds); a
config without a name reads as None there. For each group and metric, over the group's runs
x_1 … x_k that report it:
    mean = Σ x_i / k,   std = √(Σ (x_i − mean)² / (k − 1))  (sample std; None when k = 1),
    min, max, count = k  (the seeds, when the group fixes every other name).
mean and std are computed on x / max|x| and scaled back, so values near the float limit do
not overflow on the way; a std that itself exceeds the float range is refused.
Rows come sorted by group (numbers by value, then strings, then anything else by its JSON),
then by metric name, so a summary does not depend on the order of the lines.
"""
import json
import numbers

import numpy as np

from gleam.sweep.results import check_record

__all__ = ["summarize", "format_table", "ok_records", "STAT_COLUMNS"]

STAT_COLUMNS = ("mean", "std", "min", "max", "count")


def ok_records(records):
    """One "ok" record per key, the last of each, in first-seen key order -> list."""
    if not isinstance(records, (list, tuple)):
        raise ValueError(f"records must be a list of results records, got "
                         f"{type(records).__name__}")
    last = {}
    for i, r in enumerate(records):
        check_record(f"records[{i}]", r)
        if r["status"] == "ok":
            last[r["key"]] = r
    return list(last.values())


def _order(value):
    """Sort key of one group value: numbers by value, then strings, then the rest by JSON."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return (0, value, "")               # Python compares ints and floats exactly
    if isinstance(value, str):
        return (1, 0.0, value)
    return (2, 0.0, json.dumps(value, sort_keys=True, default=repr))


def _stats(x, name):
    """(mean, std or None, min, max) of the finite values x, scaled against overflow."""
    x = np.asarray(x, dtype=np.float64)
    s = float(np.max(np.abs(x)))
    y = x / s if s > 0 else x
    mean = float(np.mean(y)) * s if s > 0 else 0.0
    std = None
    if len(x) > 1:
        with np.errstate(over="ignore"):
            std = float(np.std(y, ddof=1)) * s if s > 0 else 0.0
        if not np.isfinite(std):
            raise ValueError(f"records: the std of {name} exceeds the float range")
    return mean, std, float(np.min(x)), float(np.max(x))


def summarize(records, by=None, metric=None):
    """Rows {"group": {name: value}, "metric", "mean", "std", "min", "max", "count"} -> list.

    by: config names to group on (None: every name but "seed"; [] one group of everything);
    metric: one metric name, or None for all of them."""
    ok = ok_records(records)
    names = sorted({k for r in ok for k in r["config"]})
    if by is None:
        by = [k for k in names if k != "seed"]
    elif not (isinstance(by, (list, tuple)) and all(isinstance(k, str) for k in by)):
        raise ValueError(f"by must be None or a list of config names, got {by!r:.80}")
    else:
        unknown = [k for k in by if k not in names]
        if unknown and ok:
            raise ValueError(f"by names {unknown[0]!r}, which no config has; "
                             f"the configs have {names}")
        by = list(by)
    found = sorted({m for r in ok for m in r["metrics"]})
    if metric is not None and metric not in found:
        raise ValueError(f"metric must be None or one of the metrics reported, {found}, "
                         f"got {metric!r:.80}")
    groups = {}
    for r in ok:
        values = tuple(r["config"].get(k) for k in by)
        text = json.dumps(values, sort_keys=True, default=repr)
        groups.setdefault(text, (values, []))[1].append(r["metrics"])
    rows = []
    # sorted by value, then by JSON text (which tells 1 from 1.0), so never by arrival
    for _, (values, runs) in sorted(groups.items(),
                                    key=lambda g: ([_order(v) for v in g[1][0]], g[0])):
        for m in ([metric] if metric is not None else found):
            x = [run[m] for run in runs if m in run]
            if not x:
                continue
            mean, std, low, high = _stats(x, repr(m))
            rows.append({"group": dict(zip(by, values)), "metric": m, "mean": mean,
                         "std": std, "min": low, "max": high, "count": len(x)})
    return rows


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    return json.dumps(value)


def format_table(rows):
    """summarize's rows as an aligned text table: group names, metric, then STAT_COLUMNS;
    text left-aligned, numbers right-aligned."""
    if not isinstance(rows, (list, tuple)) or not all(
            isinstance(r, dict) and {"group", "metric", *STAT_COLUMNS} <= set(r)
            and isinstance(r["group"], dict) for r in rows):
        raise ValueError("rows must be a list of summarize's rows (dicts with group, metric, "
                         + ", ".join(STAT_COLUMNS) + ")")
    if not rows:
        return "no ok runs to summarise"
    by = list(rows[0]["group"])
    header = by + ["metric", *STAT_COLUMNS]
    body = [[_cell(r["group"].get(k)) for k in by] + [_cell(r["metric"])]
            + [_cell(r[c]) for c in STAT_COLUMNS] for r in rows]
    widths = [max(len(line[j]) for line in [header] + body) for j in range(len(header))]
    numeric = [j >= len(by) + 1 for j in range(len(header))]
    lines = ["  ".join(t.rjust(w) if num else t.ljust(w)
                       for t, w, num in zip(line, widths, numeric)).rstrip()
             for line in [header] + body]
    return "\n".join(lines[:1] + ["  ".join("-" * w for w in widths)] + lines[1:])
