"""Chapter 7: a character-level GRU (gleam.chargru.CharGRU) training live in the page.

Controls by what they invalidate:
- temperature: only the next sample;
- learning rate: the optimiser's step size, set on the running model;
- hidden size, corpus (Apply), Reset: a new model (or the same one re-initialised), curves cleared.

Train / Pause / Step / Reset and the tick scheduler are app.widgets.live_loop's. While training,
each view is pushed at its own pace (PUSH_EVERY: the loss curve every tick, ~20/s; the gates at
most 10/s; the stats ~4/s; a new sample ~1/s); when training stops, everything is pushed at once,
the stats first. Sampled and typed text reaches the page only through html.escape.
"""
import html
import math

import panel as pn
import param

from app.chapters.base import ChapterViewer
from app.chapters.ch7_live.text import messages_html, sample_head_html, stats_html
from app.widgets.figures import Heatmaps
from app.widgets.streaming import StreamingCurve
from app.widgets.live_loop import LiveLoop, View
from app.widgets.page import HTMLBox, card, html_pane, wrap_row
from app.widgets.theme import PALETTE
from content import fmt_fixed
from gleam import examples
from gleam.chargru import DEFAULT_CORPUS, DIVERGENCE_FACTOR, CharGRU
from gleam.smoothing import EMA_DECAY

# seconds between two pushes of each view while training (a tick lasts ~45-50 ms: the loss goes
# out every tick, the gates every third, the stats every sixth)
PUSH_EVERY = {"stats": 0.24, "loss": 0.03, "gates": 0.1, "sample": 0.95}
SAMPLE_CHARS = 240
SEED = 0
CHOOSE = "(choose an experiment)"
EXPERIMENTS = {x["name"]: x for x in examples.chapter7_experiments()}
SAMPLE_CSS = (".gl-ch7-sample { white-space: pre-wrap; font-family: var(--gl-mono); "
              "background: var(--gl-sunken); border: 1px solid var(--gl-border); border-radius: 6px; "
              "padding: 8px; min-height: 4.5em; overflow-wrap: anywhere; }")
# the chance label above its line, the unigram one (always lower) below its own: they never overlap
CURVE_LINES = {"chance": ("chance ln V", PALETTE.negative, "dashed", "above"),
               "unigram": ("unigram", PALETTE.secondary, "dotted", "below")}


