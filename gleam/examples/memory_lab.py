"""The memory lab: the carry challenge's presets and table; the trained models' results.

memory_lab_trained reads the shipped records of the research runs (gleam.pretrained), so it is not
part of `examples()`: the JSON document stays quick to make.
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


# ---- trained models (the shipped records of gleam.pretrained) ------------------------------------
# The rules, fixed before the runs and applied to every experiment here:
# - A run has LEARNED when the smaller of its accuracy on the held-in test's '?' queries and on all
#   its queries reaches the spec's criterion (the metric `learned`, gleam.labs.stepped). Learned
#   k of n and the '?' accuracy lead every table: '!' queries need no memory, so overall accuracy
#   credits a model that never remembers with about ¾.
# - What describes a memory (retention horizons, state swap, cue erasure, interference, revision,
#   updates to the criterion) is summarised over the seeds that learned; the other seeds are listed
#   apart; a setting where no seed learned has no such summary (None): a failure to learn, not a
#   finding about memory.
# - A horizon at the largest probe delay is censored (the model may hold longer), and one of -1
#   (below the smallest probe delay) too: per-seed values are flagged, and no mean is given over a
#   censored value.
# - Settings are compared paired by seed (a seed fixes the examples and their order for every
#   cell, learning rate, bias and horizon) with a percentile bootstrap interval of the mean
#   difference (gleam.sweep.bootstrap_difference). A published direction "A above B" agrees when
#   the interval lies above 0, disagrees when it lies below, and is "no clear difference" when it
#   holds 0; a published "A close to B" agrees when the interval holds 0 (no difference these seeds
#   resolve, which is not a proof of none) and disagrees when it excludes 0. A comparison in which
#   neither setting learned in any seed is "not comparable".
CELL_ORDER = ("elman", "gru_torch", "lstm")
CELL_NAMES = {"elman": "Elman RNN", "gru_torch": "GRU", "lstm": "LSTM"}
CHANCE = 0.5                # on '?': the two cues are equally likely, and a probe pair's answers differ


def _interference_at(spec):
    """The delay at which interference is read: the longest probe delay within the task's delays."""
    delay = spec["fixed"]["delay"]
    top = delay[1] if isinstance(delay, list) else delay
    return max(d for d in spec["fixed"]["probe_delays"] if d <= top)


# What the published work found, in its own setting, and what this lab compares with it.
PUBLISHED = {
    "lstm_bridges": {
        "source": "Hochreiter & Schmidhuber 1997",
        "direction": "the LSTM learns to bridge long time lags where plain recurrent networks trained "
                     "by gradient (BPTT, RTRL, Elman nets) fail",
        "setting": "artificial tasks with minimal time lags from about a hundred to over a thousand "
                   "steps; the original LSTM, which had no forget gate",
        "compared": "LSTM − Elman RNN in the fraction of seeds that learned (the direction: above 0)",
        "caveat": "the lags here (the task's delays) are far shorter and this LSTM has a forget gate: the "
                  "direction is compared, not the scale"},
    "gru_lstm_close": {
        "source": "Chung et al. 2014; Jozefowicz, Zaremba & Sutskever 2015",
        "direction": "the GRU and the LSTM are close on most tasks",
        "setting": "polyphonic music and speech signal modelling (Chung et al.); arithmetic, XML and "
                   "language modelling and music, over thousands of architectures with their "
                   "hyper-parameters searched (Jozefowicz et al.)",
        "compared": "LSTM − GRU in the fraction of seeds that learned (close: the interval holds 0)",
        "caveat": "they compare the likelihoods and accuracies of tuned models; here the question is "
                  "whether a run learns at all, at each of two learning rates"},
    "forget_bias": {
        "source": "Jozefowicz, Zaremba & Sutskever 2015",
        "direction": "a forget-gate bias of 1 helps the LSTM (in their runs it closed the gap to the GRU)",
        "setting": "arithmetic, XML and language modelling and music; LSTMs with and without the bias",
        "compared": "bias 1 − bias 0 in the fraction of seeds that learned (the direction: above 0)",
        "caveat": "here one task, one size and one learning rate (the lab's setting)"},
    "truncation": {
        "source": "Williams & Peng 1990 (truncated backpropagation through time)",
        "direction": "backpropagation truncated at k steps computes no gradient across more than k "
                     "steps: a dependency longer than k is not taught by the gradient",
        "setting": "the algorithm, BPTT(h; h′), for on-line training of recurrent networks",
        "compared": "k that reaches the cue − k that does not, in the fraction of seeds that learned "
                    "(the direction: above 0); and whether any seed learned with the cue out of reach",
        "caveat": "the forward pass still runs over the whole sequence: only the gradient is cut"},
}


