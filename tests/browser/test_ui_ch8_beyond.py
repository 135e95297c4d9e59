"""Chapter 8 in the browser: the counter (cell buttons, typed d / n / L, bad input), the bottleneck
slider and the lineage (buttons, and a tap on a node of the tree), against gleam.examples'
chapter8_counts and chapter8_bottleneck computed here."""
import pytest

from gleam_lab.app.chapters.ch8_beyond import lineage
from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

DEFAULT = {"cell": "gru", "d": 128, "n": 256, "layers": 2}
CELL_LABELS = {"gru": "GRU", "lstm": "LSTM", "elman": "Elman"}

# Screen position of each node of the tree: its figure view's scales, from data to canvas pixels,
# plus where the canvas sits in the viewport (the one view on screen; the static site may keep a
# pre-rendered copy that is no longer attached).
_NODE_POINTS_JS = """(cls) => {
  const found = [];
  const walk = v => {
    if (v.frame && v.model.css_classes.includes(cls) && v.el.isConnected) found.push(v);
    for (const c of (v.child_views || [])) walk(c);
  };
  for (const v of Object.values(Bokeh.index)) walk(v);
  if (found.length !== 1) return null;
  const view = found[0], rect = view.canvas_view.el.getBoundingClientRect();
  const data = view.model.renderers.find(r => r.glyph && r.glyph.type === 'Scatter').data_source.data;
  return Array.from(data.name, (name, i) => [name, rect.left + view.frame.x_scale.compute(data.x[i]),
                                               rect.top + view.frame.y_scale.compute(data.y[i])]);
}"""

_SELECTED_JS = """(cls) => {
  const docs = [...new Set(Object.values(Bokeh.index).map(v => v.model.document))];
  const out = [];
  for (const doc of docs)
    for (const m of doc._all_models.values())
      if (Array.isArray(m.css_classes) && m.css_classes.includes(cls) && m.renderers)
        out.push(Array.from(m.renderers.find(r => r.glyph && r.glyph.type === 'Scatter').data_source.selected.indices));
  return out;
}"""


def open_ch8(lab):
    if lab.chapter_in_url() != "8" or lab.page.locator(".gl-ch8-d").count() == 0:
        lab.show("8")


def count_values(cell, d, n, layers):
    """gv key -> gleam's number for every count the page shows (None where it shows "—")."""
    c = examples.chapter8_counts(cell, d, n, layers)
    out = {}
    for key, part in (("uni", "stack"), ("bi", "bidirectional")):
        s = c[part]
        out.update({f"ch8.{key}.reads.1": s["inputs"][0], f"ch8.{key}.layer.1": s["layer_params"][0],
                    f"ch8.{key}.reads.later": s["inputs"][1] if layers > 1 else None,
                    f"ch8.{key}.layer.later": s["layer_params"][1] if layers > 1 else None,
                    f"ch8.{key}.total": s["total"], f"ch8.{key}.torch": s["total_torch"],
                    f"ch8.{key}.width": s["output_width"]})
    out.update({f"ch8.ed.{k}": v for k, v in c["encoder_decoder"].items() if k != "stacks"})
    return out


def check_counts(lab, want, what):
    def equal():
        assert lab.text("ch8.error") == "", f"{what}: an error is shown"
        for key, value in want.items():
            if value is None:
                assert lab.text(key) == "—", f"{what}: {key}"
            else:
                assert_shown(lab.text(key), value, 0, f"{what}: {key}")

    wait_until(equal, page=lab.page, message=what)


def cell_shown(lab):
    return lab.model_value("gl-ch8-cell", "labels")[lab.model_value("gl-ch8-cell", "active")]


def set_size(lab, key, value):
    if lab.model_value(f"gl-ch8-{key}") != value:
        lab.fill(f"gl-ch8-{key}", "" if value is None else str(value), selector="input")
        wait_until(lambda: lab.model_value(f"gl-ch8-{key}") == value, page=lab.page,
                   message=f"for {key} to become {value!r}")


def set_counter(lab, cell, d, n, layers):
    if cell_shown(lab) != CELL_LABELS[cell]:
        lab.click("gl-ch8-cell", CELL_LABELS[cell])
        wait_until(lambda: cell_shown(lab) == CELL_LABELS[cell], page=lab.page)
    for key, value in (("d", d), ("n", n), ("layers", layers)):
        set_size(lab, key, value)


def test_opens_on_the_syllabus_example(shared_lab):
    lab = shared_lab
    lab.show("8")
    set_counter(lab, **DEFAULT)
    check_counts(lab, count_values(**DEFAULT), "first view")
    assert lab.text("ch8.uni.total") == "689,664" and lab.text("ch8.bi.layer.1") == "591,360"


@pytest.mark.parametrize("cell, d, n, layers", [("lstm", 128, 256, 2), ("elman", 64, 100, 4), ("gru", 300, 32, 1)])
def test_cell_and_typed_sizes(shared_lab, cell, d, n, layers):
    lab = shared_lab
    open_ch8(lab)
    set_counter(lab, cell, d, n, layers)
    check_counts(lab, count_values(cell, d, n, layers), f"{cell} d={d} n={n} L={layers}")
    set_counter(lab, **DEFAULT)
    check_counts(lab, count_values(**DEFAULT), "back to the example")


