"""Chapter 9: the self-test, checked, and the deployment budget with its inputs editable.

- Self-test: eight boxes (z, r, h̃, h' for units 1 and 2 of chapter 4's cell on input a); Check
  runs `gleam.examples.chapter9_check_self_test` on what was typed and shows a verdict per entry
  (correct / off, which way and roughly how far / missing / not a number); a toggle shows gleam's
  values.
- Deployment budget: d, n, layers, vocabulary, tokens; one call of
  `gleam.examples.chapter9_deployment` (over gleam.costs.deployment_budget) per change.
The chapter's prose is the cheat sheet itself.
"""
import panel as pn
import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.page import beside, card, gv, html_pane, table
from gleam_lab.content import fmt_comma, fmt_fixed, fmt_sig
from gleam import examples

ENTRIES = examples.SELF_TEST_ENTRIES                  # (key, quantity, unit, field)
QUANTITIES = [("z", "z (update gate)"), ("r", "r (reset gate)"), ("htilde", "h̃ (candidate)"), ("h", "h′ (new state)")]
DEPLOYMENT_DEFAULTS = examples.chapter9_deployment()   # d 256, n 512, 2 layers, 50,000 words, 10,000 tokens
INPUTS = [("d", "Input width d (embedding)"), ("n", "State width n"), ("layers", "Layers"),
          ("vocab", "Vocabulary (words)"), ("tokens", "Tokens decoded")]
# (gv key, row label, field of chapter9_deployment, formatter)
BUDGET = [("state_bytes", "GRU state kept while decoding (constant)", "state_bytes", fmt_comma),
          ("kv_per_token", "Transformer KV cache, per token", "kv_cache_bytes_per_token", fmt_comma),
          ("kv_bytes", "Transformer KV cache after all tokens", "kv_cache_bytes", fmt_comma),
          ("kv_ratio", "KV cache ÷ GRU state", "kv_cache_over_state", fmt_comma),
          ("rec_macs", "recurrent stack, MACs per token", "recurrent_macs_per_token", fmt_comma),
          ("readout_macs", "readout over the vocabulary, MACs per token", "readout_macs_per_token", fmt_comma),
          ("readout_ratio", "readout ÷ stack (MACs)", "readout_over_recurrent_macs", lambda x: fmt_sig(x, 3)),
          ("rec_params", "parameters: recurrent stack", "recurrent_params", fmt_comma),
          ("readout_params", "parameters: readout", "readout_params", fmt_comma),
          ("embedding_params", "parameters: embedding", "embedding_params", fmt_comma)]
VERDICT_CSS = (".gl-table th, .gl-table td { text-align: left; } .gl-ch9-correct { color: var(--gl-good); } "
               ".gl-ch9-off { color: var(--gl-error); font-weight: 600; } .gl-ch9-missing { color: var(--gl-muted); }")
STATUS_CLASS = {"correct": "gl-ch9-correct", "off": "gl-ch9-off", "not a number": "gl-ch9-off",
                "missing": "gl-ch9-missing"}
UNITS = {"state_bytes": "bytes", "kv_per_token": "bytes", "kv_bytes": "bytes", "kv_ratio": "×", "readout_ratio": "×"}


def weights(q):
    """What the self-test needs, as the page shows it: per gate the input column for a, U and b
    (chapter 4 prints the column for b; the column for a was only in the prose, far below)."""
    g = examples.gru_hand_params()
    vec = lambda v: "(" + ", ".join(fmt_fixed(x, 1) for x in v) + ")"          # noqa: E731
    out = {}
    for k in ("z", "r", "h"):
        out.update({f"ch9.W{k}a": vec(q["input_columns"][k]), f"ch9.U{k}": "; ".join(vec(r) for r in g["U" + k]),
                    f"ch9.b{k}": vec(g["b" + k])})
    return out


