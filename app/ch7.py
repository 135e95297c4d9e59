"""Chapter 7: a character-level GRU (gleam.chargru.CharGRU) training live in the page.

Controls by what they invalidate:
- temperature: only the next sample;
- learning rate: the optimiser's step size, set on the running model;
- hidden size, corpus (Apply), Reset: a new model (or the same one re-initialised), curves cleared.

Training runs as an asyncio task (Panel's `pn.state.execute`, so it works under `panel serve` and in
the Pyodide worker alike): run steps for a ~40 ms budget, then `await asyncio.sleep(0.004)` so widget
changes are handled between ticks. Every push costs the worker milliseconds and the page a repaint, so
while training each view is pushed at its own pace (PUSH_EVERY: the loss curve every tick, ~20/s; the
gates at most 10/s; the stats ~4/s; a new sample ~1/s); whenever training stops (Pause, the Train
toggle, divergence) or after a Step, everything pending is pushed at once, the stats first, so the
page then shows the exact figures.
The figures' ranges are set from Python only (app/ch7_plots.py): nothing flows back while training.
Sampled and typed text reaches the page only through html.escape.
"""
import asyncio
import html
import math
import sys
import time

import panel as pn
import param
from panel.io.document import unlocked

from app.ch7_plots import GatePlots, HTMLBox, LossPlot
from app.common import chapter_layout, fmt_fixed, gv, widget_card
from gleam.chargru import DEFAULT_CORPUS, DIVERGENCE_FACTOR, CharGRU, ema

EMA_DECAY = 0.97
TICK_BUDGET = 0.040        # seconds of training per tick (a click waits at most about this long)
TICK_SLEEP = 0.004         # a real timer (> ~2 ms): widget changes are handled between ticks
# seconds between two pushes of each view while training (BokehJS redraws cost the page's main
# thread, every push costs the worker time it could train in)
# (a tick lasts ~45-50 ms: the loss goes out every tick, the gates every third, the stats every sixth)
PUSH_EVERY = {"loss": 0.03, "gates": 0.1, "stats": 0.24, "sample": 0.95}
SAMPLE_CHARS = 240
SEED = 0

EXPERIMENTS = {
    "(choose an experiment)": None,
    "Default: lr 0.1, H 32": {"lr": 0.1, "hidden": 32,
        "note": "Falls from the chance line through the letter-frequency plateau to well below it "
                "within a few hundred steps."},
    "Too cold: lr 0.001": {"lr": 0.001, "hidden": 32,
        "note": "Barely moves: after thousands of steps the curve is still parked near the "
                "unigram (letter-frequency) line. Each step is too small to get further."},
    "Too hot: lr 5": {"lr": 5.0, "hidden": 32,
        "note": "The first steps throw the weights far outside a sensible range: the loss leaps "
                "above the chance line and the run is declared diverged."},
    "Wide: H 128": {"lr": 0.1, "hidden": 128,
        "note": "Four times the units, sixteen times the recurrent weights: fewer steps per "
                "second (the H² recurrence tax) and a bumpier start."},
    "Narrow: H 16": {"lr": 0.1, "hidden": 16,
        "note": "Trains fast per step but settles higher: 16 numbers of state cannot hold as "
                "much of the corpus."},
}


