"""summarize's rows (gleam.sweep.summary) as text, in one of FORMATS.

    table     summary.format_table: group names, metric, mean, std, min, max, count (aligned)
    csv       a header line, then a line per row (the csv module, "\\n" line ends): the group
              names, metric, mean, std, min, max, count, then ci_low and ci_high when the rows
              have them; numbers as Python writes them (they read back exactly), an empty
              field for a std of None, a group value as itself if a str, else as its JSON
    json      the rows as a JSON list, as summarize returns them (a std of None as null)
    markdown  a table of the csv's columns, numbers to 6 significant digits, the interval as
              one column "95% CI" ([ci_low, ci_high]); "|" in a value is escaped
"""
import csv
import io
import json

from gleam.sweep.summary import LEVEL, STAT_COLUMNS, format_table

__all__ = ["format_rows", "FORMATS"]

FORMATS = ("table", "csv", "json", "markdown")
_INTERVAL = ("ci_low", "ci_high")


def _text(value):
    """A group value in CSV: a str as itself, anything else as its JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _number(value):
    return "" if value is None else repr(value)


def _short(value):
    return "-" if value is None else f"{value:.6g}" if isinstance(value, float) else str(value)


def _csv(rows, by, interval):
    f = io.StringIO()
    w = csv.writer(f, lineterminator="\n")
    w.writerow(by + ["metric", *STAT_COLUMNS, *(_INTERVAL if interval else ())])
    for r in rows:
        w.writerow([_text(r["group"].get(k)) for k in by] + [r["metric"]]
                   + [_number(r[c]) for c in STAT_COLUMNS + (_INTERVAL if interval else ())])
    return f.getvalue().rstrip("\n")


def _markdown(rows, by, interval):
    def cell(text):
        return text.replace("|", "\\|")
    header = by + ["metric", *STAT_COLUMNS] + ([f"{LEVEL}% CI"] if interval else [])
    lines = ["| " + " | ".join(map(cell, header)) + " |",
             "|" + "|".join(["---"] * (len(by) + 1) + ["---:"] * (len(header) - len(by) - 1)) + "|"]
    for r in rows:
        cells = [_text(r["group"].get(k)) for k in by] + [r["metric"]]
        cells += [_short(r[c]) for c in STAT_COLUMNS]
        if interval:
            cells.append(f"[{_short(r['ci_low'])}, {_short(r['ci_high'])}]")
        lines.append("| " + " | ".join(map(cell, cells)) + " |")
    return "\n".join(lines)


def format_rows(rows, fmt="table"):
    """summarize's rows as text in the format `fmt` (module docstring) -> str."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, got {fmt!r:.40}")
    if fmt == "table":
        return format_table(rows)
    if not isinstance(rows, (list, tuple)) or not all(
            isinstance(r, dict) and {"group", "metric", *STAT_COLUMNS} <= set(r)
            and isinstance(r["group"], dict) for r in rows):
        raise ValueError("rows must be a list of summarize's rows (dicts with group, metric, "
                         + ", ".join(STAT_COLUMNS) + ")")
    if fmt == "json":
        return json.dumps(list(rows), indent=1, allow_nan=False)
    if fmt == "markdown" and not rows:
        return "no ok runs to summarise"
    by = list(rows[0]["group"]) if rows else []
    interval = bool(rows) and all(set(_INTERVAL) <= set(r) for r in rows)
    return (_csv if fmt == "csv" else _markdown)(rows, by, interval)
