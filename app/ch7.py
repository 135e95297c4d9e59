"""Chapter 7: a character-level GRU (gleam.chargru.CharGRU) training live in the page.

Controls by what they invalidate:
- temperature: only the next sample;
- learning rate: the optimiser's step size, set on the running model;
- hidden size, corpus (Apply), Reset: a new model (or the same one re-initialised), curves cleared.

Training runs as an asyncio task (Panel's `pn.state.execute`, so it works under `panel serve` and in
the Pyodide worker alike): run steps for a ~25 ms budget, push once (stream the losses, replace the
gate images, refresh the sample at most every 0.5 s), then `await asyncio.sleep(0.004)` so widget
changes are handled between ticks. Sampled and typed text reaches the page only through html.escape.
"""
import asyncio
import html
import math
import sys
import time

import numpy as np
import panel as pn
import param
from bokeh.models import ColorBar, ColumnDataSource, DataRange1d, Label, LinearColorMapper, Span
from bokeh.plotting import figure
from panel.io.document import unlocked

from app.common import chapter_layout, fmt_fixed, gv, html_pane, widget_card
from gleam.chargru import DEFAULT_CORPUS, CharGRU, ema

EMA_DECAY = 0.97
TICK_BUDGET = 0.025        # seconds of training per push
TICK_SLEEP = 0.004         # a real timer (> ~2 ms): widget changes are handled between ticks
SAMPLE_EVERY = 0.5         # seconds between two refreshes of the sampled text while training
SAMPLE_CHARS = 240
ROLLOVER = 5000            # points kept on the loss curve
SEED = 0
# Divergence: gleam flags a non-finite loss; a finite loss far above uniform guessing is also a
# run that has blown up (lr = 5 gives losses of 20-100 nats per character, finite but useless).
DIVERGED_FACTOR = 3.0      # EMA loss above 3 × ln V

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
        self._last_sample = 0.0
        self._rate = 0.0               # steps per second while training
        self._chunk = 4                # steps per model.step() call, adapted to the tick budget
        self._note = ""
        self._stats = html_pane(min_height=60)
        self._sample = html_pane(min_height=90, stylesheets=[
            ".gl-ch7-sample { white-space: pre-wrap; font-family: ui-monospace, Menlo, monospace; "
            "background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; "
            "min-height: 4.5em; overflow-wrap: anywhere; }"])
        self._loss_src = ColumnDataSource({"step": [], "ema": [], "loss": []})
        self._z_src = ColumnDataSource(self._image_data(np.zeros((self._model.H, self._model.K))))
        self._r_src = ColumnDataSource(self._image_data(np.zeros((self._model.H, self._model.K))))
        self._loss_fig = self._make_loss_figure()
        self._z_fig = self._make_gate_figure(self._z_src, "update gate z (rows: units; columns: last chunk's steps)")
        self._r_fig = self._make_gate_figure(self._r_src, "reset gate r")
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
            self._stats,
            pn.pane.Bokeh(self._loss_fig, sizing_mode="stretch_width"),
            pn.Row(pn.pane.Bokeh(self._z_fig, sizing_mode="stretch_width"),
                   pn.pane.Bokeh(self._r_fig, sizing_mode="stretch_width"), sizing_mode="stretch_width"),
            pn.pane.HTML("<b>Sampled text</b> <span class='gl-note'>(the model writes, one character "
                         "at a time, feeding each back as the next input)</span>", margin=(4, 10, 0, 10)),
            self._sample, sizing_mode="stretch_width", min_width=420)
        return widget_card(controls, views)

    def _make_loss_figure(self):
        fig = figure(height=250, sizing_mode="stretch_width", toolbar_location=None,
                     x_range=DataRange1d(start=0, range_padding=0.02),
                     y_range=DataRange1d(start=0, range_padding=0.05),
                     title="Training loss, nats per character (EMA, decay 0.97)")
        fig.line("step", "loss", source=self._loss_src, color="#9ecae1", alpha=0.6, legend_label="per chunk")
        fig.line("step", "ema", source=self._loss_src, color="#2f6fbf", line_width=2, legend_label="EMA")
        self._chance_span = Span(location=self._model.chance_loss, dimension="width",
                                 line_dash="dashed", line_color="#d1495b", line_width=1.5)
        self._unigram_span = Span(location=self._model.unigram_loss, dimension="width",
                                  line_dash="dotted", line_color="#e07b00", line_width=1.5)
        self._chance_label = Label(x=6, x_units="screen", y=self._model.chance_loss, y_offset=-15,
                                   text="chance ln V", text_color="#d1495b", text_font_size="9pt")
        self._unigram_label = Label(x=6, x_units="screen", y=self._model.unigram_loss, y_offset=-15,
                                    text="unigram", text_color="#e07b00", text_font_size="9pt")
        for annotation in (self._chance_span, self._unigram_span, self._chance_label, self._unigram_label):
            fig.add_layout(annotation)
        fig.legend.location = "top_right"
        fig.legend.background_fill_alpha = 0.7
        fig.legend.label_text_font_size = "9pt"
        fig.xaxis.axis_label = "step (one 25-character chunk each)"
        return fig

    def _make_gate_figure(self, source, title):
        H, K = self._model.H, self._model.K
        fig = figure(height=230, sizing_mode="stretch_width", toolbar_location=None, title=title,
                     x_range=(0, K), y_range=(0, H), min_width=200)
        mapper = LinearColorMapper(palette="Viridis256", low=0.0, high=1.0)
        fig.image(image="image", x=0, y=0, dw="dw", dh="dh", source=source, color_mapper=mapper)
        fig.add_layout(ColorBar(color_mapper=mapper, width=8), "right")
        fig.xaxis.axis_label = "step in chunk"
        fig.yaxis.axis_label = "unit"
        fig.title.text_font_size = "9pt"
        return fig

    @staticmethod
    def _image_data(gates):
        H, K = gates.shape
        return {"image": [np.ascontiguousarray(gates, dtype=np.float64)], "dw": [K], "dh": [H]}

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
            self._refresh_stats()
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
        self.training = False

    @param.depends("step_once", watch=True)
    def _on_step(self):
        if self.status == "diverged":
            return
        self._train_for(n=1)
        if not self.training and self.status != "diverged":
            self.status = "paused"
        self._refresh_sample()
        self._refresh_stats()

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
            for fig in (self._z_fig, self._r_fig):
                fig.y_range.end = model.H
                fig.x_range.end = model.K
            self._chance_span.location = self._chance_label.y = model.chance_loss
            self._unigram_span.location = self._unigram_label.y = model.unigram_loss
        self._restart_curves()
        return True

    def _restart_curves(self):
        self._ema = None
        self._rate = 0.0
        self.status = "training" if self.training else "ready"
        with unlocked():
            self._loss_src.data = {"step": [], "ema": [], "loss": []}
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
                now = time.perf_counter()
                if now - self._last_sample >= SAMPLE_EVERY:
                    self._refresh_sample()
                self._refresh_stats()
                await asyncio.sleep(TICK_SLEEP)
        finally:
            self._task_running = False

    def _train_for(self, budget=None, n=None):
        """Train for `n` steps, or for about `budget` seconds; then push once to the page."""
        model = self._model
        first_step = model.steps + 1
        losses, start, stats = [], time.perf_counter(), None
        while True:
            stats = model.step(n if n is not None else self._chunk)
            losses.extend(stats.loss.tolist())
            if stats.n and n is None:
                per_step = stats.seconds / stats.n
                self._chunk = max(1, min(200, int(0.3 * budget / max(per_step, 1e-6))))
            if n is not None or stats.diverged or stats.n == 0 or time.perf_counter() - start >= budget:
                break
        elapsed = time.perf_counter() - start
        if losses and elapsed > 0 and n is None:
            self._rate = len(losses) / elapsed
        self._push(losses, stats, first_step)

    def _push(self, losses, stats, first_step):
        """Stream the new losses (EMA continued), replace the gate images, check for divergence."""
        finite = [v for v in losses if math.isfinite(v)]
        emas = ema(finite, EMA_DECAY, start=self._ema) if finite else []
        if len(emas):
            self._ema = float(emas[-1])
        with unlocked():
            if finite:
                steps = [first_step + i for i, v in enumerate(losses) if math.isfinite(v)]
                self._loss_src.stream({"step": steps, "ema": list(emas), "loss": finite}, rollover=ROLLOVER)
            self._show_gates(stats)
        blown = self._ema is not None and self._ema > DIVERGED_FACTOR * self._model.chance_loss
        if stats.diverged or len(finite) < len(losses) or blown:
            self.status = "diverged"
            self.training = False

    def _show_gates(self, stats):
        self._z_src.data = self._image_data(stats.z)
        self._r_src.data = self._image_data(stats.r)

    # ------------------------------------------------------------ text panes
    def _refresh_sample(self):
        self._last_sample = time.perf_counter()
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
            message = ("<div class='gl-error'>Training diverged: the averaged loss rose above "
                       f"{DIVERGED_FACTOR:g} × ln V (or stopped being finite). The learning rate is too "
                       "large for this model: lower it and press Reset.</div>")
        note = f"<div class='gl-note'>{html.escape(self._note)}</div>" if self._note else ""
        self._stats.object = (" &nbsp;·&nbsp; ".join(parts) + message +
                              f"<div class='gl-error'>{gv('ch7.error', v['ch7.error'])}</div>" + note)

    def __panel__(self):
        return self._layout
