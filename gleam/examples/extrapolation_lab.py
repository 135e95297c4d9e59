"""The extrapolation lab: the shipped records of its experiments (gleam.pretrained) summarised for
the page and its prose.

extrapolation_lab_trained reads the records, so it is not part of `examples()` (the JSON document
stays quick to make). The rules, fixed before the runs and applied to every experiment:
- A run has LEARNED when its held-in test score reaches the spec's criterion (the metric
  `learned`, gleam.labs.stepped); learned k of n leads every table. The arithmetic runs have no
  such criterion: theirs is Madsen & Johansen's `solved`.
- What describes extrapolation, probes or interventions is summarised over the seeds that learned;
  the other seeds are listed apart; a setting where no seed learned has no such summary (None): a
  failure to learn, not a finding.
- A reach at the largest value tested is censored (the model may hold further): per-seed values are
  flagged ("≥ 80"), no mean is given over a censored value and no difference is computed with one.
- Cells are compared paired by seed (a seed fixes the examples and their order for every cell),
  over the seeds that learned in both, with a percentile bootstrap interval of the mean difference
  (gleam.sweep.bootstrap_difference; two seeds at least). A published direction "A above B" agrees
  when the interval lies above 0, disagrees when it lies below, and is "no clear difference" when it
  holds 0. A published "every trained model does X" agrees when every seed that learned does X.
- A cell that learned in fewer than BAR of its seeds (8 of 10) carries no claim: its numbers over the
  seeds that learned are shown for the record, its verdicts are "not comparable", and the page lists
  the budgets tried (the nested-sums LSTM: SUMS_BUDGETS_TRIED and SUMS_TRIED, beside the run shown).
"""
import copy
import functools
import math
import statistics

from gleam.examples.data import plain, seed_stats

__all__ = ["extrapolation_lab_trained"]

CELL_ORDER = ("elman", "gru_torch", "lstm")
CELL_NAMES = {"elman": "Elman RNN", "gru_torch": "GRU", "lstm": "LSTM"}
HEAD_NAMES = {"linear": "linear", "nau": "NAU", "nmu": "NMU", "nalu": "NALU"}
KIND_NAMES = {"anbn": "aⁿbⁿ", "anbncn": "aⁿbⁿcⁿ"}
SHORTCUTS = ("mod2", "mod3", "mod4", "parity")
# the nested-sums baselines' fresh draw: its size and seed (fixed; not the runs' examples)
THEIR_UPDATES = 5 * 10 ** 6      # Madsen & Johansen's budget
SUMS_DRAW = {"n": 500, "seed": 2024}
BAR = 0.8                        # learned in at least 8 of 10 seeds, or no claim about the cell
# the nested sums: each cell's experiment in gleam.pretrained (their budgets differ), in the page's order
SUMS_RUNS = {"lstm": "sums_lstm", "gru_torch": "sums_gru"}
# the budgets tried for a cell before the one shown: shipped experiments (their records summarised
# like the rest) and, first, two single-seed runs of the budget exploration (docs/research-budgets.md,
# section 1: width 64, a constant lr of 3e-3, batch 64, clip 1, 50,000 sums drawn; a cap in updates,
# stopped on validation), which shipped no records
SUMS_TRIED = {"lstm": ("sums_lstm_constant",)}
SUMS_BUDGETS_TRIED = ({"cell": "lstm", "cap": 8000, "seeds": 1, "learned": 0, "lr": 0.003, "lr_drop_at": None},
                      {"cell": "lstm", "cap": 14000, "seeds": 1, "learned": 1, "lr": 0.003, "lr_drop_at": None})

