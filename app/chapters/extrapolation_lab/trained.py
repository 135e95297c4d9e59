"""The extrapolation lab's pretrained results (gleam.pretrained, summarised by
gleam.examples.extrapolation_lab_trained): one panel per experiment — tables of every seed's
numbers and their spread, curves of every seed, the `python -m gleam.sweep` spec that reproduces
it. Every number is a span (`values()`) read from that summary; nothing is typed.
"""
import panel as pn

from app.widgets.figures import LinePlot
from app.widgets.page import gv, html_pane, table
from app.widgets.seeds import CELL_COLOURS as COLOURS, CELLS, DASHES, integers, mean_sd, per_seed, spec_block
from content import fmt_fixed
from gleam import examples

KINDS = {"anbn": "aⁿbⁿ", "anbncn": "aⁿbⁿcⁿ"}
HEADS = {"regress": "linear", "nau": "NAU", "nmu": "NMU", "nalu": "NALU"}


def curves(name, title, x_label, xs, groups, height=220):
    """A LinePlot of every seed's curve per group: {key: (label, colour, [ys per seed])}."""
    plot = LinePlot({f"{k}.{i}": (label if i == 0 else "", colour, DASHES[i % len(DASHES)])
                     for k, (label, colour, ys) in groups.items() for i in range(len(ys))},
                    x_range=(min(xs), max(xs)), y_range=(-0.02, 1.05), guides=(0.5, 1.0), title=title,
                    x_label=x_label, y_label="accuracy", height=height, css_class=f"gl-chextrapolation-{name}")
    plot.show(**{f"{k}.{i}": (xs, y) for k, (_, _, ys) in groups.items() for i, y in enumerate(ys)})
    return plot