def _where(records, **where):
    """The records matching `where`, in seed order."""
    return sorted((r for r in records if all(r["config"][k] == v for k, v in where.items())),
                  key=lambda r: r["config"]["seed"])


def _censored(values, edge):
    """Horizons per seed: -1 (below the smallest probe delay) and `edge` (the largest) are censored."""
    values = [int(v) for v in values]
    low, high = sum(v < 0 for v in values), sum(v >= edge for v in values)
    return {"values": values, "edge": edge, "at_edge": high, "none": low,
            "stats": seed_stats(values) if values and not (low or high) else None}


def _memory(ms, count, delays, amplitudes):
    """The memory metrics of the runs that learned (metrics dicts), or None if none did."""
    if not ms:
        return None
    edge = delays[-1]
    return {"runs": len(ms),
            "retention_max": _censored([m["retention_max"] for m in ms], edge),
            "p50": _censored([m["retention_p50"] for m in ms], edge),
            "p95": _censored([m["retention_p95"] for m in ms], edge),
            # learned on count-like delays, some fail where the query comes sooner than trained
            "first_below_half": sum(m[f"retention_at_{delays[0]}"] < 0.5 for m in ms),
            "retention": [[m[f"retention_at_{d}"] for d in delays] for m in ms],
            "swap": seed_stats([m["swap_swapped"] for m in ms]),
            "erasure": seed_stats([m["erasure_drop"] for m in ms]),
            "probe_cue": seed_stats([m["needs_cue_accuracy"] for m in ms]),
            "revision": [int(m["revision_latency"]) for m in ms],
            "revising": sum(m["revision_latency"] >= 0 for m in ms),
            "interference": {"count": count, "amplitudes": amplitudes,
                             "accuracy": [seed_stats([m[f"interference_{count}_{a:g}"] for m in ms])
                                          for a in amplitudes]},
            "to_criterion": seed_stats([m["kept_updates"] for m in ms])}