PUBLISHED = {
    "weiss": {
        "source": "Weiss, Goldberg & Yahav 2018 (ACL)",
        "direction": "LSTMs trained on aⁿbⁿ and aⁿbⁿcⁿ learn to count — the cell state holds the counter — "
                     "and generalise far beyond the trained n; GRUs do not, generalising only a little past it",
        "setting": "LSTMs and GRUs accepting aⁿbⁿ and aⁿbⁿcⁿ, trained on small n and tested on much larger n",
        "compared": "hard_largest_n (the largest n with hard-set accuracy ≥ the threshold at every n up to it) "
                    "LSTM − GRU over the seeds that learned in both; whether every learned LSTM reaches twice the "
                    "trained n; the LSTM's cell-state probe R² beyond the trained n"},
    "suzgun": {
        "source": "Suzgun, Gehrmann, Belinkov & Shieber 2019",
        "direction": "small LSTMs trained on next-character prediction of aⁿbⁿ (and aⁿbⁿcⁿ, Dyck-1) generalise to "
                     "n well beyond the training range",
        "setting": "next-character prediction; their trained and tested ranges are larger than these",
        "compared": "predict_largest_n (every deterministic step of aⁿbⁿ right, at every n up to it) over the LSTM "
                    "seeds that learned: past the trained n, and at least twice it"},
    "bhattamishra": {
        "source": "Bhattamishra, Ahuja & Goyal 2020 (EMNLP)",
        "direction": "LSTMs generalise near-perfectly to longer strings (trained on lengths up to 50, tested up to "
                     "100) on counter languages and Dyck-1",
        "setting": "LSTMs on counter languages and Dyck-1, tested at up to twice the trained length",
        "compared": "whether every LSTM seed that learned holds its accuracy up to twice the trained length "
                    "(Dyck-1: length_reach; counting: hard_largest_n)"},
    "madsen": {
        "source": "Madsen & Johansen 2020 (ICLR)",
        "direction": "the NAU solves addition and the NMU multiplication in most seeds, the NALU rarely",
        "setting": "their arithmetic task at 5·10⁶ updates",
        "compared": "solved k of n (budgets not comparable: 20,000 updates here) and the direction: log10 "
                    "extrapolation MSE, NALU − NAU on a + b and linear − NMU on a·b, paired by seed"},
    "hewitt": {
        "source": "Hewitt & Liang 2019 (EMNLP)",
        "direction": "a probe's accuracy means little without its selectivity (accuracy minus a control task's): "
                     "a probe can fit a control task as well",
        "setting": "probes of contextual word representations with control tasks",
        "compared": "the nested-sums probes' selectivity over the seeds that learned: the claim is illustrated "
                    "where a probe beats the majority class yet its selectivity is ≤ 0"},
}


def _where(records, **where):
    return sorted((r for r in records if all(r["config"][k] == v for k, v in where.items())),
                  key=lambda r: r["config"]["seed"])


def _stats(values):
    return seed_stats(values) if values else None


def _censored(values, edge, flags=None):
    """Reaches per seed; those at `edge` (or flagged) are censored: no mean over them."""
    values = [int(v) for v in values]
    flags = [bool(f) for f in flags] if flags is not None else [v >= edge for v in values]
    n = sum(flags)
    return {"values": values, "censored": [int(f) for f in flags], "edge": edge, "at_edge": n,
            "stats": seed_stats(values) if values and not n else None}


def _paired(a, b, name, ga, gb):
    """mean(a − b) over the seeds that learned in both (name -> metric list by seed), or a reason."""
    from gleam.sweep import bootstrap_difference
    both = [s for s in ga["learned_seeds"] if s in gb["learned_seeds"]]
    va = [a[name][ga["seeds"].index(s)] for s in both]
    vb = [b[name][gb["seeds"].index(s)] for s in both]
    if len(both) < 2:
        return {"seeds": both, "difference": None, "why": "fewer than two seeds learned in both"}
    ca, cb = a.get(name + "_censored"), b.get(name + "_censored")
    if (ca and any(ca[ga["seeds"].index(s)] for s in both)) or (cb and any(cb[gb["seeds"].index(s)] for s in both)):
        return {"seeds": both, "difference": None, "why": "a value is censored at the largest value tested"}
    d, lo, hi = bootstrap_difference(va, vb, paired=True)
    return {"seeds": both, "difference": d, "low": lo, "high": hi, "why": ""}


def _above(diff, a, b):
    """Verdict on a published "a above b" from a paired difference."""
    if diff["difference"] is None:
        return "not comparable", diff["why"]
    if diff["low"] > 0:
        return "agrees", ""
    if diff["high"] < 0:
        return "disagrees", f"the {b} is above the {a}"
    return "no clear difference", "the interval holds 0: these seeds do not separate them"


def _every(values, target, runs, what):
    """Verdict on a published "every trained model reaches target" over the learned seeds' values."""
    if not values:
        return "not comparable", "no seed learned"
    k = sum(v >= target for v in values)
    why = f"{k} of the {len(values)} seeds that learned {what}"
    return ("agrees" if k == len(values) else "disagrees"), why


def _row(claim, lab, result, verdict):
    return {"claim": claim, "lab": lab, "result": result, "verdict": verdict[0], "why": verdict[1]}


def _base(rs):
    """What every setting reports: seeds, learned k of n, held-in score, the validation curves."""
    m = [r["metrics"] for r in rs]
    seeds = [r["config"]["seed"] for r in rs]
    return {"seeds": seeds, "runs": len(rs), "learned": sum(int(x["learned"]) for x in m),
            "learned_seeds": [s for s, x in zip(seeds, m) if x["learned"]],
            "other_seeds": [s for s, x in zip(seeds, m) if not x["learned"]],
            "heldin": seed_stats([x["heldin_score"] for x in m]),
            "apart_heldin": [x["heldin_score"] for x in m if not x["learned"]],
            "kept_updates": [int(x["kept_updates"]) for x in m],
            "curves": [r.get("curve") or [] for r in rs]}


def _learned(rs):
    return [r["metrics"] for r in rs if r["metrics"]["learned"]]


