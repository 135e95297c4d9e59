"""The extrapolation lab: what a small recurrent network learns about rule-made symbolic tasks.
The shipped runs shown per experiment (.trained: length against depth on Dyck-1, counting,
predicting aⁿbⁿ, nested sums with the probes and interventions read off the same models, and
arithmetic heads on numbers), and one setting of any recurrent experiment retrained in the page
at a short budget, a demonstration that may not learn (.retrain), chosen by the controls
experiment, cell, counting language and seed (the language is read by counting only; it is
disabled otherwise).
"""
import panel as pn
import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.extrapolation_lab.retrain import DEMO, EXPERIMENTS, LAB, config_of, new_retrain
from gleam_lab.app.chapters.extrapolation_lab.trained import CELLS, KINDS, TrainedResults
from gleam_lab.app.widgets.page import card, gv, html_pane
from gleam_lab.content import fmt_comma


def demo_text(name):
    """The page's budget of an experiment, in words."""
    b = DEMO[name]
    size = b.get("n_train", b.get("n_examples"))
    return f"{fmt_comma(size)} {'sums drawn' if 'n_examples' in b else 'examples'}, {b['epochs']} epoch" + (
        "s" if b["epochs"] != 1 else "")


class ExtrapolationLabChapter(ChapterViewer):
    """Length, depth, counting and values: where a small recurrent model's rule gives out."""

    chapter_id = "extrapolation"
    url_names = {"experiment": "x"}

    experiment = param.Selector(default=next(iter(EXPERIMENTS)), objects=list(EXPERIMENTS), label="Experiment")
    cell = param.Selector(default="gru_torch", objects=list(CELLS), label="Cell")
    kind = param.Selector(default="anbn", objects=list(KINDS), label="Counting language")
    seed = param.Integer(default=0, bounds=(0, 10 ** 6), label="Seed")

    def __init__(self, **params):
        super().__init__(**params)
        self.trained = TrainedResults()
        self.retrain = new_retrain(self._config())
        self._demo = html_pane()
        self._say_demo()

    def _config(self):
        return config_of(self.experiment, self.cell, self.kind, self.seed)

    @param.depends("experiment", "cell", "kind", "seed", watch=True)
    def _on_config(self):
        self.retrain.replace(self._config())
        self._enable()
        self._say_demo()

    def _enable(self):
        if "kind" in self._widgets:
            self._widgets["kind"].disabled = EXPERIMENTS[self.experiment][0] != "counting"

    def _say_demo(self):
        v = self.values()
        self._demo.object = (
            "<h3>Retrain one setting here: a demonstration</h3><div class='gl-note'>The page trains the chosen "
            f"setting on {gv('extrapolation.retrain.demo', v['extrapolation.retrain.demo'])}, every update taken — no "
            "validation, no early stopping — a short budget a browser can afford in a few seconds: it may not learn. "
            "The shipped run of the same setting, beside it, trained longer, to the criterion (the tables above), so "
            "the two are not expected to agree. The arithmetic heads are not recurrent models and are not retrained "
            "here.</div>")

    def share_trained(self, trained_here):
        """Offer each model the retrain measures to the inspector (app.widgets.trained_here)."""
        trained_here.watch_retrain(LAB, self.retrain)

    def leave(self):
        self.retrain.loop.training = False

    def widget(self):
        w = pn.widgets
        choices = [self.control("experiment", w.Select, width=190),
                   self.control("cell", w.Select, width=120, options={v: k for k, v in CELLS.items()}),
                   self.control("kind", w.Select, width=150, options={v: k for k, v in KINDS.items()}),
                   self.control("seed", w.IntInput, width=100)]
        self._enable()
        panels = self.trained.panels()
        return pn.Column(*[card(p, layout=pn.Column, max_width=1100) for p in panels.values()],
                         card(self._demo, self.retrain.panel(choices), layout=pn.Column, max_width=1100),
                         sizing_mode="stretch_width")

    def values(self):
        return {**self.trained.values(), **self.retrain.values(),
                "extrapolation.retrain.demo": demo_text(EXPERIMENTS[self.experiment][0])}
