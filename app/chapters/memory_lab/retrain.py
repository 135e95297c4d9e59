"""The memory lab's retrain: one configuration of the chapter's sweeps trained in the page
(gleam.sweep_memory.CueDelayRun) with app.widgets.live_loop's Train / Pause / Step / Reset.

Progress (epoch, update, the loss's EMA) shows while it trains; when it stops — Pause, the end
of its epochs, a divergence — the model as it is goes through the acceptance test, and its
results stand beside those of the build's run of the same configuration, if the build ran it.
Pause keeps the model: Train goes on from there, Reset starts the configuration again.
"""
import html
import math

import panel as pn

from app.widgets.live_loop import LiveLoop, View
from app.widgets.page import gv, html_pane, table, wrap_row
from app.widgets.streaming import StreamingCurve
from app.widgets.theme import PALETTE
from content import fmt_fixed, fmt_sci
from gleam import pretrained, sweep_memory

PUSH_EVERY = {"progress": 0.25, "loss": 0.1}
TASKS = {"long delay (20 to 40)": "cells", "fixed delay of 16": "horizons"}
HORIZONS = {"full": None, "8": 8, "18": 18, "36": 36}
# metric, row label, how it is written
ROWS = [("test_accuracy", "test accuracy", "f3"), ("test_needs_cue_accuracy", "test accuracy on '?'", "f3"),
        ("needs_cue_accuracy", "'?' accuracy, acceptance probes", "f3"),
        ("retention_max", "max horizon", "horizon"), ("swap_swapped", "state swap: swapped", "f2"),
        ("erasure_drop", "cue erasure: drop", "f2"), ("window_needs_cue_accuracy", "window baseline '?'", "f2"),
        ("revision_latency", "revision latency", "horizon"), ("cue_grad", "‖∂L/∂x₀‖ now", "sci")]
LN2 = math.log(2.0)


def _text(value, how):
    if how == "horizon":
        return "none" if value < 0 else str(int(value))
    if how == "sci":
        return fmt_sci(value, text=True)
    return fmt_fixed(value, int(how[1]))


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


class Retrain:
    """The run, its loop and its views; `replace(config)` starts another configuration."""

    def __init__(self, config):
        self.run = sweep_memory.CueDelayRun(config)
        self.build = build_record(config)
        self.tested = None                  # (updates, metrics) of the last acceptance test
        self.progress = html_pane(css_classes=["gl-chmemory-progress"])
        self.results = html_pane(css_classes=["gl-chmemory-results"])
        self.curve = StreamingCurve("Training loss (nats): each update, and its EMA",
                                    "update", LN2, {"chance": ("chance (ln 2)", PALETTE.faint, "dashed", "above"),
                                                    "half": ("no memory: ½ ln 2", PALETTE.faint, "dotted", "below")},
                                    height=200, css_class="gl-chmemory-loss")
        loop = self.loop = LiveLoop(self.run, on_restart=self._restart, views=[
            View(PUSH_EVERY["progress"], lambda final: self._show()),
            View(PUSH_EVERY["loss"], lambda final: self.curve.stream(*loop.take_curve(), final=final),
                 lambda final: final or loop.has_curve())])
        loop.param.watch(lambda event: self._show(), "status")
        self._restart()

    def replace(self, config):
        self.loop.training = False
        self.run = sweep_memory.CueDelayRun(config)
        self.build, self.tested = build_record(config), None
        self.loop.replace(self.run)

    def _restart(self):
        self.tested = None
        self.curve.restart(LN2, {"chance": LN2, "half": LN2 / 2})
        self._show()

    # ------------------------------------------------------------ what it shows
    def test_now(self):
        """The acceptance test of the model as it is (once per number of updates)."""
        if self.tested is None or self.tested[0] != self.run.steps:
            self.tested = (self.run.steps, self.run.metrics())
        return self.tested[1]

    def values(self):
        run, loop = self.run, self.loop
        out = {"memory.retrain.status": loop.status, "memory.retrain.updates": str(run.steps),
               "memory.retrain.total": str(run.total_steps), "memory.retrain.epoch": str(run.epoch),
               "memory.retrain.epochs": str(run.config["epochs"]),
               "memory.retrain.loss": "—" if loop.ema is None else fmt_fixed(loop.ema, 3),
               "memory.retrain.width": str(run.n), "memory.retrain.params": str(run.model.n_params),
               "memory.retrain.build": "" if self.build is not None else
               "The build did not run this configuration: there is nothing to compare with."}
        mine = self.tested[1] if self.tested is not None and self.tested[0] == run.steps else None
        for key, _, how in ROWS:
            out[f"memory.retrain.mine.{key}"] = "—" if mine is None else _text(mine[key], how)
            out[f"memory.retrain.built.{key}"] = "—" if self.build is None else _text(self.build[key], how)
        return out

    def _show(self):
        loop, run = self.loop, self.run
        if loop.status in ("paused", "finished", "diverged") and run.steps > 0:
            self.test_now()
        v = self.values()
        status = html.escape(loop.status)
        self.progress.object = (
            f"<div role='status' aria-live='polite'><span class='gl-status-{status}'>"
            f"{gv('memory.retrain.status', v['memory.retrain.status'])}</span>: epoch "
            f"{gv('memory.retrain.epoch', v['memory.retrain.epoch'])} of {gv('memory.retrain.epochs', v['memory.retrain.epochs'])}"
            f" done, update {gv('memory.retrain.updates', v['memory.retrain.updates'])} of "
            f"{gv('memory.retrain.total', v['memory.retrain.total'])}; loss (EMA) "
            f"{gv('memory.retrain.loss', v['memory.retrain.loss'])}. Width n = "
            f"{gv('memory.retrain.width', v['memory.retrain.width'])}, "
            f"{gv('memory.retrain.params', v['memory.retrain.params'])} parameters.</div>"
            f"<progress max='{run.total_steps}' value='{run.steps}' aria-label='updates done'"
            " style='width: 100%'></progress>")
        mine_head = "your model" + (f" (after {run.steps} updates)" if run.steps else ", not trained yet")
        rows = [[label, gv(f"memory.retrain.mine.{key}", v[f"memory.retrain.mine.{key}"]),
                 gv(f"memory.retrain.built.{key}", v[f"memory.retrain.built.{key}"])] for key, label, _ in ROWS]
        self.results.object = (table(["acceptance test", mine_head, "the build's run"], rows)
                               + f"<div class='gl-note'>{gv('memory.retrain.build', v['memory.retrain.build'])}</div>"
                               + "<div class='gl-note'>The test runs when training stops (Pause, or the last "
                               "epoch); Pause keeps the model, Train goes on from it.</div>")

    def panel(self, controls):
        return pn.Column(wrap_row(*controls), self.loop.controls("gl-chmemory-rt"),
                         self.progress, pn.pane.Bokeh(self.curve.fig, sizing_mode="stretch_width"), self.results,
                         sizing_mode="stretch_width")
