"""The extrapolation lab's trained models: the shipped records (gleam.pretrained, summarised by
gleam.examples.extrapolation_lab_trained), one panel per experiment. Each leads with learned k of n
against the criterion and the held-in score, then what the claim rests on over the seeds that
learned (a reach at the largest value tested as "≥"), the other seeds apart, the baselines beside
(a constant answer, the shortcut automata, the digit-sum automaton), the paired differences with
bootstrap intervals, the published findings beside the lab's with the summary's verdicts, every
seed's validation curve, and the `python -m gleam.sweep` spec completed by the run's defaults. Every
number is a span (`values()`) read from that summary; nothing is typed.
"""
import html

import panel as pn

from gleam_lab.app.chapters.extrapolation_lab.values import KEY, pair_name, shown_values
from gleam_lab.app.widgets.figures import SeedCurves
from gleam_lab.app.widgets.page import gv, html_pane, table
from gleam_lab.app.widgets.seeds import CELL_COLOURS, CELLS, spec_block
from gleam_lab.app.widgets.theme import PALETTE
from gleam import examples

KINDS = {"anbn": "aⁿbⁿ", "anbncn": "aⁿbⁿcⁿ"}
PAIRS = ("lstm-gru_torch", "lstm-elman", "gru_torch-elman")
AUTOMATA = {"mod2": "mod-2 counter", "mod3": "mod-3 counter", "mod4": "mod-4 counter", "parity": "length parity"}


def curves(css, title, groups, top, y_label="validation score"):
    """Every seed's validation score at each check: groups = {name: (label, colour, dash, [curve, ...])};
    line i of a group is plot.data("name.i")."""
    plot = SeedCurves({name: (label, colour, dash) for name, (label, colour, dash, _) in groups.items()},
                      x_range=(0, top), y_range=(0.0, 1.02), guides=(0.5, 0.98), title=title, x_label="updates",
                      y_label=y_label, height=240, css_class=f"gl-chextrapolation-{css}")
    plot.show(**{name: [([u for u, _ in cv], [s for _, s in cv]) for cv in cvs] for name, (*_, cvs) in groups.items()})
    return plot


def accuracy_plot(css, title, x_label, xs, groups, guides=(0.5,)):
    """groups = {name: (label, colour, dash, [ys, ...])} against xs."""
    plot = SeedCurves({name: (label, colour, dash) for name, (label, colour, dash, _) in groups.items()},
                      x_range=(min(xs), max(xs)), y_range=(-0.02, 1.05), guides=guides, title=title,
                      x_label=x_label, y_label="accuracy", height=240, css_class=f"gl-chextrapolation-{css}")
    plot.show(**{name: [(xs, ys) for ys in yss] for name, (*_, yss) in groups.items()})
    return plot


def _top(groups):
    return max([u for g in groups for cv in g["curves"] for u, _ in cv] or [1])


