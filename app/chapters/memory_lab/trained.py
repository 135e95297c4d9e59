"""The memory lab's trained models: the build's sweeps (gleam.pretrained, summarised by
gleam.examples.memory_lab_trained) as three tables and two plots, each with its seeds, the
spread over them, and the `python -m gleam.sweep` spec that reproduces it. Nothing here is typed:
every number is a span (`values()`) read from that summary.
"""
import panel as pn

from app.widgets.figures import LinePlot
from app.widgets.page import gv, html_pane, table
from app.widgets.seeds import CELL_COLOURS, CELLS, DASHES, integers as horizons, mean_sd, per_seed, spec_block
from app.widgets.theme import PALETTE
from content import fmt_fixed, fmt_sci
from gleam import examples

BIAS_COLOURS = (PALETTE.negative, PALETTE.secondary, PALETTE.positive)


def held(group):
    return f"{group['held']} of {group['runs']}"


class TrainedResults:
    """Tables and plots of the pretrained sweeps (built once per session; they never change)."""

    def __init__(self):
        self.data = d = examples.memory_lab_trained()
        self._values = self._make_values()
        self.retention = LinePlot(
            {f"{cell}.{i}": (CELLS[cell] if i == 0 else "", CELL_COLOURS[cell], DASHES[i % len(DASHES)])
             for cell in CELLS for i in range(len(d["seeds"]))},
            x_range=(0, max(d["task"]["probe_delays"])), y_range=(-0.03, 1.05), guides=(0.0, 1.0),
            title="Retention R(Δ) of each seed's model", x_label="delay Δ (distractors before the query)",
            y_label="R(Δ)", height=240, css_class="gl-chmemory-retention")
        self.grads = LinePlot(
            {f"{b}.{i}": (f"forget bias {fmt_fixed(float(b), 0)}" if i == 0 else "", BIAS_COLOURS[k % 3],
                          DASHES[i % len(DASHES)])
             for k, b in enumerate(d["forget_bias"]) for i in range(len(d["seeds"]))},
            x_range=(1, d["task"]["epochs"]), y_range=(1e-12, 1e-2), y_log=True,
            title="Gradient reaching the cue's step, each seed", x_label="epoch",
            y_label="mean ‖∂L/∂x₀‖", height=240, css_class="gl-chmemory-cuegrad")
        for cell, g in d["architectures"].items():
            r = g["retention"]
            self.retention.show(**{f"{cell}.{i}": (r["delays"], ys) for i, ys in enumerate(r["per_seed"])})
        for b, g in d["forget_bias"].items():
            c = g["cue_grad_by_epoch"]
            self.grads.show(**{f"{b}.{i}": (c["epochs"], ys) for i, ys in enumerate(c["per_seed"])})

    # ------------------------------------------------------------ the values shown
    def values(self):
        return dict(self._values)

    def _make_values(self):
        d, out = self.data, {}
        for cell, g in d["architectures"].items():
            m, k = g["metrics"], f"memory.trained.cells.{cell}"
            out.update({f"{k}.n": str(int(m["n"]["values"][0])), f"{k}.params": str(int(m["n_params"]["values"][0])),
                        f"{k}.test": mean_sd(m["test_accuracy"]), f"{k}.needs_cue": per_seed(m["needs_cue_accuracy"]),
                        f"{k}.held": held(g), f"{k}.horizon": horizons(m["retention_max"]),
                        f"{k}.p50": horizons(m["retention_p50"]), f"{k}.p95": horizons(m["retention_p95"]),
                        f"{k}.swap": per_seed(m["swap_swapped"]), f"{k}.erasure": per_seed(m["erasure_drop"]),
                        f"{k}.window": mean_sd(m["window_needs_cue_accuracy"], 2),
                        f"{k}.no_memory": mean_sd(m["no_memory_accuracy"], 2),
                        f"{k}.revision": horizons(m["revision_latency"])})
            inter = g["interference"]
            for a, col in zip(inter["amplitudes"], zip(*inter["per_seed"])):
                out[f"{k}.interference.{a:g}"] = ", ".join(fmt_fixed(v, 2) for v in col)
        for b, g in d["forget_bias"].items():
            m, k = g["metrics"], f"memory.trained.bias.{fmt_fixed(float(b), 0)}"
            means = g["cue_grad_by_epoch"]["mean"]
            out.update({f"{k}.needs_cue": per_seed(m["needs_cue_accuracy"]), f"{k}.held": held(g),
                        f"{k}.grad_first": fmt_sci(means[0], text=True), f"{k}.grad_last": fmt_sci(means[-1], text=True)})
        for cell, by_k in d["horizons"].items():
            for kk, g in by_k.items():
                k = f"memory.trained.horizons.{cell}.{kk}"
                out.update({f"{k}.needs_cue": per_seed(g["metrics"]["needs_cue_accuracy"]), f"{k}.held": held(g)})
        return out

    # ------------------------------------------------------------ layout
    def panel(self):
        d, v = self.data, self._values
        seeds = ", ".join(str(s) for s in d["seeds"])
        hold = d["hold_at"]

        def span(key):
            return gv(key, v[key])
        rows = [("n", "width n"), ("params", "parameters"), ("test", "test accuracy (mean ± sd)"),
                ("needs_cue", "'?' accuracy, per seed"), ("held", f"holds Δ = {hold['cells']}"),
                ("horizon", "max horizon, per seed"), ("p50", "P50 horizon (R ≥ 0.5), per seed"),
                ("p95", "P95 horizon (R ≥ 0.95), per seed"), ("swap", "state swap: swapped, per seed"),
                ("erasure", "cue erasure: drop, per seed"), ("no_memory", "'!' accuracy (mean ± sd)"),
                ("window", "window baseline '?' (mean ± sd)"), ("revision", "revision latency, per seed")]
        cells = table([""] + [CELLS[c] for c in d["architectures"]],
                      [[label] + [span(f"memory.trained.cells.{c}.{x}") for c in d["architectures"]]
                       for x, label in rows])
        inter = d["architectures"]["lstm"]["interference"]
        louder = table([f"distractor amplitude (trained at {inter['trained_at']:g})"] + [CELLS[c] for c in d["architectures"]],
                       [[f"× {a:g}"] + [span(f"memory.trained.cells.{c}.interference.{a:g}") for c in d["architectures"]]
                        for a in inter["amplitudes"]])
        bias = table(["forget-gate bias", "'?' accuracy per seed", f"holds Δ = {hold['forget_bias']}",
                      "‖∂L/∂x₀‖ after epoch 1 (mean)", f"after epoch {d['task']['epochs']} (mean)"],
                     [[fmt_fixed(float(b), 0)] + [span(f"memory.trained.bias.{fmt_fixed(float(b), 0)}.{x}")
                                                  for x in ("needs_cue", "held", "grad_first", "grad_last")]
                      for b in d["forget_bias"]])
        rows = [[CELLS[c], str(k) + (" (the whole sequence)" if int(k) > d["sequence_length"] else
                                     " (just reaches the cue)" if int(k) == d["sequence_length"] else
                                     " (the cue out of reach)")]
                + [span(f"memory.trained.horizons.{c}.{k}.{x}") for x in ("needs_cue", "held")]
                for c, by_k in d["horizons"].items() for k in by_k]
        horizon = table(["cell", "backward horizon k", "'?' accuracy per seed", f"holds Δ = {hold['horizons']}"], rows)
        specs = d["specs"]
        note = (f"<div class='gl-note'>Seeds {seeds}, the same examples and order for every cell at a "
                f"seed; '?' accuracy on the acceptance test's probe set at delay {d['task']['probe_delay']}; "
                "“holds Δ”: seeds whose retention stays above chance (by 3 standard errors) up to Δ.</div>")
        return pn.Column(
            html_pane("<h3>Three cells at matched parameter counts</h3>" + note + cells
                      + spec_block("cells", specs["cells"], "gl-chmemory-spec-cells"), css_classes=["gl-chmemory-cells"]),
            pn.pane.Bokeh(self.retention.fig, sizing_mode="stretch_width"),
            html_pane(f"<h4>Interference: '?' accuracy per seed at Δ = {inter['count']} as the distractors grow "
                      "louder</h4>" + louder, css_classes=["gl-chmemory-interference"]),
            html_pane("<h3>The LSTM's forget-gate bias</h3>" + bias + spec_block("forget_bias", specs["forget_bias"], "gl-chmemory-spec-forget_bias"),
                      css_classes=["gl-chmemory-bias"]),
            pn.pane.Bokeh(self.grads.fig, sizing_mode="stretch_width"),
            html_pane(f"<h3>Backward horizons at a fixed delay of {d['horizons_delay']}</h3>" + horizon
                      + spec_block("horizons", specs["horizons"], "gl-chmemory-spec-horizons"), css_classes=["gl-chmemory-horizons"]),
            sizing_mode="stretch_width")