def _setting(records, count):
    """One setting's runs (all its seeds) summarised by the rules above."""
    from gleam.labs.memory.run import normalized
    rs = sorted(records, key=lambda r: r["config"]["seed"])
    m = [r["metrics"] for r in rs]
    if len({(x["n"], x["n_params"]) for x in m}) != 1:
        raise ValueError("the seeds of one setting should share a width and a parameter count")
    c = normalized(rs[0]["config"])
    delays, amplitudes = list(c["probe_delays"]), list(c["probe_amplitudes"])
    seeds = [r["config"]["seed"] for r in rs]
    ok = [x for x in m if x["learned"]]
    apart = [(s, x) for s, x in zip(seeds, m) if not x["learned"]]
    with_epoch = [(s, x["cue_grad_epoch_1"]) for s, x in zip(seeds, m) if "cue_grad_epoch_1" in x]
    return {"seeds": seeds, "runs": len(m), "learned": len(ok), "learned_per_seed": [int(x["learned"]) for x in m],
            "learned_seeds": [s for s, x in zip(seeds, m) if x["learned"]], "other_seeds": [s for s, _ in apart],
            "width": m[0]["n"], "n_params": m[0]["n_params"], "params": c["params"], "lr": c["lr"],
            "cue": seed_stats([x["test_needs_cue_accuracy"] for x in m]),
            "test": seed_stats([x["test_accuracy"] for x in m]),
            "heldin": seed_stats([x["heldin_score"] for x in m]),
            "window": seed_stats([x["window_needs_cue_accuracy"] for x in m]),
            "no_memory": seed_stats([x["no_memory_accuracy"] for x in m]),
            "updates": seed_stats([x["updates"] for x in m]),
            "memory": _memory(ok, count, delays, amplitudes),
            # the seeds that did not learn, apart: their '?' accuracy and what the probes said of them
            "apart": {"seeds": [s for s, _ in apart], "cue": [x["test_needs_cue_accuracy"] for _, x in apart],
                      "retention_max": [int(x["retention_max"]) for _, x in apart],
                      "probe_edge": sum(x["retention_max"] >= delays[-1] for _, x in apart)},
            "curves": [r["curve"] for r in rs],
            # ‖∂L/∂x₀‖ after the first epoch, of the runs that finished one (a run that met the
            # criterion sooner stopped before it)
            "grad_epoch_1": {"seeds": [s for s, _ in with_epoch], "values": [g for _, g in with_epoch],
                             "mean": statistics.mean(g for _, g in with_epoch) if with_epoch else None}}


def _difference(a, b):
    """a − b (two settings' summaries) in the fraction learned and in the '?' accuracy, paired by seed."""
    from gleam.sweep import bootstrap_difference
    if a["seeds"] != b["seeds"]:
        raise ValueError("paired settings must have run the same seeds")
    out = {"neither_learned": a["learned"] == 0 and b["learned"] == 0}
    for name, values in (("learned", lambda g: g["learned_per_seed"]), ("cue", lambda g: g["cue"]["values"])):
        d, lo, hi = bootstrap_difference(values(a), values(b), paired=True)
        out[name] = {"difference": d, "low": lo, "high": hi}
    return out


def _above(diff, a, b):
    """The verdict on a published "a learns where b does not" (rules above) -> (verdict, why)."""
    if diff["neither_learned"]:
        return "not comparable", f"neither the {a} nor the {b} learned in any seed: a failure to learn, not a finding"
    lo, hi = diff["learned"]["low"], diff["learned"]["high"]
    if lo > 0:
        return "agrees", ""
    if hi < 0:
        return "disagrees", f"the {b} learned in more seeds than the {a}"
    return "no clear difference", "the interval holds 0: these seeds do not separate them"


def _close(diff, a, b):
    """The verdict on a published "a close to b" (rules above) -> (verdict, why)."""
    if diff["neither_learned"]:
        return "not comparable", f"neither the {a} nor the {b} learned in any seed: a failure to learn, not a finding"
    lo, hi = diff["learned"]["low"], diff["learned"]["high"]
    if lo <= 0 <= hi:
        return "agrees", "no difference these seeds resolve (which does not show there is none)"
    return "disagrees", f"the {a if lo > 0 else b} learned in more seeds"


def _row(claim, lab, a, ga, b=None, gb=None, diff=None, verdict=("", "")):
    """One line of a published-beside-measured table: the lab's setting, the two sides' learned
    k of n (b None: a claim about one setting), the paired difference, the verdict and why."""
    side = lambda name, g: None if name is None else {"name": name, "learned": g["learned"], "runs": g["runs"]}
    return {"claim": claim, "lab": lab, "a": side(a, ga), "b": side(b, gb),
            "difference": None if diff is None else diff["learned"], "verdict": verdict[0], "why": verdict[1]}


def _better_lr(by_lr):
    """The learning rate at which a cell learned in more seeds (then: the higher mean '?' accuracy;
    then: the first). Chosen after the runs, from two."""
    return max(by_lr, key=lambda lr: (by_lr[lr]["learned"], by_lr[lr]["cue"]["mean"], -lr))


