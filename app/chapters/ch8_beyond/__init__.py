"""Chapter 8: beyond the cell. Three parts, each control one gleam call and a patch of what is
already on the page:

- the counter: cell kind, d, n and layers → `gleam.examples.chapter8_counts` (a stack in one
  direction and in both, and an encoder–decoder of two such stacks); bad input shows a message;
- the bottleneck: a sentence length → `gleam.examples.chapter8_bottleneck` (the context vector's
  fixed size against the source's bits), a marker moving on a figure drawn once;
- the lineage (app.chapters.ch8_beyond.lineage): buttons or a tap on the tree select a model.
"""
import html

import panel as pn
import param

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.ch8_beyond import lineage
from gleam_lab.app.widgets.figures import LinePlot
from gleam_lab.app.widgets.page import card, gv, html_pane, table, wrap_row
from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam import examples

CELLS = {"GRU": "gru", "LSTM": "lstm", "Elman": "elman"}
NONE = "—"
SECTION_CSS = """
.gl-ch8-h { font-weight: 600; font-size: 1.05em; margin: 0.2em 0 0.3em; }
p { margin: 0.3em 0; }
.gl-ch8-name { font-size: 1.1em; font-weight: 600; }
.gl-ch8-name .gv { font-family: inherit; }
"""


def _later_label(layers):
    """The stack table's second row: the layers above the first."""
    if layers is None or layers < 2:
        return "layers above the first"
    return "layer 2" if layers == 2 else f"layers 2–{layers}, each"


def _head(text):
    return pn.pane.HTML(f'<div class="gl-ch8-h">{text}</div>', stylesheets=[SECTION_CSS], sizing_mode="stretch_width",
                        margin=(10, 10, 0, 10))


