"""Summaries of a sweep's results: per group of configs, each metric over its runs.

Records: the "ok" records of a results file (gleam.sweep.results), one per key (the last "ok"
of each key); "error" records are left out. Groups: runs whose configs agree on every name in
`by` (default: every config name but "seed", so a group is one setting over its seeds); a
config without a name reads as None there. For each group and metric, over the group's runs
x_1 … x_k that report it:
    mean = Σ x_i / k,   std = √(Σ (x_i − mean)² / (k − 1))  (sample std; None when k = 1),
    min, max, count = k  (the seeds, when the group fixes every other name),
    and with interval=True, ci_low and ci_high: a 95% percentile-bootstrap interval of the mean
    (_interval: N_BOOT resamples from a fixed seed, so the same values always give the same
    interval; one value gives that value as both ends).
mean and std are computed on x / max|x|, the interval on x / 2**e (exact: 2**e the power of two
just above max|x|), and scaled back, so values near the float limit do not overflow on the way;
a std that itself exceeds the float range is refused.
Rows come sorted by group (numbers by value, then strings, then anything else by its JSON),
then by metric name, so a summary does not depend on the order of the lines.
"""
import json
import numbers

import numpy as np

from gleam import checks
from gleam.sweep.results import check_record

__all__ = ["summarize", "format_table", "ok_records", "bootstrap_difference", "STAT_COLUMNS",
           "N_BOOT", "LEVEL"]

STAT_COLUMNS = ("mean", "std", "min", "max", "count")
N_BOOT = 10_000         # resamples of each interval
LEVEL = 95              # its coverage, in percent: the ends are quantiles (100 ∓ LEVEL) / 200
_BLOCK = 2 ** 20        # resample indices drawn at once, at most (whole resamples, at least one)


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


def _interval(x, mean, seed=0):
    """The LEVEL percentile-bootstrap interval of the mean of the finite values x -> (low, high).

    x is sorted first (so the order of the lines does not matter), k = len(x). Resample i takes
    x[⌊u·k⌋] for the k numbers u of row i of np.random.default_rng(seed).random((N_BOOT, k))
    (drawn in blocks of rows, the same stream); the ends are the (100 ∓ LEVEL) / 200 quantiles
    (np.quantile, linear) of the N_BOOT resample means, kept within [min x, max x] (where every
    resample mean lies) and widened to `mean` (x's, as _stats gives it) against rounding. One
    value, or equal values: (that value, that value)."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    k = len(x)
    e = int(np.frexp(np.max(np.abs(x)))[1])    # |x| < 2**e, so x / 2**e is exact, in (-1, 1)
    y = np.ldexp(x, -e)
    rng = np.random.default_rng(seed)
    means = np.empty(N_BOOT)
    rows = max(1, _BLOCK // k)
    for start in range(0, N_BOOT, rows):
        u = rng.random((min(rows, N_BOOT - start), k))
        means[start:start + len(u)] = y[(u * k).astype(np.intp)].mean(axis=1)
    low, high = np.ldexp(np.quantile(means, [(100 - LEVEL) / 200, (100 + LEVEL) / 200]), e)
    low, high = max(low, x[0]), min(high, x[-1])
    return float(min(low, mean)), float(max(high, mean))


def summarize(records, by=None, metric=None, interval=False):
    """Rows {"group": {name: value}, "metric", "mean", "std", "min", "max", "count"} -> list.

    by: config names to group on (None: every name but "seed"; [] one group of everything);
    metric: one metric name, or None for all of them; interval: True adds "ci_low" and
    "ci_high" to each row (_interval)."""
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
    interval = checks.flag("interval", interval)
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
            if interval:
                rows[-1]["ci_low"], rows[-1]["ci_high"] = _interval(x, mean)
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


def bootstrap_difference(a, b, paired=False, n_boot=10_000, level=0.95, seed=0):
    """A percentile bootstrap interval for mean(a) − mean(b) -> (difference, low, high).

    a, b: each setting's value per seed (at least 2 each). paired: a[i] and b[i] share seed i
    (the same data and order: the seeds are resampled together, so the interval is of the mean
    per-seed difference); else each setting's seeds are resampled on their own. n_boot resamples
    from np.random.default_rng(seed); level in (0, 1). Every value the same gives a zero-width
    interval."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or len(a) < 2 or len(b) < 2 or not (np.all(np.isfinite(a))
                                                                     and np.all(np.isfinite(b))):
        raise ValueError(f"a and b must be lists of at least 2 finite numbers, got shapes {a.shape} and {b.shape}")
    if paired and len(a) != len(b):
        raise ValueError(f"paired values need one of each per seed, got {len(a)} and {len(b)}")
    if not (isinstance(n_boot, int) and 100 <= n_boot <= 10 ** 6):
        raise ValueError(f"n_boot must be an int in [100, 1e6], got {n_boot!r:.40}")
    if not (isinstance(level, float) and 0 < level < 1):
        raise ValueError(f"level must be a float in (0, 1), got {level!r:.40}")
    rng = np.random.default_rng(seed)
    if paired:
        d = a - b
        stats = d[rng.integers(0, len(d), (n_boot, len(d)))].mean(axis=1)
        diff = float(d.mean())
    else:
        stats = (a[rng.integers(0, len(a), (n_boot, len(a)))].mean(axis=1)
                 - b[rng.integers(0, len(b), (n_boot, len(b)))].mean(axis=1))
        diff = float(a.mean() - b.mean())
    low, high = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return diff, float(min(low, diff)), float(max(high, diff))