# ------------------------------------------------------------ experiment 1: length against depth
def _length_depth(records, c):
    lengths, depths = c["test_lengths"], c["test_depths"]
    longer = [L for L in lengths if L > c["max_train_length"]]
    deeper = [D for D in depths if D > c["max_train_depth"]]
    out = {"test_lengths": lengths, "test_depths": depths, "longer": longer, "deeper": deeper,
           "max_train_length": c["max_train_length"], "max_train_depth": c["max_train_depth"],
           "threshold": c["reach_threshold"], "width": c["n"], "cells": {},
           # a constant answer on the balanced sets (gleam.labs.extrapolation.brackets.balanced_set)
           "constant": max(math.floor(c["n_test"] * c["p_wellformed"] + 0.5), c["n_test"] - math.floor(
               c["n_test"] * c["p_wellformed"] + 0.5)) / c["n_test"]}
    raw = {}
    for cell in CELL_ORDER:
        rs = _where(records, cell=cell)
        g = _base(rs)
        ms = _learned(rs)
        raw[cell] = {"beyond_depth": [statistics.mean(r["metrics"][f"depth_{D}"] for D in deeper) for r in rs],
                     "beyond_length": [statistics.mean(r["metrics"][f"length_{L}"] for L in longer) for r in rs],
                     "length_reach": [r["metrics"]["length_reach"] for r in rs],
                     "depth_reach": [r["metrics"]["depth_reach"] for r in rs]}
        raw[cell]["length_reach_censored"] = [v >= max(lengths) for v in raw[cell]["length_reach"]]
        raw[cell]["depth_reach_censored"] = [v >= max(depths) for v in raw[cell]["depth_reach"]]
        g["iid"] = seed_stats([r["metrics"]["iid_accuracy"] for r in rs])
        g["over_learned"] = None if not ms else {
            "iid": seed_stats([m["iid_accuracy"] for m in ms]),
            "length_reach": _censored([m["length_reach"] for m in ms], max(lengths)),
            "depth_reach": _censored([m["depth_reach"] for m in ms], max(depths)),
            "beyond_length": seed_stats([statistics.mean(m[f"length_{L}"] for L in longer) for m in ms]),
            "beyond_depth": seed_stats([statistics.mean(m[f"depth_{D}"] for D in deeper) for m in ms]),
            "length_curves": [[m[f"length_{L}"] for L in lengths] for m in ms],
            "depth_curves": [[m[f"depth_{D}"] for D in depths] for m in ms]}
        out["cells"][cell] = g
    cells = out["cells"]
    out["differences"] = {f"{a}-{b}": {x: _paired(raw[a], raw[b], x, cells[a], cells[b])
                                       for x in ("beyond_depth", "beyond_length", "length_reach", "depth_reach")}
                          for a, b in (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))}
    twice = 2 * c["max_train_length"]
    lstm = cells["lstm"]["over_learned"]
    reach = lstm["length_reach"]["values"] if lstm else []
    out["twice"] = twice
    out["published"] = [_row("bhattamishra", f"Dyck-1 accept/reject, LSTM width {c['n']}, trained on lengths ≤ "
                                             f"{c['max_train_length']}, tested to {max(lengths)}",
                             f"LSTM learned {cells['lstm']['learned']} of {cells['lstm']['runs']}; length reach per "
                             f"learned seed: " + ", ".join(_reach_text(v, max(lengths)) for v in reach),
                             _every(reach, twice, cells["lstm"]["runs"],
                                    f"hold accuracy ≥ {c['reach_threshold']:g} up to length {twice}"))]
    return out


def _reach_text(v, edge):
    return "none" if v < 0 else f"≥ {edge}" if v >= edge else str(int(v))


