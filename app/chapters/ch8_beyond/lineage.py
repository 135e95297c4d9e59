"""Chapter 8's family tree: what each model after the gated cell kept and what it changed,
placed on two axes — does it keep a fixed-size state at inference, and can it be trained in
parallel over the sequence — with an arrow from each model to what it descends from.

The text is prose (facts with the year and the paper), not numbers: nothing here is computed.
"""
import math

from bokeh.models import (Arrow, ColumnDataSource, FixedTicker, Range1d, Span, TapTool, VeeHead)
from bokeh.plotting import figure
from panel.io.document import unlocked

from gleam_lab.app.widgets.theme import PALETTE

STATE = {0: "grows with the sequence", 1: "fixed size"}        # x: state kept at inference
TRAINING = {0: "sequential", 1: "partly parallel", 2: "parallel over the sequence"}   # y
COLUMN_X = {0: 0.0, 1: 1.55}       # where each x category's tick sits (the fixed-state column is wide)

# name, label on the plot, years, papers, (state, training), parents, kept, changed
NODES = [
    ("LSTM", "LSTM\n1997", "1997", "Hochreiter & Schmidhuber, “Long Short-Term Memory”", (1, 0), (),
     "The Elman network's recurrent state, updated once per token and trained by gradient descent.",
     "Added a second state, the cell c, updated additively and guarded by input and output gates, so "
     "that error can flow across many steps; the forget gate came later (Gers et al. 2000)."),
    ("GRU", "GRU\n2014", "2014", "Cho et al., “Learning Phrase Representations using RNN "
     "Encoder–Decoder for Statistical Machine Translation”", (1, 0), ("LSTM",),
     "The LSTM's gated, additive update of a fixed-size state.",
     "Merged the cell into the one state h and tied keep and write into a single update gate z, "
     "with a reset gate r for the candidate: three blocks instead of four."),
    ("seq2seq", "seq2seq\n2014", "2014", "Sutskever, Vinyals & Le, “Sequence to Sequence Learning "
     "with Neural Networks”; Cho et al. 2014", (1, 0), ("LSTM", "GRU"),
     "Recurrent cells: LSTMs in Sutskever et al., GRUs in Cho et al.",
     "Two recurrences: an encoder reads the whole source into its last state, and a decoder writes "
     "the target from that one vector, so input and output lengths can differ."),
    ("attention", "attention\n2015", "2015", "Bahdanau, Cho & Bengio, “Neural Machine Translation "
     "by Jointly Learning to Align and Translate”", (0, 0), ("seq2seq",),
     "The recurrent encoder (bidirectional) and the recurrent decoder.",
     "Kept every encoder state instead of the last one: at each output word the decoder reads a "
     "learned weighted mix of them. The one-vector bottleneck is gone; the memory now grows with "
     "the source."),
    ("Transformer", "Transformer\n2017", "2017", "Vaswani et al., “Attention Is All You Need”",
     (0, 2), ("attention",),
     "Attention, now also within one sequence (self-attention), with several heads.",
     "Dropped the recurrence: each position attends to the others (the earlier ones only, in a decoder) "
     "and all positions are computed at once, so training is parallel over the sequence. The price: a "
     "key–value cache that grows with every token, and attention whose cost grows with the square of "
     "the length."),
    ("linear attention / RWKV", "linear attention\n/ RWKV\n2020, 2023", "2020; 2023", "Katharopoulos et al., "
     "“Transformers are RNNs”; Peng et al., “RWKV: Reinventing RNNs for the Transformer Era”",
     (1, 2), ("Transformer",),
     "The Transformer's layers and its parallel training.",
     "Replaced the softmax over past positions by a kernel form whose sum over keys and values is a "
     "fixed-size matrix: at inference it runs as a recurrence. RWKV adds a learned decay per channel."),
    ("state-space / Mamba", "state-space\n/ Mamba\n2021, 2023", "2021; 2023", "Gu, Goel & Ré, “Efficiently "
     "Modeling Long Sequences with Structured State Spaces” (S4); Gu & Dao, “Mamba”", (1, 2), ("GRU",),
     "From the gated RNNs: a fixed-size state updated once per token, and (in Mamba) a gate on it.",
     "Made the update linear in the state, h ← A h + B x, so training runs as a convolution (S4) or "
     "a parallel scan (Mamba). Mamba makes the step size and B and C depend on the input (selection): "
     "how much the state keeps and takes in changes token by token, and the paper shows its simplest "
     "case is the gated recurrence h ← (1 − g) h + g x."),
    ("xLSTM", "xLSTM\n2024", "2024", "Beck et al., “xLSTM: Extended Long Short-Term Memory”", (1, 1),
     ("LSTM",),
     "The LSTM's cell and gates.",
     "Exponential gates with a normaliser, and two new cells: sLSTM (scalar memory, still sequential) "
     "and mLSTM (a matrix memory with no state-to-state weights, trainable in parallel)."),
    ("Griffin / Hawk", "Griffin / Hawk\n2024", "2024", "De et al., “Griffin: Mixing Gated Linear "
     "Recurrences with Local Attention for Efficient Language Models”", (1, 2),
     ("state-space / Mamba", "Transformer"),
     "A gated recurrence with a fixed-size state.",
     "The gates read only the input and the recurrence is linear and per unit (the RG-LRU), so it "
     "trains with a scan. Hawk is recurrences alone; Griffin mixes in local attention over a fixed "
     "window, which keeps the state bounded."),
    ("minimal GRU / LSTM", "minGRU /\nminLSTM", "2024", "Feng et al., “Were RNNs All We Needed?”",
     (1, 2), ("GRU", "LSTM"),
     "The GRU's and the LSTM's gated blend of old state and candidate.",
     "Gates and candidate read only the input x, not the previous state, and the candidate's tanh is "
     "dropped: the update becomes linear in h, so training uses a parallel scan."),
]
NAMES = [node[0] for node in NODES]
# where each node sits: x in the state column (0: grows; from 0.8: fixed), y on its training row
# and where its label goes (clear of the arrows coming in): below, above or right of the node
LABEL_SIDE = {"Transformer": "above", "xLSTM": "above", "Griffin / Hawk": "above", "minimal GRU / LSTM": "above",
              "state-space / Mamba": "right"}
