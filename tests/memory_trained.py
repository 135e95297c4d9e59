"""What the memory lab's trained-model tables must show, worked out from the build's sweep
records (gleam.pretrained) alone: the app tests and the browser tests compare the page with it."""
import statistics

from content import fmt_fixed, fmt_sci
from gleam import pretrained
from gleam.labs.memory import run as sweep_memory

SPECS = pretrained.SPECS["memory"]


def seeds(records, **where):
    return [r["metrics"] for r in sorted(records, key=lambda r: r["config"]["seed"])
            if all(r["config"][k] == v for k, v in where.items())]


def hold_at(spec):
    """The longest probe delay the task's delays reach (a fixed delay: itself)."""
    delay = spec["fixed"]["delay"]
    top = delay[1] if isinstance(delay, list) else delay
    return max(d for d in spec["fixed"]["probe_delays"] if d <= top)


def per_seed(ms, key, decimals=2):
    return ", ".join(fmt_fixed(m[key], decimals) for m in ms)


def mean_sd(ms, key, decimals):
    xs = [m[key] for m in ms]
    return f"{fmt_fixed(statistics.mean(xs), decimals)} ± {fmt_fixed(statistics.stdev(xs), decimals)}"


def horizons(ms, key):
    return ", ".join("none" if m[key] == -1 else str(m[key]) for m in ms)


def held(ms, at):
    return f"{sum(m['retention_max'] >= at for m in ms)} of {len(ms)}"


def expected():
    runs, out = pretrained.results("memory"), {}
    at = hold_at(SPECS["cells"])
    for cell in SPECS["cells"]["grid"]["cell"]:
        ms, k = seeds(runs["cells"], cell=cell), f"memory.trained.cells.{cell}"
        out.update({f"{k}.n": str(ms[0]["n"]), f"{k}.params": str(ms[0]["n_params"]),
                    f"{k}.test": mean_sd(ms, "test_accuracy", 3), f"{k}.needs_cue": per_seed(ms, "needs_cue_accuracy"),
                    f"{k}.held": held(ms, at), f"{k}.horizon": horizons(ms, "retention_max"),
                    f"{k}.p50": horizons(ms, "retention_p50"), f"{k}.p95": horizons(ms, "retention_p95"),
                    f"{k}.swap": per_seed(ms, "swap_swapped"), f"{k}.erasure": per_seed(ms, "erasure_drop"),
                    f"{k}.window": mean_sd(ms, "window_needs_cue_accuracy", 2),
                    f"{k}.no_memory": mean_sd(ms, "no_memory_accuracy", 2),
                    f"{k}.revision": horizons(ms, "revision_latency")})
        amps = sweep_memory.normalized(SPECS["cells"]["fixed"])["probe_amplitudes"]
        for a in amps:
            out[f"{k}.interference.{a:g}"] = per_seed(ms, f"interference_{at}_{a:g}")
    last = SPECS["forget_bias"]["fixed"]["epochs"]
    for bias in SPECS["forget_bias"]["grid"]["forget_bias"]:
        ms, k = seeds(runs["forget_bias"], forget_bias=bias), f"memory.trained.bias.{fmt_fixed(bias, 0)}"
        out.update({f"{k}.needs_cue": per_seed(ms, "needs_cue_accuracy"), f"{k}.held": held(ms, at),
                    f"{k}.grad_first": fmt_sci(statistics.mean(m["cue_grad_epoch_1"] for m in ms), text=True),
                    f"{k}.grad_last": fmt_sci(statistics.mean(m[f"cue_grad_epoch_{last}"] for m in ms), text=True)})
    at = hold_at(SPECS["horizons"])
    for cell in SPECS["horizons"]["grid"]["cell"]:
        for kk in SPECS["horizons"]["grid"]["truncate"]:
            ms, k = seeds(runs["horizons"], cell=cell, truncate=kk), f"memory.trained.horizons.{cell}.{kk}"
            out.update({f"{k}.needs_cue": per_seed(ms, "needs_cue_accuracy"), f"{k}.held": held(ms, at)})
    return out
