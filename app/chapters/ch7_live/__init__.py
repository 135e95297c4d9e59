"""Chapter 7: a character-level GRU (gleam.chargru.CharGRU) training live in the page.

Controls by what they invalidate: the temperature only the next sample; the learning rate the
running model's step size; hidden size, parallel streams B, seed, corpus (Apply, a text file, a
shared link's), an experiment, Reset, a loaded model: a new model (or the same re-initialised), the
trained one set aside (.undo). The layout is .layout's. Train / Pause / Step / Reset and the ticks are app.widgets.live_loop's; each
view is pushed at its own pace (PUSH_EVERY), everything at once when training stops, the stats
first. Typed and sampled text reach the page only through html.escape. Files: .files.
"""
import html
import math

import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.ch7_live import limits
from gleam_lab.app.chapters.ch7_live.files import ChapterFiles
from gleam_lab.app.chapters.ch7_live.layout import curve_x_label, gate_x_label, label_views, page_widget
from gleam_lab.app.chapters.ch7_live.undo import SetAside
from gleam_lab.app.chapters.ch7_live.text import CURVE_LINES, SAMPLE_CSS, messages_html, sample_head_html, stats_html
from gleam_lab.app.widgets.figures import Heatmaps
from gleam_lab.app.widgets.streaming import StreamingCurve
from gleam_lab.app.widgets.live_loop import LiveLoop, View
from gleam_lab.app.widgets.page import HTMLBox, html_pane, served
from gleam_lab.content import fmt_fixed, fmt_sig
from gleam import examples
from gleam.chargru import DEFAULT_CORPUS, DIVERGENCE_FACTOR, CharGRU
from gleam.smoothing import EMA_DECAY

# seconds between two pushes of each view while training (a tick lasts ~45-50 ms: the loss goes out
# every second or third tick, the gates and the stats every fifth or sixth). Each push costs the
# page's main thread far more than the worker (redrawing the curve: ~13 ms there against ~2 ms
# here), and on a 2-core machine the main thread's work slows the worker's training: the loss
# pushed every tick took ~0.3 of a core (docs/performance.md, live training)
PUSH_EVERY = {"stats": 0.24, "loss": 0.1, "gates": 0.24, "sample": 0.95}
SAMPLE_CHARS = 240
CHOOSE = "(choose an experiment)"
EXPERIMENTS = {x["name"]: x for x in examples.chapter7_experiments()}


