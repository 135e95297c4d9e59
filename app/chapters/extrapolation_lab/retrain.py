"""The extrapolation lab's retrain: one configuration of an experiment's sweep trained in the page
(a gleam.labs.stepped.SteppedRun of gleam.labs.extrapolation's brackets, counting, sums or
analysis) through app.widgets.retrain; what is measured when it stops, and the loss of a guess,
are the run's own (its table_rows() and baseline_loss()).
"""
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
    """What is measured, for this run's experiment: (metric, label, format), as the run gives them."""
    return run.table_rows()


def lines(run):
    """The loss of a guess that ignores the input, as the run gives it."""
    return {"guess": ("a guess that ignores the input", run.baseline_loss())}


def new_retrain(config, on_measured=None):
    """The chapter's retrain, opening on `config`; on_measured(run or None) after a measurement."""
    return retrain.Retrain("extrapolation.retrain", make_run, build_record, rows, config, "gl-chextrapolation", lines,
                           on_measured)
