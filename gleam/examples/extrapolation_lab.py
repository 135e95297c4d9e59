"""The extrapolation lab: the pretrained sweeps (gleam.pretrained) summarised for the page.

extrapolation_lab_trained reads the sweeps' records, so it is not part of `examples()` (the JSON
document stays quick to make). Per setting it gives every shown metric's per-seed values (in
seed order), their exact mean, sample std, min and max; and the counts the chapter's sentences
rest on, each computed here from the records (never typed in the prose).
"""
import copy
import functools
import statistics

from gleam.examples.data import plain, seed_stats

__all__ = ["extrapolation_lab_trained"]


def _group(records, **where):
    """The metrics of the runs matching `where`, in seed order."""
    rs = sorted((r for r in records if all(r["config"][k] == v for k, v in where.items())),
                key=lambda r: r["config"]["seed"])
    return [r["metrics"] for r in rs]


def _summary(ms, keys):
    return {k: seed_stats([m[k] for m in ms]) for k in keys}


def _length_depth(records, config):
    lengths, depths = config["test_lengths"], config["test_depths"]
    longer = [L for L in lengths if L > config["max_train_length"]]
    deeper = [D for D in depths if D > config["max_train_depth"]]
    out = {"test_lengths": lengths, "test_depths": depths, "longer": longer, "deeper": deeper,
           "max_train_length": config["max_train_length"], "max_train_depth": config["max_train_depth"],
           "threshold": config["reach_threshold"], "width": config["n"], "architectures": {}}
    for cell in sorted({r["config"]["cell"] for r in records}, key=["elman", "gru_torch", "lstm"].index):
        ms = _group(records, cell=cell)
        # per seed: mean accuracy beyond the training length (at bounded depth) and beyond the
        # training depth (at bounded length)
        beyond_length = [statistics.mean(m[f"length_{L}"] for L in longer) for m in ms]
        beyond_depth = [statistics.mean(m[f"depth_{D}"] for D in deeper) for m in ms]
        out["architectures"][cell] = {
            **_summary(ms, ["iid_accuracy", "length_reach", "depth_reach"]),
            "length_curves": [[m[f"length_{L}"] for L in lengths] for m in ms],
            "depth_curves": [[m[f"depth_{D}"] for D in depths] for m in ms],
            "beyond_length": seed_stats(beyond_length), "beyond_depth": seed_stats(beyond_depth),
            "length_easier": sum(a > b for a, b in zip(beyond_length, beyond_depth)),
            "depth_easier": sum(a < b for a, b in zip(beyond_length, beyond_depth)), "runs": len(ms),
            # an early perturbation's growth by the answer, per length (mean over seeds), and
            # whether it falls with length wherever the mean accuracy does
            "growth": [statistics.mean(m[f"growth_{L}"] for m in ms) for L in lengths],
            "accuracy_by_length": [statistics.mean(m[f"length_{L}"] for m in ms) for L in lengths]}
        g = out["architectures"][cell]
        g["growth_falls_with_accuracy"] = all(
            g1 < g0 for (g0, g1), (a0, a1) in zip(zip(g["growth"], g["growth"][1:]),
                                                  zip(g["accuracy_by_length"], g["accuracy_by_length"][1:])) if a1 < a0)
    return out


def _counting(records, config):
    out = {"max_train_n": config["max_train_n"], "max_test_n": config["max_test_n"],
           "threshold": config["threshold"], "width": config["n"], "kinds": {}}
    ns = list(range(1, config["max_test_n"] + 1))
    out["ns"] = ns
    for kind in ("anbn", "anbncn"):
        out["kinds"][kind] = {}
        for cell in ("elman", "gru_torch", "lstm"):
            ms = _group(records, kind=kind, cell=cell)
            out["kinds"][kind][cell] = {
                **_summary(ms, ["iid_accuracy", "largest_n", "probe_r2_train", "probe_r2_beyond", "best_unit_corr"]),
                "curves": [[m[f"acc_{n}"] for n in ns] for m in ms],
                "beyond_training": sum(m["largest_n"] > config["max_train_n"] for m in ms), "runs": len(ms)}
    return out


