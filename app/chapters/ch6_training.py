"""Chapter 6: the loss and the backward pass of the char-level GRU, by hand.

Three parts, each one gleam call per control:
- five logit sliders and a target: softmax p, the gradient p − onehot, the loss in nats and bits
  (`gleam.examples.chapter6_cross_entropy`, over gleam.losses);
- a temperature slider: softmax(z / T) beside softmax(z), and p_target at T (the same call);
- a gradient check of a small CharGRU's hand-written backward pass, as written or with a classic
  bug (`gleam.examples.chapter6_gradient_check`, over gleam.chargru.gradient_check); it takes a
  few tenths of a second, so the page says "running…" first and the time it took after.
"""
import asyncio
import html
import sys
import time

import panel as pn
import param
from bokeh.models import Range1d

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.figures import SignedBars
from gleam_lab.app.widgets.page import HTMLBox, beside, card, gv, html_pane, table
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sci
from gleam import examples

CLASSES = ("0", "1", "2", "3", "4")
LOGITS = tuple(f"z{k}" for k in CLASSES)
DEFAULT_LOGITS = examples.chapter6_cross_entropy()["logits"]     # the syllabus's (2.0, 0.5, −1.0, 0.3, 1.2)
# the gradient check's table: one row per block, its input matrix, recurrent matrix and bias
BLOCKS = [("update gate z", ("Wz", "Uz", "bz")), ("reset gate r", ("Wr", "Ur", "br")),
          ("candidate h̃", ("Wh", "Uh", "bh")), ("readout y", ("Wy", None, "by"))]


def _can_defer():
    """A task can run after this callback: a served session, or the Pyodide worker."""
    if "pyodide" in sys.modules:
        return True
    try:
        asyncio.get_running_loop()
        return True
    except RuntimeError:
        doc = pn.state.curdoc
        return doc is not None and doc.session_context is not None