class LiveLabChapter(ChapterViewer):
    """Train a char-level GRU live: loss curve, samples, gate heatmaps."""

    chapter_id = "7"

    apply_corpus = param.Event(label="Apply corpus")
    lr = param.Number(default=0.1, allow_None=True, label="Learning rate",
                      doc="Adagrad's step size (lr = 5 diverges).")
    hidden = param.Selector(default=32, objects=[4, 16, 32, 64, 128], label="Hidden size H")
    temperature = param.Number(default=1.0, bounds=(0.1, 2.0), step=0.05, label="Temperature")
    corpus = param.String(default=DEFAULT_CORPUS, label="Corpus")
    experiment = param.Selector(default=CHOOSE, objects=[CHOOSE, *EXPERIMENTS], label="Experiment")
    error = param.String(default="", doc="Why the last corpus / setting was refused.")

    def __init__(self, **params):
        super().__init__(**params)
        self._model = CharGRU(self.corpus, hidden=self.hidden, lr=self.lr, seed=SEED)
        self._note, self._presetting, self._restoring = "", False, False
        self._sample_text, self._sample_steps, self._gates_shown = "", None, None
        self._stats = HTMLBox(min_height=60, css_classes=["gl-ch7-stats"])
        self._sample = HTMLBox(min_height=90, css=SAMPLE_CSS)
        self._sample_head = html_pane(margin=(4, 10, 0, 10))
        self._curve = StreamingCurve(
            f"Training loss, nats per character: pale line each chunk, dark line the EMA (decay {EMA_DECAY:g})",
            f"step (one {self._model.K}-character chunk each)", self._model.chance_loss, CURVE_LINES, css_class="gl-ch7-loss")
        self._gates = Heatmaps({"z": "update gate z", "r": "reset gate r"}, self._model.H, self._model.K,
                               x_label="step in the last chunk", y_label="unit", css_prefix="gl-ch7-gate")
        loop = self.loop = LiveLoop(self._model, on_restart=self._restart_views, views=[
            View(PUSH_EVERY["stats"], lambda final: self._refresh_stats()),
            View(PUSH_EVERY["loss"], self._push_curve, lambda final: final or loop.has_curve()),
            View(PUSH_EVERY["gates"], lambda final: self._show_gates(loop.last_stats),
                 lambda final: loop.last_stats is not None and loop.last_stats is not self._gates_shown),
            View(PUSH_EVERY["sample"], lambda final: self._refresh_sample(),
                 lambda final: self._sample_steps != self._model.steps)])
        loop.param.watch(lambda event: self._refresh_stats(), "status")
        self._restart_views()

    def widget(self):
        w = pn.widgets
        controls = pn.Column(
            self.loop.controls("gl-ch7"),
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
            pn.pane.Bokeh(self._curve.fig, sizing_mode="stretch_width"),
            wrap_row(*[pn.pane.Bokeh(fig, sizing_mode="stretch_width") for fig in self._gates.figs.values()],
                     basis=260),
            self._sample_head, self._sample.pane, sizing_mode="stretch_width")
        return card(wrap_row(controls, views, basis=420), layout=pn.Column)

    # ------------------------------------------------------------ what the page shows
    @property
    def model(self):
        return self._model

    def values(self):
        loop, model = self.loop, self._model
        last = loop.last_stats.loss[-1] if loop.last_stats is not None and loop.last_stats.n else math.nan
        pending = ("" if self.corpus == model.corpus else
                   "The corpus box holds text that is not in use yet: press Apply corpus to train on it.")
        out = {"ch7.steps": str(model.steps),
               "ch7.loss": "—" if loop.ema is None else fmt_fixed(loop.ema, 3),
               "ch7.status": loop.status, "ch7.error": self.error,
               "ch7.chance": fmt_fixed(model.chance_loss, 3),
               "ch7.unigram": fmt_fixed(model.unigram_loss, 3),
               "ch7.pending": pending, "ch7.experiment": self._note,
               "ch7.temperature": fmt_fixed(self.temperature, 2)}
        if loop.status == "diverged":  # the chunk that diverged (the EMA lags behind it)
            out["ch7.diverged_loss"] = fmt_fixed(last, 3) if math.isfinite(last) else "not a finite number"
        return out

    def sample_text(self):
        return self._sample_text

    def leave(self):
        self.loop.training = False

    # ------------------------------------------------------------ controls
    @param.depends("hidden", watch=True)
    def _on_hidden(self):
        if not self._presetting:
            self._replace_model(self._model.corpus)

    @param.depends("corpus", watch=True)
    def _on_corpus(self):
        self._refresh_stats()          # says whether the box's text is the one in use

    @param.depends("apply_corpus", watch=True)
    def _on_apply(self):
        self._replace_model(self.corpus)

    @param.depends("lr", watch=True)
    def _on_lr(self):
        if self._restoring:
            return
        try:
            self._model.lr = self.lr
        except ValueError as e:
            why = "the box was empty" if self.lr is None else str(e)
            self.error = f"Learning rate not applied ({why}); training goes on at lr = {self._model.lr:g}."
            self._restoring = True     # the box shows the rate in use again
            try:
                self.lr = self._model.lr
            finally:
                self._restoring = False
        else:
            self.error = ""
        self._refresh_stats()

    @param.depends("temperature", watch=True)
    def _on_temperature(self):
        self._refresh_sample()
        self._sample_head.object = sample_head_html(self.values()["ch7.temperature"])

    @param.depends("experiment", watch=True)
    def _on_experiment(self):
        """Set every control the experiment names, start a fresh model, say what to expect."""
        x = EXPERIMENTS.get(self.experiment)
        if x is None:
            return
        training = self.loop.training
        self.loop.training = False
        self._note = f"What to expect: {x['symptom']}. Why: {x['cause']}."
        self._presetting = True        # one new model below, not one per control
        try:
            self.param.update(lr=x["lr"], hidden=x["hidden"], temperature=x["temperature"],
                              corpus=x["corpus"] or DEFAULT_CORPUS)
        finally:
            self._presetting = False
        self._replace_model(self.corpus)
        self.loop.training = training

    def _replace_model(self, corpus):
        """A new model on `corpus` with the current H and lr; on a ValueError keep the old one."""
        try:
            model = CharGRU(corpus, hidden=self.hidden, lr=self.lr, seed=SEED)
        except ValueError as e:
            self.error = f"Corpus not applied: {e}. The previous model is kept."
            self._refresh_stats()
            return
        self._model = model
        self.error = ""
        self._gates.resize(model.H, model.K)
        self.loop.replace(model)

    # ------------------------------------------------------------ views
    def _restart_views(self):
        model = self._model
        self._curve.restart(model.chance_loss, {"chance": model.chance_loss, "unigram": model.unigram_loss})
        self._show_gates(model.step(0))
        self._refresh_sample()
        self._refresh_stats()

    def _push_curve(self, final):
        self._curve.stream(*self.loop.take_curve(), final=final)
        if final and self.loop.status == "diverged":
            self._curve.fit_x()        # a run that stopped after a few steps, not a tick at the axis

    def _show_gates(self, stats):
        self._gates_shown = stats
        self._gates.show(z=stats.z, r=stats.r)

    def _refresh_sample(self):
        self._sample_steps = self._model.steps
        self._sample_text = self._model.sample(SAMPLE_CHARS, temperature=self.temperature)
        self._sample.object = f'<div class="gl-ch7-sample">{html.escape(self._sample_text)}</div>'

    def _refresh_stats(self):
        v, model = self.values(), self._model
        self._stats.object = (stats_html(v, self.loop.status, self.loop.rate, model.H, model.V, model.lr)
                              + messages_html(v, DIVERGENCE_FACTOR, model.divergence_loss))
        self._sample_head.object = sample_head_html(v["ch7.temperature"])