class TrainedResults:
    """Tables and plots of the shipped records (built once per session; they never change)."""

    def __init__(self, data=None):
        self.data = d = data if data is not None else examples.extrapolation_lab_trained()
        self._values = shown_values(d, self.published())
        ld, ct, pr, sm = d["length_depth"], d["counting"], d["predict"], d["sums"]
        dashes = ("solid", "dashed")

        def seed_lines(groups):
            return {name: (label, CELL_COLOURS[cell], dash, g["curves"]) for name, (label, cell, dash, g) in groups.items()}
        self.plots = {
            "ld-val": curves("ld-val", "Dyck-1: the validation score of every seed at each check", seed_lines(
                {c: (CELLS[c], c, "solid", g) for c, g in ld["cells"].items()}), _top(ld["cells"].values())),
            "count-val": curves("count-val", "Counting: the validation score of every seed at each check", seed_lines(
                {f"{k}.{c}": (f"{CELLS[c]}, {KINDS[k]}", c, dashes[j], g) for j, (k, v) in enumerate(ct["kinds"].items())
                 for c, g in v["cells"].items()}), _top(g for v in ct["kinds"].values() for g in v["cells"].values())),
            "predict-val": curves("predict-val", "Predicting aⁿbⁿ: the validation score of every seed at each check",
                                  seed_lines({c: (CELLS[c], c, "solid", g) for c, g in pr["cells"].items()}),
                                  _top(pr["cells"].values()), "deterministic steps right, validation"),
            "sums-val": curves("sums-val", "Nested sums: the validation accuracy of every seed at each check",
                               seed_lines({c: (CELLS[c], c, "solid", g) for c, g in sm["cells"].items()}),
                               _top(sm["cells"].values())),
        }
        for name, axis, xs, field in (("lengths", "test length", ld["test_lengths"], "length_curves"),
                                      ("depths", "deepest bracket", ld["test_depths"], "depth_curves")):
            self.plots[f"ld-{name}"] = accuracy_plot(
                f"ld-{name}", f"Dyck-1: accuracy against {axis}, the seeds that learned", axis, xs,
                {c: (CELLS[c], CELL_COLOURS[c], "solid", g["over_learned"][field])
                 for c, g in ld["cells"].items() if g["over_learned"]})
        for kind, v in ct["kinds"].items():
            lines = {c: (CELLS[c], CELL_COLOURS[c], "solid", g["over_learned"]["hard_curves"])
                     for c, g in v["cells"].items() if g["over_learned"]}
            lines["mod4"] = (f"{AUTOMATA['mod4']} (mean over the seeds' sets)", PALETTE.muted, "dashed",
                             [v["shortcuts"]["mod4"]["hard_curve"]])
            self.plots[f"hard-{kind}"] = accuracy_plot(
                f"hard-{kind}", f"{KINDS[kind]}: accuracy on the hard sets against n, the seeds that learned", "n",
                ct["ns"], lines, guides=(0.5, ct["threshold"]))

    def values(self):
        return dict(self._values)

    # ------------------------------------------------------------ the values shown
    def published(self):
        d = self.data
        return {"length_depth": d["length_depth"]["published"],
                "counting": d["counting"]["published"] + d["counting"]["bhattamishra"],
                "predict": d["predict"]["published"], "sums": d["sums"]["published"], "arith": d["arith"]["published"]}

    # ------------------------------------------------------------ layout
    def _span(self, key):
        return gv(key, self._values[key]) if key in self._values else "—"

    def _lead(self, prefix, groups, extra=()):
        """The learned k of n table: (label, key) rows of groups {name: (row labels, summary)}."""
        s = self._span
        cols = [("learned", f"learned (held-in ≥ {self._values[f'{KEY}.criterion']})"),
                ("heldin", "held-in score, mean ± sd"), ("heldin_seeds", "held-in score per seed")] + list(extra)
        return table([""] + [label for _, label in cols],
                     [[labels] + [s(f"{prefix}.{name}.{x}") for x, _ in cols] for name, labels in groups.items()])

    def _apart(self, prefix, groups, extra=()):
        rows = [[labels, self._span(f"{prefix}.{name}.apart.seeds"), self._span(f"{prefix}.{name}.apart.heldin")]
                + [self._span(f"{prefix}.{name}.{x}") for x in extra]
                for name, (labels, g) in groups.items() if g["other_seeds"]]
        if not rows:
            return ""
        return ("<h4>The seeds that did not learn, apart</h4>"
                + table(["setting", "seeds", "their held-in score"] + [x.split(".")[-1] for x in extra], rows))

    def _published(self, name):
        d, s = self.data, self._span
        rows = self.published()[name]
        e = html.escape
        claims = "".join(f"<p><b>{e(p['source'])}</b>: {e(p['direction'])}. Their setting: {e(p['setting'])}. "
                         f"Compared here: {e(p['compared'])}.</p>" for p in (d["published"][c] for c in dict.fromkeys(r["claim"] for r in rows)))
        body = table(["published", "the lab's setting", "measured", "verdict", "why"],
                     [[e(d["published"][r["claim"]]["source"])]
                      + [s(f"{KEY}.{name}.published.{i}.{x}") for x in ("lab", "result", "verdict", "why")]
                      for i, r in enumerate(rows)])
        return f"<h4>Published beside measured</h4><div class='gl-note'>{claims}</div>" + body

    def _bokeh(self, *names):
        return [pn.pane.Bokeh(self.plots[n].fig, sizing_mode="stretch_width") for n in names]

    def panels(self):
        """{experiment: its panel}, in the chapter's order."""
        d, s = self.data, self._span
        ld, ct, pr, sm, ar = d["length_depth"], d["counting"], d["predict"], d["sums"], d["arith"]
        crit = (f"<div class='gl-note'><b>Learned</b>: the held-in test score is at least {s(f'{KEY}.criterion')}, a "
                "criterion fixed before any run. Each run was checked on a validation set drawn from the training "
                f"distribution and stopped at a validation score of {s(f'{KEY}.stop_at')}, or at its epoch cap keeping "
                "its best check; nothing beyond the training range was seen while choosing budgets. Extrapolation "
                "numbers are over the seeds that learned; the others are listed apart. Differences are paired by seed "
                "over the seeds that learned in both (95% percentile bootstrap intervals). “≥ n”: held at the largest "
                "value tested (censored, never averaged).</div>")
        cells = {c: CELLS[c] for c in ld["cells"]}
        diff_rows = lambda prefix, metrics: [[pair_name(p)] + [s(f"{prefix}.{p}.{m}" if m else f"{prefix}.{p}")  # noqa: E731
                                                               for m in metrics] for p in PAIRS]
        one = (
            "<h3>1. Length against depth (Dyck-1)</h3>" + crit
            + f"<h4>Learned (a constant answer scores {s(f'{KEY}.ld.constant')} on every set)</h4>"
            + self._lead(f"{KEY}.ld", cells)
            + f"<h4>Beyond training, over the seeds that learned (reach: accuracy ≥ {ld['threshold']:g} at every "
              "value up to it)</h4>"
            + table(["", f"mean accuracy at depths {', '.join(map(str, ld['deeper']))}",
                     "per seed", f"depth reach (trained ≤ {ld['max_train_depth']})",
                     f"mean accuracy at lengths {', '.join(map(str, ld['longer']))}",
                     f"length reach (trained ≤ {ld['max_train_length']})"],
                    [[CELLS[c]] + [s(f"{KEY}.ld.{c}.{x}") for x in ("beyond_depth", "beyond_depth_seeds", "depth_reach",
                                                                     "beyond_length", "length_reach")] for c in ld["cells"]])
            + self._apart(f"{KEY}.ld", {c: (CELLS[c], g) for c, g in ld["cells"].items()})
            + "<h4>Paired differences, 95% bootstrap intervals</h4>"
            + table(["", "beyond depth", "beyond length", "length reach", "depth reach"],
                    diff_rows(f"{KEY}.ld.diff", ("beyond_depth", "beyond_length", "length_reach", "depth_reach")))
            + self._published("length_depth") + spec_block("length_depth", d["reproduce"]["length_depth"],
                                                           "gl-chextrapolation-spec-length_depth"))
        two = "<h3>2. Counting: accept or reject aⁿbⁿ and aⁿbⁿcⁿ</h3>" + (
            f"<div class='gl-note'>Trained on n ≤ {ct['max_train_n']}; the hard sets hold the word and texts of the "
            "right shape whose counts differ by 1 to 12, or lie far from the diagonal: a mod-m counter fails on about "
            "1/(2m) of them, so learned (the near misses of the training sets) does not need a counter but a hard-set "
            f"reach does. Reach: accuracy ≥ {ct['threshold']:g} at every tested n up to it.</div>")
        for kind, v in ct["kinds"].items():
            p = f"{KEY}.count.{kind}"
            two += (f"<h4>{KINDS[kind]}: learned</h4>" + self._lead(p, cells)
                    + f"<h4>{KINDS[kind]}: the hard sets, over the seeds that learned, beside the automata</h4>"
                    + table(["", "hard-set reach per seed", f"hard-set accuracy at n = {ct['ns'][-1]}",
                             "reach on the training-style sets", "held-in accuracy (automata; the models': above)"],
                            [[CELLS[c]] + [s(f"{p}.{c}.{x}") for x in ("hard", "hard_top", "largest")] + [""] for c in v["cells"]]
                            + [[AUTOMATA[a]] + [s(f"{p}.auto.{a}.{x}") for x in ("hard", "hard_top", "largest", "iid")]
                               for a in v["shortcuts"]])
                    + "<h4>The counter probe (ridge, a − b), over the seeds that learned</h4>"
                    + table(["", "R² on h, trained n", "R² on h, beyond", "best unit |r|", "R² on the LSTM's c, trained n",
                             "R² on c, beyond", "per seed", "best c unit |r|"],
                            [[CELLS[c]] + [s(f"{p}.{c}.{x}") for x in ("r2_train", "r2_beyond", "unit", "c_r2_train",
                                                                       "c_r2_beyond", "c_r2_beyond_seeds", "c_unit")]
                             for c in v["cells"]])
                    + self._apart(p, {c: (CELLS[c], g) for c, g in v["cells"].items()})
                    + "<h4>Paired differences in hard-set reach, 95% bootstrap intervals</h4>"
                    + table(["", "hard-set reach"], diff_rows(f"{p}.diff", ("",))))
        two += self._published("counting") + spec_block("counting", d["reproduce"]["counting"],
                                                        "gl-chextrapolation-spec-counting")
        three = ("<h3>3. Predicting aⁿbⁿ, the next character</h3>" + self._lead(f"{KEY}.predict", cells)
                 + f"<h4>Over the seeds that learned: the largest n with every deterministic step right at every n up to "
                   f"it (trained ≤ {pr['max_train_n']}, tested to {pr['max_test_n']})</h4>"
                 + table(["", "per seed", f"past n = {pr['max_train_n']}"],
                         [[CELLS[c], s(f"{KEY}.predict.{c}.largest"), s(f"{KEY}.predict.{c}.past")] for c in pr["cells"]])
                 + self._apart(f"{KEY}.predict", {c: (CELLS[c], g) for c, g in pr["cells"].items()})
                 + "<h4>Paired differences, 95% bootstrap intervals</h4>"
                 + table(["", "largest n"], diff_rows(f"{KEY}.predict.diff", ("",)))
                 + self._published("predict") + spec_block("predict", d["reproduce"]["predict"],
                                                           "gl-chextrapolation-spec-predict"))
        sp = f"{KEY}.sums"
        scells = {c: f"{CELLS[c]} (width {s(f'{sp}.{c}.width')}, {s(f'{sp}.{c}.params')} parameters)" for c in sm["cells"]}
        learned_cells = [c for c, g in sm["cells"].items() if g["over_learned"]]
        failed = [c for c, g in sm["cells"].items() if g["learned"] == 0]
        four = (
            "<h3>4. Nested sums: the value mod 10, values above "
            f"{s(f'{sp}.threshold')} held out; experiments 4–6 on the same models</h3>"
            + self._lead(sp, scells, [("budget", "budget (Adam, batch 64, clip 1)")])
            + ("<h4>Budgets tried before the one above</h4>"
               + table(["", "budget", "learned", "held-in score per seed"],
                       [[CELLS[c], s(f"{sp}.{c}.tried.{i}.budget"), s(f"{sp}.{c}.tried.{i}.learned"),
                         s(f"{sp}.{c}.tried.{i}.heldin")] for c, g in sm["cells"].items() for i in range(len(g["tried"]))])
               if any(g["tried"] for g in sm["cells"].values()) else "")
            + "".join(f"<div class='gl-note'>The {CELLS[c]}'s learning rate dropped at these updates, per seed: "
                      f"{s(f'{sp}.{c}.dropped_at')}. The two cells' schedules differ, so a difference between them may "
                      "be the schedule's as much as the cell's.</div>"
                      for c, g in sm["cells"].items() if g["dropped_at"])
            + f"<h4>Held-out values, over the seeds that learned, beside the baselines</h4>"
            + table(["", "accuracy on values above the threshold, mean ± sd", "per seed"],
                    [[CELLS[c], s(f"{sp}.{c}.ood"), s(f"{sp}.{c}.ood_seeds")] for c in learned_cells]
                    + [["chance", s(f"{sp}.chance"), ""],
                       [f"the majority class ({s(f'{sp}.majority_class')})", s(f"{sp}.ood.majority"), ""],
                       ["the sum of the digits mod 10, brackets ignored (10 states)", s(f"{sp}.ood.automaton"), ""]])
            + f"<div class='gl-note'>The baselines are scored on a fresh draw of {s(f'{sp}.draw')} sums (seed "
              f"{s(f'{sp}.draw_seed')}, the runs' task options), split at that value like the runs: "
              f"{s(f'{sp}.heldin.n')} held in (majority {s(f'{sp}.heldin.majority')}, the automaton "
              f"{s(f'{sp}.heldin.automaton')}), {s(f'{sp}.ood.n')} held out. Every operand is one digit and the only "
              "operation is +, so the automaton answers every value exactly: the held-out test is passable by a "
              "finite-state rule.</div>"
            + ("<h4>The seeds that did not learn, apart</h4>" + table(
                ["setting", "seeds", "held-in score", "accuracy above the threshold"],
                [[CELLS[c], s(f"{sp}.{c}.apart.seeds"), s(f"{sp}.{c}.apart.heldin"), s(f"{sp}.{c}.apart.ood")]
                 for c, g in sm["cells"].items() if g["other_seeds"]]) if any(g["other_seeds"] for g in sm["cells"].values()) else "")
            + ("<div class='gl-note'>No seed learned: " + ", ".join(CELLS[c] for c in failed)
               + ". A failure to learn, not a finding: no probe or mechanism is reported for it.</div>" if failed else ""))
        for c in learned_cells:
            k = f"{sp}.{c}"
            four += (f"<h4>{CELLS[c]}, the seeds that learned ({s(f'{k}.learned_seeds')}): information, probes "
                     "with control tasks (one value per seed)</h4>"
                     + table(["label", "probe accuracy", "control task", "selectivity", "majority class"],
                             [[L] + [s(f"{k}.probe.{L}.{x}") for x in ("accuracy", "control_accuracy", "selectivity", "majority")]
                              for L in sm["labels"]])
                     + "<h4>Mechanism: the last state moved α along the partial-sum probe's direction</h4>"
                     + table(["α", "probe reading moved", "prediction moved"],
                             [[a, s(f"{k}.patch.{a}.probe_moved"), s(f"{k}.patch.{a}.output_moved")] for a in sm["alphas"]])
                     + table(["", "per seed"], [[label, s(f"{k}.{x}")] for x, label in (
                         ("swap_follows", "state swap: predictions follow the state"),
                         ("swap_unchanged", "state swap: predictions unchanged"),
                         ("clamp_accuracy", "accuracy with the depth unit clamped"),
                         ("clamp_changed", "predictions the clamp changed"),
                         ("pca", "variance of the first two principal components"),
                         ("growth_final", "log10 σ_max from the first step to the last"))]
                         + [[f"median log10 σ_max over spans of {span}", s(f"{k}.sv.{span}")] for span in sm["spans"]]))
        four += self._published("sums") + "".join(spec_block(sm["cells"][c]["experiment"], d["reproduce"][sm["cells"][c]["experiment"]],
                                                             f"gl-chextrapolation-spec-{sm['cells'][c]['experiment']}") for c in sm["cells"])
        five = ("<h3>5. Arithmetic heads on numbers (Madsen &amp; Johansen's task)</h3>"
                + "<div class='gl-note'>No recurrence: the heads read the numbers themselves. Solved: extrapolation MSE "
                  "below an ε-perturbed exact solution's (their criterion); no early stopping, the weights after the last "
                  "update are tested.</div>")
        for op, a in ((op, a) for op, a in ar.items() if op != "published"):
            k = f"{KEY}.arith.{op}"
            five += (f"<h4>a {'+' if op == 'add' else '·'} b: {s(f'{k}.updates')} updates, solved when the "
                     f"extrapolation MSE is below {s(f'{k}.threshold')}</h4>"
                     + table(["head", "solved", "median extrapolation MSE", "median interpolation MSE", "per seed"],
                             [[d["head_names"][h]] + [s(f"{k}.{h}.{x}") for x in ("solved", "extrap", "interp", "extrap_seeds")]
                              for h in a["heads"]])
                     + f"<div class='gl-note'>log10 extrapolation MSE, {d['head_names'][a['difference']['a']]} − "
                       f"{d['head_names'][a['difference']['b']]}, paired by seed: {s(f'{k}.diff')}; the medians' ratio "
                       f"{s(f'{k}.ratio')}.</div>")
        five += self._published("arith") + "".join(spec_block(n, d["reproduce"][n], f"gl-chextrapolation-spec-{n}")
                                                   for n in ("arith_add", "arith_mul"))
        col = lambda html, css, plots: pn.Column(html_pane(html, css_classes=[f"gl-chextrapolation-{css}"]),  # noqa: E731
                                                 *self._bokeh(*plots), sizing_mode="stretch_width")
        return {"length_depth": col(one, "ld", ("ld-depths", "ld-lengths", "ld-val")),
                "counting": col(two, "count", ("hard-anbn", "hard-anbncn", "count-val")),
                "predict": col(three, "predict", ("predict-val",)),
                "sums": col(four, "sums", ("sums-val",)),
                "arith": col(five, "arith", ())}