# ------------------------------------------------------------ experiments 2: counting, predicting
def _counting(records, c):
    ns = _tested(c)
    out = {"ns": ns, "max_train_n": c["max_train_n"], "max_test_n": c["max_test_n"], "threshold": c["threshold"],
           "width": c["n"], "kinds": {}, "differences": {}, "twice": 2 * c["max_train_n"]}
    for kind in ("anbn", "anbncn"):
        raw, cells = {}, {}
        for cell in CELL_ORDER:
            rs = _where(records, kind=kind, cell=cell)
            g = _base(rs)
            ms = _learned(rs)
            raw[cell] = {x: [r["metrics"][x] for r in rs] for x in ("hard_largest_n", "largest_n")}
            raw[cell].update({f"{x}_censored": [r["metrics"][f"{x}_censored"] for r in rs]
                              for x in ("hard_largest_n", "largest_n")})
            g["iid"] = seed_stats([r["metrics"]["iid_accuracy"] for r in rs])
            g["over_learned"] = None if not ms else {
                "hard_largest_n": _censored([m["hard_largest_n"] for m in ms], c["max_test_n"],
                                            [m["hard_largest_n_censored"] for m in ms]),
                "largest_n": _censored([m["largest_n"] for m in ms], c["max_test_n"],
                                       [m["largest_n_censored"] for m in ms]),
                "hard_top": seed_stats([m[f"hard_{ns[-1]}"] for m in ms]),
                "hard_curves": [[m[f"hard_{n}"] for n in ns] for m in ms],
                "probe_r2_train": seed_stats([m["probe_r2_train"] for m in ms]),
                "probe_r2_beyond": seed_stats([m["probe_r2_beyond"] for m in ms]),
                "best_unit_corr": seed_stats([m["best_unit_corr"] for m in ms]),
                "probe_c_r2_train": seed_stats([m["probe_c_r2_train"] for m in ms]) if cell == "lstm" else None,
                "probe_c_r2_beyond": seed_stats([m["probe_c_r2_beyond"] for m in ms]) if cell == "lstm" else None,
                "best_unit_c_corr": seed_stats([m["best_unit_c_corr"] for m in ms]) if cell == "lstm" else None}
            cells[cell] = g
        every = [r["metrics"] for r in _where(records, kind=kind)]
        # the automata score the same sets whatever the cell: one value per seed (the first cell's)
        first = [r["metrics"] for r in _where(records, kind=kind, cell=CELL_ORDER[0])]
        shortcuts = {a: {"iid": seed_stats([m[f"{a}_iid_accuracy"] for m in first]),
                         "largest_n": _censored([m[f"{a}_largest_n"] for m in first], c["max_test_n"]),
                         "hard_largest_n": _censored([m[f"{a}_hard_largest_n"] for m in first], c["max_test_n"]),
                         "hard_top": seed_stats([m[f"{a}_hard_{ns[-1]}"] for m in first]),
                         "hard_curve": [statistics.mean(m[f"{a}_hard_{n}"] for m in first) for n in ns],
                         "same_every_cell": all(m[f"{a}_hard_{ns[-1]}"] == f[f"{a}_hard_{ns[-1]}"]
                                                for m, f in zip(every, first * len(CELL_ORDER)))}
                     for a in SHORTCUTS}
        out["kinds"][kind] = {"cells": cells, "shortcuts": shortcuts}
        out["differences"][kind] = {f"{a}-{b}": _paired(raw[a], raw[b], "hard_largest_n", cells[a], cells[b])
                                    for a, b in (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))}
    rows = []
    for kind in ("anbn", "anbncn"):
        cells = out["kinds"][kind]["cells"]
        lab = (f"{KIND_NAMES[kind]} accept/reject, width {c['n']}, trained on n ≤ {c['max_train_n']}, hard sets "
               f"to n = {c['max_test_n']}")
        diff = out["differences"][kind]["lstm-gru_torch"]
        rows.append(_row("weiss", lab, "LSTM − GRU in hard_largest_n: " + _diff_text(diff),
                         _above(diff, "LSTM", "GRU")))
        lstm = cells["lstm"]["over_learned"]
        values = lstm["hard_largest_n"]["values"] if lstm else []
        rows.append(_row("weiss", lab, f"LSTM hard_largest_n per learned seed: "
                         + ", ".join(_reach_text(v, c["max_test_n"]) for v in values),
                         _every(values, out["twice"], cells["lstm"]["runs"], f"reach n = {out['twice']}")))
        inside = lstm["probe_c_r2_train"]["values"] if lstm else []
        rows.append(_row("weiss", lab, "LSTM cell-state probe R² over the trained n, per learned seed: "
                         + ", ".join(f"{x:.3f}" for x in inside),
                         _every(inside, 0.9, cells["lstm"]["runs"], "have a cell-state probe R² ≥ 0.90 over it")))
        r2 = lstm["probe_c_r2_beyond"]["values"] if lstm else []
        rows.append(_row("weiss", lab, "LSTM cell-state probe R² beyond the trained n, per learned seed: "
                         + ", ".join(f"{x:.2f}" for x in r2),
                         _every(r2, 0.9, cells["lstm"]["runs"], "have a cell-state probe R² ≥ 0.90 beyond it")))
        out.setdefault("bhattamishra", []).append(_row(
            "bhattamishra", lab, "LSTM hard_largest_n per learned seed: "
            + ", ".join(_reach_text(v, c["max_test_n"]) for v in values),
            _every(values, out["twice"], cells["lstm"]["runs"], f"hold it up to twice the trained n ({out['twice']})")))
    out["published"] = rows
    return out


def _tested(c):
    from gleam.labs.extrapolation.counting import tested_ns
    return list(tested_ns(c["max_train_n"], c["max_test_n"], c["test_stride"]))


def _diff_text(diff):
    if diff["difference"] is None:
        return f"— ({diff['why']})"
    return f"{diff['difference']:+.2f} [{diff['low']:+.2f}, {diff['high']:+.2f}] over {len(diff['seeds'])} seeds"


