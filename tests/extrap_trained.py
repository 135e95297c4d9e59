"""What the extrapolation lab's tables must show, worked out from the shipped records
(gleam.pretrained) alone — the raw per-seed metrics, the spec, the rules the page states — and never
from the summary (gleam.examples.extrapolation_lab_trained): the app tests and the browser tests
compare the page with it.

The rules, as the page states them: learned = the record's `learned`; extrapolation, probe and
intervention metrics over the seeds that learned; a reach at the largest value tested (or flagged
censored) is "≥ edge", -1 "none"; differences paired by seed over the seeds learned in both, with
gleam.sweep.bootstrap_difference, none where fewer than two or a value is censored; a direction
agrees when the interval lies above 0, disagrees below, else "no clear difference"; an "every
trained model" claim agrees when every learned seed meets it; a nested-sums cell that learned in
fewer than 8 of its 10 seeds carries no claim ("not comparable")."""
import math
import statistics

from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sci
from gleam import pretrained, tasks
from gleam.sweep import bootstrap_difference

SPECS = pretrained.SPECS["extrapolation"]
CELLS = ("elman", "gru_torch", "lstm")
KEY = "extrapolation.trained"
PAIRS = (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))
# brackets' and counting's tested values (their modules' defaults, as the docstrings state them)
LENGTHS, DEPTHS, MAX_LENGTH, MAX_DEPTH, REACH = [20, 40, 60, 80], [2, 4, 6, 8], 20, 4, 0.9
NS = list(range(1, 17)) + [24, 32, 40, 48, 56, 64, 72, 80]
MAX_TEST_N = 80
# the nested sums: the experiment each cell ran in (their schedules differ), and the budgets tried for
# the LSTM before its own: two single-seed runs of the exploration (no records: docs/research-budgets.md)
# then its shipped records at the GRU's constant rate
SUMS = {"lstm": "sums_lstm", "gru_torch": "sums_gru"}
SUMS_EXPLORED = ("a cap of 8,000 updates, lr 0.003, constant", "0 of 1"), ("a cap of 14,000 updates, lr 0.003, constant", "1 of 1")


def seeds(name, **where):
    return [r["metrics"] for r in sorted(pretrained.results("extrapolation")[name], key=lambda r: r["config"]["seed"])
            if all(r["config"][k] == v for k, v in where.items())]


def pm(xs, decimals=2):
    if len(xs) == 1:
        return f"{fmt_fixed(xs[0], decimals)} (one seed)"
    return f"{fmt_fixed(statistics.mean(xs), decimals)} ± {fmt_fixed(statistics.stdev(xs), decimals)}"


def listed(xs, decimals=2):
    return ", ".join(fmt_fixed(x, decimals) for x in xs) or "—"


def signed(x):
    text = fmt_fixed(x, 2)
    return ("+" if x > 0 and text != "0.00" else "") + text


def reach(v, edge, censored=None):
    censored = v >= edge if censored is None else censored
    return f"≥ {edge}" if censored else "none" if v < 0 else str(int(v))


def paired(ms_a, ms_b, metric, censored=None):
    """The shown difference of mean(a − b) over the seeds that learned in both, or its reason."""
    both = [(a, b) for a, b in zip(ms_a, ms_b) if a["learned"] and b["learned"]]
    if len(both) < 2:
        return "— (fewer than two seeds learned in both)"
    va, vb = [metric(a) for a, _ in both], [metric(b) for _, b in both]
    if censored and any(censored(a) or censored(b) for a, b in both):
        return "— (a value is censored at the largest value tested)"
    d, lo, hi = bootstrap_difference(va, vb, paired=True)
    return f"{signed(d)} [{signed(lo)}, {signed(hi)}]"


def lead(out, k, ms):
    ok = [m for m in ms if m["learned"]]
    out.update({f"{k}.learned": f"{len(ok)} of {len(ms)}", f"{k}.heldin": pm([m["heldin_score"] for m in ms], 3),
                f"{k}.heldin_seeds": listed([m["heldin_score"] for m in ms], 3)})
    seeds_apart = [i for i, m in enumerate(ms) if not m["learned"]]
    if seeds_apart:
        out.update({f"{k}.apart.seeds": ", ".join(map(str, seeds_apart)),
                    f"{k}.apart.heldin": listed([m["heldin_score"] for m in ms if not m["learned"]], 3)})
    return ok


def digit_rule(text):
    return sum(int(ch) for ch in text if ch in "0123456789") % 10


