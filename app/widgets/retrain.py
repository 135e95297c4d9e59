"""A research lab's retrain, written once: one configuration of the lab's sweeps trained in the
page (a gleam.labs.stepped.SteppedRun) with app.widgets.live_loop's Train / Pause / Step / Reset.

Progress (epoch, update, the loss's EMA) shows while it trains; when it stops — Pause, the end
of its epochs, a divergence — the model as it is is measured (`run.metrics()`), and the results
stand beside those of the shipped run of the same configuration, if there is one. Pause keeps
the model: Train goes on from there, Reset starts the configuration again.

    Retrain(prefix, make_run, build_record, rows, config, css, lines)   prefix: the value keys'
        ("memory.retrain"); make_run(config) -> a SteppedRun; build_record(config) -> the shipped
        metrics or None; rows: (metric, label, format) with format "f2", "f3", "horizon" (-1 is
        "none") or "sci", or a function of the run giving them (rows that depend on the
        configuration); css: the css prefix of its parts ("gl-chmemory"); lines: the loss
        curve's reference lines, name -> (label, loss), the first also its opening height (or a
        function of the run giving them; the names stay those of the first run)
"""
import html

import panel as pn

from gleam_lab.app.widgets.live_loop import LiveLoop, View
from gleam_lab.app.widgets.page import gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.streaming import StreamingCurve
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed, fmt_sci

PUSH_EVERY = {"progress": 0.25, "loss": 0.1}
STOPPED = ("paused", "finished", "diverged")


def metric_text(value, how):
    if how == "horizon":
        return "none" if value < 0 else str(int(value))
    if how == "sci":
        return fmt_sci(value, text=True)
    return fmt_fixed(value, int(how[1]))


class Retrain:
    """The run, its loop and its views; `replace(config)` starts another configuration."""

    def __init__(self, prefix, make_run, build_record, rows, config, css, lines, on_measured=None):
        self.prefix, self.make_run, self.build_record, self.rows, self.css = prefix, make_run, build_record, rows, css
        self._lines = lines
        self.on_measured = on_measured      # called with the run after each new measurement
        self.run = make_run(config)
        self.build = build_record(config)
        self.tested = None                  # (updates, metrics) of the last measurement
        self.progress = html_pane(css_classes=[f"{css}-progress"])
        self.results = html_pane(css_classes=[f"{css}-results"])
        styles = {name: (label, PALETTE.faint, "dashed" if i == 0 else "dotted", "above" if i == 0 else "below")
                  for i, (name, (label, _)) in enumerate(self.lines().items())}
        self.curve = StreamingCurve("Training loss (nats): each update, and its EMA", "update",
                                    self._top(), styles, height=200, css_class=f"{css}-loss")
        loop = self.loop = LiveLoop(self.run, on_restart=self._restart, views=[
            View(PUSH_EVERY["progress"], lambda final: self._show()),
            View(PUSH_EVERY["loss"], lambda final: self.curve.stream(*loop.take_curve(), final=final),
                 lambda final: final or loop.has_curve())])
        loop.param.watch(lambda event: self._show(), "status")
        self._restart()

    def replace(self, config):
        self.loop.training = False
        self.run = self.make_run(config)
        self.build, self.tested = self.build_record(config), None
        self.loop.replace(self.run)
        if self.on_measured is not None:
            self.on_measured(None)          # nothing measured of the new run yet

    def lines(self):
        return dict(self._lines(self.run) if callable(self._lines) else self._lines)

    def _top(self):
        lines = self.lines()
        return next(iter(lines.values()))[1] if lines else 1.0

    def _restart(self):
        if self.tested is not None and self.on_measured is not None:
            self.on_measured(None)
        self.tested = None
        self.curve.restart(self._top(), {name: y for name, (_, y) in self.lines().items()})
        self._show()

    # ------------------------------------------------------------ what it shows
    def row_list(self):
        return self.rows(self.run) if callable(self.rows) else self.rows

    def test_now(self):
        """The metrics of the model as it is (measured once per number of updates)."""
        if self.tested is None or self.tested[0] != self.run.steps:
            self.tested = (self.run.steps, self.run.metrics())
            if self.on_measured is not None:
                self.on_measured(self.run)
        return self.tested[1]

    def values(self):
        run, loop, p = self.run, self.loop, self.prefix
        out = {f"{p}.status": loop.status, f"{p}.updates": str(run.steps), f"{p}.total": str(run.total_steps),
               f"{p}.epoch": str(run.epoch), f"{p}.epochs": str(run.config["epochs"]),
               f"{p}.loss": "—" if loop.ema is None else fmt_fixed(loop.ema, 3),
               f"{p}.width": str(run.model.config.n), f"{p}.params": str(run.model.n_params),
               f"{p}.build": "" if self.build is not None else
               "The shipped results hold no run of this configuration: there is nothing to compare with."}
        mine = self.tested[1] if self.tested is not None and self.tested[0] == run.steps else None
        for key, _, how in self.row_list():
            out[f"{p}.mine.{key}"] = "—" if mine is None else metric_text(mine[key], how)
            out[f"{p}.built.{key}"] = "—" if self.build is None else metric_text(self.build[key], how)
        return out

    def _show(self):
        loop, run, p = self.loop, self.run, self.prefix
        if loop.status in STOPPED and run.steps > 0:
            self.test_now()
        v = self.values()

        def span(key):
            return gv(f"{p}.{key}", v[f"{p}.{key}"])
        self.progress.object = (
            f"<div role='status' aria-live='polite'><span class='gl-status-{html.escape(loop.status)}'>"
            f"{span('status')}</span>: epoch {span('epoch')} of {span('epochs')} done, update "
            f"{span('updates')} of {span('total')}; loss (EMA) {span('loss')}. Width n = {span('width')}, "
            f"{span('params')} parameters.</div>"
            f"<progress max='{run.total_steps}' value='{run.steps}' aria-label='updates done'"
            " style='width: 100%'></progress>")
        mine_head = "your model" + (f" (after {run.steps} updates)" if run.steps else ", not trained yet")
        rows = [[label, span(f"mine.{key}"), span(f"built.{key}")] for key, label, _ in self.row_list()]
        self.results.object = (table(["measured", mine_head, "the shipped run"], rows)
                               + f"<div class='gl-note'>{span('build')}</div>"
                               + "<div class='gl-note'>Measured when training stops (Pause, or the last "
                               "epoch); Pause keeps the model, Train goes on from it.</div>")

    def panel(self, controls):
        return pn.Column(wrap_row(*controls), self.loop.controls(f"{self.css}-rt"), self.progress,
                         pn.pane.Bokeh(self.curve.fig, sizing_mode="stretch_width"), self.results,
                         sizing_mode="stretch_width")