def weights_table(q):
    v = weights(q)
    rows = "".join(f"<tr><td>W<sub>{k}</sub>[:, a] = {gv(f'ch9.W{k}a', v[f'ch9.W{k}a'])}</td>"
                   f"<td>U<sub>{k}</sub> = {gv(f'ch9.U{k}', v[f'ch9.U{k}'])}</td>"
                   f"<td>b<sub>{k}</sub> = {gv(f'ch9.b{k}', v[f'ch9.b{k}'])}</td></tr>" for k in ("z", "r", "h"))
    return f'<table class="gl-table"><caption>Chapter 4\'s weights for input a</caption><tbody>{rows}</tbody></table>'


class CheatSheetChapter(ChapterViewer):
    """The self-test with a checker, and the deployment budget of a GRU language model."""

    chapter_id = "9"

    z1 = param.String(default="", label="z, unit 1")
    z2 = param.String(default="", label="z, unit 2")
    r1 = param.String(default="", label="r, unit 1")
    r2 = param.String(default="", label="r, unit 2")
    htilde1 = param.String(default="", label="h̃, unit 1")
    htilde2 = param.String(default="", label="h̃, unit 2")
    h1 = param.String(default="", label="h′, unit 1")
    h2 = param.String(default="", label="h′, unit 2")
    check = param.Event(label="Check")
    reveal = param.Boolean(default=False, label="Show the answer")
    d = param.Integer(default=DEPLOYMENT_DEFAULTS["d"], allow_None=True, label="Input width d (embedding)")
    n = param.Integer(default=DEPLOYMENT_DEFAULTS["n"], allow_None=True, label="State width n")
    layers = param.Integer(default=DEPLOYMENT_DEFAULTS["layers"], allow_None=True, label="Layers")
    vocab = param.Integer(default=DEPLOYMENT_DEFAULTS["vocab"], allow_None=True, label="Vocabulary (words)")
    tokens = param.Integer(default=DEPLOYMENT_DEFAULTS["tokens"], allow_None=True, label="Tokens decoded")

    def __init__(self, **params):
        super().__init__(**params)
        self._task = examples.chapter9_self_test()
        self._result, self._budget, self._error = None, None, ""
        self._verdicts = html_pane(stylesheets=[VERDICT_CSS])
        self._budget_pane = html_pane()
        self._recompute_budget()
        self._show_verdicts()

    def widget(self):
        w, q = pn.widgets, self._task
        rows = [pn.Row(pn.pane.HTML(label, width=120, margin=(12, 5, 0, 10)),
                       *[self.control(f"{key}{u}", w.TextInput, name="", placeholder=f"unit {u}",
                                      css_classes=[f"gl-ch9-{key}-{u}"], width=110) for u in (1, 2)])
                for key, label in QUANTITIES]
        task = (f"Chapter 4's cell, h<sub>t−1</sub> = ({fmt_fixed(q['h_prev'][0], 1)}, {fmt_fixed(q['h_prev'][1], 1)}), "
                "input <b>a</b>, textbook convention. Type z, r, h̃ and h′ for both units, to four decimals.")
        self_test = beside(
            [pn.pane.HTML(task, margin=(0, 10)), html_pane(weights_table(q), css_classes=["gl-ch9-weights"]), *rows,
             pn.Row(self.control("check", w.Button, label="Check", color="primary", width=110),
                    self.control("reveal", w.Toggle, label="Show the answer", width=140))], self._verdicts, width=390)
        budget = beside([self.control(name, w.IntInput, label=label, width=240) for name, label in INPUTS],
                        self._budget_pane)
        head = lambda text: pn.pane.HTML(f"<h2 style='font-size: 1.17em'>{text}</h2>", margin=(0, 10))   # noqa: E731
        return card(head("Self-test: one GRU step by hand"), self_test,
                    head("Deployment budget of a GRU language model"), budget, layout=pn.Column)

    # ------------------------------------------------------------ controls
    @param.depends("check", watch=True)
    def _on_check(self):
        self._result = examples.chapter9_check_self_test({key: getattr(self, key) for key, *_ in ENTRIES})
        self._show_verdicts()

    @param.depends("reveal", watch=True)
    def _on_reveal(self):
        self._show_verdicts()

    @param.depends("d", "n", "layers", "vocab", "tokens", watch=True)
    def _recompute_budget(self):
        empty = [label for name, label in INPUTS if getattr(self, name) is None]
        self._budget, self._error = None, ""
        if empty:
            self._error = f"{empty[0]} is empty: type a whole number."
        else:
            try:
                self._budget = examples.chapter9_deployment(**{name: getattr(self, name) for name, _ in INPUTS})
            except ValueError as e:
                self._error = f"Not computed: {e}."
        self._show_budget()

    # ------------------------------------------------------------ view
    def values(self):
        r = self._result
        out = {**weights(self._task), "ch9.tolerance": fmt_sig(examples.SELF_TEST_TOLERANCE, 1),
               "ch9.summary": "not checked yet" if r is None else f"{r['n_correct']} of {r['n_entries']} correct"}
        for key, *_ in ENTRIES:
            if r is not None:
                out[f"ch9.verdict.{key}"] = r["verdicts"][key]["message"]
            if self.reveal:
                out[f"ch9.answer.{key}"] = fmt_fixed(self._answers()[key], 4)
        b = self._budget
        out["ch9.dep.error"] = self._error
        for key, _, field, fmt in BUDGET:
            out[f"ch9.dep.{key}"] = "—" if b is None else fmt(b[field])
        if b is not None:
            out["ch9.dep.kv_mb"] = f"{b['kv_cache_megabytes']:,.1f}"
        return out

    def _answers(self):
        return {key: self._task[field][unit - 1] for key, _, unit, field in ENTRIES}

    def _show_verdicts(self):
        v, r = self.values(), self._result
        head = (f"<div>{gv('ch9.summary', v['ch9.summary'])} &nbsp;·&nbsp; an answer is correct within "
                f"±{gv('ch9.tolerance', v['ch9.tolerance'])} (right to 4 decimals)</div>")
        columns = ([] if r is None else ["unit 1", "unit 2"]) + (["answer 1", "answer 2"] if self.reveal else [])
        if not columns:
            self._verdicts.object = head + ("<div class='gl-note'>Type your answers, then press Check. Each entry "
                                            "gets its own verdict; a wrong one says which way it is off and "
                                            "roughly by how much, never the answer.</div>")
            return
        rows = []
        for quantity, label in QUANTITIES:
            row = [label]
            for u in (1, 2):
                if r is not None:
                    cls = STATUS_CLASS[r["verdicts"][f"{quantity}{u}"]["status"]]
                    row.append(gv(f"ch9.verdict.{quantity}{u}", v[f"ch9.verdict.{quantity}{u}"], cls))
            row += [gv(f"ch9.answer.{quantity}{u}", v[f"ch9.answer.{quantity}{u}"]) for u in (1, 2) if self.reveal]
            rows.append(row)
        self._verdicts.object = head + table([""] + columns, rows)

    def _show_budget(self):
        v = self.values()
        rows = []
        for key, label, _, _ in BUDGET:
            unit = UNITS.get(key, "") if self._budget else ""
            extra = f" (≈ {gv('ch9.dep.kv_mb', v['ch9.dep.kv_mb'])} MB)" if key == "kv_bytes" and self._budget else ""
            rows.append([label, gv(f"ch9.dep.{key}", v[f"ch9.dep.{key}"]) + f" {unit}{extra}"])
        error = f"<div class='gl-error'>{gv('ch9.dep.error', v['ch9.dep.error'])}</div>"
        note = ("<div class='gl-note'>Stored as float32 (4 bytes a number); MACs are multiply–adds of the "
                "matrix products. The readout over a word vocabulary dwarfs the recurrent stack, and the "
                "Transformer's cache grows with every token while the GRU's state stays the same.</div>")
        self._budget_pane.object = error + table(["", "value"], rows) + note
