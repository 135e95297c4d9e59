"""Chapter 8 without a browser: the counter's cell and sizes, bad input, the bottleneck slider and
the lineage (buttons and taps on the tree), read from what the page shows."""
import html

import pytest
from bokeh.models import GlyphRenderer

from gleam_lab.app.chapters.ch8_beyond import BeyondChapter, lineage
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam import examples
from surface import figure, figure_data, find, html_with, set_value, shown


def expected_counts(cell="gru", d=128, n=256, layers=2):
    """key -> text of every counter value, from gleam's numbers formatted as the page does."""
    c = examples.chapter8_counts(cell, d, n, layers)
    out = {}
    for key, part in (("uni", "stack"), ("bi", "bidirectional")):
        s = c[part]
        out.update({f"ch8.{key}.reads.1": str(s["inputs"][0]), f"ch8.{key}.layer.1": fmt_comma(s["layer_params"][0]),
                    f"ch8.{key}.total": fmt_comma(s["total"]), f"ch8.{key}.torch": fmt_comma(s["total_torch"]),
                    f"ch8.{key}.width": str(s["output_width"])})
        if layers > 1:
            assert len(set(s["layer_params"][1:])) == 1            # every later layer costs the same
            out[f"ch8.{key}.reads.later"] = str(s["inputs"][1])
            out[f"ch8.{key}.layer.later"] = fmt_comma(s["layer_params"][1])
        else:
            out[f"ch8.{key}.reads.later"] = out[f"ch8.{key}.layer.later"] = "—"
    for key in ("encoder", "decoder", "source_embedding", "target_embedding", "readout", "total"):
        out[f"ch8.ed.{key}"] = fmt_comma(c["encoder_decoder"][key])
    return out


def expected_bits(words):
    k = examples.chapter8_bottleneck(words)
    return {"ch8.words": str(k["words"]), "ch8.context.floats": str(k["context_floats"]),
            "ch8.context.bytes": fmt_comma(k["context_bytes"]), "ch8.context.bits": fmt_comma(k["context_bits"]),
            "ch8.bits_per_word": fmt_fixed(k["bits_per_word"], 2), "ch8.source.bits": fmt_fixed(k["source_bits"], 1),
            "ch8.bits_per_float": fmt_fixed(k["bits_per_float"], 2), "ch8.ratio": fmt_fixed(k["capacity_ratio"], 3)}


def subset(values, keys):
    return {k: values[k] for k in keys}


def test_opens_on_the_syllabus_example():
    c = BeyondChapter()
    v = c.values()
    want = expected_counts()
    assert subset(v, want) == want and v["ch8.error"] == ""
    assert (v["ch8.uni.layer.1"], v["ch8.uni.layer.later"], v["ch8.uni.total"], v["ch8.uni.torch"]) == \
        ("295,680", "393,984", "689,664", "691,200")
    assert (v["ch8.bi.layer.1"], v["ch8.bi.width"]) == ("591,360", "512")
    assert subset(v, expected_bits(50)) == expected_bits(50)
    assert (v["ch8.context.bytes"], v["ch8.bits_per_word"]) == ("1,024", "14.87")
    assert v["ch8.node"] == lineage.DEFAULT
    assert shown(c) == v
    assert (find(c, "gl-ch8-d").value, find(c, "gl-ch8-n").value, find(c, "gl-ch8-layers").value) == (128, 256, 2)
    assert find(c, "gl-ch8-cell").value == "gru" and find(c, "gl-ch8-words").value == 50


@pytest.mark.parametrize("cell", ["lstm", "elman", "gru"])
def test_cell_and_sizes(cell):
    c = BeyondChapter()
    set_value(c, "gl-ch8-cell", cell)
    set_value(c, "gl-ch8-d", 64)
    set_value(c, "gl-ch8-n", 100)
    set_value(c, "gl-ch8-layers", 4)
    want = expected_counts(cell, 64, 100, 4)
    assert subset(c.values(), want) == want
    assert "layers 2–4, each" in html_with(c, 'data-key="ch8.uni.layer.later"')
    set_value(c, "gl-ch8-layers", 1)
    want = expected_counts(cell, 64, 100, 1)
    assert subset(c.values(), want) == want
    assert shown(c) == c.values()


