"""The memory lab: the carry challenge's presets and table; the trained models' results.

memory_lab_trained reads the pretrained sweeps (gleam.pretrained, which runs them once per version
of the code), so it is not part of `examples()`: the JSON document stays quick to make.
"""
import copy
import dataclasses
import functools
import math
import statistics


from gleam.labs.memory import carry as memory
from gleam.examples.data import plain, seed_stats

__all__ = ['memory_lab_carry_challenge', 'memory_lab_trained']


@functools.lru_cache(maxsize=None)
def _carry_tables():
    return {name: memory.run_preset(name) for name in memory.PRESETS}


def memory_lab_carry_challenge():
    presets = {name: dataclasses.asdict(p) for name, p in memory.PRESETS.items()}
    return plain({"trials": 5000, "seed": 46, "presets": presets, "rows": copy.deepcopy(_carry_tables())})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"memory_lab_carry_challenge": memory_lab_carry_challenge()}


# ---- trained models (the pretrained sweeps of gleam.pretrained) ----------------------------------
# A run "holds the cue" through a delay Δ when the acceptance test's max horizon reaches Δ: R
# stays above chance by 3 binomial standard errors there (gleam.labs.memory.acceptance.horizons, z = 3). The
# long-delay task's Δ is 32, the longest probe within its delays (20 to 40); the horizons
# experiment's is 16, its fixed delay.
HOLD_AT = {"cells": 32, "forget_bias": 32, "horizons": 16}
SHOWN_METRICS = ("n", "n_params", "test_accuracy", "test_needs_cue_accuracy", "needs_cue_accuracy",
                 "no_memory_accuracy", "retention_p50", "retention_p95", "retention_max", "swap_swapped", "erasure_drop",
                 "window_needs_cue_accuracy", "revision_latency", "cue_grad")


def _group(records, hold_at):
    """Per-seed metrics of one setting (records sorted by seed) -> stats, curves, hold count."""
    records = sorted(records, key=lambda r: r["config"]["seed"])
    m = [r["metrics"] for r in records]
    delays = sorted(int(k.rsplit("_", 1)[1]) for k in m[0] if k.startswith("retention_at_"))
    epochs = sorted(int(k.rsplit("_", 1)[1]) for k in m[0] if k.startswith("cue_grad_epoch_"))
    return {"seeds": [r["config"]["seed"] for r in records],
            "metrics": {k: seed_stats([x[k] for x in m]) for k in SHOWN_METRICS},
            "retention": {"delays": delays,
                          "mean": [statistics.mean(x[f"retention_at_{d}"] for x in m) for d in delays],
                          "min": [float(min(x[f"retention_at_{d}"] for x in m)) for d in delays],
                          "max": [float(max(x[f"retention_at_{d}"] for x in m)) for d in delays],
                          "per_seed": [[x[f"retention_at_{d}"] for d in delays] for x in m]},
            "cue_grad_by_epoch": {"epochs": epochs,
                                  "mean": [statistics.mean(x[f"cue_grad_epoch_{e}"] for x in m) for e in epochs],
                                  "per_seed": [[x[f"cue_grad_epoch_{e}"] for e in epochs] for x in m]},
            "held": sum(x["retention_max"] >= hold_at for x in m), "runs": len(m),
            "not_held": sum(x["retention_max"] < hold_at for x in m),
            "revising": sum(x["revision_latency"] >= 0 for x in m),
            # the state swap and the cue erasure among the seeds that hold the cue and those that do not
            "swap_held": [x["swap_swapped"] for x in m if x["retention_max"] >= hold_at],
            "swap_not_held": [x["swap_swapped"] for x in m if x["retention_max"] < hold_at],
            "erasure_held": [x["erasure_drop"] for x in m if x["retention_max"] >= hold_at],
            "interference": _interference(records, hold_at)}


def _interference(records, count):
    """'?' accuracy at `count` distractors per amplitude (a feature model's runs), per seed and
    over the seeds that hold the cue; None for a token model."""
    from gleam.labs.memory.run import normalized
    c = normalized(records[0]["config"])
    amps = c["probe_amplitudes"]
    if c["amplitude"] is None:
        return None
    m = [r["metrics"] for r in records]
    per_seed = [[x[f"interference_{count}_{a:g}"] for a in amps] for x in m]
    held = [row for row, x in zip(per_seed, m) if x["retention_max"] >= count]
    return {"count": count, "amplitudes": amps, "trained_at": c["amplitude"], "per_seed": per_seed,
            "mean": [statistics.mean(col) for col in zip(*per_seed)],
            "min": [float(min(col)) for col in zip(*per_seed)], "max": [float(max(col)) for col in zip(*per_seed)],
            "held_min": [float(min(col)) for col in zip(*held)] if held else None,
            "held_max": [float(max(col)) for col in zip(*held)] if held else None}


