"""The memory lab's trained models: the shipped records (gleam.pretrained, summarised by
gleam.examples.memory_lab_trained), one panel per experiment. Each leads with what its claim rests
on — learned k of n against the criterion, the '?' accuracy beside chance and the current-window
baseline — then the memory metrics over the seeds that learned (a horizon at the largest probe
delay as "≥"), the other seeds apart, the paired differences with bootstrap intervals, the
published findings beside the lab's with the summary's verdicts, every seed's validation curve,
and the `python -m gleam.sweep` spec completed by the run's defaults. Every number is a span
(`values()`) read from that summary; nothing is typed.
"""
import panel as pn

from gleam_lab.app.widgets.figures import SeedCurves
from gleam_lab.app.widgets.page import gv, html_pane, table
from gleam_lab.app.widgets.seeds import CELL_COLOURS, CELLS, spec_block
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sci
from gleam import examples

KEY = "memory.trained"
PAIRS = (("lstm", "gru_torch"), ("lstm", "elman"), ("gru_torch", "elman"))
# the page's key of each experiment, and its summary's
EXPERIMENTS = {"cells": "cells", "bias": "forget_bias", "horizons": "horizons"}
LEAD = [("width", "width n"), ("params", "parameters"), ("learned", "learned"),
        ("cue", "'?' accuracy, held-in test: mean ± sd"), ("cue_seeds", "'?' accuracy per seed"),
        ("window", "current-window baseline on '?'"), ("test", "accuracy on all queries")]
MEMORY = [("seeds", "seeds that learned"), ("horizon", "max horizon, per seed"), ("p50", "P50 horizon, per seed"),
          ("p95", "P95 horizon, per seed"),
          ("swap", "state swap: swapped"), ("erasure", "cue erasure: drop"),
          ("revision", "revision latency, per seed"), ("updates", "updates to the criterion, per seed")]
BIAS = [("gate", "σ(b) at the start"), ("half_life", "its half-life (steps)"),
        ("grad", "‖∂L/∂x₀‖ after epoch 1 (mean)"), ("grad_seeds", "seeds that ran a whole epoch")]


# ------------------------------------------------------------ how a number is written
def pm(stats, decimals=2):
    """mean ± sd over the seeds (one seed: its value, which has no spread to show)."""
    if len(stats["values"]) == 1:
        return f"{fmt_fixed(stats['mean'], decimals)} (one seed)"
    return f"{fmt_fixed(stats['mean'], decimals)} ± {fmt_fixed(stats['std'], decimals)}"


def listed(values, decimals=2):
    return ", ".join(fmt_fixed(v, decimals) for v in values) or "—"


def whole(values):
    return ", ".join(str(int(v)) for v in values) or "—"


def horizon(v, edge):
    """A retention horizon: -1 (below the smallest probe delay) is "none"; the largest probe delay
    is censored, "≥ edge"."""
    return "none" if v < 0 else f"≥ {edge}" if v >= edge else str(int(v))


def signed(x):
    return ("+" if x > 0 and fmt_fixed(x, 2) != "0.00" else "") + fmt_fixed(x, 2)


def interval(d):
    """A difference and its bootstrap interval: "+0.50 [+0.20, +0.80]"."""
    return f"{signed(d['difference'])} [{signed(d['low'])}, {signed(d['high'])}]"


def budget(p):
    return f"~{fmt_comma(float(p))}"


def setting_values(k, g):
    """The spans of one setting: what leads, the memory of the seeds that learned, the rest apart."""
    out = {f"{k}.width": str(g["width"]), f"{k}.params": fmt_comma(g["n_params"]),
           f"{k}.learned": f"{g['learned']} of {g['runs']}", f"{k}.cue": pm(g["cue"]),
           f"{k}.cue_seeds": listed(g["cue"]["values"]), f"{k}.window": pm(g["window"]), f"{k}.test": pm(g["test"])}
    m = g["memory"]
    if m is None:
        return out
    inter, edge = m["interference"], m["retention_max"]["edge"]
    out.update({f"{k}.mem.seeds": whole(g["learned_seeds"]), f"{k}.mem.horizon": horizons(m["retention_max"]),
                f"{k}.mem.p50": horizons(m["p50"]), f"{k}.mem.p95": horizons(m["p95"]), f"{k}.mem.swap": pm(m["swap"]), f"{k}.mem.erasure": pm(m["erasure"]),
                f"{k}.mem.revision": ", ".join("none" if x < 0 else str(x) for x in m["revision"]),
                f"{k}.mem.updates": whole(m["to_criterion"]["values"]),
                **{f"{k}.mem.interference.{a:g}": pm(s) for a, s in zip(inter["amplitudes"], inter["accuracy"])}})
    if g["other_seeds"]:
        out.update({f"{k}.apart.seeds": whole(g["apart"]["seeds"]), f"{k}.apart.cue": listed(g["apart"]["cue"]),
                    f"{k}.apart.horizon": ", ".join(horizon(x, edge) for x in g["apart"]["retention_max"])})
    return out