def _predict(records, c):
    ns = _tested(c)
    out = {"ns": ns, "max_train_n": c["max_train_n"], "max_test_n": c["max_test_n"], "width": c["n"],
           "twice": 2 * c["max_train_n"], "cells": {}}
    raw = {}
    for cell in CELL_ORDER:
        rs = _where(records, cell=cell)
        g = _base(rs)
        ms = _learned(rs)
        raw[cell] = {"predict_largest_n": [r["metrics"]["predict_largest_n"] for r in rs],
                     "predict_largest_n_censored": [r["metrics"]["predict_largest_n_censored"] for r in rs]}
        g["iid"] = seed_stats([r["metrics"]["iid_accuracy"] for r in rs])
        g["over_learned"] = None if not ms else {
            "largest_n": _censored([m["predict_largest_n"] for m in ms], c["max_test_n"],
                                   [m["predict_largest_n_censored"] for m in ms]),
            "past": sum(m["predict_largest_n"] > c["max_train_n"] for m in ms),
            "probe_r2_beyond": seed_stats([m["probe_r2_beyond"] for m in ms]),
            "probe_c_r2_beyond": seed_stats([m["probe_c_r2_beyond"] for m in ms]) if cell == "lstm" else None}
        out["cells"][cell] = g
    cells = out["cells"]
    out["differences"] = {f"{a}-{b}": _paired(raw[a], raw[b], "predict_largest_n", cells[a], cells[b])
                          for a, b in (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))}
    lstm = cells["lstm"]["over_learned"]
    values = lstm["largest_n"]["values"] if lstm else []
    lab = f"aⁿbⁿ next-character prediction, LSTM width {c['n']}, trained on n ≤ {c['max_train_n']}, tested to {c['max_test_n']}"
    text = "LSTM predict_largest_n per learned seed: " + ", ".join(_reach_text(v, c["max_test_n"]) for v in values)
    out["published"] = [
        _row("suzgun", lab, text, _every(values, c["max_train_n"] + 1, cells["lstm"]["runs"],
                                         f"predict every step past the trained n = {c['max_train_n']}")),
        _row("suzgun", lab, text, _every(values, out["twice"], cells["lstm"]["runs"],
                                         f"predict every step up to twice the trained n ({out['twice']})"))]
    return out


# ------------------------------------------------------------ experiment 3: nested sums, and 4–6 on them
LABELS = ("depth", "partial", "running", "scope")


def digit_sum_mod10(text):
    """The 10-state automaton: the sum of the digits mod 10, everything else ignored."""
    state = 0
    for ch in text:
        if ch.isdigit():
            state = (state + int(ch)) % 10
    return state


def _sums_baselines(c):
    """Chance, the majority class and digit_sum_mod10 on a fresh draw of the run's task, split at its
    value threshold like the run."""
    from gleam import tasks
    examples = tasks.nested_sums(SUMS_DRAW["n"], SUMS_DRAW["seed"], max_depth=c["max_depth"],
                                 max_operands=c["max_operands"], p_nest=c["p_nest"])
    sides = {"heldin": [e for e in examples if e.facts["value"] <= c["threshold"]],
             "ood": [e for e in examples if e.facts["value"] > c["threshold"]]}
    heldin_counts = [0] * 10
    for e in sides["heldin"]:
        heldin_counts[e.target] += 1
    majority = max(range(10), key=lambda k: (heldin_counts[k], -k))      # the held-in side's
    out = {"n": SUMS_DRAW["n"], "seed": SUMS_DRAW["seed"], "threshold": c["threshold"], "chance": 0.1,
           "majority_class": majority}
    for side, es in sides.items():
        out[side] = {"n": len(es),
                     "automaton": sum(digit_sum_mod10(e.text) == e.target for e in es) / len(es),
                     "majority": sum(e.target == majority for e in es) / len(es)}
    return out


def _schedule(c):
    return {"lr": c["lr"], "lr_drop_at": c["lr_drop_at"], "lr_drop": c["lr_drop"] if c["lr_drop_at"] is not None else None}


def _largest_fall(curve, level):
    """The largest fall of a validation curve between two checks once it has reached `level`
    (0 if it never fell, or never got there)."""
    scores = [v for _, v in curve]
    first = next((i for i, v in enumerate(scores) if v >= level), len(scores))
    return max([a - b for a, b in zip(scores[first:], scores[first + 1:])] + [0.0])


def _cap(rs):
    return max((int(r["curve"][-1][0]) for r in rs if r.get("curve")), default=None)


