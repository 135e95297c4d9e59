"""The memory lab. The carry challenge (gleam.labs.memory.carry): sliders set the delay, the distractors'
noise, and the carry and admission of the gated paths and of the plain RNN; three presets; the
table of accuracy, mean margin, median sensitivity and half-life per path, exactly the reference
program's (5,000 trials, seed 46); and the state trajectories of four trials. A setting every
path passes is named as what it is: a negative control. Then trained models: the shipped
records of the lab's experiments as tables and plots (.trained), and one setting retrained in the
page at a short budget, a demonstration that may not learn (.retrain), chosen by the controls
task, cell, parameter budget, learning rate, forget bias, backward horizon and seed.
"""
import numpy as np
import panel as pn
import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.memory_lab.retrain import BIASES, BUDGETS, DEMO, HORIZONS, LAB, LRS, TASKS, config_of, new_retrain
from gleam_lab.app.chapters.memory_lab.trained import CELLS, TrainedResults
from gleam_lab.app.widgets.figures import LinePlot
from gleam_lab.app.widgets.page import card, gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam.labs.memory import carry as memory

TRIALS, SEED = 5000, 46
SHOWN = 4                 # trajectories drawn: the first two trials of each cue
MAX_DELAY = 128
PATHS = {"elman": "plain RNN: h ← tanh(carry·h + admission·x)",
         "lstm": "LSTM-like: c ← f·c + i·tanh(x)",
         "gru": "GRU-like: h ← (1 − z)·h + z·tanh(x)"}
# gv key suffix, column header, decimals (the reference program's)
COLUMNS = [("accuracy", "accuracy of sign(h)", 3), ("mean_margin", "mean margin cue·h", 3),
           ("median_abs_grad", "median |∂h/∂cue|", 6), ("carry", "carry", 3),
           ("half_life", "half-life (steps)", 2)]
PRESET_EVENTS = {"preset_long": "long noisy delay", "preset_control": "negative control",
                 "preset_misgated": "misgated"}


def _preset(name):
    p = memory.PRESETS[name]
    return {"delay": p.delay, "noise_sd": p.noise_sd, "gated_carry": p.gated_carry,
            "gated_admission": p.gated_admission, "elman_carry": p.elman_carry,
            "elman_admission": p.elman_admission}


DEFAULT = _preset("long noisy delay")


