"""The extrapolation lab's retrain: one configuration of an experiment's sweep trained in the page
(a gleam.seqmodel.stepped.SteppedRun of gleam.labs.extrapolation.brackets, extrap_counting, extrap_sums or
extrap_analysis) through
app.widgets.retrain; what is measured when it stops depends on the experiment (`rows`).
"""
import math
import statistics

from app.widgets import retrain
from gleam import pretrained
from gleam.labs.extrapolation import analysis as extrap_analysis
from gleam.labs.extrapolation import brackets as extrap_brackets
from gleam.labs.extrapolation import counting as extrap_counting
from gleam.labs.extrapolation import sums as extrap_sums

# the page's name of an experiment -> (its sweeps in gleam.pretrained, its run's module)
EXPERIMENTS = {"1. length vs depth": (("length_depth",), extrap_brackets),
               "2. counting": (("counting",), extrap_counting),
               "3. nested sums": (("sums_splits", "sums_heads"), extrap_sums),
               "4-6. information and mechanism": (("analysis",), extrap_analysis)}
RUNS = {extrap_brackets: extrap_brackets.BracketsRun, extrap_counting: extrap_counting.CountingRun,
        extrap_sums: extrap_sums.SumsRun, extrap_analysis: extrap_analysis.AnalysisRun}
SPLITS = ("length", "depth", "composition", "value")
HEADS = ("classify", "regress", "nau", "nmu", "nalu")


def _specs():
    return pretrained.SPECS["extrapolation"]


def config_of(experiment, cell, kind, split, head, seed):
    """The sweep config the page's choices name (an experiment's spec, and the choices it reads)."""
    names, module = EXPERIMENTS[experiment]
    if module is extrap_brackets:
        return {**_specs()["length_depth"]["fixed"], "cell": cell, "seed": int(seed)}
    if module is extrap_counting:
        return {**_specs()["counting"]["fixed"], "kind": kind, "cell": cell, "seed": int(seed)}
    if module is extrap_analysis:
        return {**_specs()["analysis"]["fixed"], "cell": cell, "seed": int(seed)}
    if head == "classify":
        return {**_specs()["sums_splits"]["fixed"], "split": split, "cell": cell, "seed": int(seed)}
    return {**_specs()["sums_heads"]["fixed"], "head": head, "cell": cell, "seed": int(seed)}


def module_of(config):
    """The run module a config of config_of belongs to."""
    if "kind" in config:
        return extrap_counting if config["kind"] in extrap_counting.LETTERS else extrap_brackets
    if "head" in config or "split" in config:
        return extrap_sums
    return extrap_analysis


def make_run(config):
    return RUNS[module_of(config)](config)


def build_record(config):
    """The build's metrics for this config, or None if the build never ran it."""
    module = module_of(config)
    want = module.normalized(config)
    names = next(n for n, m in EXPERIMENTS.values() if m is module)
    results = pretrained.results("extrapolation")
    for name in names:
        for r in results[name]:
            if module.normalized(r["config"]) == want:
                return r["metrics"]
    return None


def rows(run):
    """What is measured, for this run's experiment: (metric, label, format)."""
    c = run.config
    if isinstance(run, extrap_brackets.BracketsRun):
        return ([("iid_accuracy", "in-distribution accuracy", "f3")]
                + [(f"length_{L}", f"accuracy at length {L}", "f3") for L in c["test_lengths"]]
                + [(f"depth_{D}", f"accuracy at depth {D}", "f3") for D in c["test_depths"]]
                + [("length_reach", "length reach", "horizon"), ("depth_reach", "depth reach", "horizon")])
    if isinstance(run, extrap_counting.CountingRun):
        ns = sorted({c["max_train_n"], *range(4, c["max_test_n"] + 1, 4)})
        return ([("iid_accuracy", "in-distribution accuracy", "f3"), ("largest_n", "largest n", "horizon")]
                + [(f"acc_{n}", f"accuracy at n = {n}", "f3") for n in ns]
                + [("probe_r2_train", "counter probe R², trained n", "f2"),
                   ("probe_r2_beyond", "counter probe R², larger n", "f2"),
                   ("best_unit_corr", "best single unit |r|", "f2")])
    if isinstance(run, extrap_analysis.AnalysisRun):
        top, span = max(c["alphas"]), max(c["spans"])
        return [("test_accuracy", "test accuracy (mod 10)", "f3"),
                ("probe_depth_accuracy", "depth probe accuracy", "f2"), ("probe_depth_selectivity", "its selectivity", "f2"),
                ("probe_partial_accuracy", "partial-sum probe accuracy", "f2"),
                ("probe_partial_selectivity", "its selectivity", "f2"),
                (f"patch_{top:g}_probe_moved", f"patch α = {top:g}: probe reading moved", "f2"),
                (f"patch_{top:g}_output_moved", f"patch α = {top:g}: prediction moved", "f2"),
                ("clamp_accuracy", "accuracy with the depth unit clamped", "f3"),
                (f"log10_sv_max_{span}", f"median log10 σ_max over {span} steps", "f2")]
    if c["head"] == "classify":
        return [("iid_accuracy", "in-distribution accuracy", "f3"), ("ood_accuracy", "held-out accuracy", "f3")]
    return [("iid_mae", "error on seen values (MAE)", "f2"), ("ood_mae", "error on held-out values (MAE)", "f2"),
            ("bound", "ceiling |b| + ‖w‖₁ (−1: none)", "f2"), ("max_abs_prediction", "largest |ŷ|", "f2"),
            ("ood_above_bound", "held-out values above the ceiling", "f2")]


def lines(run):
    """The loss of a guess that ignores the input: ln(classes), or the targets' variance."""
    if isinstance(run, extrap_sums.SumsRun) and run.config["head"] != "classify":
        values = [e.facts["value"] for e in run.train_examples]
        guess = statistics.pvariance(values)
    else:
        guess = math.log(10 if isinstance(run, (extrap_sums.SumsRun, extrap_analysis.AnalysisRun)) else 2)
    return {"guess": ("a guess that ignores the input", guess)}


def new_retrain(config, on_measured=None):
    """The chapter's retrain, opening on `config`; on_measured(run or None) after a measurement."""
    return retrain.Retrain("extrapolation.retrain", make_run, build_record, rows, config, "gl-chextrapolation", lines,
                           on_measured)
