"""A sweep's results file: one JSON record per line, appended as each run finishes.

    {"key", "config", "seed", "status": "ok", "metrics": {name: number}, "seconds"}
    {"key", "config", "seed", "status": "error", "error": {"type", "message"}, "seconds"}

and, written by gleam.sweep.run_one, "provenance": {"python", "numpy", "gleam" (its installed
version, or None), "host" (platform.node()), "started" (the run's start, UTC, ISO 8601)} where
it ran, to which run_sweep adds "commit" (the git HEAD of the working directory's checkout) and
"dirty" (whether a tracked file differed from it), both None without git or a checkout. Records
written before provenance have "versions" ({"numpy", "python"}) or nothing; they read, resume and
summarise as the others. A run trained to a criterion (gleam.labs.stepped) adds "curve"
([[updates, validation score], ...], updates increasing) and "weights" ({parameter name: nested
lists of finite numbers}).

key = gleam.sweep.grid.config_key(config); seed = config["seed"] (None without one); metrics
are finite numbers (ints stay ints). Lines are in completion order, so nothing here depends on
their order but one rule: where a key has several "ok" records, the last one counts.

Only whole lines count: a line is whole when its newline was written. A process killed in the
middle of a write leaves a last line without one; reading ignores it and `trim_partial_line`
cuts it off before the next run appends. A whole line that is not a record is an error, never
skipped: it is data that someone else wrote or damaged.
"""
import datetime
import json
import math
import numbers
import os
import sys

import numpy as np

__all__ = ["read_results", "trim_partial_line", "check_record", "check_metrics", "check_extras",
           "STATUSES", "EXTRAS"]

STATUSES = ("ok", "error")
EXTRAS = ("curve", "weights")
# provenance fields and their types (a field may be absent; one not named here is kept unread)
_PROVENANCE = {"python": (str,), "numpy": (str,), "gleam": (str, type(None)), "host": (str,),
               "started": (str,), "commit": (str, type(None)), "dirty": (bool, type(None))}
_FLOAT_MAX = sys.float_info.max


def _path(path):
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise ValueError(f"path must be a file path (str or os.PathLike), got {path!r:.80}")
    return os.fspath(path)


def check_metrics(name, metrics):
    """metrics as a dict of str -> int or float, or ValueError unless every value is a finite
    real number (not a bool); NumPy scalars become Python numbers."""
    if not isinstance(metrics, dict):
        raise ValueError(f"{name} must be a dict of metric names to numbers, got "
                         f"{type(metrics).__name__}")
    out = {}
    for k, v in metrics.items():
        if not isinstance(k, str) or not k:
            raise ValueError(f"{name} names must be non-empty strings, got {k!r:.80}")
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
            raise ValueError(f"{name}[{k!r}] must be a finite number, got {v!r:.80}")
        if isinstance(v, numbers.Integral) and abs(int(v)) <= _FLOAT_MAX:
            out[k] = int(v)                 # an int stays one, if a float can hold its size
            continue
        if isinstance(v, numbers.Integral):
            raise ValueError(f"{name}[{k!r}] must be a finite number, got an integer of "
                             f"{int(v).bit_length()} bits")
        if not math.isfinite(v):
            raise ValueError(f"{name}[{k!r}] must be a finite number, got {v!r}")
        out[k] = float(v)
    return out


def check_extras(name, extras):
    """A record's "curve" and "weights" (module docstring), or ValueError."""
    curve = extras.get("curve")
    if curve is not None:
        ok = isinstance(curve, list) and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) and not isinstance(p[0], bool)
            and isinstance(p[1], numbers.Real) and math.isfinite(p[1]) for p in curve)
        if not ok or any(a[0] >= b[0] for a, b in zip(curve, curve[1:])):
            raise ValueError(f"{name}['curve'] must be a list of [updates, score] pairs, updates "
                             f"increasing, got {curve!r:.80}")
    weights = extras.get("weights")
    if weights is not None:
        if not isinstance(weights, dict):
            raise ValueError(f"{name}['weights'] must be a dict of arrays as nested lists")
        for k, v in weights.items():
            try:
                a = np.asarray(v, dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"{name}['weights'][{k!r:.40}] is not an array of numbers") from None
            if not isinstance(k, str) or a.dtype == object or not np.all(np.isfinite(a)):
                raise ValueError(f"{name}['weights'][{k!r:.40}] must be an array of finite numbers")
    return extras


def _check_provenance(name, provenance):
    """A record's "provenance" (module docstring), or ValueError."""
    if not (isinstance(provenance, dict) and all(isinstance(k, str) for k in provenance)):
        raise ValueError(f"{name} must be a dict with str keys, got {provenance!r:.80}")
    for k, types in _PROVENANCE.items():
        if k in provenance and not isinstance(provenance[k], types):
            kinds = " or ".join("None" if t is type(None) else t.__name__ for t in types)
            raise ValueError(f"{name}[{k!r}] must be {kinds}, got {provenance[k]!r:.80}")
    if "started" in provenance:
        try:
            datetime.datetime.fromisoformat(provenance["started"])
        except ValueError:
            raise ValueError(f"{name}['started'] must be an ISO 8601 time, got "
                             f"{provenance['started']!r:.80}") from None
    return provenance


def check_record(name, record):
    """record, or ValueError unless it has the shape above (status "ok" or "error")."""
    if not isinstance(record, dict):
        raise ValueError(f"{name} must be a dict (a results record), got {type(record).__name__}")
    for field in ("key", "config", "status"):
        if field not in record:
            raise ValueError(f"{name} has no {field!r}: not a results record")
    if not isinstance(record["key"], str):
        raise ValueError(f"{name}['key'] must be a str, got {record['key']!r:.80}")
    if not (isinstance(record["config"], dict) and all(isinstance(k, str)
                                                       for k in record["config"])):
        raise ValueError(f"{name}['config'] must be a dict with str keys, got "
                         f"{record['config']!r:.80}")
    if not (isinstance(record["status"], str) and record["status"] in STATUSES):
        raise ValueError(f"{name}['status'] must be 'ok' or 'error', got {record['status']!r:.80}")
    if record["status"] == "ok" and "metrics" not in record:
        raise ValueError(f"{name} has status 'ok' but no 'metrics'")
    if "metrics" in record:
        check_metrics(f"{name}['metrics']", record["metrics"])
    check_extras(name, record)
    if "provenance" in record:
        _check_provenance(f"{name}['provenance']", record["provenance"])
    return record


def read_results(path):
    """The whole-line records of a results file, in file order -> list of dicts.

    Blank lines are skipped; a last line without its newline is ignored (see above)."""
    path = _path(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"path = {path!r} cannot be read: {e.strerror or e}") from None
    whole = data[: data.rfind(b"\n") + 1]
    records = []
    for i, raw in enumerate(whole.split(b"\n")[:-1], start=1):
        if not raw.strip():
            continue
        where = f"line {i} of path {path!r}"
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ValueError(f"{where} is not JSON: {raw[:80]!r}") from None
        records.append(check_record(where, record))
    return records


def trim_partial_line(path):
    """Cut a last line that has no newline off the file -> the bytes cut (0 if none; a file
    that does not exist has none)."""
    path = _path(path)
    try:
        with open(path, "rb+") as f:
            data = f.read()
            keep = data.rfind(b"\n") + 1
            if keep < len(data):
                f.truncate(keep)
            return len(data) - keep
    except FileNotFoundError:
        return 0
    except OSError as e:
        raise ValueError(f"path = {path!r} cannot be trimmed: {e.strerror or e}") from None