_LABEL_STYLE = {"below": (0, 15, "center", "top"), "above": (0, -15, "center", "bottom"),
                "right": (15, 0, "left", "middle")}
POSITIONS = {"LSTM": (2.25, -0.15), "GRU": (1.6, 0.25), "seq2seq": (0.95, -0.15), "attention": (0.0, -0.15),
             "Transformer": (0.0, 2.0), "linear attention / RWKV": (0.8, 1.65), "state-space / Mamba": (1.45, 1.9),
             "xLSTM": (2.45, 1.0), "Griffin / Hawk": (1.05, 2.35), "minimal GRU / LSTM": (2.1, 2.1)}
DEFAULT = "GRU"
ARROW_GAP = 0.16           # data units left free around a node at each end of an arrow


def info(name):
    """The node's record: name, label, years, paper, state, training, parents, kept, changed."""
    rec = NODES[NAMES.index(name)]
    keys = ("name", "label", "years", "paper", "axes", "parents", "kept", "changed")
    out = dict(zip(keys, rec), xy=POSITIONS[name])
    out["state"], out["training"] = STATE[out["axes"][0]], TRAINING[out["axes"][1]]
    return out


def edges():
    """(parent, child) pairs: an arrow from what a model descends from to the model."""
    return [(parent, node[0]) for node in NODES for parent in node[5]]


def _arrow_ends(parent, child):
    # shortened by ARROW_GAP at both ends so the heads stay clear of the nodes (layout, not data)
    (x0, y0), (x1, y1) = info(parent)["xy"], info(child)["xy"]
    gap = ARROW_GAP / math.hypot(x1 - x0, y1 - y0)
    return x0 + gap * (x1 - x0), y0 + gap * (y1 - y0), x1 - gap * (x1 - x0), y1 - gap * (y1 - y0)


