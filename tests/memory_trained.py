"""What the memory lab's trained-model tables must show, worked out from the shipped records
(gleam.pretrained) alone — the raw per-seed metrics, the spec, the rules the page states — and never
from the summary (gleam.examples.memory_lab_trained): the app tests and the browser tests compare
the page with it.

The rules, as the page states them: learned = the record's `learned` (held-in min('?', all) >=
the criterion); memory metrics over the seeds that learned; a horizon at the largest probe delay
is "≥ 64", -1 is "none"; differences paired by seed with gleam.sweep.bootstrap_difference; a
direction agrees when the interval lies above 0, disagrees below, else "no clear difference"; a
closeness agrees when the interval holds 0; neither side learning is "not comparable"."""
import math
import statistics

from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sci
from gleam import pretrained
from gleam.labs.memory import run as sweep_memory
from gleam.sweep import bootstrap_difference

SPECS = pretrained.SPECS["memory"]
CELLS = ("elman", "gru_torch", "lstm")
NAMES = {"elman": "Elman RNN", "gru_torch": "GRU", "lstm": "LSTM"}
KEY = "memory.trained"


def records(experiment, **where):
    """The records of an experiment matching `where`, in seed order."""
    return sorted((r for r in pretrained.results("memory")[experiment]
                   if all(r["config"][k] == v for k, v in where.items())), key=lambda r: r["config"]["seed"])


def seeds(rs, **where):
    """The metrics of records (a list, or an experiment's name) matching `where`, in seed order."""
    if isinstance(rs, str):
        return [r["metrics"] for r in records(rs, **where)]
    return [r["metrics"] for r in sorted(rs, key=lambda r: r["config"]["seed"])
            if all(r["config"][k] == v for k, v in where.items())]


def edge(experiment):
    return max(SPECS[experiment]["fixed"]["probe_delays"])


def interference_at(experiment):
    """The longest probe delay within the task's delays (a fixed delay: itself)."""
    delay = SPECS[experiment]["fixed"]["delay"]
    top = delay[1] if isinstance(delay, list) else delay
    return max(d for d in SPECS[experiment]["fixed"]["probe_delays"] if d <= top)


# ------------------------------------------------------------ the page's ways of writing a number
def pm(xs, decimals=2):
    if len(xs) == 1:
        return f"{fmt_fixed(xs[0], decimals)} (one seed)"
    return f"{fmt_fixed(statistics.mean(xs), decimals)} ± {fmt_fixed(statistics.stdev(xs), decimals)}"


def listed(xs, decimals=2):
    return ", ".join(fmt_fixed(x, decimals) for x in xs) or "—"


def horizon(v, top):
    return "none" if v == -1 else f"≥ {top}" if v >= top else str(v)


def signed(x):
    text = fmt_fixed(x, 2)
    return ("+" if x > 0 and text != "0.00" else "") + text


def paired(a, b):
    """(difference, low, high) of mean(a − b), paired by seed."""
    return bootstrap_difference(a, b, paired=True)


def interval(a, b):
    d, lo, hi = paired(a, b)
    return f"{signed(d)} [{signed(lo)}, {signed(hi)}]"


def learned(ms):
    return [int(m["learned"]) for m in ms]


def cue(ms):
    return [m["test_needs_cue_accuracy"] for m in ms]


def setting(k, rs, experiment):
    """The spans of one setting, from its records (in seed order)."""
    top, at = edge(experiment), interference_at(experiment)
    ms, numbers = [r["metrics"] for r in rs], [r["config"]["seed"] for r in rs]
    ok = [m for m in ms if m["learned"]]
    out = {f"{k}.width": str(ms[0]["n"]), f"{k}.params": fmt_comma(ms[0]["n_params"]),
           f"{k}.learned": f"{len(ok)} of {len(ms)}", f"{k}.cue": pm(cue(ms)), f"{k}.cue_seeds": listed(cue(ms)),
           f"{k}.window": pm([m["window_needs_cue_accuracy"] for m in ms]),
           f"{k}.test": pm([m["test_accuracy"] for m in ms])}
    if ok:
        amps = sweep_memory.normalized(SPECS[experiment]["fixed"] | {"cell": "lstm"})["probe_amplitudes"]
        seed_list = [s for s, m in zip(numbers, ms) if m["learned"]]
        out.update({f"{k}.mem.seeds": ", ".join(str(s) for s in seed_list),
                    f"{k}.mem.horizon": ", ".join(horizon(m["retention_max"], top) for m in ok),
                    f"{k}.mem.p50": ", ".join(horizon(m["retention_p50"], top) for m in ok),
                    f"{k}.mem.p95": ", ".join(horizon(m["retention_p95"], top) for m in ok),
                    f"{k}.mem.swap": pm([m["swap_swapped"] for m in ok]),
                    f"{k}.mem.erasure": pm([m["erasure_drop"] for m in ok]),
                    f"{k}.mem.revision": ", ".join("none" if m["revision_latency"] == -1 else str(m["revision_latency"])
                                                   for m in ok),
                    f"{k}.mem.updates": ", ".join(str(m["kept_updates"]) for m in ok),
                    **{f"{k}.mem.interference.{a:g}": pm([m[f"interference_{at}_{a:g}"] for m in ok]) for a in amps}})
        rest = [(s, m) for s, m in zip(numbers, ms) if not m["learned"]]
        if rest:
            out.update({f"{k}.apart.seeds": ", ".join(str(s) for s, _ in rest),
                        f"{k}.apart.cue": listed([m["test_needs_cue_accuracy"] for _, m in rest]),
                        f"{k}.apart.horizon": ", ".join(horizon(m["retention_max"], top) for _, m in rest)})
    return out


