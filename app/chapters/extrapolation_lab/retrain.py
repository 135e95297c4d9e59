"""The extrapolation lab's retrain: one setting of an experiment (a gleam.labs.stepped.SteppedRun of
gleam.labs.extrapolation's brackets, counting or sums) trained in the page through
app.widgets.retrain, at a short budget, DEMO — a demonstration that may not learn: every update of
every epoch taken, no validation, no early stopping — and measured as it is when training stops.
Beside it stands the shipped run of the same setting (gleam.pretrained), which trained longer, to
the criterion: the two are not expected to agree. What is measured, and the loss of a guess, are
the run's own (its table_rows() and baseline_loss()). The arithmetic heads are not recurrent models
and are not retrained here.
"""
from gleam_lab.app.widgets import retrain
from gleam import pretrained
from gleam.examples.extrapolation_lab import SUMS_RUNS
from gleam.labs.extrapolation import brackets as extrap_brackets
from gleam.labs.extrapolation import counting as extrap_counting
from gleam.labs.extrapolation import sums as extrap_sums

# the page's name of an experiment -> (its experiment in gleam.pretrained, its run's module, its run)
EXPERIMENTS = {"1. length vs depth": ("length_depth", extrap_brackets, extrap_brackets.BracketsRun),
               "2. counting (accept)": ("counting", extrap_counting, extrap_counting.CountingRun),
               "3. predicting aⁿbⁿ": ("predict", extrap_counting, extrap_counting.CountingRun),
               "4. nested sums": ("sums", extrap_sums, extrap_sums.SumsRun)}
# the in-page budgets: a few seconds of CPython each (sums: its ~20,000-parameter cells are slow)
DEMO = {"length_depth": {"n_train": 1000, "epochs": 5},
        "counting": {"n_train": 1000, "epochs": 5},
        "predict": {"n_train": 1000, "epochs": 5},
        "sums": {"n_examples": 400, "epochs": 1, "analyse": False}}
NO_CHECKS = {"n_val": 0, "check_every": 0}
# where an experiment's cells ran as experiments of their own (their budgets differ)
PER_CELL = {"sums": SUMS_RUNS}
# what a shipped run's budget sets (and the page's does not): left out when matching a setting
BUDGET_KEYS = ("n_train", "n_examples", "epochs", "n_val", "check_every", "criterion", "stop_at", "analyse")


LAB = "extrapolation"           # the lab in gleam (gleam.pretrained, gleam.labs.subjects)


def _specs():
    return pretrained.SPECS[LAB]


def cells_of(experiment):
    """The cells an experiment ran."""
    name = EXPERIMENTS[experiment][0]
    return list(PER_CELL[name]) if name in PER_CELL else list(_specs()[name]["grid"]["cell"])


def config_of(experiment, cell, kind, seed):
    """The config the page's choices name: the experiment's spec, the choices it reads, the page's budget."""
    name = EXPERIMENTS[experiment][0]
    spec = _specs()[PER_CELL[name][cell] if name in PER_CELL else name]
    config = {**spec["fixed"], "cell": cell, "seed": int(seed), **DEMO[name], **NO_CHECKS}
    if name == "counting":
        config["kind"] = kind
    return config


def module_of(config):
    if "split" in config:
        return extrap_sums
    return extrap_counting if config.get("kind") in extrap_counting.LETTERS else extrap_brackets


def make_run(config):
    return {extrap_sums: extrap_sums.SumsRun, extrap_counting: extrap_counting.CountingRun,
            extrap_brackets: extrap_brackets.BracketsRun}[module_of(config)](config)


def setting(config):
    """A config without its training budget: what names a setting of the experiments."""
    return {k: v for k, v in module_of(config).normalized(config).items() if k not in BUDGET_KEYS}


def build_record(config):
    """The metrics of the shipped run of the same setting, or None."""
    want = setting(config)
    for name, records in pretrained.results("extrapolation").items():
        if name.startswith("arith"):
            continue
        for r in records:
            if module_of(r["config"]) is module_of(config) and setting(r["config"]) == want:
                return r["metrics"]
    return None


def rows(run):
    """What is measured, for this run's experiment: (metric, label, format), as the run gives them."""
    return run.table_rows()


def lines(run):
    """The loss of a guess that ignores the input, as the run gives it."""
    return {"guess": ("a guess that ignores the input", run.baseline_loss())}


def new_retrain(config):
    """The chapter's retrain, opening on `config`."""
    return retrain.Retrain("extrapolation.retrain", make_run, build_record, rows, config, "gl-chextrapolation", lines)
