"""The extrapolation lab: what a small recurrent network learns about rule-made symbolic tasks.
The build's sweeps shown per experiment (.trained: length against depth on brackets, counting,
nested sums per split and per head), and one configuration of any of them retrained in the page
(.retrain), chosen by the controls experiment, cell, counting language, split, head and seed
(each read only by the experiments it applies to; the others are disabled).
"""
import panel as pn
import param

from app.chapters.base import ChapterViewer
from app.chapters.extrapolation_lab.retrain import EXPERIMENTS, HEADS, SPLITS, config_of, new_retrain
from app.chapters.extrapolation_lab.figure import RetrainFigure
from app.chapters.extrapolation_lab.trained import CELLS, KINDS, TrainedResults
from app.widgets.page import card, html_pane

# which choices each experiment reads
READS = {"1. length vs depth": {"cell", "seed"}, "2. counting": {"kind", "cell", "seed"},
         "3. nested sums": {"head", "split", "cell", "seed"}, "4-6. information and mechanism": {"cell", "seed"}}


class ExtrapolationLabChapter(ChapterViewer):
    """Length, depth, counting and values: where a small recurrent model's rule gives out."""

    chapter_id = "extrapolation"
    url_names = {"experiment": "x"}

    experiment = param.Selector(default=next(iter(EXPERIMENTS)), objects=list(EXPERIMENTS), label="Experiment")
    cell = param.Selector(default="gru_torch", objects=list(CELLS), label="Cell")
    kind = param.Selector(default="anbn", objects=list(KINDS), label="Counting language")
    split = param.Selector(default="value", objects=list(SPLITS), label="Split (mod 10 head)")
    head = param.Selector(default="classify", objects=list(HEADS), label="Head")
    seed = param.Integer(default=0, bounds=(0, 10 ** 6), label="Seed")

    def __init__(self, **params):
        super().__init__(**params)
        self.trained = TrainedResults()
        self.figure = RetrainFigure()
        self.retrain = new_retrain(self._config(), self.figure.update)

    def _config(self):
        return config_of(self.experiment, self.cell, self.kind, self.split, self.head, self.seed)

    @param.depends("experiment", "cell", "kind", "split", "head", "seed", watch=True)
    def _on_config(self):
        self.retrain.replace(self._config())
        self._enable()

    def _enable(self):
        reads = READS[self.experiment]
        for name in ("cell", "kind", "split", "head"):
            if name in self._widgets:
                self._widgets[name].disabled = name not in reads or (name == "split" and self.head != "classify")

    def leave(self):
        self.retrain.loop.training = False

    def widget(self):
        w = pn.widgets
        choices = [self.control("experiment", w.Select, width=190),
                   self.control("cell", w.Select, width=120, options={v: k for k, v in CELLS.items()}),
                   self.control("kind", w.Select, width=150, options={v: k for k, v in KINDS.items()}),
                   self.control("split", w.Select, width=170), self.control("head", w.Select, width=120),
                   self.control("seed", w.IntInput, width=100)]
        self._enable()
        panels = self.trained.panels()
        return pn.Column(*[card(p, layout=pn.Column, max_width=1100) for p in panels.values()],
                         card(html_pane("<h3>Retrain one configuration here</h3>"), self.retrain.panel(choices),
                              self.figure.panel(), layout=pn.Column, max_width=1100), sizing_mode="stretch_width")

    def values(self):
        return {**self.trained.values(), **self.retrain.values(), "extrapolation.figure": self.figure.text}