def _cells(records, spec):
    grid, count = spec["grid"], _interference_at(spec)
    settings = {str(p): {f"{lr:g}": {cell: _setting(_where(records, cell=cell, params=p, lr=lr), count)
                                     for cell in CELL_ORDER} for lr in grid["lr"]} for p in grid["params"]}
    better = {str(p): {cell: f"{_better_lr({lr: settings[str(p)][f'{lr:g}'][cell] for lr in grid['lr']}):g}"
                       for cell in CELL_ORDER} for p in grid["params"]}
    pairs = (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))
    differences, rows = {}, []
    delays = "{} to {}".format(*spec["fixed"]["delay"])
    for p in grid["params"]:
        s = settings[str(p)]
        differences[str(p)] = {f"{lr:g}": {f"{a}-{b}": _difference(s[f"{lr:g}"][a], s[f"{lr:g}"][b]) for a, b in pairs}
                               for lr in grid["lr"]}
        best = {cell: s[better[str(p)][cell]][cell] for cell in CELL_ORDER}
        differences[str(p)]["better"] = {f"{a}-{b}": _difference(best[a], best[b]) for a, b in pairs}
    for claim, (a, b), judge in (("lstm_bridges", ("lstm", "elman"), _above),
                                 ("gru_lstm_close", ("lstm", "gru_torch"), _close)):
        for p in grid["params"]:
            s = settings[str(p)]
            for lr in [f"{lr:g}" for lr in grid["lr"]] + ["better"]:
                ga = s[better[str(p)][a]][a] if lr == "better" else s[lr][a]
                gb = s[better[str(p)][b]][b] if lr == "better" else s[lr][b]
                if lr == "better":
                    lab = (f"~{p:,} parameters, each cell at its better learning rate (chosen after the runs): "
                           f"{CELL_NAMES[a]} {better[str(p)][a]}, {CELL_NAMES[b]} {better[str(p)][b]}; "
                           f"{delays} distractors")
                else:
                    lab = (f"~{p:,} parameters ({CELL_NAMES[a]} {ga['n_params']:,}, {CELL_NAMES[b]} "
                           f"{gb['n_params']:,}), learning rate {lr}, {delays} distractors")
                diff = differences[str(p)][lr][f"{a}-{b}"]
                rows.append(_row(claim, lab, CELL_NAMES[a], ga, CELL_NAMES[b], gb, diff,
                                 judge(diff, CELL_NAMES[a], CELL_NAMES[b])))
    return {"settings": settings, "better_lr": better, "differences": differences, "published": rows,
            "interference_at": count}


def _forget_bias(records, spec):
    biases, count = spec["grid"]["forget_bias"], _interference_at(spec)
    settings = {f"{b:g}": _setting(_where(records, forget_bias=b), count) for b in biases}
    pairs = list(zip(biases, biases[1:]))
    differences = {f"{b:g}-{a:g}": _difference(settings[f"{b:g}"], settings[f"{a:g}"]) for a, b in pairs}
    s = spec["fixed"]
    lab = f"LSTM, ~{s['params']:,} parameters, learning rate {s['lr']:g}, {s['delay'][0]} to {s['delay'][1]} distractors"
    rows = []
    if 0.0 in biases and 1.0 in biases:
        diff = _difference(settings["1"], settings["0"])
        rows.append(_row("forget_bias", lab, "bias 1", settings["1"], "bias 0", settings["0"], diff,
                         _above(diff, "bias 1", "bias 0")))
    # the forget gate a bias opens at the start (σ(b); b_hh's block is 0) and the half-life of a
    # carry that size, as in the carry challenge
    gates = {f"{b:g}": {"gate": 1 / (1 + math.exp(-b)), "half_life": math.log(0.5) / math.log(1 / (1 + math.exp(-b)))}
             for b in biases}
    # ‖∂L/∂x₀‖ after epoch 1 compared seed by seed, on the seeds that ran an epoch at both biases
    grads = {}
    for a, b in pairs:
        ga, gb = (dict(zip(settings[f"{x:g}"]["grad_epoch_1"]["seeds"], settings[f"{x:g}"]["grad_epoch_1"]["values"]))
                  for x in (a, b))
        common = sorted(set(ga) & set(gb))
        grads[f"{b:g}-{a:g}"] = {"seeds": common, "above": sum(gb[s] > ga[s] for s in common)}
    a, b = (f"{x:g}" for x in biases[:2])
    headline = {"a": b, "b": a, **differences[f"{b}-{a}"]["learned"]} if len(biases) > 1 else None
    return {"settings": settings, "differences": differences, "published": rows, "gates": gates, "grad_pairs": grads,
            "headline": headline, "grad_pair": {"a": b, "b": a, **grads[f"{b}-{a}"]} if len(biases) > 1 else None,
            "biases": [f"{b:g}" for b in biases], "interference_at": count}