class LiveLabChapter(pn.viewable.Viewer):
    """Train a char-level GRU live: loss curve, samples, gate heatmaps."""

    training = param.Boolean(default=False, label="Train")   # training runs while this is on
    pause = param.Event(label="Pause")
    step_once = param.Event(label="Step")
    reset = param.Event(label="Reset")
    apply_corpus = param.Event(label="Apply corpus")
    lr = param.Number(default=0.1, allow_None=True, label="Learning rate",
                      doc="Adagrad's step size (lr = 5 diverges).")
    hidden = param.Selector(default=32, objects=[16, 32, 64, 128], label="Hidden size H")
    temperature = param.Number(default=1.0, bounds=(0.1, 2.0), step=0.05, label="Temperature")
    corpus = param.String(default=DEFAULT_CORPUS, label="Corpus")
    experiment = param.Selector(default="(choose an experiment)", objects=list(EXPERIMENTS),
                                label="Experiment")

    status = param.String(default="ready", doc="ready, training, paused or diverged")
    error = param.String(default="", doc="Why the last corpus / setting was refused.")

    def __init__(self, **params):
        super().__init__(**params)
        self._model = CharGRU(self.corpus, hidden=self.hidden, lr=self.lr, seed=SEED)
        self._ema = None               # last EMA value (continues across pushes)
        self._task_running = False
        self._pending = ([], [], [])   # steps, EMA, loss: trained but not yet streamed
        self._pending_gates = None     # the last StepStats whose gates are not shown yet
        self._pushed = dict.fromkeys(PUSH_EVERY, 0.0)   # when each view was last pushed
        self._sample_steps = None      # the model's step count when the sample was drawn
        self._rate = 0.0               # steps per second while training
        self._per_step = 0.002         # seconds per step (measured): sizes the model.step() calls
        self._note = ""
        self._stats = HTMLBox(min_height=60)
        self._sample = HTMLBox(min_height=90, css=(
            ".gl-ch7-sample { white-space: pre-wrap; font-family: ui-monospace, Menlo, monospace; "
            "background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; "
            "min-height: 4.5em; overflow-wrap: anywhere; }"))
        self._loss = LossPlot(self._model)
        self._gates = GatePlots(self._model.H, self._model.K)
        self._loss_src, self._loss_fig = self._loss.source, self._loss.fig
        self._gate_src, self._z_fig, self._r_fig = self._gates.source, self._gates.z_fig, self._gates.r_fig
        self._layout = chapter_layout("7", self._build_widget())
        self._show_gates(self._model.step(0))
        self._refresh_sample()
        self._refresh_stats()
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(self._on_session_destroyed)

    def _on_session_destroyed(self, session_context):
        self.training = False          # the page is gone: stop the loop

    # ------------------------------------------------------------ layout
    def _build_widget(self):
        w = pn.widgets
        buttons = pn.Row(*[
            kind.from_param(self.param[name], label=label, css_classes=[f"gl-ch7-{cls}"], width=70,
                            margin=(5, 4), **extra)
            for kind, name, label, cls, extra in (
                (w.Toggle, "training", "Train", "train", {"color": "success"}),
                (w.Button, "pause", "Pause", "pause", {}), (w.Button, "step_once", "Step", "step", {}),
                (w.Button, "reset", "Reset", "reset", {}))], width=320)
        controls = pn.Column(
            buttons,
            w.FloatInput.from_param(self.param.lr, label="Learning rate", css_classes=["gl-ch7-lr"],
                                    step=0.01, width=300),
            w.Select.from_param(self.param.hidden, label="Hidden size H", css_classes=["gl-ch7-hidden"],
                                width=300),
            w.FloatSlider.from_param(self.param.temperature, label="Temperature",
                                     css_classes=["gl-ch7-temp"], width=300),
            w.Select.from_param(self.param.experiment, label="Experiment",
                                css_classes=["gl-ch7-experiment"], width=300),
            w.TextAreaInput.from_param(self.param.corpus, label="Corpus", css_classes=["gl-ch7-corpus"],
                                       height=170, width=300),
            w.Button.from_param(self.param.apply_corpus, label="Apply corpus",
                                css_classes=["gl-ch7-apply"], width=300),
            width=320)
        views = pn.Column(
            self._stats.pane,
            pn.pane.Bokeh(self._loss_fig, sizing_mode="stretch_width"),
            pn.Row(pn.pane.Bokeh(self._z_fig, sizing_mode="stretch_width"),
                   pn.pane.Bokeh(self._r_fig, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            pn.pane.HTML("<b>Sampled text</b> <span class='gl-note'>(the model writes, one character "
                         "at a time, feeding each back as the next input)</span>", margin=(4, 10, 0, 10)),
            self._sample.pane, sizing_mode="stretch_width", min_width=420)
        return widget_card(controls, views)

    # ------------------------------------------------------------ state the tests read
    @property
    def model(self):
        return self._model

    def values(self):
        """Key -> displayed text, exactly what the gv spans hold."""
        return {"ch7.steps": str(self._model.steps),
                "ch7.loss": "—" if self._ema is None else fmt_fixed(self._ema, 3),
                "ch7.status": self.status, "ch7.error": self.error,
                "ch7.chance": fmt_fixed(self._model.chance_loss, 3),
                "ch7.unigram": fmt_fixed(self._model.unigram_loss, 3)}

    def sample_text(self):
        return self._sample_text

    # ------------------------------------------------------------ controls
    @param.depends("training", watch=True)
    def _on_training(self):
        if not self.training:
            if self.status == "training":
                self.status = "paused"
            self._flush()          # stopped: the page shows the exact figures
            return
        if self.status == "diverged":
            self.training = False
            return
        self.status = "training"
        self._refresh_stats()
        if not self._task_running:
            self._start_loop()

    @param.depends("pause", watch=True)
    def _on_pause(self):
        if self.training:
            self.training = False      # -> _on_training -> _flush()
        else:
            self._flush()

    @param.depends("step_once", watch=True)
    def _on_step(self):
        if self.status == "diverged":
            return
        self._train_for(n=1)
        if not self.training and self.status != "diverged":
            self.status = "paused"
        self._flush()

    @param.depends("reset", watch=True)
    def _on_reset(self):
        self._model.reset()
        self._restart_curves()

    @param.depends("hidden", watch=True)
    def _on_hidden(self):
        self._replace_model(self._model.corpus)

    @param.depends("apply_corpus", watch=True)
    def _on_apply(self):
        self._replace_model(self.corpus)

    @param.depends("lr", watch=True)
    def _on_lr(self):
        try:
            self._model.lr = self.lr
        except ValueError as e:
            self.error = f"Learning rate not applied: {e}"
        else:
            self.error = ""
        self._refresh_stats()

    @param.depends("temperature", watch=True)
    def _on_temperature(self):
        self._refresh_sample()

    @param.depends("experiment", watch=True)
    def _on_experiment(self):
        preset = EXPERIMENTS[self.experiment]
        if preset is None:
            return
        self._note = preset["note"]
        training = self.training
        self.training = False
        if preset["hidden"] != self.hidden:
            self.param.update(lr=preset["lr"], hidden=preset["hidden"])   # hidden: a new model
        else:
            self.lr = preset["lr"]
            self._on_reset()
        self.training = training

    def leave(self):
        """Called by the Lab when the learner moves to another chapter: stop training there."""
        self.training = False

    # ------------------------------------------------------------ model lifecycle
    def _replace_model(self, corpus):
        """A new model on `corpus` with the current H and lr; on a ValueError keep the old one."""
        try:
            model = CharGRU(corpus, hidden=self.hidden, lr=self.lr, seed=SEED)
        except ValueError as e:
            self.error = f"Corpus not applied: {e}. The previous model is kept."
            self._refresh_stats()
            return False
        self._model = model
        self.error = ""
        with unlocked():     # raw Bokeh changes: dispatch them whether or not we hold the lock
            self._gates.resize(model.H, model.K)
        self._restart_curves()
        return True

    def _restart_curves(self):
        self._ema = None
        self._rate = 0.0
        self._pending = ([], [], [])
        self.status = "training" if self.training else "ready"
        with unlocked():
            self._loss.restart(self._model)
            self._show_gates(self._model.step(0))
        self._refresh_sample()
        self._refresh_stats()

    # ------------------------------------------------------------ training
    def _start_loop(self):
        if "pyodide" not in sys.modules:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                curdoc = pn.state.curdoc
                if curdoc is None or curdoc.session_context is None:
                    # a plain script: nothing runs in the background; train on with Step
                    self.training = False
                    return
        self._task_running = True
        pn.state.execute(self._train_loop)

    async def _train_loop(self):
        try:
            while self.training and self.status != "diverged":
                self._train_for(budget=TICK_BUDGET)
                if self.training:      # (a stop has already flushed everything)
                    self._push()
                await asyncio.sleep(TICK_SLEEP)
        finally:
            self._task_running = False

    def _train_for(self, budget=None, n=None):
        """Train for `n` steps, or for about `budget` seconds; queue the results for the page."""
        model = self._model
        first_step = model.steps + 1
        losses, start, stats, elapsed = [], time.perf_counter(), None, 0.0
        while True:
            k = n
            if n is None:    # calls of ~1/4 budget, the last one cut to what is left: ticks end near it
                k = max(1, min(round((budget - elapsed) / self._per_step), int(0.25 * budget / self._per_step)))
            stats = model.step(k)
            losses.extend(stats.loss.tolist())
            if stats.n:
                self._per_step = max(stats.seconds / stats.n, 1e-5)
            elapsed = time.perf_counter() - start
            if (n is not None or stats.diverged or stats.n == 0
                    or elapsed + 0.5 * self._per_step >= budget):
                break
        if losses and elapsed > 0 and n is None:
            self._rate = len(losses) / elapsed
        finite = [v for v in losses if math.isfinite(v)]
        emas = ema(finite, EMA_DECAY, start=self._ema) if finite else []
        if len(emas):
            self._ema = float(emas[-1])
            steps, ema_list, loss_list = self._pending
            steps.extend(first_step + i for i, v in enumerate(losses) if math.isfinite(v))
            ema_list.extend(float(e) for e in emas)
            loss_list.extend(finite)
        self._pending_gates = stats
        # divergence is gleam's call: a chunk loss not finite or above DIVERGENCE_FACTOR × ln V
        if stats.diverged or len(finite) < len(losses):
            self.status = "diverged"
            self.training = False          # -> _on_training -> _flush()

    def _push(self, force=False):
        """Push each view whose interval has passed (every view with something new, if `force`)."""
        now = time.perf_counter()

        def due(view):
            if force or now - self._pushed[view] >= PUSH_EVERY[view]:
                self._pushed[view] = now
                return True
            return False

        if due("stats"):         # first: a stop shows on the page before the plots and the sample
            self._refresh_stats()
        with unlocked():
            if (self._pending[0] or force) and due("loss"):
                self._loss.stream(*self._pending, final=force)
                self._pending = ([], [], [])
            if self._pending_gates is not None and due("gates"):
                self._show_gates(self._pending_gates)
        if self._sample_steps != self._model.steps and due("sample"):
            self._refresh_sample()

    def _flush(self):
        self._push(force=True)

    def _show_gates(self, stats):
        self._pending_gates = None
        self._gates.show(stats.z, stats.r)

    # ------------------------------------------------------------ text panes
    def _refresh_sample(self):
        self._sample_steps = self._model.steps
        self._sample_text = self._model.sample(SAMPLE_CHARS, temperature=self.temperature)
        self._sample.object = f'<div class="gl-ch7-sample">{html.escape(self._sample_text)}</div>'

    def _refresh_stats(self):
        v = self.values()
        status_cls = f"gl-status-{self.status}"
        rate = f"{self._rate:,.0f} steps/s" if self.status == "training" and self._rate else ""
        parts = [
            f"status: <b>{gv('ch7.status', v['ch7.status'], status_cls)}</b>",
            f"steps: {gv('ch7.steps', v['ch7.steps'])}",
            f"loss (EMA): {gv('ch7.loss', v['ch7.loss'])} nats",
            f"chance ln V: {gv('ch7.chance', v['ch7.chance'])} (V = {self._model.V})",
            f"unigram: {gv('ch7.unigram', v['ch7.unigram'])}",
            f"<span class='gl-note'>H = {self._model.H}, lr = {html.escape(str(self._model.lr))} {rate}</span>",
        ]
        message = ""
        if self.status == "diverged":
            message = ("<div class='gl-error'>Training diverged: a chunk's loss rose above "
                       f"{DIVERGENCE_FACTOR:g} × ln V (or stopped being finite). The learning rate is too "
                       "large for this model: lower it and press Reset.</div>")
        note = f"<div class='gl-note'>{html.escape(self._note)}</div>" if self._note else ""
        self._stats.object = (" &nbsp;·&nbsp; ".join(parts) + message +
                              f"<div class='gl-error'>{gv('ch7.error', v['ch7.error'])}</div>" + note)

    def __panel__(self):
        return self._layout
