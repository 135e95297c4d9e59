"""A sweep's plan, before anything runs: its configs, their keys, and which are done already.

plan_sweep(spec, out) expands the spec's grid (gleam.sweep.grid) and reads the keys that have an
"ok" record in `out` when that file exists (gleam.sweep.results.read_results, which ignores a
half-written last line); it writes nothing and calls no run function. run_sweep runs the configs
it leaves to run, so a dry run (`python -m gleam.sweep SPEC.json --dry-run`) counts what the
same command without --dry-run would run. format_plan prints a plan.
"""
import json
import os
from dataclasses import dataclass

from gleam.sweep.grid import Spec, config_key, expand_grid, load_spec
from gleam.sweep.results import read_results

__all__ = ["SweepPlan", "plan_sweep", "format_plan", "check_out", "PLAN_LINES"]

PLAN_LINES = 50         # configs format_plan lists, at most


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep of `spec` into `out` would do."""
    spec: Spec
    configs: list       # every config, in grid order
    keys: list          # config_key of each config
    done: frozenset     # the keys of `configs` that already have an "ok" record in `out`
    out: str | None     # the results file (None: no file given)

    @property
    def todo(self):
        """The configs that would run (those without an "ok" record), in grid order."""
        return [c for c, k in zip(self.configs, self.keys) if k not in self.done]


def check_out(out):
    """out as a str, or ValueError unless it is a file path in an existing directory."""
    if not isinstance(out, (str, os.PathLike)) or isinstance(out, bytes):
        raise ValueError(f"out must be a file path (str or os.PathLike), got {out!r:.80}")
    out = os.fspath(out)
    if not out or os.path.isdir(out) or not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise ValueError(f"out = {out!r} must be a file in an existing directory")
    return out


def plan_sweep(spec, out=None):
    """The plan of a sweep of `spec` (a path, dict or Spec) into `out` (a path, or None for no
    file) -> SweepPlan."""
    spec = load_spec(spec)
    out = None if out is None else check_out(out)
    configs = expand_grid(spec.grid, spec.fixed)
    keys = [config_key(c) for c in configs]
    done = frozenset()
    if out is not None and os.path.exists(out):
        done = frozenset(r["key"] for r in read_results(out) if r["status"] == "ok") & set(keys)
    return SweepPlan(spec, configs, keys, done, out)


def format_plan(plan, limit=PLAN_LINES):
    """The plan as text: a line per config (its key, "done" or "to run", and its value of each
    grid name with more than one value, as JSON), the first `limit` of them then "… N more",
    and a last line of counts."""
    if not isinstance(plan, SweepPlan):
        raise ValueError(f"plan must be a SweepPlan (plan_sweep), got {type(plan).__name__}")
    if not (isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0):
        raise ValueError(f"limit must be an integer >= 0, got {limit!r:.40}")
    varying = [k for k, values in plan.spec.grid.items() if len(values) > 1]
    lines = []
    for config, key in zip(plan.configs[:limit], plan.keys):
        values = " ".join(f"{k}={json.dumps(config[k], sort_keys=True)}" for k in varying)
        lines.append(f"{key}  {'done  ' if key in plan.done else 'to run'}  {values}".rstrip())
    if len(plan.configs) > limit:
        lines.append(f"… {len(plan.configs) - limit} more")
    total, done = len(plan.configs), len(plan.done)
    if plan.out is None:
        where = "no results file given"
    elif os.path.exists(plan.out):
        where = f"{done} already ok in {plan.out}"
    else:
        where = f"{plan.out} does not exist yet"
    lines.append(f"{total} runs: {where}; {total - done} would run "
                 f"(dry run: nothing ran, nothing was written)")
    return "\n".join(lines)