def lr_key(lr):
    return f"{lr:g}"


def better_lr(cell, params):
    """The learning rate of the two at which the cell learned in more seeds (then the higher mean '?')."""
    lrs = SPECS["cells"]["grid"]["lr"]
    score = {lr: (sum(learned(seeds("cells", cell=cell, params=params, lr=lr))),
                  statistics.mean(cue(seeds("cells", cell=cell, params=params, lr=lr))), -lr) for lr in lrs}
    return max(lrs, key=score.get)


def verdict_above(a, b):
    """A published "a above b" on the per-seed learned values."""
    if sum(a) == 0 and sum(b) == 0:
        return "not comparable"
    _, lo, hi = paired(a, b)
    return "agrees" if lo > 0 else "disagrees" if hi < 0 else "no clear difference"


def verdict_close(a, b):
    if sum(a) == 0 and sum(b) == 0:
        return "not comparable"
    _, lo, hi = paired(a, b)
    return "agrees" if lo <= 0 <= hi else "disagrees"


def published_rows():
    """Per experiment, in the page's order: (a's learned list, b's learned list or None, names, verdict)."""
    out = {"cells": [], "forget_bias": [], "horizons": []}
    grid = SPECS["cells"]["grid"]
    for (a, b), judge in ((("lstm", "elman"), verdict_above), (("lstm", "gru_torch"), verdict_close)):
        for p in grid["params"]:
            for lr in grid["lr"] + ["better"]:
                la = learned(seeds("cells", cell=a, params=p, lr=better_lr(a, p) if lr == "better" else lr))
                lb = learned(seeds("cells", cell=b, params=p, lr=better_lr(b, p) if lr == "better" else lr))
                out["cells"].append((la, lb, (NAMES[a], NAMES[b]), judge(la, lb), p, lr))
    l1, l0 = (learned(seeds("forget_bias", forget_bias=x)) for x in (1.0, 0.0))
    out["forget_bias"].append((l1, l0, ("bias 1", "bias 0"), verdict_above(l1, l0), None, None))
    length = SPECS["horizons"]["fixed"]["delay"] + 2
    ks = sorted(SPECS["horizons"]["grid"]["truncate"])
    reach = min(k for k in ks if k >= length)
    for cell in SPECS["horizons"]["grid"]["cell"]:
        for k in (k for k in ks if k < length):
            la, lb = (learned(seeds("horizons", cell=cell, truncate=x)) for x in (reach, k))
            out["horizons"].append((la, lb, (f"k = {reach}", f"k = {k}"), verdict_above(la, lb), None, None))
            out["horizons"].append((lb, None, (f"k = {k}", None), "agrees" if sum(lb) == 0 else "disagrees", None, None))
    return out


def result_text(la, lb, names):
    text = f"{names[0]}: learned {sum(la)} of {len(la)}"
    if lb is not None:
        text += f"; {names[1]}: {sum(lb)} of {len(lb)}; {interval(la, lb)}"
    return text


