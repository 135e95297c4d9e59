"""The memory lab's retrain: one setting of the chapter's experiments (gleam.labs.memory.run's
CueDelayRun) trained in the page, through app.widgets.retrain. The task, cell, parameter budget,
learning rate, forget-gate bias, backward horizon and seed name the setting; the page trains it at
a short budget, DEMO — a demonstration that may not learn, every update of every epoch taken (no
validation, no early stopping: the page steps the run) — and the acceptance test measures the
model as it is when training stops. Beside it stands the shipped run of the same setting
(gleam.pretrained), which trained longer, to the criterion: the two are not expected to agree.
"""
import math

from gleam_lab.app.widgets import retrain
from gleam import pretrained
from gleam.labs.memory import run as sweep_memory

LAB = "memory"                  # the lab in gleam (gleam.pretrained, gleam.labs.subjects)
SPECS = pretrained.SPECS[LAB]
TASKS = {"long delay ({} to {})".format(*SPECS["cells"]["fixed"]["delay"]): "cells",
         f"fixed delay of {SPECS['horizons']['fixed']['delay']}": "horizons"}
# the choices: the experiments' settings
HORIZONS = {"full": None, **{str(k): k for k in SPECS["horizons"]["grid"]["truncate"]}}
BUDGETS = list(SPECS["cells"]["grid"]["params"])
LRS = list(SPECS["cells"]["grid"]["lr"])
BIASES = list(SPECS["forget_bias"]["grid"]["forget_bias"])
# the in-page budget: what a browser trains in a minute or so
DEMO = {"n_train": 2000, "epochs": 5, "n_val": 0, "check_every": 0}
# what the shipped runs' budget sets (and the page's does not): left out when matching a setting
BUDGET_KEYS = ("n_train", "epochs", "n_val", "check_every", "criterion", "stop_at")
EDGE = max(SPECS["cells"]["fixed"]["probe_delays"])    # the longest delay probed
# metric, row label, how it is written; the cue-dependent accuracy first
ROWS = [("test_needs_cue_accuracy", "'?' accuracy, held-in test", "f3"),
        ("test_accuracy", "accuracy on all queries", "f3"),
        ("needs_cue_accuracy", "'?' accuracy, acceptance probes", "f3"),
        ("retention_max", f"max horizon (probed up to {EDGE}: {EDGE} means ≥ {EDGE})", "horizon"),
        ("swap_swapped", "state swap: swapped", "f2"), ("erasure_drop", "cue erasure: drop", "f2"),
        ("window_needs_cue_accuracy", "window baseline '?'", "f2"),
        ("revision_latency", "revision latency", "horizon"), ("cue_grad", "‖∂L/∂x₀‖ now", "sci")]
LN2 = math.log(2.0)
LINES = {"chance": ("chance (ln 2)", LN2), "half": ("no memory: ½ ln 2", LN2 / 2)}


def config_of(task, cell, params, lr, forget_bias, horizon, seed):
    """The config the page's choices name: the task's spec, the choices, the page's budget."""
    fixed = SPECS[TASKS[task]]["fixed"]
    return {**fixed, "cell": cell, "params": int(params), "lr": float(lr), "forget_bias": float(forget_bias),
            "truncate": HORIZONS[horizon], "seed": int(seed), **DEMO}


def setting(config):
    """A config without its training budget: what names a setting of the experiments."""
    return {k: v for k, v in sweep_memory.normalized(config).items() if k not in BUDGET_KEYS}


def build_record(config):
    """The metrics of the shipped run of the same setting (any of the lab's experiments), or None."""
    want = setting(config)
    for records in pretrained.results("memory").values():
        for r in records:
            if setting(r["config"]) == want:
                return r["metrics"]
    return None


def new_retrain(config):
    """The chapter's retrain, opening on `config`."""
    return retrain.Retrain("memory.retrain", sweep_memory.CueDelayRun, build_record, ROWS, config,
                           "gl-chmemory", LINES)