class BeyondChapter(ChapterViewer):
    """Stacked, bidirectional and encoder–decoder counts; the bottleneck; the lineage."""

    chapter_id = "8"

    cell = param.Selector(default="gru", objects=CELLS, label="Cell")
    d = param.Integer(default=128, allow_None=True, label="Input width d")
    n = param.Integer(default=256, allow_None=True, label="State width n")
    layers = param.Integer(default=2, allow_None=True, label="Layers L")
    words = param.Integer(default=50, bounds=(1, 1000), label="Source sentence length (words)")
    node = param.Selector(default=lineage.DEFAULT, objects=lineage.NAMES, label="Model")

    def __init__(self, **params):
        super().__init__(**params)
        self._counts, self._error = None, ""
        css = [SECTION_CSS]
        self._count_view = html_pane(min_width=300, stylesheets=css)
        self._bits_view = html_pane(sizing_mode=None, width=380, stylesheets=css)
        self._info = html_pane(min_width=260, stylesheets=css, css_classes=["gl-ch8-info"])
        self._bottleneck = first = examples.chapter8_bottleneck(self.words)
        self._bits = LinePlot(
            {"source": ("the source: words × log₂ V bits", PALETTE.positive, "solid"),
             "context": (f"the context vector: {fmt_comma(first['context_bits'])} bits", PALETTE.secondary,
                         "dashed")},
            x_range=(0, first["max_words"]), y_range=(0, 1.05 * first["curve_source_bits"][1]),
            x_label="source sentence length (words)", y_label="bits", height=250,
            markers={"words": (PALETTE.muted, "solid")}, css_class="gl-ch8-bits")
        self._bits.fig.legend.orientation = "vertical"      # two short rows: no overflow in a narrow card
        self._bits.show(source=(first["curve_words"], first["curve_source_bits"]),
                        context=(first["curve_words"], [first["context_bits"]] * 2))
        self._tree = lineage.LineageTree("gl-ch8-tree")
        self._tree.source.selected.on_change("indices", self._on_tap)
        self._recount()
        self._rebit()
        self._show_node()

    def widget(self):
        w = pn.widgets
        inputs = [self.control(k, w.IntInput, label=self.param[k].label, width=200) for k in ("d", "n", "layers")]
        controls = pn.Column(self.control("cell", w.RadioButtonGroup, label="Cell", width=200), *inputs, width=220)
        slider = self.control("words", w.IntSlider, label=self.param.words.label, sizing_mode="stretch_width",
                              max_width=520)
        bits = pn.pane.Bokeh(self._bits.fig, sizing_mode="stretch_width", min_width=320)
        buttons = self.control("node", w.RadioButtonGroup, label="Model", orientation="vertical", width=190)
        tree = pn.Column(pn.pane.Bokeh(self._tree.fig, sizing_mode="stretch_width"), self._info,
                         sizing_mode="stretch_width", min_width=320)
        return card(_head("Stacks, both directions, encoder–decoder: parameters"), wrap_row(controls, self._count_view, basis=380),
                    _head("The encoder–decoder bottleneck"), slider, wrap_row(self._bits_view, bits, basis=420),
                    _head("The lineage: what each model kept, what it changed"), wrap_row(buttons, tree, basis=420),
                    layout=pn.Column)

    # ------------------------------------------------------------ controls
    @param.depends("cell", "d", "n", "layers", watch=True)
    def _recount(self):
        try:
            self._counts, self._error = examples.chapter8_counts(self.cell, self.d, self.n, self.layers), ""
        except ValueError as e:
            self._counts, self._error = None, f"Not counted: {e}."
        self._count_view.object = self._count_html()

    @param.depends("words", watch=True)
    def _rebit(self):
        self._bottleneck = b = examples.chapter8_bottleneck(self.words)
        self._bits.mark("words", b["words"], f"{b['words']} words")
        self._bits_view.object = self._bits_html()

    @param.depends("node", watch=True)
    def _show_node(self):
        self._tree.select(self.node)
        self._info.object = self._info_html()

    def _on_tap(self, attr, old, new):
        """A tap on the tree: select the tapped node (a tap beside every node keeps the current one)."""
        if new and lineage.NAMES[new[-1]] != self.node:
            self.node = lineage.NAMES[new[-1]]
        else:
            self._tree.select(self.node)

    # ------------------------------------------------------------ what the page shows
    def values(self):
        c, b = self._counts, self._bottleneck
        out = {"ch8.error": self._error}
        for key, part in (("uni", "stack"), ("bi", "bidirectional")):
            s = c[part] if c else None
            later = s is not None and len(s["layer_params"]) > 1
            out.update({
                f"ch8.{key}.reads.1": str(s["inputs"][0]) if s else NONE,
                f"ch8.{key}.layer.1": fmt_comma(s["layer_params"][0]) if s else NONE,
                f"ch8.{key}.reads.later": str(s["inputs"][1]) if later else NONE,
                f"ch8.{key}.layer.later": fmt_comma(s["layer_params"][1]) if later else NONE,
                f"ch8.{key}.total": fmt_comma(s["total"]) if s else NONE,
                f"ch8.{key}.torch": fmt_comma(s["total_torch"]) if s else NONE,
                f"ch8.{key}.width": str(s["output_width"]) if s else NONE})
        for key in ("encoder", "decoder", "source_embedding", "target_embedding", "readout", "total"):
            out[f"ch8.ed.{key}"] = fmt_comma(c["encoder_decoder"][key]) if c else NONE
        out.update({"ch8.words": str(b["words"]), "ch8.context.floats": str(b["context_floats"]),
                    "ch8.context.bytes": fmt_comma(b["context_bytes"]),
                    "ch8.context.bits": fmt_comma(b["context_bits"]),
                    "ch8.bits_per_word": fmt_fixed(b["bits_per_word"], 2),
                    "ch8.source.bits": fmt_fixed(b["source_bits"], 1),
                    "ch8.bits_per_float": fmt_fixed(b["bits_per_float"], 2),
                    "ch8.ratio": fmt_fixed(b["capacity_ratio"], 3), "ch8.node": self.node})
        return out

    def _count_html(self):
        v, c = self.values(), self._counts
        L = c["layers"] if c else None
        g = lambda key: gv(key, v[key])  # noqa: E731
        rows = [["layer 1", g("ch8.uni.reads.1"), g("ch8.uni.layer.1"), g("ch8.bi.reads.1"), g("ch8.bi.layer.1")],
                [_later_label(L), g("ch8.uni.reads.later"), g("ch8.uni.layer.later"), g("ch8.bi.reads.later"),
                 g("ch8.bi.layer.later")],
                ["<b>all layers</b>", "", f"<b>{g('ch8.uni.total')}</b>", "", f"<b>{g('ch8.bi.total')}</b>"],
                ["with PyTorch's two biases", "", g("ch8.uni.torch"), "", g("ch8.bi.torch")],
                ["output width per position", "", g("ch8.uni.width"), "", g("ch8.bi.width")]]
        ed = [["encoder stack", g("ch8.ed.encoder")], ["decoder stack (same shape)", g("ch8.ed.decoder")],
              ["source embeddings (V × d)", g("ch8.ed.source_embedding")],
              ["target embeddings (V × d)", g("ch8.ed.target_embedding")],
              ["readout (V × n + V)", g("ch8.ed.readout")], ["<b>total</b>", f"<b>{g('ch8.ed.total')}</b>"]]
        vocab = fmt_comma(c["vocab"]) if c else NONE
        return (f'<div class="gl-error">{g("ch8.error")}</div>'
                + table(["", "reads", "one direction", "reads", "bidirectional"], rows)
                + '<div class="gl-note">Parameters, one bias per block; PyTorch keeps two. A bidirectional '
                  'layer is two cells, and the layer above reads both: 2n.</div>'
                + f'<div style="margin-top: 0.6em"><b>Encoder–decoder</b> '
                  f'<span class="gl-note">(vocabularies of {vocab} words)</span></div>'
                + table(["", "parameters"], ed)
                + '<div class="gl-note">The decoder starts from the encoder\'s last state and reads the '
                  'previous target word. Not counted: attention (none in the 2014 models), a layer to '
                  'bridge states of different widths (none needed here), and the decoder also reading '
                  'the context at every step (Cho et al. 2014 did: more input weights).</div>')

    def _bits_html(self):
        v, b = self.values(), self._bottleneck
        g = lambda key: gv(key, v[key])  # noqa: E731
        verdict = ("" if b["fits"] else '<p class="gl-error">More bits than the vector has at all: no code '
                   'could keep every word.</p>')
        return (f'<p><b>Context vector</b> (the encoder\'s last state): {g("ch8.context.floats")} floats = '
                f'{g("ch8.context.bytes")} bytes = {g("ch8.context.bits")} bits, for any sentence length.</p>'
                f'<p><b>Source</b>: {g("ch8.words")} words × up to {g("ch8.bits_per_word")} bits '
                f'(log₂ {fmt_comma(b["vocab"])}) = {g("ch8.source.bits")} bits.</p>'
                f'<p>Each float must carry {g("ch8.bits_per_float")} bits of it; source ÷ context bits = '
                f'{g("ch8.ratio")}.</p>{verdict}'
                '<p class="gl-note">Raw bits are not what ran out: translation quality fell with source '
                'length past ~20 words (Cho et al. 2014), until attention let the decoder read every encoder '
                'state (Bahdanau, Cho &amp; Bengio 2015).</p>')

    def _info_html(self):
        rec = lineage.info(self.node)
        e = html.escape
        parents = ", ".join(rec["parents"]) or "the Elman RNN (not drawn)"
        return (f'<p><span class="gl-ch8-name">{gv("ch8.node", self.node)}</span> '
                f'({e(rec["years"])}) — {e(rec["paper"])}</p>'
                f'<p><b>Kept:</b> {e(rec["kept"])}</p><p><b>Changed:</b> {e(rec["changed"])}</p>'
                f'<p class="gl-note">Descends from {e(parents)}. State at inference: {e(rec["state"])}; '
                f'training: {e(rec["training"])}.</p>')
