"""A sweep's spec, its grid of configs, and the key of each run.

A spec is JSON data:  {"run": "module:function", "grid": {name: [values...]}, "fixed": {...}}.
    run    the function each run calls with its config (default DEFAULT_RUN)
    grid   each name maps to a non-empty list of distinct values
    fixed  values every run shares; a name may not be in both grid and fixed

Order: the grid is the Cartesian product of its lists, names in the order the spec gives them,
the LAST name varying fastest (itertools.product), each list in its own order:
    {"cell": ["gru_torch", "lstm"], "seed": [0, 1]}
    -> cell=gru_torch seed=0, cell=gru_torch seed=1, cell=lstm seed=0, cell=lstm seed=1
A run's config is fixed ∪ one grid point (a plain dict).

Key: the first 16 hex digits of SHA-256 over the config's canonical JSON (sorted keys, no
spaces, ASCII): the same config always has the same key, whatever the order of its names or of
the grid, and a change to any value changes it. JSON tells 1 from 1.0 and true from 1, so they
are different configs here too. The run function is not part of the key: a new run function
belongs in a new results file.
"""
import hashlib
import itertools
import json
import math
import os
import re
import sys
from dataclasses import dataclass

__all__ = ["Spec", "load_spec", "expand_grid", "config_key", "canonical_json", "DEFAULT_RUN",
           "MAX_RUNS", "RUN_PATH", "RUN_ALIASES", "current_run"]

DEFAULT_RUN = "gleam.sweep.runs:train_task"
# the run paths of gleam's flat layout (before its packages), still read: a spec written then runs
# the same function, and its results file resumes under the same keys
RUN_ALIASES = {
    "gleam.sweep_runs:train_task": DEFAULT_RUN,
    "gleam.sweep_tasks:train_on_split": "gleam.sweep.split_runs:train_on_split",
    "gleam.sweep_memory:train_cue_delay": "gleam.labs.memory.run:train_cue_delay",
    "gleam.extrap_brackets:train_brackets": "gleam.labs.extrapolation.brackets:train_brackets",
    "gleam.extrap_counting:train_counting": "gleam.labs.extrapolation.counting:train_counting",
    "gleam.extrap_sums:train_sums": "gleam.labs.extrapolation.sums:train_sums",
    "gleam.extrap_analysis:analyse_sums": "gleam.labs.extrapolation.analysis:analyse_sums",
}
MAX_RUNS = 10 ** 6      # runs in one sweep: far above a laptop's day, far below a typo's 10**20
_MAX_DEPTH = 16         # nesting of lists and dicts inside a config value
RUN_PATH = re.compile(  # a dotted module, a colon, a name
    r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*", re.ASCII)


@dataclass(frozen=True)
class Spec:
    run: str        # "module:function", called as function(config) -> dict of metrics
    grid: dict      # name -> non-empty list of distinct values, in the order given
    fixed: dict     # name -> value shared by every run


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _check_json(name, value, depth=0):
    """value, or ValueError unless it is JSON data: str, int, finite float, bool, None, a list
    of JSON data or a dict with str keys of JSON data (nested at most _MAX_DEPTH deep)."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"{name} is nested deeper than {_MAX_DEPTH} levels")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > sys.float_info.max:
        raise ValueError(f"{name} must be JSON data (an integer within the float range), "
                         f"got one of {value.bit_length()} bits")
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be JSON data (a finite number), got {value!r}")
        return value
    if isinstance(value, list):
        for i, v in enumerate(value):
            _check_json(f"{name}[{i}]", v, depth + 1)
        return value
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"{name} must be JSON data: dict keys are strings, got {k!r}")
            _check_json(f"{name}[{k!r}]", v, depth + 1)
        return value
    raise ValueError(f"{name} must be JSON data (str, int, finite float, bool, None, list or "
                     f"dict), got {_short(value)}")


def _check_names(name, value):
    if not isinstance(value, dict):
        raise ValueError(f"{name} must be a dict of names to values, got {_short(value)}")
    for k in value:
        if not isinstance(k, str) or not k:
            raise ValueError(f"{name} names must be non-empty strings, got {k!r}")
    return value


def canonical_json(config):
    """The config as one canonical JSON text: sorted keys, no spaces, ASCII only."""
    _check_names("config", config)
    _check_json("config", config)
    return json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def current_run(run):
    """`run` under its current path (an old path of RUN_ALIASES -> its new one; others unchanged)."""
    return RUN_ALIASES.get(run, run) if isinstance(run, str) else run


def config_key(config):
    """The run's key: SHA-256 of canonical_json(config), its first 16 hex digits."""
    return hashlib.sha256(canonical_json(config).encode("ascii")).hexdigest()[:16]


def expand_grid(grid, fixed=None):
    """Every run's config, in grid order (the last name fastest) -> list of dicts."""
    _check_names("grid", grid)
    fixed = {} if fixed is None else _check_names("fixed", fixed)
    _check_json("fixed", fixed)
    both = [k for k in grid if k in fixed]
    if both:
        raise ValueError(f"grid and fixed both set {both[0]!r}: a name belongs to one of them")
    for k, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ValueError(f"grid[{k!r}] must be a non-empty list of values, got "
                             f"{_short(values)}")
        _check_json(f"grid[{k!r}]", values)
        seen = set()
        for v in values:
            text = json.dumps(v, sort_keys=True)
            if text in seen:
                raise ValueError(f"grid[{k!r}] lists {v!r} twice")
            seen.add(text)
    runs = math.prod(len(v) for v in grid.values())
    if runs > MAX_RUNS:
        raise ValueError(f"grid makes {runs:,} runs; a sweep holds at most {MAX_RUNS:,}")
    names = list(grid)
    return [{**fixed, **dict(zip(names, point))}
            for point in itertools.product(*(grid[k] for k in names))]


def load_spec(spec):
    """A Spec from a JSON file's path, a dict of the same shape, or a Spec (checked again)."""
    if isinstance(spec, Spec):
        spec = {"run": spec.run, "grid": spec.grid, "fixed": spec.fixed}
    elif isinstance(spec, (str, os.PathLike)):
        try:
            with open(spec, encoding="utf-8") as f:
                spec = json.load(f)
        except OSError as e:
            raise ValueError(f"spec = {os.fspath(spec)!r} cannot be read: "
                             f"{e.strerror or e}") from None
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
            raise ValueError(f"spec = {os.fspath(spec)!r} is not JSON: {e}") from None
    if not isinstance(spec, dict):
        raise ValueError(f"spec must be a JSON file's path, a dict or a Spec, got {_short(spec)}")
    unknown = sorted(set(spec) - {"run", "grid", "fixed"}, key=str)
    if unknown:
        raise ValueError(f"spec has unknown keys {unknown}: a spec holds run, grid and fixed")
    run = spec.get("run", DEFAULT_RUN)
    if not (isinstance(run, str) and RUN_PATH.fullmatch(run)):
        raise ValueError(f"run must be a 'module:function' path, got {_short(run)}")
    run = current_run(run)
    grid = spec.get("grid", {})
    fixed = spec.get("fixed", {})
    expand_grid(grid, fixed)            # every check, once, here
    return Spec(run, grid, fixed)
