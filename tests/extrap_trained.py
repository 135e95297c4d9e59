"""What the extrapolation lab's tables must show, worked out from the build's sweep records
(gleam.pretrained) alone: the app tests and the browser tests compare the page with it."""
import statistics

from content import fmt_fixed
from gleam import pretrained
from gleam.labs.extrapolation import analysis as extrap_analysis
from gleam.labs.extrapolation import brackets as extrap_brackets
from gleam.labs.extrapolation import counting as extrap_counting

SPECS = pretrained.SPECS["extrapolation"]


def seeds(records, **where):
    return [r["metrics"] for r in sorted(records, key=lambda r: r["config"]["seed"])
            if all(r["config"][k] == v for k, v in where.items())]


def per_seed(values, decimals=2):
    return ", ".join(fmt_fixed(v, decimals) for v in values)


def integers(values):
    return ", ".join("none" if v < 0 else str(int(v)) for v in values)


def mean_sd(values, decimals=3):
    return f"{fmt_fixed(statistics.mean(values), decimals)} ± {fmt_fixed(statistics.stdev(values), decimals)}"


def expected():
    runs, out = pretrained.results("extrapolation"), {}
    ld = {**extrap_brackets.DEFAULTS, **SPECS["length_depth"]["fixed"]}
    longer = [L for L in ld["test_lengths"] if L > ld["max_train_length"]]
    deeper = [D for D in ld["test_depths"] if D > ld["max_train_depth"]]
    for cell in SPECS["length_depth"]["grid"]["cell"]:
        ms, k = seeds(runs["length_depth"], cell=cell), f"extrapolation.trained.ld.{cell}"
        a = [statistics.mean(m[f"length_{L}"] for L in longer) for m in ms]
        b = [statistics.mean(m[f"depth_{D}"] for D in deeper) for m in ms]
        out.update({f"{k}.iid": mean_sd([m["iid_accuracy"] for m in ms]),
                    f"{k}.length_reach": integers([m["length_reach"] for m in ms]),
                    f"{k}.depth_reach": integers([m["depth_reach"] for m in ms]),
                    f"{k}.longer": per_seed(a), f"{k}.deeper": per_seed(b),
                    f"{k}.easier": f"{sum(x > y for x, y in zip(a, b))} of {len(ms)}",
                    f"{k}.growth": " / ".join(fmt_fixed(statistics.mean(m[f"growth_{L}"] for m in ms), 2)
                                              for L in ld["test_lengths"])})
    top_n = {**extrap_counting.DEFAULTS, **SPECS["counting"]["fixed"]}["max_train_n"]
    for kind in SPECS["counting"]["grid"]["kind"]:
        for cell in SPECS["counting"]["grid"]["cell"]:
            ms, k = seeds(runs["counting"], kind=kind, cell=cell), f"extrapolation.trained.count.{kind}.{cell}"
            out.update({f"{k}.largest": integers([m["largest_n"] for m in ms]),
                        f"{k}.beyond": f"{sum(m['largest_n'] > top_n for m in ms)} of {len(ms)}",
                        f"{k}.r2_train": mean_sd([m["probe_r2_train"] for m in ms], 2),
                        f"{k}.r2_beyond": mean_sd([m["probe_r2_beyond"] for m in ms], 2),
                        f"{k}.unit": mean_sd([m["best_unit_corr"] for m in ms], 2)})
    for split in SPECS["sums_splits"]["grid"]["split"]:
        ms, k = seeds(runs["sums_splits"], split=split), f"extrapolation.trained.splits.{split}"
        n_ood = sorted({m["n_ood"] for m in ms})
        out.update({f"{k}.iid": per_seed([m["iid_accuracy"] for m in ms]), f"{k}.ood": per_seed([m["ood_accuracy"] for m in ms]),
                    f"{k}.n_ood": str(n_ood[0]) if len(n_ood) == 1 else f"{n_ood[0]}–{n_ood[-1]}"})
    for head in SPECS["sums_heads"]["grid"]["head"]:
        ms, k = seeds(runs["sums_heads"], head=head), f"extrapolation.trained.heads.{head}"
        linear = max(m["bound"] for m in ms) >= 0
        out.update({f"{k}.iid_mae": mean_sd([m["iid_mae"] for m in ms], 2), f"{k}.ood_mae": mean_sd([m["ood_mae"] for m in ms], 2),
                    f"{k}.bound": per_seed([m["bound"] for m in ms], 1) if linear else "—",
                    f"{k}.max_pred": per_seed([m["max_abs_prediction"] for m in ms], 1),
                    f"{k}.above": per_seed([m["ood_above_bound"] for m in ms]) if linear else "—",
                    f"{k}.train_max": integers([m["max_train_value"] for m in ms])})
    an = {**extrap_analysis.DEFAULTS, **SPECS["analysis"]["fixed"]}
    ms, k = seeds(runs["analysis"]), "extrapolation.trained.analysis"
    for name in ("test_accuracy", "train_accuracy", "swap_follows", "swap_unchanged", "clamp_accuracy", "clamp_changed"):
        out[f"{k}.{name}"] = per_seed([m[name] for m in ms])
    out[f"{k}.pca"] = f"{mean_sd([m['pca_var_1'] for m in ms], 2)}, {mean_sd([m['pca_var_2'] for m in ms], 2)}"
    for L in ("depth", "partial", "running", "scope"):
        for x in ("accuracy", "control_accuracy", "selectivity", "majority"):
            out[f"{k}.probe.{L}.{x}"] = mean_sd([m[f"probe_{L}_{x}"] for m in ms], 2)
    for alpha in an["alphas"]:
        for x in ("probe_moved", "output_moved"):
            out[f"{k}.patch.{alpha:g}.{x}"] = per_seed([m[f"patch_{alpha:g}_{x}"] for m in ms])
    for span in an["spans"]:
        out[f"{k}.sv.{span}"] = per_seed([m[f"log10_sv_max_{span}"] for m in ms])
    out[f"{k}.growth"] = per_seed([m["growth_final"] for m in ms])
    return out