class TrainedResults:
    """The panels of the pretrained sweeps (built once per session; they never change)."""

    def __init__(self):
        self.data = d = examples.extrapolation_lab_trained()
        self._values = self._make_values()
        ld, ct = d["length_depth"], d["counting"]
        self.plots = {
            "lengths": curves("lengths", f"Accuracy against length, depth ≤ {ld['max_train_depth']}", "test length",
                              ld["test_lengths"], {c: (CELLS[c], COLOURS[c], g["length_curves"])
                                                   for c, g in ld["architectures"].items()}),
            "depths": curves("depths", f"Accuracy against depth, length ≤ {ld['test_lengths'][0]}", "deepest bracket",
                             ld["test_depths"], {c: (CELLS[c], COLOURS[c], g["depth_curves"])
                                                 for c, g in ld["architectures"].items()})}
        for kind in ct["kinds"]:
            self.plots[kind] = curves(kind, f"{KINDS[kind]}: accuracy against n (trained on n ≤ {ct['max_train_n']})",
                                      "n", ct["ns"], {c: (CELLS[c], COLOURS[c], g["curves"])
                                                      for c, g in ct["kinds"][kind].items()})

    def values(self):
        return dict(self._values)

    def _make_values(self):
        d, out = self.data, {}
        for cell, g in d["length_depth"]["architectures"].items():
            k = f"extrapolation.trained.ld.{cell}"
            out.update({f"{k}.iid": mean_sd(g["iid_accuracy"]), f"{k}.length_reach": integers(g["length_reach"]),
                        f"{k}.depth_reach": integers(g["depth_reach"]), f"{k}.longer": per_seed(g["beyond_length"]),
                        f"{k}.deeper": per_seed(g["beyond_depth"]),
                        f"{k}.easier": f"{g['length_easier']} of {g['runs']}",
                        f"{k}.growth": " / ".join(fmt_fixed(x, 2) for x in g["growth"])})
        for kind, cells in d["counting"]["kinds"].items():
            for cell, g in cells.items():
                k = f"extrapolation.trained.count.{kind}.{cell}"
                out.update({f"{k}.largest": integers(g["largest_n"]),
                            f"{k}.beyond": f"{g['beyond_training']} of {g['runs']}",
                            f"{k}.r2_train": mean_sd(g["probe_r2_train"], 2), f"{k}.r2_beyond": mean_sd(g["probe_r2_beyond"], 2),
                            f"{k}.unit": mean_sd(g["best_unit_corr"], 2)})
        for split, g in d["sums"]["splits"].items():
            k = f"extrapolation.trained.splits.{split}"
            out.update({f"{k}.iid": per_seed(g["iid_accuracy"]), f"{k}.ood": per_seed(g["ood_accuracy"]),
                        f"{k}.n_ood": str(int(g["n_ood"]["mean"]))
                        if g["n_ood"]["min"] == g["n_ood"]["max"] else f"{int(g['n_ood']['min'])}–{int(g['n_ood']['max'])}"})
        for head, g in d["sums"]["heads"].items():
            k = f"extrapolation.trained.heads.{head}"
            out.update({f"{k}.iid_mae": mean_sd(g["iid_mae"], 2), f"{k}.ood_mae": mean_sd(g["ood_mae"], 2),
                        f"{k}.bound": "—" if g["bound"]["max"] < 0 else per_seed(g["bound"], 1),
                        f"{k}.max_pred": per_seed(g["max_abs_prediction"], 1),
                        f"{k}.above": "—" if g["bound"]["max"] < 0 else per_seed(g["ood_above_bound"]),
                        f"{k}.train_max": integers(g["max_train_value"])})
        a, k = d["analysis"], "extrapolation.trained.analysis"
        for name in ("test_accuracy", "train_accuracy", "swap_follows", "swap_unchanged", "clamp_accuracy", "clamp_changed"):
            out[f"{k}.{name}"] = per_seed(a[name])
        out[f"{k}.pca"] = f"{mean_sd(a['pca_var_1'], 2)}, {mean_sd(a['pca_var_2'], 2)}"
        for L in a["labels"]:
            for x in ("accuracy", "control_accuracy", "selectivity", "majority"):
                out[f"{k}.probe.{L}.{x}"] = mean_sd(a[f"probe_{L}_{x}"], 2)
        for alpha in a["alphas"]:
            for x in ("probe_moved", "output_moved"):
                out[f"{k}.patch.{alpha:g}.{x}"] = per_seed(a[f"patch_{alpha:g}_{x}"])
        for span in a["spans"]:
            out[f"{k}.sv.{span}"] = per_seed(a[f"log10_sv_max_{span}"])
        out[f"{k}.growth"] = per_seed(a["growth_final"])
        return out

    # ------------------------------------------------------------ layout
    def _span(self, key):
        return gv(key, self._values[key])

    def panels(self):
        """{experiment: its panel}, in the chapter's order."""
        d, s = self.data, self._span
        ld, ct, sm, specs = d["length_depth"], d["counting"], d["sums"], d["specs"]
        seeds = ", ".join(str(x) for x in d["seeds"])
        bokeh = {k: pn.pane.Bokeh(p.fig, sizing_mode="stretch_width") for k, p in self.plots.items()}
        one = table(["", *[CELLS[c] for c in ld["architectures"]]], [
            [label] + [s(f"extrapolation.trained.ld.{c}.{x}") for c in ld["architectures"]] for x, label in (
                ("iid", "in-distribution accuracy"), ("length_reach", f"length reach (≥ {ld['threshold']}), per seed"),
                ("depth_reach", f"depth reach (≥ {ld['threshold']}), per seed"),
                ("longer", f"mean accuracy at lengths {', '.join(map(str, ld['longer']))}, per seed"),
                ("deeper", f"mean accuracy at depths {', '.join(map(str, ld['deeper']))}, per seed"),
                ("easier", "seeds where longer beats deeper"),
                ("growth", f"log10 σ_max(∂h_T/∂h_1) at lengths {' / '.join(map(str, ld['test_lengths']))} (mean)"))])
        two = table(["", *[f"{KINDS[k]} {CELLS[c]}" for k in ct["kinds"] for c in ct["kinds"][k]]], [
            [label] + [s(f"extrapolation.trained.count.{k}.{c}.{x}") for k in ct["kinds"] for c in ct["kinds"][k]]
            for x, label in (("largest", f"largest n (accuracy ≥ {ct['threshold']} up to it), per seed"),
                             ("beyond", f"seeds past n = {ct['max_train_n']}"),
                             ("r2_train", "counter probe R², trained n"), ("r2_beyond", "counter probe R², larger n"),
                             ("unit", "best single unit |r| with a − b"))])
        three = table(["split", "in-distribution accuracy, per seed", "held-out accuracy, per seed", "held out"], [
            [split] + [s(f"extrapolation.trained.splits.{split}.{x}") for x in ("iid", "ood", "n_ood")]
            for split in sm["splits"]])
        heads = table(["", *[HEADS[h] for h in sm["heads"]]], [
            [label] + [s(f"extrapolation.trained.heads.{h}.{x}") for h in sm["heads"]] for x, label in (
                ("iid_mae", "error on seen values (MAE)"), ("ood_mae", "error on larger values (MAE)"),
                ("train_max", "largest value trained on, per seed"), ("bound", "ceiling |b| + ‖w‖₁, per seed"),
                ("max_pred", "largest |ŷ| on any test, per seed"),
                ("above", "held-out values above the ceiling, per seed"))])
        note = f"<div class='gl-note'>Seeds {seeds}; every table and curve shows each seed.</div>"
        an, ak = d["analysis"], "extrapolation.trained.analysis"
        behaviour = table(["", "per seed"], [[label, s(f"{ak}.{x}")] for x, label in (
            ("train_accuracy", "train accuracy (mod 10)"), ("test_accuracy", "test accuracy (mod 10)"))])
        probes = table(["label", "probe accuracy", "control task", "selectivity", "majority class"],
                       [[L] + [s(f"{ak}.probe.{L}.{x}") for x in ("accuracy", "control_accuracy", "selectivity", "majority")]
                        for L in an["labels"]])
        patch = table(["α along the partial-sum direction", "probe reading moved, per seed", "prediction moved, per seed"],
                      [[f"{alpha:g}", s(f"{ak}.patch.{alpha:g}.probe_moved"), s(f"{ak}.patch.{alpha:g}.output_moved")]
                       for alpha in an["alphas"]])
        other = table(["", "per seed"], [[label, s(f"{ak}.{x}")] for x, label in (
            ("swap_follows", "state swap before the last ')': predictions follow the state"),
            ("swap_unchanged", "state swap: predictions unchanged"),
            ("clamp_accuracy", "accuracy with the depth unit clamped"), ("clamp_changed", "predictions the clamp changed"))]
            + [[f"median log10 σ_max over spans of {span}", s(f"{ak}.sv.{span}")] for span in an["spans"]]
            + [["log10 σ_max from the first step to the last", s(f"{ak}.growth")]])
        return {
            "length_depth": pn.Column(html_pane("<h3>1. Length against depth (Dyck-1)</h3>" + note + one
                                                + spec_block("length_depth", specs["length_depth"]),
                                                css_classes=["gl-chextrapolation-ld"]),
                                      bokeh["lengths"], bokeh["depths"], sizing_mode="stretch_width"),
            "counting": pn.Column(html_pane("<h3>2. Counting</h3>" + note + two + spec_block("counting", specs["counting"]),
                                            css_classes=["gl-chextrapolation-count"]),
                                  *[bokeh[k] for k in ct["kinds"]], sizing_mode="stretch_width"),
            "sums": pn.Column(html_pane("<h3>3. Nested sums</h3>" + note + "<h4>Mod 10, per split</h4>" + three
                                        + spec_block("sums_splits", specs["sums_splits"])
                                        + "<h4>The value itself, per head (split: larger values held out)</h4>" + heads
                                        + spec_block("sums_heads", specs["sums_heads"]),
                                        css_classes=["gl-chextrapolation-sums"]), sizing_mode="stretch_width"),
            "analysis": pn.Column(html_pane(
                "<h3>4–6. Information, mechanism and stability (a GRU on nested sums)</h3>" + note
                + "<h4>Behaviour</h4>" + behaviour + "<h4>Information: linear probes at every character</h4>" + probes
                + f"<div class='gl-note'>Explained variance of the first two principal components: {s(f'{ak}.pca')}</div>"
                + "<h4>Mechanism: decodable against used</h4>" + patch + other
                + spec_block("analysis", specs["analysis"]), css_classes=["gl-chextrapolation-analysis"]),
                sizing_mode="stretch_width")}