def _edge_data(pairs):
    ends = [_arrow_ends(p, c) for p, c in pairs]
    return {k: [e[i] for e in ends] for i, k in enumerate(("x0", "y0", "x1", "y1"))}


class LineageTree:
    """The family tree as a Bokeh figure with a TapTool on the nodes. `source` holds the nodes
    (its `selected.indices` is the tapped node); `select(name)` highlights a node and the arrows
    into and out of it."""

    def __init__(self, css_class):
        self.source = ColumnDataSource({"x": [POSITIONS[n][0] for n in NAMES], "y": [POSITIONS[n][1] for n in NAMES],
                                        "name": NAMES, "label": [n[1] for n in NODES]})
        styles = [_LABEL_STYLE[LABEL_SIDE.get(name, "below")] for name in NAMES]
        self._labels = ColumnDataSource({**self.source.data, **{
            k: [s[i] for s in styles] for i, k in enumerate(("dx", "dy", "align", "baseline"))}})
        self._hot = ColumnDataSource(_edge_data([]))
        self.fig = fig = figure(
            height=470, sizing_mode="stretch_width", min_width=320, toolbar_location=None, tools="",
            x_range=Range1d(-0.55, 2.75), y_range=Range1d(-0.55, 2.8), css_classes=[css_class],
            title="The lineage: tap a model (or use the buttons)")
        fig.add_layout(Arrow(source=ColumnDataSource(_edge_data(edges())), x_start="x0", y_start="y0",
                             x_end="x1", y_end="y1", line_color=PALETTE.faint, line_width=1.2,
                             end=VeeHead(size=8, fill_color=PALETTE.faint, line_color=PALETTE.faint),
                             level="underlay"))
        fig.add_layout(Arrow(source=self._hot, x_start="x0", y_start="y0", x_end="x1", y_end="y1",
                             line_color=PALETTE.secondary, line_width=2.5, level="underlay",
                             end=VeeHead(size=11, fill_color=PALETTE.secondary, line_color=PALETTE.secondary)))
        nodes = fig.scatter("x", "y", source=self.source, size=24, fill_color=PALETTE.positive,
                            line_color=PALETTE.page, line_width=2,
                            selection_fill_color=PALETTE.secondary, selection_line_color=PALETTE.text,
                            nonselection_fill_color=PALETTE.positive, nonselection_fill_alpha=0.55)
        fig.text("x", "y", text="label", source=self._labels, x_offset="dx", y_offset="dy", text_align="align",
                 text_baseline="baseline", text_font_size="9pt", text_color=PALETTE.text, text_line_height=1.1,
                 background_fill_color=PALETTE.page, background_fill_alpha=0.8)
        fig.add_tools(TapTool(renderers=[nodes]))
        for x in (0.62,):
            fig.add_layout(Span(location=x, dimension="height", line_color=PALETTE.border, line_dash="dashed"))
        for y in (0.55, 1.45):
            fig.add_layout(Span(location=y, dimension="width", line_color=PALETTE.border, line_dash="dashed"))
        fig.xaxis.ticker = FixedTicker(ticks=list(COLUMN_X.values()))
        fig.xaxis.major_label_overrides = {COLUMN_X[k]: v for k, v in STATE.items()}
        fig.xaxis.axis_label = "state kept at inference"
        fig.yaxis.ticker = FixedTicker(ticks=list(TRAINING))
        fig.yaxis.major_label_overrides = {k: v.replace(" over the sequence", "") for k, v in TRAINING.items()}
        fig.yaxis.axis_label = "training over the sequence"
        fig.yaxis.major_label_orientation = math.pi / 2
        fig.xgrid.grid_line_color = fig.ygrid.grid_line_color = None

    def select(self, name):
        """Highlight `name` (its node and the arrows that touch it)."""
        i = NAMES.index(name)
        with unlocked():
            if list(self.source.selected.indices) != [i]:
                self.source.selected.indices = [i]
            self._hot.data = _edge_data([(p, c) for p, c in edges() if name in (p, c)])