def horizons(censored):
    return ", ".join(horizon(v, censored["edge"]) for v in censored["values"]) or "—"


def published_result(row):
    """A published-beside-measured row's result: each side's learned k of n and the difference."""
    a, b = row["a"], row["b"]
    text = f"{a['name']}: learned {a['learned']} of {a['runs']}"
    return text + (f"; {b['name']}: {b['learned']} of {b['runs']}; {interval(row['difference'])}" if b else "")


def curves(css, title, groups, d):
    """Every seed's validation score at each check: groups = {name: (label, colour, dash, [curve, ...])}."""
    plot = SeedCurves({name: (label, colour, dash) for name, (label, colour, dash, _) in groups.items()},
                      x_range=(0, d["cap_updates"]), y_range=(0.3, 1.02), guides=(d["chance"], d["criterion"]),
                      title=title, x_label="updates", y_label="min(‘?’ accuracy, accuracy), validation",
                      height=240, css_class=f"gl-chmemory-curves-{css}")
    plot.show(**{name: [([u for u, _ in cv], [s for _, s in cv]) for cv in cvs]
                 for name, (*_, cvs) in groups.items()})
    return plot


# ------------------------------------------------------------ the panels
class TrainedResults:
    """Tables and plots of the shipped records (built once per session; they never change)."""

    def __init__(self, data=None):
        self.data = d = data if data is not None else examples.memory_lab_trained()
        self._values = self._make_values()
        self.curves = {p: curves(p, f"{budget(p)} parameters: the validation score of every seed at each check",
                                 {f"{lr}.{c}": (f"{CELLS[c]}, lr {lr}", CELL_COLOURS[c], ("solid", "dashed")[j % 2],
                                                g["curves"])
                                  for j, (lr, by_c) in enumerate(by_lr.items()) for c, g in by_c.items()}, d)
                       for p, by_lr in d["cells"]["settings"].items()}
        colours = (PALETTE.negative, PALETTE.secondary, PALETTE.positive)
        self.curves["bias"] = curves("bias", "The LSTM at each forget-gate bias: the validation score of every seed",
                                     {f"{b}": (f"forget bias {b}", colours[j % 3], "solid", g["curves"])
                                      for j, (b, g) in enumerate(d["forget_bias"]["settings"].items())}, d)

    def values(self):
        return dict(self._values)

    def settings(self, name):
        """(value key, row labels, short name, summary) of every setting of an experiment."""
        d = self.data[EXPERIMENTS[name]]
        if name == "cells":
            return [(f"{KEY}.cells.{p}.{lr}.{c}", [budget(p), CELLS[c], lr], f"{CELLS[c]}, {budget(p)}, lr {lr}", g)
                    for p, by_lr in d["settings"].items() for lr, by_c in by_lr.items() for c, g in by_c.items()]
        if name == "bias":
            return [(f"{KEY}.bias.{b}", [b], f"bias {b}", g) for b, g in d["settings"].items()]
        length = d["sequence_length"]
        return [(f"{KEY}.horizons.{c}.{k}", [CELLS[c], f"{k} (" + ("the whole sequence" if int(k) > length else
                 "just reaches the cue" if int(k) == length else "the cue out of reach") + ")"], f"{CELLS[c]}, k = {k}", g)
                for c, by_k in d["settings"].items() for k, g in by_k.items()]

    def differences(self, name):
        """(value key, row labels, difference) of every paired difference of an experiment."""
        d = self.data[EXPERIMENTS[name]]["differences"]
        if name == "cells":
            return [(f"{KEY}.cells.diff.{p}.{lr}.{a}-{b}", [budget(p), "each at its better rate" if lr == "better"
                                                            else lr, f"{CELLS[a]} − {CELLS[b]}"], by_lr[lr][f"{a}-{b}"])
                    for p, by_lr in d.items() for lr in by_lr for a, b in PAIRS]
        if name == "bias":
            return [(f"{KEY}.bias.diff.{pair}", [" − ".join(f"bias {b}" for b in pair.split("-"))], diff)
                    for pair, diff in d.items()]
        return [(f"{KEY}.horizons.diff.{c}.{pair}", [CELLS[c], " − ".join(f"k = {k}" for k in pair.split("-"))], diff)
                for c, by_pair in d.items() for pair, diff in by_pair.items()]

    # ------------------------------------------------------------ the values shown
    def _make_values(self):
        d = self.data
        task = d["reproduce"]["cells"]["fixed"]
        out = {f"{KEY}.criterion": fmt_fixed(d["criterion"], 2), f"{KEY}.chance": fmt_fixed(d["chance"], 2),
               f"{KEY}.n_train": fmt_comma(task["n_train"]), f"{KEY}.epochs": str(task["epochs"]),
               f"{KEY}.cap": fmt_comma(d["cap_updates"]), f"{KEY}.check_every": str(task["check_every"]),
               f"{KEY}.n_val": str(task["n_val"]), f"{KEY}.seeds": str(len(d["seeds"]))}
        for name, summary in EXPERIMENTS.items():
            settings = self.settings(name)
            for k, _, _, g in settings:
                out.update(setting_values(k, g))
            failed = "; ".join(short for _, _, short, g in settings if g["learned"] == 0)
            if failed:
                out[f"{KEY}.{name}.failed"] = failed
            for k, _, diff in self.differences(name):
                out.update({f"{k}.learned": interval(diff["learned"]), f"{k}.cue": interval(diff["cue"])})
            for i, row in enumerate(d[summary]["published"]):
                k = f"{KEY}.{summary}.published.{i}"
                out.update({f"{k}.lab": row["lab"], f"{k}.verdict": row["verdict"], f"{k}.why": row["why"] or "—",
                            f"{k}.result": published_result(row)})
        for p, by_cell in d["cells"]["better_lr"].items():
            out.update({f"{KEY}.cells.better.{p}.{c}": lr for c, lr in by_cell.items()})
        fb = d["forget_bias"]
        for b, g in fb["settings"].items():
            gate, grads = fb["gates"][b], g["grad_epoch_1"]
            out.update({f"{KEY}.bias.{b}.gate": fmt_fixed(gate["gate"], 3),
                        f"{KEY}.bias.{b}.half_life": fmt_fixed(gate["half_life"], 1),
                        f"{KEY}.bias.{b}.grad": "—" if grads["mean"] is None else fmt_sci(grads["mean"], text=True),
                        f"{KEY}.bias.{b}.grad_seeds": f"{len(grads['values'])} of {g['runs']}"})
        return out

    # ------------------------------------------------------------ layout
    def _span(self, key):
        return gv(key, self._values[key])

    def panel(self):
        d, span = self.data, self._span
        criterion = (
            f"<div class='gl-note'><b>Learned</b>: the run's accuracy on the held-in test's '?' queries and "
            f"its accuracy on all of them are both at least {span(f'{KEY}.criterion')}, a criterion fixed before "
            f"any run. Chance on '?' is {span(f'{KEY}.chance')}. Each run trains on {span(f'{KEY}.n_train')} "
            f"examples, checked every {span(f'{KEY}.check_every')} updates on {span(f'{KEY}.n_val')} validation "
            "examples drawn like the training ones; it stops at the first check that meets the criterion, or "
            f"after {span(f'{KEY}.epochs')} epochs ({span(f'{KEY}.cap')} updates) keeps its best check's weights. "
            f"{span(f'{KEY}.seeds')} seeds; a seed fixes the examples and their order for every cell, learning "
            "rate, bias and horizon, so differences are paired by seed (95% percentile bootstrap intervals). "
            "Widths are matched to a parameter budget per cell; both learning rates are shown; the data size and "
            "the cap came from a budget exploration on validation data from the training distribution only "
            "(docs/research-budgets.md §5).</div>")
        better = ("<div class='gl-note'>“Each at its better rate”: each cell at the learning rate, of the two, at "
                  "which it learned in more seeds — chosen after the runs: " + "; ".join(
                      f"{budget(p)}: " + ", ".join(f"{CELLS[c]} {span(f'{KEY}.cells.better.{p}.{c}')}" for c in by_c)
                      for p, by_c in d["cells"]["better_lr"].items()) + ".</div>")
        fbf, hz = d["specs"]["forget_bias"]["fixed"], d["horizons"]
        bias_note = (f"<div class='gl-note'>The same LSTM at {budget(fbf['params'])} parameters and learning rate "
                     f"{fbf['lr']:g}: only the forget gate's starting bias differs. A run that met the criterion within "
                     "its first epoch has no gradient after epoch 1: that mean is over the seeds that ran one.</div>")
        horizon_note = (f"<div class='gl-note'>The cue is the first of {hz['sequence_length']} steps, "
                        f"{hz['cue_distance']} before the query: a horizon k &lt; {hz['sequence_length']} leaves it out "
                        "of every update's gradient (the forward pass still runs over the whole sequence).</div>")
        plots = {"cells": [self.curves[p] for p in d["cells"]["settings"]], "bias": [self.curves["bias"]], "horizons": []}
        parts = []
        for name, title, note, heads in (
                ("cells", "Three cells at matched parameter counts", criterion, ["budget", "cell", "learning rate"]),
                ("bias", "The LSTM's forget-gate bias", bias_note, ["forget-gate bias b"]),
                ("horizons", f"Backward horizons at a fixed delay of {hz['delay']}", horizon_note, ["cell", "horizon k"])):
            summary = EXPERIMENTS[name]
            parts.append(html_pane(f"<h3>{title}</h3>" + note + self._tables(name, heads, better if name == "cells" else "")
                                   + spec_block(summary, d["reproduce"][summary], f"gl-chmemory-spec-{summary}"),
                                   css_classes=[f"gl-chmemory-{name}"]))
            parts += [pn.pane.Bokeh(p.fig, sizing_mode="stretch_width") for p in plots[name]]
        return pn.Column(*parts, sizing_mode="stretch_width")

    def _tables(self, name, heads, after_differences):
        d, span, v = self.data, self._span, self._values
        summary = d[EXPERIMENTS[name]]
        settings = self.settings(name)
        extra = BIAS if name == "bias" else []
        lead = table(heads + [label.replace("held-in test", f"held-in test (chance {v[f'{KEY}.chance']})")
                              for _, label in LEAD + extra],
                     [labels + [span(f"{k}.{x}") for x, _ in LEAD + extra] for k, labels, _, _ in settings])
        learned = [(k, short, g) for k, _, short, g in settings if g["memory"]]
        amps = learned[0][2]["memory"]["interference"]["amplitudes"] if learned else []
        memory = table(["setting"] + [label for _, label in MEMORY],
                       [[short] + [span(f"{k}.mem.{x}") for x, _ in MEMORY] for k, short, _ in learned])
        louder = table(["setting"] + [f"distractors × {a:g}" for a in amps],
                       [[short] + [span(f"{k}.mem.interference.{a:g}") for a in amps] for k, short, _ in learned])
        apart = [(k, short) for k, short, g in learned if g["other_seeds"]]
        failed = f"{KEY}.{name}.failed"
        rows = self.differences(name)
        return ("<h4>Learned, and the accuracy that needs the cue</h4>" + lead
                + f"<h4>Memory, over the seeds that learned</h4><div class='gl-note'>Retention probed at Δ = "
                  f"{', '.join(str(x) for x in d['probe_delays'])}; “≥ {d['edge']}”: still held at the largest delay "
                  "probed (censored, never averaged); “none”: below the horizon's level already at the smallest (max: "
                  "chance; P50: ½; P95: 0.95). Swap and erasure: mean ± sd.</div>" + memory
                + f"<h4>Interference: '?' accuracy at Δ = {summary['interference_at']} as the distractors grow louder "
                  "(trained at × 1), over the seeds that learned, mean ± sd</h4>" + louder
                + ("<h4>The other seeds of those settings, apart</h4>" + table(
                    ["setting", "seeds that did not learn", "their '?' accuracy", "their max horizon on the probes"],
                    [[short] + [span(f"{k}.apart.{x}") for x in ("seeds", "cue", "horizon")] for k, short in apart])
                   if apart else "")
                + (f"<div class='gl-note'>No seed learned in: {span(failed)}. A failure to learn there, not a "
                   "finding about memory: no memory metrics are summarised for it.</div>" if failed in v else "")
                + "<h4>Paired differences: fraction learned and '?' accuracy, 95% bootstrap intervals</h4>"
                + table({"cells": ["budget", "learning rate"], "horizons": ["cell"]}.get(name, [])
                        + ["difference", "fraction learned", "'?' accuracy"],
                        [labels + [span(f"{k}.{w}") for w in ("learned", "cue")] for k, labels, _ in rows])
                + after_differences + self._published(EXPERIMENTS[name]))

    def _published(self, summary):
        d, span = self.data, self._span
        rows = d[summary]["published"]
        claims = "".join(f"<p><b>{p['source']}</b>: {p['direction']}. Their setting: {p['setting']}. Compared here: "
                         f"{p['compared']}; {p['caveat']}.</p>"
                         for p in (d["published"][c] for c in dict.fromkeys(r["claim"] for r in rows)))
        body = table(["the lab's setting", "result (difference, 95% interval)", "verdict", "why"],
                     [[span(f"{KEY}.{summary}.published.{i}.{x}") for x in ("lab", "result", "verdict", "why")]
                      for i in range(len(rows))])
        return f"<h4>Published beside measured</h4><div class='gl-note gl-chmemory-published'>{claims}</div>" + body