class TrainingChapter(ChapterViewer):
    """Cross-entropy on editable logits, temperature, and a gradient check a learner runs."""

    chapter_id = "6"

    z0 = param.Number(default=DEFAULT_LOGITS[0], bounds=(-4.0, 4.0), step=0.1, label="logit z₀")
    z1 = param.Number(default=DEFAULT_LOGITS[1], bounds=(-4.0, 4.0), step=0.1, label="logit z₁")
    z2 = param.Number(default=DEFAULT_LOGITS[2], bounds=(-4.0, 4.0), step=0.1, label="logit z₂")
    z3 = param.Number(default=DEFAULT_LOGITS[3], bounds=(-4.0, 4.0), step=0.1, label="logit z₃")
    z4 = param.Number(default=DEFAULT_LOGITS[4], bounds=(-4.0, 4.0), step=0.1, label="logit z₄")
    target = param.Selector(default=0, objects=[0, 1, 2, 3, 4], label="Target class (the true next character)")
    temperature = param.Number(default=1.0, bounds=(0.1, 3.0), step=0.05, label="Temperature T")
    run_check = param.Event(label="Run gradient check")
    run_bug = param.Event(label="Run it with a bug (= for +=)")

    def __init__(self, **params):
        super().__init__(**params)
        self._ce = None
        self._check, self._status, self._seconds = None, "not run yet", None
        self._values = html_pane()
        self._temp_values = html_pane()
        self._gc = HTMLBox(min_height=200, css_classes=["gl-ch6-gc"])
        self._bars = SignedBars([(g, k) for g in ("softmax p", "gradient p − onehot") for k in CLASSES],
                                y_range=Range1d(-1.05, 1.05), guides=(-1, 1), css_class="gl-ch6-bars",
                                y_label="probability / gradient")
        self._temp_bars = SignedBars([(g, k) for g in ("T = 1 (as trained)", "at the slider's T") for k in CLASSES],
                                     y_range=Range1d(0, 1.05), guides=(1,), css_class="gl-ch6-temp-bars",
                                     y_label="probability")
        self._recompute()
        self._show_check()

    def widget(self):
        w = pn.widgets
        sliders = [self.control(name, w.FloatSlider, label=self.param[name].label, format="0.0", width=240)
                   for name in LOGITS]
        loss_part = beside(
            [*sliders, pn.pane.HTML("Target class (the true next character)", margin=(8, 10, 0, 10)),
             self.control("target", w.RadioButtonGroup, width=240)],
            self._values, pn.pane.Bokeh(self._bars.fig, sizing_mode="stretch_width"))
        temp_part = beside(
            [self.control("temperature", w.FloatSlider, label="Temperature T", format="0.00", width=240)],
            self._temp_values, pn.pane.Bokeh(self._temp_bars.fig, sizing_mode="stretch_width"))
        check_part = beside(
            [self.control("run_check", w.Button, label="Run gradient check", color="primary",
                          css_classes=["gl-ch6-gc-run"], width=240),
             self.control("run_bug", w.Button, label="Run it with a bug (= for +=)",
                          css_classes=["gl-ch6-gc-bug"], width=240)], self._gc.pane)
        head = lambda text: pn.pane.HTML(f"<h2 style='font-size: 1.17em'>{text}</h2>", margin=(0, 10))   # noqa: E731
        return card(head("Cross-entropy on five logits"), loss_part, head("Temperature"), temp_part,
                    head("Gradient check of the char-level GRU"), check_part, layout=pn.Column)

    # ------------------------------------------------------------ controls
    @param.depends("z0", "z1", "z2", "z3", "z4", "target", "temperature", watch=True)
    def _recompute(self):
        logits = [getattr(self, name) for name in LOGITS]
        self._ce = examples.chapter6_cross_entropy(logits, self.target, (self.temperature,))
        self._redraw()

    @param.depends("run_check", watch=True)
    def _on_run(self):
        self._start_check(None)

    @param.depends("run_bug", watch=True)
    def _on_bug(self):
        self._start_check("assign")

    def _start_check(self, bug):
        if not _can_defer():            # a plain script: nothing runs after the callback
            return self._run(bug)

        async def later():
            self._status = "running…"
            self._show_check()
            await asyncio.sleep(0.05)   # the page shows "running…" before the worker is busy
            self._run(bug)
        pn.state.execute(later)

    def _run(self, bug):
        start = time.perf_counter()
        self._check = examples.chapter6_gradient_check(bug=bug)
        self._seconds, self._status = time.perf_counter() - start, "done"
        self._show_check()

    # ------------------------------------------------------------ view
    def values(self):
        ce, t = self._ce, self.target
        out = {"ch6.loss_nats": fmt_fixed(ce["loss_nats"], 4), "ch6.loss_bits": fmt_fixed(ce["loss_bits"], 2),
               "ch6.p_target": fmt_fixed(ce["p_target"], 4), "ch6.grad_sum": fmt_fixed(ce["grad_sum"], 4),
               "ch6.uniform": fmt_fixed(ce["uniform_loss"], 4), "ch6.target": str(t),
               "ch6.T": fmt_fixed(self.temperature, 2), "ch6.pT_target": fmt_fixed(ce["p_target_at_temperature"][0], 4)}
        for k in range(len(CLASSES)):
            out.update({f"ch6.z.{k}": fmt_fixed(ce["logits"][k], 1), f"ch6.p.{k}": fmt_fixed(ce["p"][k], 4),
                        f"ch6.grad.{k}": fmt_fixed(ce["grad"][k], 4),
                        f"ch6.pT.{k}": fmt_fixed(ce["p_at_temperature"][0][k], 4)})
        out["ch6.gc.status"] = self._status
        if self._check is not None:
            c = self._check
            out.update({f"ch6.gc.{name}": fmt_sci(c["errors"][name], text=True) for name in c["names"] + ["all"]})
            out.update({"ch6.gc.verdict": "correct" if c["passed"] else "wrong",
                        ("ch6.gc.worst" if c["passed"] else "ch6.gc.failing"): ", ".join(c["failing"]) or c["worst"],
                        "ch6.gc.time": fmt_fixed(self._seconds, 2), "ch6.gc.n_params": fmt_comma(c["n_params"])})
        return out

    def _redraw(self):
        v, ce, t = self.values(), self._ce, self.target
        cells = lambda key: [gv(f"ch6.{key}.{k}", v[f"ch6.{key}.{k}"]) for k in range(len(CLASSES))]   # noqa: E731
        header = ["class"] + [f"{k} (target)" if k == str(t) else k for k in CLASSES]
        self._values.object = (
            table(header, [["logit z"] + cells("z"), ["softmax p"] + cells("p"),
                           ["p − onehot"] + cells("grad")])
            + f"<div>loss −ln p<sub>{gv('ch6.target', v['ch6.target'])}</sub> = "
              f"<b>{gv('ch6.loss_nats', v['ch6.loss_nats'])}</b> nats = {gv('ch6.loss_bits', v['ch6.loss_bits'])} "
              f"bits, with p<sub>target</sub> = {gv('ch6.p_target', v['ch6.p_target'])}; "
              f"guessing uniformly: ln 5 = {gv('ch6.uniform', v['ch6.uniform'])}</div>"
              f"<div>the gradient sums to {gv('ch6.grad_sum', v['ch6.grad_sum'])}: the target's entry is "
              "negative (push its logit up), every other entry positive (push it down)</div>")
        self._temp_values.object = (
            table(["class"] + list(CLASSES), [[f"softmax(z / {v['ch6.T']})"] + cells("pT")])
            + f"<div>p<sub>target</sub> at T = {gv('ch6.T', v['ch6.T'])}: "
              f"<b>{gv('ch6.pT_target', v['ch6.pT_target'])}</b> (at T = 1: {v['ch6.p_target']})</div>"
              "<div class='gl-note'>T &lt; 1 sharpens, T &gt; 1 flattens. Temperature is a decoding choice: "
              "it changes how we sample from the model, not the model (the loss above is always at T = 1).</div>")
        highlight = [PALETTE.secondary if k == t else PALETTE.positive for k in range(len(CLASSES))]
        self._bars.show(list(ce["p"]) + list(ce["grad"]), colors=highlight + [
            PALETTE.positive if g >= 0 else PALETTE.negative for g in ce["grad"]])
        self._temp_bars.show(list(ce["p"]) + list(ce["p_at_temperature"][0]), colors=highlight * 2)

    def _show_check(self):
        v, c = self.values(), self._check
        status = f"status: <b>{gv('ch6.gc.status', v['ch6.gc.status'])}</b>"
        if c is None:
            setup = examples.GRADIENT_CHECK_SETUP
            self._gc.object = (f"<div>{status}</div><div class='gl-note'>Builds a CharGRU with H = {setup['hidden']} "
                               f"on the default corpus, trains it {setup['trained_steps']} steps, then compares its "
                               "hand-written gradient on the next chunk with central differences, one parameter "
                               "at a time.</div>")
            return
        status += f" in {gv('ch6.gc.time', v['ch6.gc.time'])} s" if v["ch6.gc.status"] == "done" else ""
        cell = lambda name: ("—" if name is None else   # noqa: E731
                             gv(f"ch6.gc.{name}", v[f"ch6.gc.{name}"], "" if name not in c["failing"] else "gl-error"))
        rows = [[label] + [cell(n) for n in names] for label, names in BLOCKS]
        rows.append(["all parameters", "", "", cell("all")])
        if c["passed"]:
            verdict = (f"<b>{gv('ch6.gc.verdict', v['ch6.gc.verdict'])}</b>: every parameter's gradient agrees "
                       f"with central differences (worst: {gv('ch6.gc.worst', v['ch6.gc.worst'])}, {fmt_sci(c['worst_error'], text=True)}). A correct "
                       "float64 backward pass gives about 10⁻⁹ or less; a real bug gives 10⁻² and more.")
        else:
            verdict = (f"<b class='gl-error'>{gv('ch6.gc.verdict', v['ch6.gc.verdict'])}</b>: "
                       f"{gv('ch6.gc.failing', v['ch6.gc.failing'])} disagree with central differences; every "
                       "other parameter agrees. A gradient summed over the steps (+=) was assigned (=) at each "
                       "step: only step 1's contribution survives.")
        self._gc.object = (
            f"<div>{status} &nbsp;·&nbsp; checked: {html.escape(c['backward'])} "
            f"<span class='gl-note'>(H = {c['hidden']}, V = {c['V']}, K = {c['K']}, after {c['trained_steps']} "
            f"training steps; {gv('ch6.gc.n_params', v['ch6.gc.n_params'])} parameters)</span></div>"
            + table(["relative error ‖a − n‖ / (‖a‖ + ‖n‖)", "input W", "recurrent U", "bias b"], rows)
            + f"<div>{verdict} <span class='gl-note'>(a parameter passes below "
              f"{fmt_sci(c['tolerance'], 1, text=True)})</span></div>")