def expected():
    out = {f"{KEY}.criterion": "0.98", f"{KEY}.stop_at": "0.99", f"{KEY}.ld.constant": "0.50"}
    # 1. length against depth
    ld = {c: seeds("length_depth", cell=c) for c in CELLS}
    for c, ms in ld.items():
        ok = lead(out, f"{KEY}.ld.{c}", ms)
        if ok:
            deep = [statistics.mean(m[f"depth_{D}"] for D in DEPTHS if D > MAX_DEPTH) for m in ok]
            long = [statistics.mean(m[f"length_{L}"] for L in LENGTHS if L > MAX_LENGTH) for m in ok]
            out.update({f"{KEY}.ld.{c}.length_reach": ", ".join(reach(m["length_reach"], LENGTHS[-1]) for m in ok),
                        f"{KEY}.ld.{c}.depth_reach": ", ".join(reach(m["depth_reach"], DEPTHS[-1]) for m in ok),
                        f"{KEY}.ld.{c}.beyond_depth": pm(deep), f"{KEY}.ld.{c}.beyond_length": pm(long),
                        f"{KEY}.ld.{c}.beyond_depth_seeds": listed(deep)})
    for a, b in PAIRS:
        k = f"{KEY}.ld.diff.{a}-{b}"
        out[f"{k}.beyond_depth"] = paired(ld[a], ld[b], lambda m: statistics.mean(m[f"depth_{D}"] for D in DEPTHS if D > MAX_DEPTH))
        out[f"{k}.beyond_length"] = paired(ld[a], ld[b], lambda m: statistics.mean(m[f"length_{L}"] for L in LENGTHS if L > MAX_LENGTH))
        out[f"{k}.length_reach"] = paired(ld[a], ld[b], lambda m: m["length_reach"], lambda m: m["length_reach"] >= LENGTHS[-1])
        out[f"{k}.depth_reach"] = paired(ld[a], ld[b], lambda m: m["depth_reach"], lambda m: m["depth_reach"] >= DEPTHS[-1])
    # 2. counting
    for kind in ("anbn", "anbncn"):
        ct = {c: seeds("counting", kind=kind, cell=c) for c in CELLS}
        for c, ms in ct.items():
            k = f"{KEY}.count.{kind}.{c}"
            ok = lead(out, k, ms)
            if ok:
                out.update({f"{k}.hard": ", ".join(reach(m["hard_largest_n"], MAX_TEST_N, m["hard_largest_n_censored"]) for m in ok),
                            f"{k}.largest": ", ".join(reach(m["largest_n"], MAX_TEST_N, m["largest_n_censored"]) for m in ok),
                            f"{k}.hard_top": pm([m[f"hard_{MAX_TEST_N}"] for m in ok]),
                            f"{k}.r2_train": pm([m["probe_r2_train"] for m in ok]),
                            f"{k}.r2_beyond": pm([m["probe_r2_beyond"] for m in ok]),
                            f"{k}.unit": pm([m["best_unit_corr"] for m in ok])})
                if c == "lstm":
                    out.update({f"{k}.c_r2_train": pm([m["probe_c_r2_train"] for m in ok]),
                                f"{k}.c_r2_beyond": pm([m["probe_c_r2_beyond"] for m in ok]),
                                f"{k}.c_r2_beyond_seeds": listed([m["probe_c_r2_beyond"] for m in ok]),
                                f"{k}.c_unit": pm([m["best_unit_c_corr"] for m in ok])})
        for auto in ("mod2", "mod3", "mod4", "parity"):
            ms, k = ct["elman"], f"{KEY}.count.{kind}.auto.{auto}"
            out.update({f"{k}.iid": pm([m[f"{auto}_iid_accuracy"] for m in ms], 3),
                        f"{k}.largest": ", ".join(reach(m[f"{auto}_largest_n"], MAX_TEST_N) for m in ms),
                        f"{k}.hard": ", ".join(reach(m[f"{auto}_hard_largest_n"], MAX_TEST_N) for m in ms),
                        f"{k}.hard_top": pm([m[f"{auto}_hard_{MAX_TEST_N}"] for m in ms])})
        for a, b in PAIRS:
            out[f"{KEY}.count.{kind}.diff.{a}-{b}"] = paired(ct[a], ct[b], lambda m: m["hard_largest_n"],
                                                             lambda m: m["hard_largest_n_censored"])
    # 3. predicting
    pr = {c: seeds("predict", cell=c) for c in CELLS}
    for c, ms in pr.items():
        ok = lead(out, f"{KEY}.predict.{c}", ms)
        if ok:
            out.update({f"{KEY}.predict.{c}.largest": ", ".join(
                reach(m["predict_largest_n"], MAX_TEST_N, m["predict_largest_n_censored"]) for m in ok),
                f"{KEY}.predict.{c}.past": f"{sum(m['predict_largest_n'] > 8 for m in ok)} of {len(ok)}"})
    for a, b in PAIRS:
        out[f"{KEY}.predict.diff.{a}-{b}"] = paired(pr[a], pr[b], lambda m: m["predict_largest_n"],
                                                    lambda m: m["predict_largest_n_censored"])
    # 4. nested sums: the baselines on a fresh draw of 500 (seed 2024), split at 40
    draw = tasks.nested_sums(500, 2024, max_depth=4, max_operands=3, p_nest=0.3)
    held = [e for e in draw if e.facts["value"] <= 40]
    ood = [e for e in draw if e.facts["value"] > 40]
    counts = [sum(e.target == k for e in held) for k in range(10)]
    top = counts.index(max(counts))
    out.update({f"{KEY}.sums.chance": "0.10", f"{KEY}.sums.draw": "500", f"{KEY}.sums.draw_seed": "2024",
                f"{KEY}.sums.threshold": "40", f"{KEY}.sums.majority_class": str(top)})
    for side, es in (("heldin", held), ("ood", ood)):
        out.update({f"{KEY}.sums.{side}.n": fmt_comma(len(es)),
                    f"{KEY}.sums.{side}.automaton": fmt_fixed(
                        sum(digit_rule(e.text) == e.facts["value"] % 10 for e in es) / len(es), 3),
                    f"{KEY}.sums.{side}.majority": fmt_fixed(sum(e.target == top for e in es) / len(es), 3)})
    def budget(name):
        rs = pretrained.results("extrapolation")[name]
        f = SPECS[name]["fixed"]
        cap = max(r["curve"][-1][0] for r in rs)
        drop = f"×{f['lr_drop']:g} at the first validation check ≥ {f['lr_drop_at']:g}" if "lr_drop_at" in f else "constant"
        return f"{f['epochs']} epochs (at most {fmt_comma(cap)} updates), lr {f['lr']:g}, {drop}"
    for c, width, params in (("lstm", 64, 20874), ("gru_torch", 75, 21010)):
        ms, k = seeds(SUMS[c], cell=c), f"{KEY}.sums.{c}"
        ok = lead(out, k, ms)
        out.update({f"{k}.width": str(width), f"{k}.params": fmt_comma(params), f"{k}.budget": budget(SUMS[c])})
        if "lr_drop_at" in SPECS[SUMS[c]]["fixed"]:
            out[f"{k}.dropped_at"] = ", ".join(fmt_comma(m["lr_dropped_at"]) if m["lr_dropped_at"] >= 0 else "never"
                                               for m in ms)
        if c == "lstm":
            constant = seeds("sums_lstm_constant", cell=c)
            tried = [(b, n, "—") for b, n in SUMS_EXPLORED] + [
                (budget("sums_lstm_constant"), f"{sum(m['learned'] for m in constant)} of {len(constant)}",
                 listed([m["heldin_score"] for m in constant], 3))]
            for i, (b, n, h) in enumerate(tried):
                out.update({f"{k}.tried.{i}.budget": b, f"{k}.tried.{i}.learned": n, f"{k}.tried.{i}.heldin": h})
        if len(ok) < len(ms):
            out[f"{k}.apart.ood"] = listed([m["ood_accuracy"] for m in ms if not m["learned"]], 3)
        if not ok:
            continue
        out.update({f"{k}.ood": pm([m["ood_accuracy"] for m in ok], 3), f"{k}.ood_seeds": listed([m["ood_accuracy"] for m in ok], 3),
                    f"{k}.learned_seeds": ", ".join(str(i) for i, m in enumerate(ms) if m["learned"])})
        for L in ("depth", "partial", "running", "scope"):
            for x in ("accuracy", "control_accuracy", "selectivity", "majority"):
                out[f"{k}.probe.{L}.{x}"] = listed([m[f"probe_{L}_{x}"] for m in ok])
        for a in ("0.5", "1", "2", "4"):
            for x in ("probe_moved", "output_moved"):
                out[f"{k}.patch.{a}.{x}"] = listed([m[f"patch_{a}_{x}"] for m in ok])
        for x in ("swap_follows", "swap_unchanged", "clamp_accuracy", "clamp_changed", "growth_final"):
            out[f"{k}.{x}"] = listed([m[x] for m in ok])
        for s in (1, 4, 16):
            out[f"{k}.sv.{s}"] = listed([m[f"log10_sv_max_{s}"] for m in ok])
        out[f"{k}.pca"] = f"{listed([m['pca_var_1'] for m in ok])}; {listed([m['pca_var_2'] for m in ok])}"
    # 5. arithmetic heads
    for op, unit, other in (("add", "nau", "nalu"), ("mul", "nmu", "linear")):
        name, k = f"arith_{op}", f"{KEY}.arith.{op}"
        heads = {h: seeds(name, head=h) for h in SPECS[name]["grid"]["head"]}
        lu = [math.log10(m["extrap_mse"]) for m in heads[unit]]
        lo_ = [math.log10(m["extrap_mse"]) for m in heads[other]]
        d, lo, hi = bootstrap_difference(lo_, lu, paired=True)
        med = {h: statistics.median(m["extrap_mse"] for m in ms) for h, ms in heads.items()}
        out.update({f"{k}.threshold": fmt_sci(statistics.median(m["threshold"] for ms in heads.values() for m in ms), text=True),
                    f"{k}.updates": "20,000", f"{k}.diff": f"{signed(d)} [{signed(lo)}, {signed(hi)}]",
                    f"{k}.ratio": fmt_sci(med[other] / med[unit], text=True)})
        for h, ms in heads.items():
            out.update({f"{k}.{h}.solved": f"{sum(m['solved'] for m in ms)} of {len(ms)}",
                        f"{k}.{h}.extrap": fmt_sci(med[h], text=True),
                        f"{k}.{h}.interp": fmt_sci(statistics.median(m["interp_mse"] for m in ms), text=True),
                        f"{k}.{h}.extrap_seeds": ", ".join(fmt_sci(m["extrap_mse"], text=True) for m in ms)})
    return out