def _horizons(records, spec):
    grid, count = spec["grid"], _interference_at(spec)
    ks = sorted(grid["truncate"])
    delay = spec["fixed"]["delay"]
    length = delay + 2                  # the cue, `delay` distractors, the query: the cue is the first step
    short = [k for k in ks if k < length]           # the cue's step out of every update's gradient
    reach = [k for k in ks if k >= length]          # within it: full backpropagation
    settings = {cell: {str(k): _setting(_where(records, cell=cell, truncate=k), count) for k in ks}
                for cell in grid["cell"]}
    rows, differences = [], {}
    for cell in grid["cell"]:
        s = settings[cell]
        differences[cell] = {f"{b}-{a}": _difference(s[str(b)], s[str(a)]) for a in short for b in reach}
        lab = f"{CELL_NAMES[cell]}, ~{spec['fixed']['params']:,} parameters, delay {delay}"
        for a in short:
            b = min(reach)
            diff = differences[cell][f"{b}-{a}"]
            rows.append(_row("truncation", lab, f"k = {b}", s[str(b)], f"k = {a}", s[str(a)], diff,
                             _above(diff, f"k = {b}", f"k = {a}")))
            learned = s[str(a)]["learned"]
            rows.append(_row("truncation", lab, f"k = {a}", s[str(a)], verdict=("agrees", "") if learned == 0 else (
                "disagrees", f"{learned} of {s[str(a)]['runs']} seeds learned with k = {a} all the same")))
    # every horizon that reaches the first step is full backpropagation: the same runs
    metrics = {cell: {k: [r["metrics"] for r in _where(records, cell=cell, truncate=k)] for k in reach}
               for cell in grid["cell"]}
    identical = {cell: len(reach) > 1 and all(m[k] == m[reach[0]] for k in reach) for cell, m in metrics.items()}
    return {"settings": settings, "differences": differences, "published": rows, "truncates": ks,
            "short": short, "reach": reach, "delay": delay, "sequence_length": length, "cue_distance": length - 1,
            "full_identical": identical, "interference_at": count}