def _sums(runs, specs):
    """runs, specs: gleam.pretrained's, by experiment name (SUMS_RUNS, SUMS_TRIED)."""
    from gleam import costs
    from gleam.labs.extrapolation import sums
    first = specs[SUMS_RUNS["lstm"]]
    out = {"cells": {}, "criterion": first["fixed"]["criterion"]}
    alphas = spec_alphas = None
    for cell, name in SUMS_RUNS.items():
        spec, rs = specs[name], _where(runs[name], cell=cell)
        c = sums.normalized(rs[0]["config"] if rs else {**spec["fixed"], "cell": cell, "seed": 0})
        g = _base(rs)
        g["experiment"] = name
        g["width"] = c["n"]
        g["n_params"] = costs.param_count(cell, len(sums.VOCAB), c["n"], double_bias=True) + 10 * c["n"] + 10
        g["schedule"] = _schedule(c)
        g["dropped_at"] = [int(r["metrics"]["lr_dropped_at"]) for r in rs if "lr_dropped_at" in r["metrics"]]
        ms = _learned(rs)
        if alphas is None and rs:
            m0 = rs[0]["metrics"]
            alphas = sorted({float(k.split("_")[1]) for k in m0 if k.startswith("patch_")})
            spec_alphas = sorted({int(k.rsplit("_", 1)[1]) for k in m0 if k.startswith("log10_sv_max_")})
        g["bar_seeds"] = math.ceil(BAR * g["runs"] - 1e-9)        # the seeds that must learn
        g["meets_bar"] = g["runs"] > 0 and g["learned"] >= g["bar_seeds"]
        g["cap"] = _cap(rs)
        g["tried"] = [b for b in SUMS_BUDGETS_TRIED if b["cell"] == cell]
        for t in SUMS_TRIED.get(cell, ()):
            trs = _where(runs[t], cell=cell)
            tc = sums.normalized({**specs[t]["fixed"], "cell": cell, "seed": 0})
            # how far its validation score fell between two checks once at the level where the
            # cell's own schedule drops its rate
            level = g["schedule"]["lr_drop_at"]
            falls = [_largest_fall(r.get("curve") or [], level) for r in trs] if level else None
            g["tried"].append({"cell": cell, "experiment": t, "cap": _cap(trs), "seeds": len(trs),
                               "learned": sum(int(r["metrics"]["learned"]) for r in trs), **_schedule(tc),
                               "heldin": [r["metrics"]["heldin_score"] for r in trs], "level": level,
                               "largest_fall": falls,
                               "largest_fall_range": [min(falls), max(falls)] if falls else None})
        g["iid"] = seed_stats([r["metrics"]["iid_accuracy"] for r in rs])
        g["n_ood"] = [int(r["metrics"]["n_ood"]) for r in rs]
        g["apart_ood"] = [r["metrics"]["ood_accuracy"] for r in rs if not r["metrics"]["learned"]]
        g["over_learned"] = None if not ms else {
            "ood": seed_stats([m["ood_accuracy"] for m in ms]),
            "iid": seed_stats([m["iid_accuracy"] for m in ms]),
            "probes": {L: {x: seed_stats([m[f"probe_{L}_{x}"] for m in ms])
                           for x in ("accuracy", "control_accuracy", "selectivity", "majority")} for L in LABELS},
            "patch": {f"{a:g}": {x: seed_stats([m[f"patch_{a:g}_{x}"] for m in ms]) for x in ("probe_moved", "output_moved")}
                      for a in alphas},
            "swap_follows": seed_stats([m["swap_follows"] for m in ms]),
            "swap_unchanged": seed_stats([m["swap_unchanged"] for m in ms]),
            "clamp_accuracy": seed_stats([m["clamp_accuracy"] for m in ms]),
            "clamp_changed": seed_stats([m["clamp_changed"] for m in ms]),
            "sv": {str(s): seed_stats([m[f"log10_sv_max_{s}"] for m in ms]) for s in spec_alphas},
            "growth_final": seed_stats([m["growth_final"] for m in ms]),
            "pca": [seed_stats([m["pca_var_1"] for m in ms]), seed_stats([m["pca_var_2"] for m in ms])]}
        out["cells"][cell] = g
    c = sums.normalized({**first["fixed"], "cell": "lstm", "seed": 0})
    out.update({"alphas": [f"{a:g}" for a in alphas or []], "spans": [str(s) for s in spec_alphas or []],
                "labels": list(LABELS), "threshold": c["threshold"], "baselines": _sums_baselines(c),
                "seeds_in_spec": first["grid"]["seed"], "params": first["fixed"]["params"],
                "epochs": first["fixed"]["epochs"]})
    top = out["alphas"][-1] if out["alphas"] else None
    out["top_alpha"] = top
    rows = []
    for cell, g in out["cells"].items():
        sch = g["schedule"]
        drop = f", lr {sch['lr']:g} ×{sch['lr_drop']:g} at validation ≥ {sch['lr_drop_at']:g}" if sch["lr_drop_at"] else ""
        lab = f"nested sums mod 10, {CELL_NAMES[cell]} width {g['width']}{drop}, probes at every character (held-in sums)"
        ol = g["over_learned"]
        for L in ("partial", "depth"):
            if ol is None:
                rows.append(_row("hewitt", f"{lab}: {L}", f"{CELL_NAMES[cell]} learned 0 of {g['runs']}",
                                 ("not comparable", "no seed learned: a failure to learn, no mechanism claim")))
                continue
            p = ol["probes"][L]
            sel = p["selectivity"]["values"]
            above = [a > m for a, m in zip(p["accuracy"]["values"], p["majority"]["values"])]
            illustrated = sum(s <= 0 and ab for s, ab in zip(sel, above))
            text = (f"accuracy {_list(p['accuracy']['values'])}, control {_list(p['control_accuracy']['values'])}, "
                    f"selectivity {_list(sel)}; patch at α = {top}: output moved {_list(ol['patch'][top]['output_moved']['values'])}")
            if not g["meets_bar"]:
                v = ("not comparable", f"the {CELL_NAMES[cell]} learned in {g['learned']} of {g['runs']} seeds, "
                                       f"below the bar of {g['bar_seeds']}: no claim rests on it")
            elif illustrated == len(sel):
                v = ("agrees", f"in every learned seed the probe beats the majority class ({_list(p['majority']['values'])}) "
                               "yet does no better than its control task")
            elif all(s > 0 for s in sel):
                v = ("disagrees", "the probe is selective in every learned seed: here its accuracy was not the control's")
            else:
                v = ("no clear difference", f"selectivity ≤ 0 with accuracy above the majority in {illustrated} of {len(sel)} learned seeds")
            rows.append(_row("hewitt", f"{lab}: {L}", text, v))
    out["published"] = rows
    return out