def _by(records, name):
    out = {}
    for r in records:
        out.setdefault(r["config"][name], []).append(r)
    return out


def _increasing_every_seed(groups, order, metric):
    """Seeds at which `metric` strictly increases along the settings in `order`."""
    per = [{r["config"]["seed"]: r["metrics"][metric] for r in groups[k]} for k in order]
    seeds = sorted(set.intersection(*(set(p) for p in per)))
    return sum(all(a[s] < b[s] for a, b in zip(per, per[1:])) for s in seeds)


def _per_seed(records, name, value):
    """The metrics of the runs with config[name] == value, in seed order."""
    return [r["metrics"] for r in sorted(records, key=lambda r: r["config"]["seed"]) if r["config"][name] == value]


@functools.lru_cache(maxsize=None)
def _trained():
    from gleam import pretrained
    runs = pretrained.results("memory")
    specs = pretrained.SPECS["memory"]
    cells = {cell: _group(rs, HOLD_AT["cells"]) for cell, rs in _by(runs["cells"], "cell").items()}
    biases = _by(runs["forget_bias"], "forget_bias")
    order = sorted(biases)
    bias = {str(b): _group(biases[b], HOLD_AT["forget_bias"]) for b in order}
    horizons = {}
    for cell, rs in _by(runs["horizons"], "cell").items():
        ks = _by(rs, "truncate")
        horizons[cell] = {str(k): _group(ks[k], HOLD_AT["horizons"]) for k in sorted(ks)}
    longest = {cell: max(int(k) for k in h) for cell, h in horizons.items()}
    seq_len = specs["horizons"]["fixed"]["delay"] + 2
    claims = {
        # per seed (a seed fixes the examples and the order for every cell): '?' accuracy of the
        # LSTM against each other cell
        "lstm_above": {other: sum(a > b for a, b in zip(cells["lstm"]["metrics"]["needs_cue_accuracy"]["values"],
                                                       cells[other]["metrics"]["needs_cue_accuracy"]["values"]))
                       for other in ("elman", "gru_torch")},
        "grad_increases_with_bias": _increasing_every_seed(biases, order, "cue_grad_epoch_1"),
        # seeds at which every positive bias lets more gradient reach the cue than bias 0 does
        "grad_above_first_bias": sum(
            all(o[s] > z for o in per[1:]) for per in [[{r["config"]["seed"]: r["metrics"]["cue_grad_epoch_1"]
                                                         for r in biases[b]} for b in order]]
            for s, z in per[0].items()),
        "held_increases_with_bias": all(bias[str(a)]["held"] < bias[str(b)]["held"] for a, b in zip(order, order[1:])),
        # a horizon of at least the sequence's length is full backpropagation: the same runs
        "full_horizon_identical": {cell: _per_seed(rs, "truncate", seq_len) == _per_seed(rs, "truncate", longest[cell])
                                   for cell, rs in _by(runs["horizons"], "cell").items()},
    }
    # the forget gate a bias opens at the start (σ(b), b_hh's block is 0) and the half-life of a
    # carry that size, as in the carry challenge
    gates = {str(b): {"gate": 1 / (1 + math.exp(-b)), "half_life": math.log(0.5) / math.log(1 / (1 + math.exp(-b)))}
             for b in order}
    distinct = {r["key"]: r["metrics"] for rs in runs.values() for r in rs}     # each trained model once
    claims["revising"] = sum(m["revision_latency"] >= 0 for m in distinct.values())
    claims["models"] = len(distinct)
    claims["revising_and_holding"] = sum(m["revision_latency"] >= 0 and m["retention_max"] >= HOLD_AT["cells"]
                                         for m in distinct.values())
    claims["no_memory_min"] = min(m["no_memory_accuracy"] for m in distinct.values())
    claims["window_needs_cue_max"] = max(m["window_needs_cue_accuracy"] for m in distinct.values())
    claims["window_needs_cue_min"] = min(m["window_needs_cue_accuracy"] for m in distinct.values())
    from gleam.labs.memory.run import WINDOW
    return plain({"task": specs["cells"]["fixed"], "forget_gates": gates, "window": WINDOW,
                  "biases": order, "truncates": specs["horizons"]["grid"]["truncate"], "seeds": specs["cells"]["grid"]["seed"],
                  "hold_at": HOLD_AT, "sequence_length": seq_len, "horizons_delay": seq_len - 2, "cue_distance": seq_len - 1,
                  "specs": specs, "architectures": cells, "forget_bias": bias, "horizons": horizons,
                  "claims": claims})


def memory_lab_trained():
    """The pretrained sweeps (gleam.pretrained) summarised: per setting the mean, sample std, min,
    max and per-seed values of each shown metric, R(Δ) and ∂L/∂x_0 per epoch, and how many seeds
    hold the cue (HOLD_AT); the claims the chapter's prose tests (counts and comparisons)."""
    return copy.deepcopy(_trained())