def _claims(cells, fb, hz):
    """The counts and comparisons the chapter's sentences rest on, computed from the summaries."""
    groups = [(p, lr, c, g) for p, by_lr in cells["settings"].items() for lr, by_cell in by_lr.items()
              for c, g in by_cell.items()]
    learned = [(p, lr, c, g) for p, lr, c, g in groups if g["memory"] is not None]
    mem = [g["memory"] for _, _, _, g in learned]
    top = [m["interference"]["accuracy"][-1]["mean"] for m in mem]
    unit = [a["mean"] for m in mem for amp, a in zip(m["interference"]["amplitudes"], m["interference"]["accuracy"])
            if amp == 1]
    out = {
        "cells_runs": sum(g["runs"] for *_, g in groups), "cells_learned": sum(g["learned"] for *_, g in groups),
        "cells_at_edge": sum(m["retention_max"]["at_edge"] for m in mem),
        "cells_first_below_half": sum(m["first_below_half"] for m in mem),
        "cells_swap_min": min((x for m in mem for x in m["swap"]["values"]), default=None),
        "cells_erasure_min": min((x for m in mem for x in m["erasure"]["values"]), default=None),
        "cells_erasure_max": max((x for m in mem for x in m["erasure"]["values"]), default=None),
        "interference_top": {"amplitude": mem[0]["interference"]["amplitudes"][-1] if mem else None,
                             "low": min(top, default=None), "high": max(top, default=None),
                             "unit_low": min(unit, default=None)},
        # the seeds that did not learn and yet reached the largest probe delay on the retention probes
        "probe_edge_apart": [{"cell": c, "params": int(p), "lr": lr, "seeds": [s for s, h in zip(g["apart"]["seeds"],
                              g["apart"]["retention_max"]) if h >= g["memory"]["retention_max"]["edge"]],
                              "cue": [x for x, h in zip(g["apart"]["cue"], g["apart"]["retention_max"])
                                      if h >= g["memory"]["retention_max"]["edge"]]}
                             for p, lr, c, g in learned if g["apart"]["probe_edge"]],
        "cells_failed": [{"cell": c, "params": int(p), "lr": lr} for p, lr, c, g in groups if g["learned"] == 0],
        "elman_learned": [{"params": int(p), "lr": lr, "learned": g["learned"]} for p, lr, c, g in learned if c == "elman"],
        "revising": [{"cell": c, "params": int(p), "lr": lr, "revising": g["memory"]["revising"], "learned": g["learned"]}
                     for p, lr, c, g in learned if g["memory"]["revising"]],
        # at a budget and learning rate: only the LSTM learned
        "lstm_only": {p: {lr: by_cell["lstm"]["learned"] > 0 and all(g["learned"] == 0 for c, g in by_cell.items()
                                                                         if c != "lstm")
                          for lr, by_cell in by_lr.items()} for p, by_lr in cells["settings"].items()},
        # at a budget, the LSTM ahead of the GRU at one learning rate and behind at another (intervals)
        "order_flips": {p: any(d["lstm-gru_torch"]["learned"]["low"] > 0 for lr, d in by_lr.items() if lr != "better")
                        and any(d["lstm-gru_torch"]["learned"]["high"] < 0 for lr, d in by_lr.items() if lr != "better")
                        for p, by_lr in cells["differences"].items()},
        "verdicts": {},
        "cells_settings": len(groups),
    }
    by_setting = [(p, lr, by_cell) for p, by_lr in cells["settings"].items() for lr, by_cell in by_lr.items()]
    out["lstm_only_settings"] = [{"params": int(p), "lr": lr} for p, lr, _ in by_setting if out["lstm_only"][p][lr]]
    out["not_lstm_only"] = [{"params": int(p), "lr": lr, "gru": by_cell["gru_torch"]["learned"],
                             "lstm": by_cell["lstm"]["learned"]} for p, lr, by_cell in by_setting if not out["lstm_only"][p][lr]]
    # where the order flips: which cell learned in more seeds at each learning rate (None: no clear difference)
    out["order_flips_detail"] = [
        {"params": int(p), "lrs": [{"lr": lr, "ahead": "LSTM" if d["lstm-gru_torch"]["learned"]["low"] > 0 else
                                    "GRU" if d["lstm-gru_torch"]["learned"]["high"] < 0 else None}
                                   for lr, d in by_lr.items() if lr != "better"]}
        for p, by_lr in cells["differences"].items() if out["order_flips"][p]]
    # the horizons experiment: runs that learned with the cue out of reach, per cell
    out["short_learned"] = [{"cell": c, "learned": g["learned"], "truncate": int(k)} for c, by_k in hz["settings"].items()
                            for k, g in by_k.items() if int(k) in hz["short"] and g["learned"]]
    out["short_learned_total"] = sum(x["learned"] for x in out["short_learned"])
    out["truncation_direction_agrees"] = all(r["verdict"] == "agrees" for r in hz["published"] if r["b"] is not None)
    for part in (cells, fb, hz):
        for row in part["published"]:
            v = out["verdicts"].setdefault(row["claim"], {"rows": 0, "agrees": 0, "disagrees": 0,
                                                          "no clear difference": 0, "not comparable": 0,
                                                          "disagree_labs": []})
            v["rows"] += 1
            v[row["verdict"]] += 1
            if row["verdict"] == "disagrees":
                v["disagree_labs"].append(row["lab"])
    out["revising_total"] = sum(r["revising"] for r in out["revising"])
    return out