@pytest.mark.parametrize("key, typed, value", [("d", "", None), ("n", "0", 0), ("layers", "-2", -2),
                                               ("n", "99999999999", 99999999999)])
def test_bad_input_shows_a_message(shared_lab, key, typed, value):
    lab = shared_lab
    open_ch8(lab)
    set_counter(lab, **DEFAULT)
    set_size(lab, key, value)
    message = lab.wait_text("ch8.error", lambda t: t != "", what="an error message")
    assert message.startswith(f"Not counted: {key} must be an integer in [1, ") and message.endswith(f"got {value!r}.")
    assert lab.text("ch8.uni.total") == "—" and lab.text("ch8.ed.total") == "—"
    set_size(lab, key, DEFAULT[key])
    lab.wait_text("ch8.error", lambda t: t == "", what="empty again")
    check_counts(lab, count_values(**DEFAULT), "after the bad input")


def check_bits(lab, words):
    k = examples.chapter8_bottleneck(words)

    def equal():
        assert lab.text("ch8.words") == str(words)
        assert_shown(lab.text("ch8.source.bits"), k["source_bits"], 1, "ch8.source.bits")
        assert_shown(lab.text("ch8.bits_per_float"), k["bits_per_float"], 2, "ch8.bits_per_float")
        assert_shown(lab.text("ch8.ratio"), k["capacity_ratio"], 3, "ch8.ratio")
        assert_shown(lab.text("ch8.bits_per_word"), k["bits_per_word"], 2, "ch8.bits_per_word")
        assert_shown(lab.text("ch8.context.bytes"), k["context_bytes"], 0, "ch8.context.bytes")
        assert_shown(lab.text("ch8.context.bits"), k["context_bits"], 0, "ch8.context.bits")

    wait_until(equal, page=lab.page, message=f"bottleneck at {words} words")


def test_bottleneck_slider(shared_lab):
    lab = shared_lab
    open_ch8(lab)
    for keys, want in ((("End",), 1000), (("Home",), 1), (("Home", *["ArrowRight"] * 4), 5),
                       (("PageUp",), None)):
        before = lab.model_value("gl-ch8-words")
        lab.slider_keys("gl-ch8-words", *keys)
        if want is None:          # a page step: whatever the slider's own step is, read it back
            wait_until(lambda: lab.model_value("gl-ch8-words") > before, page=lab.page, message="PageUp")
            want = lab.model_value("gl-ch8-words")
        wait_until(lambda: lab.model_value("gl-ch8-words") == want, page=lab.page,
                   message=f"for the slider to move from {before} to {want}")
        check_bits(lab, want)
    assert lab.text("ch8.context.bytes") == "1,024" and lab.text("ch8.bits_per_word") == "14.87"


def node_shown(lab):
    return lab.model_value("gl-ch8-node", "labels")[lab.model_value("gl-ch8-node", "active")]


def check_node(lab, name, what):
    def selected():
        assert lab.text("ch8.node") == name, what
        assert node_shown(lab) == name, f"{what}: the buttons"
        assert lab.page.evaluate(_SELECTED_JS, "gl-ch8-tree") == [[lineage.NAMES.index(name)]], f"{what}: the tree"
        assert lineage.info(name)["kept"] in lab.all_text(), f"{what}: the panel's text"

    wait_until(selected, page=lab.page, message=what)


def test_lineage_buttons(shared_lab):
    lab = shared_lab
    open_ch8(lab)
    for name in ("Transformer", "state-space / Mamba", lineage.DEFAULT):
        lab.page.locator(".gl-ch8-node button").filter(has_text=name).first.click()
        check_node(lab, name, f"button {name}")


def test_lineage_keyboard(shared_lab):
    lab = shared_lab
    open_ch8(lab)
    buttons = lab.page.locator(".gl-ch8-node button")
    buttons.filter(has_text="xLSTM").first.focus()
    lab.page.keyboard.press("Enter")
    check_node(lab, "xLSTM", "Enter on the xLSTM button")


# BokehJS reads a second click within 300 ms of a tap as a double tap, which a TapTool ignores
# (as a learner's double click should be); taps in a test are spaced at least that far apart.
DOUBLE_TAP_MS = 300


def tap(lab, name):
    lab.page.wait_for_timeout(DOUBLE_TAP_MS)
    lab.page.locator(".gl-ch8-tree").first.scroll_into_view_if_needed()
    points = lab.page.evaluate(_NODE_POINTS_JS, "gl-ch8-tree")
    assert points is not None, "the tree's view is not on the page"
    _, x, y = next(p for p in points if p[0] == name)
    lab.page.mouse.click(x, y)


def test_a_tap_on_a_node_selects_it(shared_lab):
    lab = shared_lab
    open_ch8(lab)
    for name in ("minimal GRU / LSTM", "attention", "GRU"):
        tap(lab, name)
        check_node(lab, name, f"tap on {name}")