class LiveLabChapter(ChapterViewer):
    """Train a char-level GRU live: loss curve, samples, gate heatmaps."""

    chapter_id = "7"
    url_names = {"temperature": "temp", "streams": "B"}

    apply_corpus = param.Event(label="Apply corpus")
    lr = param.Number(default=0.1, allow_None=True, label="Learning rate",
                      doc="Adagrad's step size (lr = 5 diverges).")
    hidden = param.Selector(default=32, objects=[4, 16, 32, 64, 128], label="Hidden size H")
    streams = param.Selector(default=1, objects=[1, 2, 4, 8, 16], label="Parallel streams B",
                             doc="Chunks trained together in one update (a new model when changed).")
    temperature = param.Number(default=1.0, bounds=(0.1, 2.0), step=0.05, label="Temperature")
    corpus = param.String(default=DEFAULT_CORPUS, label="Corpus", doc="The text trained on (a link shares it).")
    draft = param.String(default=DEFAULT_CORPUS, precedence=-1, label="Corpus", doc="The box: Apply trains on it.")
    seed = param.Integer(default=0, bounds=(0, 2**31 - 1), allow_None=True, label="Seed",
                         doc="The random seed of the initial weights (a new model when changed).")
    experiment = param.Selector(default=CHOOSE, objects=[CHOOSE, *EXPERIMENTS], label="Experiment")
    error = param.String(default="", precedence=-1, doc="Why the last corpus / setting was refused.")

    def __init__(self, **params):
        super().__init__(**params)
        self.shared = served()   # a server session: limits.UPDATE_MACS applies
        self._model = CharGRU(self.corpus, hidden=self.hidden, lr=self.lr, seed=self.seed, batch=self.streams)
        self._note, self._file_note, self._presetting, self._restoring = "", "", False, False
        self.files, self.undo = ChapterFiles(self), SetAside(self)
        self._sample_text, self._sample_steps, self._gates_shown = "", None, None
        self._stats = HTMLBox(min_height=60, css_classes=["gl-ch7-stats"])
        self._sample = HTMLBox(min_height=90, css=SAMPLE_CSS)
        self._sample_head = html_pane(margin=(4, 10, 0, 10))
        self._curve = StreamingCurve(
            f"Training loss, nats per character: pale line each chunk, dark line the EMA (decay {EMA_DECAY:g})",
            curve_x_label(self._model), self._model.chance_loss, CURVE_LINES, css_class="gl-ch7-loss",
            x_log=True)                   # the early stages keep their room however long the run
        self._gates = Heatmaps({"z": "update gate z", "r": "reset gate r"}, self._model.H, self._model.K,
                               x_label=gate_x_label(self._model), y_label="unit", css_prefix="gl-ch7-gate")
        loop = self.loop = LiveLoop(self._model, on_restart=self._restart_views,
                                    before_reset=lambda model: self.undo.keep(CharGRU.from_bytes(model.to_bytes())), views=[
            View(PUSH_EVERY["stats"], lambda final: self._refresh_stats()),
            View(PUSH_EVERY["loss"], self._push_curve, lambda final: final or loop.has_curve()),
            View(PUSH_EVERY["gates"], lambda final: self._show_gates(loop.last_stats),
                 lambda final: loop.last_stats is not None and loop.last_stats is not self._gates_shown),
            View(PUSH_EVERY["sample"], lambda final: self._refresh_sample(),
                 lambda final: self._sample_steps != self._model.steps)])
        loop.param.watch(lambda event: self._refresh_stats(), "status")
        self._restart_views()

    def widget(self):
        return page_widget(self)

    # ------------------------------------------------------------ what the page shows
    model = property(lambda self: self._model, doc="the CharGRU the page trains")

    def values(self):
        loop, model = self.loop, self._model
        last = model.last_loss          # of the last chunk computed (a refused one included)
        last_text = fmt_sig(last, 4) if math.isfinite(last) else "not a finite number"
        pending = ("" if self.draft == model.corpus else
                   "The corpus box holds text that is not in use yet: press Apply corpus to train on it.")
        out = {"ch7.steps": str(model.steps),
               "ch7.loss": "—" if loop.ema is None else fmt_fixed(loop.ema, 3),
               "ch7.status": loop.status, "ch7.error": self.error,
               "ch7.chance": fmt_fixed(model.chance_loss, 3), "ch7.unigram": fmt_fixed(model.unigram_loss, 3),
               "ch7.pending": pending, "ch7.experiment": self._note, "ch7.file": self._file_note,
               "ch7.temperature": fmt_fixed(self.temperature, 2), "ch7.seed": str(model.seed),
               "ch7.streams": str(model.B),
               "ch7.last_loss": "—" if math.isnan(last) and not model.diverged else last_text}
        if loop.status == "diverged":  # the chunk that diverged (the EMA lags behind it)
            out["ch7.diverged_loss"] = fmt_fixed(last, 3) if math.isfinite(last) else last_text
        return out

    def last_loss_exact(self):
        """The last chunk's loss to 12 significant digits (the page shows 4; these are its tooltip)."""
        last = self._model.last_loss
        return fmt_sig(last, 12) if math.isfinite(last) else None

    sample_text = lambda self: self._sample_text  # noqa: E731  (the text the sample box shows)

    def leave(self):
        self.loop.training = False

    # ------------------------------------------------------------ controls
    @param.depends("hidden", "streams", watch=True)
    def _on_size(self):                # H or B: a model of another shape
        if not self._presetting:
            self.replace_model(self._model.corpus)

    @param.depends("seed", watch=True)
    def _on_seed(self):
        if self._presetting:
            return
        if self.seed is not None:
            return self.replace_model(self._model.corpus)
        self._set_controls(seed=self._model.seed)    # the box was emptied: it shows the seed in use
        self.say(error=f"Seed not applied (the box was empty); the model keeps seed = {self._model.seed}.")

    @param.depends("draft", watch=True)
    def _on_draft(self):
        self._refresh_stats()          # says whether the box's text is the one in use

    @param.depends("corpus", watch=True)
    def _on_corpus(self):              # Apply, a link, Reset to defaults; a refused text stays in the box
        if not self._presetting:
            model = self.replace_model(self.corpus)
            self._set_controls(**({"corpus": self._model.corpus} if model is None else {"draft": self.corpus}))

    @param.depends("apply_corpus", watch=True)
    def _on_apply(self):
        if self.corpus == self.draft:
            return self.replace_model(self.corpus)
        self.corpus = self.draft

    @param.depends("lr", watch=True)
    def _on_lr(self):
        if self._restoring:
            return
        try:
            self._model.lr = self.lr
        except ValueError as e:
            why = "the box was empty" if self.lr is None else str(e)
            self._set_controls(lr=self._model.lr)   # the box shows the rate in use again
            return self.say(error=f"Learning rate not applied ({why}); training goes on at lr = {self._model.lr:g}.")
        self.say(error="")

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
        training, self.loop.training = self.loop.training, False
        self._note = f"What to expect: {x['symptom']}. Why: {x['cause']}."
        self._set_controls(lr=x["lr"], hidden=x["hidden"], temperature=x["temperature"],
                           corpus=x["corpus"] or DEFAULT_CORPUS, draft=x["corpus"] or DEFAULT_CORPUS)
        self.replace_model(self.corpus)
        self.loop.training = training

    def replace_model(self, corpus, refused="Corpus not applied", show_settings=False):
        """A new model on `corpus` with the current H, B, lr and seed (returned); on a ValueError
        the old one stays and `refused` says so, with why."""
        try:
            model = CharGRU(corpus, hidden=self.hidden, lr=self.lr, seed=self.seed, batch=self.streams)
            if self.shared:
                limits.check(model)
        except ValueError as e:
            # the size controls show the model in use again (a refused corpus stays in its box)
            self._set_controls(hidden=self._model.H, streams=self._model.B, seed=self._model.seed)
            return self.say(error=f"{refused}: {e}. The previous model is kept.")
        self.install(model, show_settings)
        return model

    def _set_controls(self, **values):
        """Show values in the controls without acting on them (no new model, no new rate)."""
        self._presetting = self._restoring = True
        try:
            self.param.update(**values)
        finally:
            self._presetting = self._restoring = False

    def say(self, error=None, file=None):
        """Show why something was refused (the model in use stays) and/or a note on files."""
        self.error = self.error if error is None else error
        self._file_note = self._file_note if file is None else file
        self._refresh_stats()

    def install(self, model, show_settings=False):
        """Train `model` from now on. show_settings: the controls take its corpus, H, B, lr and seed
        (an uploaded corpus, a loaded model), and an experiment's note no longer applies."""
        if show_settings:
            self._set_controls(corpus=model.corpus, draft=model.corpus, hidden=model.H, lr=model.lr,
                               seed=model.seed, streams=model.B, experiment=CHOOSE)
            self._note = ""
        self.undo.keep(self._model)
        self._model, self.error = model, ""
        self._gates.resize(model.H, model.K)
        self.loop.replace(model)
        if model.diverged:             # a loaded model that had diverged stays diverged
            self.loop.param.update(training=False, status="diverged")

    # ------------------------------------------------------------ views
    def _restart_views(self):
        model, self._file_note = self._model, ""      # (a note on a file is about the model before)
        label_views(self, model)
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
        self._sample_text = self._model.sample_preview(SAMPLE_CHARS, temperature=self.temperature)
        self._sample.object = f'<div class="gl-ch7-sample">{html.escape(self._sample_text)}</div>'

    def _refresh_stats(self):
        v, model = self.values(), self._model
        self._stats.object = (stats_html(v, self.loop.status, self.loop.rate, model, self.last_loss_exact())
                              + messages_html(v, DIVERGENCE_FACTOR, model.divergence_loss))
        self._sample_head.object = sample_head_html(v["ch7.temperature"])