def _reproduce(spec):
    """The spec with its fixed part completed by the run's defaults: every key the run reads."""
    from gleam.labs.memory.run import normalized
    grid = spec["grid"]
    full = normalized({**spec["fixed"], **{k: v[0] for k, v in grid.items()}})
    return {"run": spec["run"], "grid": grid, "fixed": {k: v for k, v in sorted(full.items()) if k not in grid}}


@functools.lru_cache(maxsize=None)
def _trained():
    from gleam import pretrained
    from gleam.labs.memory.run import WINDOW, normalized
    runs = pretrained.results("memory")
    specs = pretrained.SPECS["memory"]
    task = normalized({**specs["cells"]["fixed"], "cell": "lstm"})
    cap = task["epochs"] * -(-task["n_train"] // task["batch_size"])
    every = [r["metrics"] for rs in runs.values() for r in rs]
    fixed = specs["forget_bias"]["fixed"]
    # the forget-bias experiment's default bias is a setting of the cells experiment: the same runs?
    same = [r["metrics"] for r in _where(runs["cells"], cell=fixed["cell"], params=fixed["params"], lr=fixed["lr"])]
    same_runs = bool(same) and same == [r["metrics"] for r in _where(runs["forget_bias"], forget_bias=specs["cells"]["fixed"]["forget_bias"])]
    cells = _cells(runs["cells"], specs["cells"])
    fb = _forget_bias(runs["forget_bias"], specs["forget_bias"])
    hz = _horizons(runs["horizons"], specs["horizons"])
    return plain({
        "criterion": task["criterion"], "chance": CHANCE, "window": WINDOW, "seeds": specs["cells"]["grid"]["seed"],
        "task": specs["cells"]["fixed"], "cap_updates": cap, "probe_delays": task["probe_delays"],
        "edge": max(task["probe_delays"]), "cells_grid": specs["cells"]["grid"],
        "specs": specs, "reproduce": {name: _reproduce(spec) for name, spec in specs.items()},
        "published": PUBLISHED, "cell_names": CELL_NAMES,
        "cells": cells, "forget_bias": fb, "horizons": hz, "claims": {**_claims(cells, fb, hz), "bias_is_cells": same_runs},
        # over every record: the current-window baseline on '?', and '!' (needs no memory) of the runs that learned
        "window_min": min(m["window_needs_cue_accuracy"] for m in every),
        "window_max": max(m["window_needs_cue_accuracy"] for m in every),
        "no_memory_min_learned": min((m["no_memory_accuracy"] for m in every if m["learned"]), default=None),
    })


def memory_lab_trained():
    """The shipped records (gleam.pretrained) summarised by the rules above: per setting, learned k
    of n, the '?' accuracy and the baselines over every seed, the memory metrics over the seeds that
    learned (horizons censored at the probes' edge), the others apart, the validation curves; the
    paired differences with bootstrap intervals; and per experiment the published claims beside the
    lab's result with a verdict computed here."""
    return copy.deepcopy(_trained())