def every(values, target):
    return "not comparable" if not values else "agrees" if all(v >= target for v in values) else "disagrees"


def direction(low, high):
    return "agrees" if low > 0 else "disagrees" if high < 0 else "no clear difference"


def verdicts():
    """{experiment: [verdict, ...]} in the page's order, recomputed from the records."""
    out = {}
    lstm = [m for m in seeds("length_depth", cell="lstm") if m["learned"]]
    out["length_depth"] = [every([m["length_reach"] for m in lstm], 2 * MAX_LENGTH)]
    rows, bh = [], []
    for kind in ("anbn", "anbncn"):
        ls, gs = seeds("counting", kind=kind, cell="lstm"), seeds("counting", kind=kind, cell="gru_torch")
        both = [(a, b) for a, b in zip(ls, gs) if a["learned"] and b["learned"]]
        if len(both) < 2 or any(a["hard_largest_n_censored"] or b["hard_largest_n_censored"] for a, b in both):
            rows.append("not comparable")
        else:
            _, lo, hi = bootstrap_difference([a["hard_largest_n"] for a, _ in both], [b["hard_largest_n"] for _, b in both],
                                             paired=True)
            rows.append(direction(lo, hi))
        ok = [m for m in ls if m["learned"]]
        rows.append(every([m["hard_largest_n"] for m in ok], 16))
        rows.append(every([m["probe_c_r2_train"] for m in ok], 0.9))
        rows.append(every([m["probe_c_r2_beyond"] for m in ok], 0.9))
        bh.append(every([m["hard_largest_n"] for m in ok], 16))
    out["counting"] = rows + bh
    ok = [m for m in seeds("predict", cell="lstm") if m["learned"]]
    out["predict"] = [every([m["predict_largest_n"] for m in ok], 9), every([m["predict_largest_n"] for m in ok], 16)]
    rows = []
    for c in ("lstm", "gru_torch"):
        runs = seeds(SUMS[c], cell=c)
        ok = [m for m in runs if m["learned"]]
        for L in ("partial", "depth"):
            if len(ok) < 8 * len(runs) / 10:            # below the bar of 8 of 10: no claim
                rows.append("not comparable")
                continue
            sel = [m[f"probe_{L}_selectivity"] for m in ok]
            ill = sum(m[f"probe_{L}_selectivity"] <= 0 and m[f"probe_{L}_accuracy"] > m[f"probe_{L}_majority"] for m in ok)
            rows.append("agrees" if ill == len(ok) else "disagrees" if all(s > 0 for s in sel) else "no clear difference")
    out["sums"] = rows
    rows = []
    for op, unit, other in (("add", "nau", "nalu"), ("mul", "nmu", "linear")):
        a = [math.log10(m["extrap_mse"]) for m in seeds(f"arith_{op}", head=other)]
        b = [math.log10(m["extrap_mse"]) for m in seeds(f"arith_{op}", head=unit)]
        _, lo, hi = bootstrap_difference(a, b, paired=True)
        rows += ["not comparable", direction(lo, hi)]
    out["arith"] = rows
    return out