def expected():
    """Every span of the trained tables but the published rows' "lab" and "why" texts (tested apart)."""
    task = SPECS["cells"]["fixed"]
    out = {f"{KEY}.criterion": fmt_fixed(task["criterion"], 2), f"{KEY}.chance": "0.50",
           f"{KEY}.n_train": fmt_comma(task["n_train"]), f"{KEY}.epochs": str(task["epochs"]),
           f"{KEY}.cap": fmt_comma(task["epochs"] * math.ceil(task["n_train"] / task["batch_size"])),
           f"{KEY}.check_every": str(task["check_every"]), f"{KEY}.n_val": str(task["n_val"]),
           f"{KEY}.seeds": str(len(SPECS["cells"]["grid"]["seed"]))}
    grid, failed = SPECS["cells"]["grid"], []
    for p in grid["params"]:
        for lr in grid["lr"]:
            for cell in CELLS:
                rs = records("cells", cell=cell, params=p, lr=lr)
                out.update(setting(f"{KEY}.cells.{p}.{lr_key(lr)}.{cell}", rs, "cells"))
                if not any(r["metrics"]["learned"] for r in rs):
                    failed.append(f"{NAMES[cell]}, ~{p:,}, lr {lr_key(lr)}")
        for cell in CELLS:
            out[f"{KEY}.cells.better.{p}.{cell}"] = lr_key(better_lr(cell, p))
        for lr in grid["lr"] + ["better"]:
            for a, b in (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman")):
                ma = seeds("cells", cell=a, params=p, lr=better_lr(a, p) if lr == "better" else lr)
                mb = seeds("cells", cell=b, params=p, lr=better_lr(b, p) if lr == "better" else lr)
                k = f"{KEY}.cells.diff.{p}.{lr if lr == 'better' else lr_key(lr)}.{a}-{b}"
                out[f"{k}.learned"] = interval(learned(ma), learned(mb))
                out[f"{k}.cue"] = interval(cue(ma), cue(mb))
    if failed:
        out[f"{KEY}.cells.failed"] = "; ".join(failed)
    biases = SPECS["forget_bias"]["grid"]["forget_bias"]
    failed = []
    for b in biases:
        ms, k = seeds("forget_bias", forget_bias=b), f"{KEY}.bias.{b:g}"
        out.update(setting(k, records("forget_bias", forget_bias=b), "forget_bias"))
        grads = [m["cue_grad_epoch_1"] for m in ms if "cue_grad_epoch_1" in m]
        gate = 1 / (1 + math.exp(-b))
        out.update({f"{k}.gate": fmt_fixed(gate, 3), f"{k}.half_life": fmt_fixed(math.log(0.5) / math.log(gate), 1),
                    f"{k}.grad": fmt_sci(statistics.mean(grads), text=True) if grads else "—",
                    f"{k}.grad_seeds": f"{len(grads)} of {len(ms)}"})
        if not any(learned(ms)):
            failed.append(f"bias {b:g}")
    if failed:
        out[f"{KEY}.bias.failed"] = "; ".join(failed)
    for a, b in zip(biases, biases[1:]):
        ma, mb = seeds("forget_bias", forget_bias=b), seeds("forget_bias", forget_bias=a)
        out[f"{KEY}.bias.diff.{b:g}-{a:g}.learned"] = interval(learned(ma), learned(mb))
        out[f"{KEY}.bias.diff.{b:g}-{a:g}.cue"] = interval(cue(ma), cue(mb))
    length = SPECS["horizons"]["fixed"]["delay"] + 2
    ks = sorted(SPECS["horizons"]["grid"]["truncate"])
    failed = []
    for cell in SPECS["horizons"]["grid"]["cell"]:
        for k in ks:
            ms = seeds("horizons", cell=cell, truncate=k)
            out.update(setting(f"{KEY}.horizons.{cell}.{k}", records("horizons", cell=cell, truncate=k), "horizons"))
            if not any(learned(ms)):
                failed.append(f"{NAMES[cell]}, k = {k}")
        for short in (k for k in ks if k < length):
            for full in (k for k in ks if k >= length):
                ma, mb = seeds("horizons", cell=cell, truncate=full), seeds("horizons", cell=cell, truncate=short)
                out[f"{KEY}.horizons.diff.{cell}.{full}-{short}.learned"] = interval(learned(ma), learned(mb))
                out[f"{KEY}.horizons.diff.{cell}.{full}-{short}.cue"] = interval(cue(ma), cue(mb))
    if failed:
        out[f"{KEY}.horizons.failed"] = "; ".join(failed)
    for name, rows in published_rows().items():
        for i, (la, lb, names, verdict, _, _) in enumerate(rows):
            out[f"{KEY}.{name}.published.{i}.result"] = result_text(la, lb, names)
            out[f"{KEY}.{name}.published.{i}.verdict"] = verdict
    return out