class MemoryLabChapter(ChapterViewer):
    """The carry challenge: can a state hold one bit through a noisy delay?"""

    chapter_id = "memory"
    url_names = {"noise_sd": "noise", "gated_carry": "gc", "gated_admission": "ga",
                 "elman_carry": "rc", "elman_admission": "ra", "params": "budget", "forget_bias": "fb",
                 "horizon": "k"}

    delay = param.Integer(default=DEFAULT["delay"], bounds=(0, MAX_DELAY), label="Delay (noisy steps)")
    noise_sd = param.Number(default=DEFAULT["noise_sd"], bounds=(0.0, 1.0), step=0.01,
                            label="Distractor noise (sd)")
    gated_carry = param.Number(default=DEFAULT["gated_carry"], bounds=(0.0, 1.0), step=0.01,
                               label="Gated carry (f, or 1 − z)")
    gated_admission = param.Number(default=DEFAULT["gated_admission"], bounds=(0.0, 1.0), step=0.01,
                                   label="Gated admission (i, or z)")
    elman_carry = param.Number(default=DEFAULT["elman_carry"], bounds=(0.0, 1.0), step=0.01,
                               label="Plain RNN carry (recurrent weight)")
    elman_admission = param.Number(default=DEFAULT["elman_admission"], bounds=(0.0, 2.0), step=0.01,
                                   label="Plain RNN admission (input weight)")
    preset_long = param.Event(label="Long noisy delay")
    preset_control = param.Event(label="Negative control: 4 quiet steps")
    preset_misgated = param.Event(label="Misgated: a short time constant")
    task = param.Selector(default=next(iter(TASKS)), objects=list(TASKS), label="Task")
    cell = param.Selector(default="lstm", objects=list(CELLS), label="Cell")
    params = param.Selector(default=BUDGETS[0], objects=BUDGETS, label="Parameter budget")
    lr = param.Selector(default=LRS[0], objects=LRS, label="Learning rate")
    forget_bias = param.Selector(default=1.0, objects=BIASES, label="LSTM forget-gate bias")
    horizon = param.Selector(default="full", objects=list(HORIZONS), label="Backward horizon k")
    seed = param.Integer(default=0, bounds=(0, 10 ** 6), label="Seed")

    def __init__(self, **params):
        super().__init__(**params)
        self._rows, self._paths, self._error = None, None, ""
        self._table = html_pane()
        self._plots = {
            arch: LinePlot({f"t{k}": (f"trial {k + 1} (cue {'+1' if k < SHOWN // 2 else '−1'})",
                                      PALETTE.positive if k < SHOWN // 2 else PALETTE.negative,
                                      "solid" if k % 2 == 0 else "dashed") for k in range(SHOWN)},
                           x_range=(0, DEFAULT["delay"]), y_range=(-1.05, 1.05), guides=(0.0,),
                           title=f"{label}: the state of four trials", x_label="step t",
                           y_label="state", height=220, css_class=f"gl-chmemory-path-{arch}")
            for arch, label in (("elman", "Plain RNN"), ("gru", "Gated path (LSTM- and GRU-like)"))}
        self.trained = TrainedResults()
        self.retrain = new_retrain(self._config())
        self._recompute()

    def _config(self):
        return config_of(self.task, self.cell, self.params, self.lr, self.forget_bias, self.horizon, self.seed)

    @param.depends("task", "cell", "params", "lr", "forget_bias", "horizon", "seed", watch=True)
    def _on_config(self):
        self.retrain.replace(self._config())
        if "forget_bias" in self._widgets:
            self._widgets["forget_bias"].disabled = self.cell != "lstm"

    def share_trained(self, trained_here):
        """Offer each model the retrain measures to the inspector (app.widgets.trained_here)."""
        trained_here.watch_retrain(LAB, self.retrain)

    def leave(self):
        self.retrain.loop.training = False

    def widget(self):
        w = pn.widgets
        sliders = [self.control("delay", w.IntSlider, width=270)]
        sliders += [self.control(name, w.FloatSlider, format="0.00", width=270)
                    for name in ("noise_sd", "gated_carry", "gated_admission", "elman_carry", "elman_admission")]
        presets = [self.control(name, w.Button, label=self.param[name].label, width=270,
                                css_classes=[f"gl-chmemory-{name.split('_')[1]}"]) for name in PRESET_EVENTS]
        about = pn.pane.HTML(f"<div class='gl-note'>{gv('memory.trials', f'{TRIALS:,}')} trials, seed "
                             f"{gv('memory.seed', SEED)}: each path sees the same cues and distractors "
                             "(Python's random.Random, as the reference program draws them).</div>",
                             width=270, margin=(4, 10))
        controls = pn.Column(*sliders, *presets, about, width=290)
        views = pn.Column(self._table, *[pn.pane.Bokeh(p.fig, sizing_mode="stretch_width")
                                         for p in self._plots.values()], sizing_mode="stretch_width")
        carry = card(wrap_row(controls, views, basis=420), layout=pn.Column, max_width=1100)
        choices = [self.control("task", w.Select, width=190), self.control("cell", w.Select, width=120,
                                                                                options={v: k for k, v in CELLS.items()}),
                   self.control("params", w.Select, width=150, options={f"~{fmt_comma(p)}": p for p in BUDGETS}),
                   self.control("lr", w.Select, width=130, options={f"{lr:g}": lr for lr in LRS}),
                   self.control("forget_bias", w.Select, width=150, disabled=self.cell != "lstm"),
                   self.control("horizon", w.Select, width=150,
                                options={("full backpropagation" if k == "full" else k): k for k in HORIZONS}), self.control("seed", w.IntInput, width=100)]
        demo = (f"<h3>Retrain one setting here: a demonstration</h3><div class='gl-note'>The page trains the "
                f"chosen setting on {gv('memory.retrain.demo_n_train', fmt_comma(DEMO['n_train']))} examples for "
                f"{gv('memory.retrain.demo_epochs', DEMO['epochs'])} epochs, every update taken — no validation, no "
                "early stopping — a short budget a browser can afford: it may not learn. The shipped run of the same "
                "setting, beside it, trained longer, to the criterion (see the tables above), so the two are not "
                "expected to agree.</div>")
        return pn.Column(carry, card(self.trained.panel(), layout=pn.Column, max_width=1100),
                         card(html_pane(demo), self.retrain.panel(choices),
                              layout=pn.Column, max_width=1100), sizing_mode="stretch_width")

    # ------------------------------------------------------------ controls
    @param.depends("preset_long", watch=True)
    def _long(self):
        self.param.update(**_preset("long noisy delay"))

    @param.depends("preset_control", watch=True)
    def _control(self):
        self.param.update(**_preset("negative control"))

    @param.depends("preset_misgated", watch=True)
    def _misgated(self):
        self.param.update(**_preset("misgated"))

    @param.depends("delay", "noise_sd", "gated_carry", "gated_admission", "elman_carry",
                   "elman_admission", watch=True)
    def _recompute(self):
        try:
            self._rows = {r["architecture"]: r for r in memory.carry_challenge(
                self.delay, self.noise_sd, self.gated_carry, self.gated_admission, self.elman_carry,
                self.elman_admission, trials=TRIALS, seed=SEED)}
            cues, noise = memory.draws(self.delay, self.noise_sd, TRIALS, SEED)
            pick = np.concatenate([np.flatnonzero(cues > 0)[:SHOWN // 2],
                                   np.flatnonzero(cues < 0)[:SHOWN // 2]])
            self._paths = {
                "elman": memory.simulate("elman", cues[pick], noise[:, pick], self.elman_carry,
                                         self.elman_admission, every_step=True),
                "gru": memory.simulate("gru", cues[pick], noise[:, pick], self.gated_carry,
                                       self.gated_admission, every_step=True)}
            self._error = ""
        except ValueError as e:
            self._rows, self._paths, self._error = None, None, f"Not computed: {e}."
        self._redraw()

    # ------------------------------------------------------------ view
    def verdict(self):
        """What the table shows, in words (computed from it)."""
        if self._rows is None:
            return ""
        acc = {a: r["accuracy"] for a, r in self._rows.items()}
        if min(acc.values()) >= 0.99:
            return ("Every path passes: a setting this easy cannot tell a memory from none. This is "
                    "what a negative control is for.")
        if acc["gru"] >= 0.99 and acc["elman"] < 0.6:
            return "The gated paths keep the cue; the plain RNN is at chance: its state has forgotten it."
        if max(acc.values()) < 0.6:
            return "Every path is at chance: no state here keeps the cue through this delay."
        return "The paths differ less cleanly here: read the margins and sensitivities."

    def values(self):
        out = {**self.trained.values(), **self.retrain.values(), "memory.error": self._error, "memory.verdict": self.verdict(),
               "memory.retrain.demo_n_train": fmt_comma(DEMO["n_train"]), "memory.retrain.demo_epochs": str(DEMO["epochs"]),
               "memory.trials": f"{TRIALS:,}", "memory.seed": str(SEED)}
        for arch in PATHS:
            r = None if self._rows is None else self._rows[arch]
            for key, _, decimals in COLUMNS:
                if r is None:
                    text = "—"
                elif key == "half_life" and r[key] == float("inf"):
                    text = "never halves"
                else:
                    text = fmt_fixed(r[key], decimals)
                out[f"memory.{arch}.{key}"] = text
        return out

    def _redraw(self):
        v = self.values()
        rows = [[label] + [gv(f"memory.{arch}.{key}", v[f"memory.{arch}.{key}"]) for key, _, _ in COLUMNS]
                for arch, label in PATHS.items()]
        self._table.object = (table(["path"] + [h for _, h, _ in COLUMNS], rows)
                              + f"<div class='gl-note'>{gv('memory.verdict', v['memory.verdict'])}</div>"
                              + f"<div class='gl-error'>{gv('memory.error', v['memory.error'])}</div>")
        if self._paths is None:
            return
        for arch, plot in self._plots.items():
            path = self._paths[arch]
            t = list(range(path.shape[0]))
            plot.set_ranges(x=(0, max(1, path.shape[0] - 1)))
            plot.show(**{f"t{k}": (t, path[:, k].tolist()) for k in range(SHOWN)})