@pytest.mark.parametrize("key,bad", [("d", None), ("n", 0), ("layers", -3), ("d", 10 ** 12), ("layers", 101)])
def test_bad_input_shows_a_message(key, bad):
    c = BeyondChapter()
    set_value(c, f"gl-ch8-{key}", bad)
    v = c.values()
    assert v["ch8.error"].startswith(f"Not counted: {key} must be an integer in [1, ")
    assert repr(bad) in v["ch8.error"]
    assert all(v[k] == "—" for k in expected_counts())
    assert shown(c) == v
    assert v["ch8.words"] == "50"                   # the rest of the page is untouched
    set_value(c, f"gl-ch8-{key}", {"d": 128, "n": 256, "layers": 2}[key])
    assert c.values()["ch8.error"] == "" and c.values()["ch8.uni.total"] == "689,664"


@pytest.mark.parametrize("words", [1, 5, 500, 551, 552, 1000])
def test_bottleneck_slider(words):
    c = BeyondChapter()
    set_value(c, "gl-ch8-words", words)
    v = c.values()
    assert subset(v, expected_bits(words)) == expected_bits(words)
    assert v["ch8.context.bytes"] == "1,024"         # the same for any length
    too_long = "More bits than the vector has" in html_with(c, 'data-key="ch8.ratio"')
    assert too_long == (not examples.chapter8_bottleneck(words)["fits"])
    assert shown(c) == v


def test_bits_figure_is_gleams_curve():
    c = BeyondChapter()
    k = examples.chapter8_bottleneck()
    data = figure_data(c, "gl-ch8-bits")
    assert list(data["x"]) == k["curve_words"] and list(data["y"]) == pytest.approx(k["curve_source_bits"])


def _nodes(c):
    return [r for r in figure(c, "gl-ch8-tree").renderers if isinstance(r, GlyphRenderer)][0].data_source


def test_lineage_buttons_select_and_highlight():
    c = BeyondChapter()
    assert list(figure_data(c, "gl-ch8-tree")["name"]) == lineage.NAMES
    assert _nodes(c).selected.indices == [lineage.NAMES.index(lineage.DEFAULT)]
    for name in ("Transformer", "minimal GRU / LSTM", "LSTM"):
        set_value(c, "gl-ch8-node", name)
        assert c.values()["ch8.node"] == name and _nodes(c).selected.indices == [lineage.NAMES.index(name)]
        rec = lineage.info(name)
        page = html_with(c, 'data-key="ch8.node"')
        assert all(html.escape(rec[k]) in page for k in ("kept", "changed", "years", "paper"))
    assert shown(c) == c.values()


def test_a_tap_on_the_tree_selects_its_node():
    c = BeyondChapter()
    nodes = _nodes(c)
    nodes.selected.indices = [lineage.NAMES.index("xLSTM")]        # what a tap on the node sends
    assert c.values()["ch8.node"] == "xLSTM" and find(c, "gl-ch8-node").value == "xLSTM"
    nodes.selected.indices = []                                     # a tap beside every node
    assert c.values()["ch8.node"] == "xLSTM" and nodes.selected.indices == [lineage.NAMES.index("xLSTM")]
    nodes.selected.indices = [0, 4]                                 # shift-tap: the last one wins, alone
    assert c.values()["ch8.node"] == lineage.NAMES[4] and nodes.selected.indices == [4]


def test_lineage_data_is_consistent():
    assert len(lineage.NAMES) == len(set(lineage.NAMES)) == 10
    for parent, child in lineage.edges():
        assert parent in lineage.NAMES and child in lineage.NAMES and parent != child
    for name in lineage.NAMES:
        rec = lineage.info(name)
        assert rec["years"] and rec["paper"] and rec["kept"] and rec["changed"]
    fixed_parallel = {n for n in lineage.NAMES if lineage.info(n)["axes"] == (1, 2)}
    assert fixed_parallel == {"linear attention / RWKV", "state-space / Mamba", "Griffin / Hawk",
                              "minimal GRU / LSTM"}
    assert lineage.info("Transformer")["axes"] == (0, 2) and lineage.info("GRU")["axes"] == (1, 0)
