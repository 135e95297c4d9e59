"""The memory lab's retrain: one configuration of the chapter's sweeps (gleam.labs.memory.run's
CueDelayRun) trained in the page, through app.widgets.retrain: the task, cell, forget-gate bias,
backward horizon and seed name the configuration; the acceptance test measures the model as it is
when training stops, beside the build's run of the same configuration.
"""
import math

from app.widgets import retrain
from gleam import pretrained
from gleam.labs.memory import run as sweep_memory

TASKS = {"long delay (20 to 40)": "cells", "fixed delay of 16": "horizons"}
HORIZONS = {"full": None, "8": 8, "18": 18, "36": 36}
# metric, row label, how it is written
ROWS = [("test_accuracy", "test accuracy", "f3"), ("test_needs_cue_accuracy", "test accuracy on '?'", "f3"),
        ("needs_cue_accuracy", "'?' accuracy, acceptance probes", "f3"),
        ("retention_max", "max horizon", "horizon"), ("swap_swapped", "state swap: swapped", "f2"),
        ("erasure_drop", "cue erasure: drop", "f2"), ("window_needs_cue_accuracy", "window baseline '?'", "f2"),
        ("revision_latency", "revision latency", "horizon"), ("cue_grad", "‖∂L/∂x₀‖ now", "sci")]
LN2 = math.log(2.0)
LINES = {"chance": ("chance (ln 2)", LN2), "half": ("no memory: ½ ln 2", LN2 / 2)}


def config_of(task, cell, forget_bias, horizon, seed):
    """The sweep config the page's choices name (the build's spec for that task, and the choices)."""
    fixed = pretrained.SPECS["memory"][TASKS[task]]["fixed"]
    return {**fixed, "cell": cell, "forget_bias": float(forget_bias), "truncate": HORIZONS[horizon],
            "seed": int(seed)}


def build_record(config):
    """The build's metrics for this config (any of the lab's sweeps), or None if it never ran it."""
    want = sweep_memory.normalized(config)
    for records in pretrained.results("memory").values():
        for r in records:
            if sweep_memory.normalized(r["config"]) == want:
                return r["metrics"]
    return None


def new_retrain(config):
    """The chapter's retrain, opening on `config`."""
    return retrain.Retrain("memory.retrain", sweep_memory.CueDelayRun, build_record, ROWS, config,
                           "gl-chmemory", LINES)