def _sums(splits, heads, config):
    out = {"splits": {}, "heads": {}, "width": config["n"], "chance": 1 / 10}   # 10 classes: value mod 10
    for split in ("length", "depth", "composition", "value"):
        ms = _group(splits, split=split)
        out["splits"][split] = {**_summary(ms, ["iid_accuracy", "ood_accuracy", "n_train", "n_ood"]),
                                "runs": len(ms)}
    for head in ("regress", "nau", "nmu", "nalu"):
        ms = _group(heads, head=head)
        out["heads"][head] = {**_summary(ms, ["iid_mae", "ood_mae", "iid_exact", "ood_exact", "bound",
                                              "max_abs_prediction", "ood_above_bound", "max_train_value"]),
                              "runs": len(ms)}
    reg = _group(heads, head="regress")
    # the linear head's ceiling against its own training range, per seed
    out["bound_below_train_max"] = sum(m["bound"] < m["max_train_value"] for m in reg)
    out["runs"] = len(reg)
    return out


LABELS = ("depth", "partial", "running", "scope")


def _analysis(records, config):
    ms = _group(records)
    keys = ["test_accuracy", "train_accuracy", "pca_var_1", "pca_var_2", "swap_follows", "swap_unchanged",
            "clamp_accuracy", "clamp_changed", "growth_final"]
    keys += [f"probe_{L}_{x}" for L in LABELS for x in ("accuracy", "control_accuracy", "selectivity", "majority")]
    keys += [f"patch_{a:g}_{x}" for a in config["alphas"] for x in ("probe_moved", "output_moved")]
    keys += [f"log10_sv_max_{s}" for s in config["spans"]]
    out = {"labels": list(LABELS), "alphas": config["alphas"], "spans": config["spans"], "width": config["n"],
           **_summary(ms, keys), "runs": len(ms)}
    # decodable against used: per seed, the largest α's probe and output moves
    top = max(config["alphas"])
    out["decodable_not_used"] = sum(m[f"patch_{top:g}_probe_moved"] > m[f"patch_{top:g}_output_moved"] for m in ms)
    out["top_alpha"] = top
    out["top_patch"] = {x: seed_stats([m[f"patch_{top:g}_{x}"] for m in ms]) for x in ("probe_moved", "output_moved")}
    out["longest_span"] = max(config["spans"])
    out["sv_longest_span"] = seed_stats([m[f"log10_sv_max_{max(config['spans'])}"] for m in ms])
    out["selective"] = {L: sum(m[f"probe_{L}_selectivity"] > 0 for m in ms) for L in LABELS}
    return out


@functools.lru_cache(maxsize=None)
def _trained():
    from gleam import pretrained
    from gleam.labs.extrapolation import analysis as extrap_analysis
    from gleam.labs.extrapolation import brackets as extrap_brackets
    from gleam.labs.extrapolation import counting as extrap_counting
    from gleam.labs.extrapolation import sums as extrap_sums
    runs, specs = pretrained.results("extrapolation"), pretrained.SPECS["extrapolation"]

    def defaults(module, name):
        return {**module.DEFAULTS, **specs[name]["fixed"]}
    return plain({
        "seeds": specs["length_depth"]["grid"]["seed"], "specs": specs,
        "length_depth": _length_depth(runs["length_depth"], defaults(extrap_brackets, "length_depth")),
        "counting": _counting(runs["counting"], defaults(extrap_counting, "counting")),
        "sums": _sums(runs["sums_splits"], runs["sums_heads"], defaults(extrap_sums, "sums_splits")),
        "analysis": _analysis(runs["analysis"], defaults(extrap_analysis, "analysis"))})


def extrapolation_lab_trained():
    """The pretrained sweeps of the extrapolation lab, summarised (module docstring)."""
    return copy.deepcopy(_trained())


def examples():
    """What `python -m gleam.examples --json` prints for this chapter (the results are not in it)."""
    return {}