def _list(values):
    return ", ".join(f"{x:.2f}" for x in values)


# ------------------------------------------------------------ arithmetic heads on numbers
def _arith(runs, specs):
    from gleam.labs.extrapolation import arith
    out = {}
    rows = []
    for name in ("arith_add", "arith_mul"):
        spec = specs[name]
        op = spec["fixed"]["op"]
        heads = {}
        for head in spec["grid"]["head"]:
            ms = [r["metrics"] for r in _where(runs[name], head=head)]
            heads[head] = {"runs": len(ms), "solved": sum(int(m["solved"]) for m in ms),
                           "extrap_mse": [m["extrap_mse"] for m in ms], "interp_mse": [m["interp_mse"] for m in ms],
                           "median_extrap": statistics.median(m["extrap_mse"] for m in ms),
                           "median_interp": statistics.median(m["interp_mse"] for m in ms),
                           "log10_extrap": [math.log10(max(m["extrap_mse"], 1e-300)) for m in ms],
                           "sparsity": seed_stats([m["sparsity"] for m in ms]),
                           "diverged": sum(m["diverged"] > 0 for m in ms)}
        from gleam.sweep import bootstrap_difference
        unit = "nau" if op == "add" else "nmu"
        other = "nalu" if op == "add" else "linear"
        d, lo, hi = bootstrap_difference(heads[other]["log10_extrap"], heads[unit]["log10_extrap"], paired=True)
        diff = {"difference": d, "low": lo, "high": hi, "a": other, "b": unit,
                "ratio": heads[other]["median_extrap"] / heads[unit]["median_extrap"]}
        thr = [r["metrics"]["threshold"] for r in runs[name]]
        c = arith.normalized({**spec["fixed"], "head": unit, "seed": 0})
        out[op] = {"heads": heads, "difference": diff, "their_updates": THEIR_UPDATES,
                   "budget_ratio": THEIR_UPDATES / c["updates"], "threshold": statistics.median(thr), "updates": c["updates"],
                   "k": c["k"], "train": [c["lo"], c["hi"]], "extrapolate": [c["elo"], c["ehi"]]}
        lab = f"a {'+' if op == 'add' else '·'} b, k = {c['k']} inputs, {c['updates']:,} updates (theirs 5·10⁶)"
        rows.append(_row("madsen", lab, "; ".join(f"{HEAD_NAMES[h]} solved {g['solved']} of {g['runs']}"
                                                  for h, g in heads.items()),
                         ("not comparable", f"a budget 250 times smaller than theirs: at {c['updates']:,} updates "
                                            "nothing here is expected to meet their ε criterion")))
        verdict = ("agrees", "") if lo > 0 else ("disagrees", f"the {HEAD_NAMES[other]} extrapolates better") if hi < 0 \
            else ("no clear difference", "the interval holds 0")
        rows.append(_row("madsen", lab, f"log10 extrapolation MSE, {HEAD_NAMES[other]} − {HEAD_NAMES[unit]}: "
                         f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]", verdict))
    out["published"] = rows
    return out


# ------------------------------------------------------------ the claims the prose rests on
def _claims(d):
    ld, ct, pr, sm = d["length_depth"], d["counting"], d["predict"], d["sums"]
    verdicts = {}
    for part in (ld["published"], ct["published"], ct["bhattamishra"], pr["published"], sm["published"],
                 d["arith"]["published"]):
        for row in part:
            v = verdicts.setdefault(row["claim"], {"rows": 0, "agrees": 0, "disagrees": 0, "no clear difference": 0,
                                                   "not comparable": 0})
            v["rows"] += 1
            v[row["verdict"]] += 1
    ldc = ld["cells"]
    deeper_worse = {c: (g["over_learned"]["beyond_depth"]["mean"] < g["over_learned"]["beyond_length"]["mean"])
                    if g["over_learned"] else None for c, g in ldc.items()}
    sums_failed = [c for c, g in sm["cells"].items() if g["learned"] == 0]
    sums_below_bar = [c for c, g in sm["cells"].items() if 0 < g["learned"] and not g["meets_bar"]]
    ood_max = max((x for g in sm["cells"].values() if g["over_learned"] for x in g["over_learned"]["ood"]["values"]),
                  default=None)
    every_ood = [x for g in sm["cells"].values() for x in g["apart_ood"]] + [
        x for g in sm["cells"].values() if g["over_learned"] for x in g["over_learned"]["ood"]["values"]]
    hard = {k: {c: (g["over_learned"]["hard_largest_n"]["values"] if g["over_learned"] else [])
                for c, g in v["cells"].items()} for k, v in ct["kinds"].items()}
    gru = ldc["gru_torch"]["over_learned"]
    return {"verdicts": verdicts, "deeper_worse": deeper_worse,
            # within 0.05 of the constant answer / of chance: "no better than" in the prose
            "gru_depth_at_constant": bool(gru) and gru["beyond_depth"]["mean"] <= ld["constant"] + 0.05,
            "sums_ood_at_chance": bool(every_ood) and max(every_ood) < sm["baselines"]["chance"] + 0.05,
            "sums_failed": sums_failed, "sums_below_bar": sums_below_bar, "bar": BAR,
            "sums_ood_max_learned": ood_max,
            "sums_ood_max": max(every_ood, default=None), "sums_ood_min": min(every_ood, default=None),
            "sums_learned": sum(g["learned"] for g in sm["cells"].values()),
            "sums_runs": sum(g["runs"] for g in sm["cells"].values()),
            "hard_max": {k: max((x for vs in v.values() for x in vs), default=None) for k, v in hard.items()},
            "hard_censored": sum(g["over_learned"]["hard_largest_n"]["at_edge"] for v in ct["kinds"].values()
                                 for g in v["cells"].values() if g["over_learned"]),
            "auto_hard_max": max(x for v in ct["kinds"].values() for a in v["shortcuts"].values()
                                 for x in a["hard_largest_n"]["values"]),
            "mod_hard_top_max": max(s["hard_top"]["max"] for v in ct["kinds"].values() for s in v["shortcuts"].values()),
            "weiss_direction": [r["verdict"] for r in ct["published"][::3]],
            "all_learned_runs": sum(g["runs"] for g in ldc.values()) + sum(
                g["runs"] for v in ct["kinds"].values() for g in v["cells"].values()) + sum(
                g["runs"] for g in pr["cells"].values()),
            "all_learned": sum(g["learned"] for g in ldc.values()) + sum(
                g["learned"] for v in ct["kinds"].values() for g in v["cells"].values()) + sum(
                g["learned"] for g in pr["cells"].values())}


def _reproduce(name, spec, module):
    grid = spec["grid"]
    full = module.normalized({**spec["fixed"], **{k: v[0] for k, v in grid.items()}})
    return {"run": spec["run"], "grid": grid, "fixed": {k: v for k, v in sorted(full.items()) if k not in grid}}


@functools.lru_cache(maxsize=None)
def _trained():
    from gleam import pretrained
    from gleam.labs.extrapolation import arith, brackets, counting, sums
    runs, specs = pretrained.results("extrapolation"), pretrained.SPECS["extrapolation"]
    modules = {"length_depth": brackets, "counting": counting, "predict": counting, "sums_gru": sums,
               "sums_lstm": sums, "sums_lstm_constant": sums, "arith_add": arith, "arith_mul": arith}
    reproduce = {name: _reproduce(name, specs[name], modules[name]) for name in specs}

    def config(name):
        return {**reproduce[name]["fixed"], **{k: v[0] for k, v in specs[name]["grid"].items()}}
    d = {"criterion": specs["length_depth"]["fixed"]["criterion"],
         "stop_at": specs["length_depth"]["fixed"]["stop_at"], "specs": specs, "reproduce": reproduce,
         "published": PUBLISHED, "cell_names": CELL_NAMES, "kind_names": KIND_NAMES, "head_names": HEAD_NAMES,
         "length_depth": _length_depth(runs["length_depth"], config("length_depth")),
         "counting": _counting(runs["counting"], config("counting")),
         "predict": _predict(runs["predict"], config("predict")),
         "sums": _sums(runs, specs),
         "arith": _arith(runs, specs)}
    d["claims"] = _claims(d)
    return plain(d)


def extrapolation_lab_trained():
    """The shipped records (gleam.pretrained) summarised by the rules above: per setting learned k of
    n and the held-in score over every seed, the extrapolation, probe and intervention metrics over the
    seeds that learned (reaches censored at the largest n tested), the others apart, the validation
    curves, the baselines (constant answers, shortcut automata, the digit-sum automaton), paired
    differences with bootstrap intervals, and per experiment the published claims beside the lab's
    result with a verdict computed here."""
    return copy.deepcopy(_trained())


def examples():
    """What `python -m gleam.examples --json` prints for this chapter (the results are not in it)."""
    return {}
