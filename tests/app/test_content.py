"""The chapters' prose: every placeholder fills, the numbers shown are gleam's, none is typed.

Each check formats a value returned by gleam.examples the way the prose does and looks for it in
the rendered text; the same formatted strings must NOT occur in the Markdown sources.
"""
import importlib
import re
import sys
from pathlib import Path

import pytest

try:
    from gleam_lab import content
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from gleam_lab import content

from gleam_lab.content import fmt_comma, fmt_fixed, fmt_num, fmt_pct, fmt_sci, fmt_sig, markdown_to_html
from gleam_lab.content.render import environment
from gleam import chargru, examples
from gleam import costs as counting

IDS = content.chapter_ids()


def f(d):
    return lambda x: fmt_fixed(x, d)


def expected_numbers():
    """(chapter, formatted text) pairs: every one must appear in the rendered chapter."""
    c0 = examples.chapter0_scalar_memory()
    c1 = examples.chapter1_hand_example()
    c2 = examples.chapter2_bptt()
    c3v, c3d, c3c = examples.chapter3_vanishing(), examples.chapter3_measured_decay(), examples.chapter3_clipping()
    c4, c4t = examples.chapter4_gru_hand_example(), examples.chapter4_gru_hand_example("torch")
    c4m = examples.chapter4_gate_meters()
    c5, c5k = examples.chapter5_counts(), examples.chapter5_carry_multipliers()
    c6 = examples.chapter6_cross_entropy()
    c7 = examples.chapter7_live_lab()
    m7 = chargru.CharGRU()
    c8 = examples.chapter8_beyond()
    c9d = examples.chapter9_deployment()
    out = [("0", fmt_num(c0["retained_0.9_over_64"])), ("0", f(1)(c0["half_life_0.90"])),
           ("0", f(0)(c0["half_life_0.99"])), ("0", f(1)(c0["half_life_ratio_0.99_over_0.90"])),
           ("0", f(4)(c0["sensitivity_a1_h2"]))]
    for s in c1["steps"]:
        out += [("1", f(4)(v)) for key in ("recurrent_term", "pre_activation", "state") for v in s[key]
                if f(4)(v) != "0.0000"]
    out += [("1", f(4)(v)) for v in examples.chapter1_hand_example(wh_scale=0.0)["states"][2]]
    out += [("2", f(4)(v)) for v in c2["states"]] + [("2", f(3)(v)) for v in c2["tanh_derivatives"]]
    out += [("2", f(4)(c2[k])) for k in ("loss", "dL_dw", "dL_du")]
    out += [("2", f(5)(c2["dL_dw_truncated"])), ("2", fmt_pct(c2["truncation_shortfall"]))]
    out += [("3", fmt_sci(c3v["factor_0.45_over_20"])), ("3", f(0)(c3v["factor_1.5_over_20"])),
            ("3", f(4)(c3c["scale"])), ("3", f(3)(c3c["clipped_components"][0])),
            ("3", f(4)(c3c["clipped_components"][1]))]
    out += [("3", f(2)(v)) for row in c3d["log10_norm"] for v in row]
    for key in ("z", "r", "candidate", "h", "carry_multiplier"):
        out += [("4", f(4)(v)) for v in c4[key]]
    out += [("4", f(4)(v)) for key in ("candidate", "h") for v in c4t[key]]
    out += [("4", fmt_num(v)) for v in c4m["carry_over_T"]]
    out += [("4", fmt_sci(v)) for v in c4["carry_multiplier_20"]]
    out += [("5", fmt_comma(c5[k])) for k in ("gru_params", "lstm_params", "gru_macs", "lstm_macs")]
    out += [("5", str(c5["gru_width_matching_lstm"])), ("5", f(3)(c5k["0.99^30"])),
            ("5", fmt_sci(c5k["sigmoid(0)^30"], 2)), ("5", fmt_sci(c5k["sigmoid(1)^30"], 2)),
            ("5", f(3)(c5k["sigmoid(1)"])), ("5", f(4)(c5k["sigmoid(3)^100"])),
            ("5", fmt_sci(c5k["0.5^100"], 2)), ("5", fmt_sci(c5k["0.9^100"], 2))]
    out += [("6", f(4)(c6[k])) for k in ("p_target", "loss_nats", "uniform_loss")]
    out += [("6", f(2)(c6["loss_bits"]))] + [("6", f(4)(v)) for v in c6["p_target_at_temperature"]]
    out += [("7", f(3)(m7.chance_loss)), ("7", f(3)(m7.unigram_loss)), ("7", f(3)(c7["chance_bits"])),
            ("7", fmt_comma(c7["macs_per_step"])), ("7", fmt_comma(c7["chunk_operations"])),
            ("7", f(0)(c7["ema_lag_steps"])),
            ("7", fmt_comma(counting.macs_per_step("gru", c7["V"], 128)))]
    out += [("8", fmt_comma(v)) for v in c8["layer_params"]]
    out += [("8", fmt_comma(c8[k])) for k in ("two_layer_params", "two_layer_params_torch",
                                               "bidirectional_params")]
    out += [("8", f(2)(c8["bits_per_word"])), ("8", fmt_comma(c8["source_bits"][2]))]
    out += [("9", fmt_comma(c9d[k])) for k in ("state_bytes", "kv_cache_bytes_per_token", "kv_cache_bytes",
                                                "recurrent_macs_per_token", "readout_macs_per_token")]
    return out


NUMBERS = expected_numbers()


@pytest.fixture(scope="module")
def rendered():
    return {cid: content.render(cid) for cid in IDS}


def test_chapter_ids_and_titles():
    assert IDS == [str(i) for i in range(10)] + ["memory", "extrapolation", "inspector"]
    assert all(content.title(cid) for cid in IDS)
    with pytest.raises(ValueError, match="unknown chapter"):
        content.render("42")


@pytest.mark.parametrize("cid", IDS)
def test_renders_without_leftover_placeholders(rendered, cid):
    text = rendered[cid]
    assert len(text) > 800
    assert "{{" not in text and "{%" not in text and "{#" not in text


def _template_nodes(cid):
    import jinja2.nodes as nodes
    return list(environment().parse(content.source(cid)).find_all(nodes.Node)), nodes


@pytest.mark.parametrize("cid", IDS)
def test_templates_pick_numbers_and_compute_none(cid):
    """A template names gleam.examples results and formats them: it calls nothing (no gleam
    function, no range or zip) and does no arithmetic."""
    found, nodes = _template_nodes(cid)
    calls = [n for n in found if isinstance(n, nodes.Call)]
    arithmetic = [n for n in found if isinstance(n, (nodes.Add, nodes.Sub, nodes.Mul, nodes.Div, nodes.FloorDiv,
                                                      nodes.Mod, nodes.Pow, nodes.Neg, nodes.Pos, nodes.Concat))]
    assert not calls and not arithmetic, (calls, arithmetic)
    tags = re.findall(r"\{\{.*?\}\}|\{%.*?%\}", content.source(cid), flags=re.S)
    assert not [t for t in tags if re.search(r"\b(ex|gleam|cells|chargru|counting|dynamics|examples)\.", t)]


@pytest.mark.parametrize("cid", IDS)
def test_every_name_a_template_uses_is_a_gleam_example(cid):
    import jinja2.meta
    names = jinja2.meta.find_undeclared_variables(environment().parse(content.source(cid)))
    assert all(callable(getattr(examples, name, None)) for name in names), names


def test_markdown_keeps_math_for_mathjax():
    out = markdown_to_html("Text *em* \\(a_{1} * b_{2}\\) and\n\n$$\n\\begin{bmatrix} 1 & 2 \\end{bmatrix} < 3\n$$\n")
    assert "<em>em</em>" in out
    assert "\\(a_{1} * b_{2}\\)" in out                 # untouched by the Markdown parser
    assert "1 & 2" in out and "\\lt" in out and "< 3" not in out


def test_missing_value_fails_loudly():
    import jinja2
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ chapter1_hand_example.no_such_key }}").render(
            chapter1_hand_example={})


@pytest.mark.parametrize("cid,text", NUMBERS, ids=[f"ch{c}:{t}" for c, t in NUMBERS])
def test_numbers_in_text_are_gleams(rendered, cid, text):
    assert text in rendered[cid]


def test_syllabus_values_appear(rendered):
    # a few values exactly as SYLLABUS.md prints them: gleam computes them, the page shows them
    for cid, text in [("1", "0.8005"), ("1", "-0.0997"), ("1", "0.6171"), ("1", "0.1845"),
                      ("2", "0.0826"), ("2", "0.0647"), ("2", "0.07628"), ("3", "0.1057"),
                      ("4", "0.6748"), ("4", "0.5508"), ("4", "-0.0306"), ("5", "295,680"),
                      ("5", "394,240"), ("6", "0.7767"), ("6", "0.6444"), ("7", "3.178"),
                      ("8", "689,664"), ("8", "591,360")]:
        assert text in rendered[cid], (cid, text)


@pytest.mark.parametrize("cid", IDS)
def test_no_computed_number_is_typed(cid):
    source = content.source(cid)
    bare = re.sub(r"\{\{.*?\}\}|\{%.*?%\}", "", source, flags=re.S)
    # results are printed with 4+ decimals, thousands separators or powers of ten; inputs never are
    assert not re.findall(r"\d\.\d{4,}", bare)
    inputs = {"30,000", "50,000", "10,000"}     # vocabulary sizes and token counts the syllabus sets
    assert not set(re.findall(r"\d{1,3}(?:,\d{3})+", bare)) - inputs
    assert not re.findall(r"\\times\s*10\^", bare)
    for chapter, text in NUMBERS:
        if len(text) >= 4 and re.search(r"\d\.\d{2,}|,\d{3}|\\times", text):
            assert text not in bare, f"{text} typed into {content.filename(cid)}"


def _resolve(dotted):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def named_functions():
    names = set()
    for cid in IDS:
        names.update(re.findall(r"`(gleam(?:\.\w+)+)`", content.source(cid)))
    return sorted(names)


def test_prose_names_gleam_functions():
    names = named_functions()
    assert len(names) >= 20
    for cid in ("1", "2", "3", "4", "7"):
        assert "`gleam." in content.source(cid)


@pytest.mark.parametrize("dotted", named_functions())
def test_every_named_gleam_function_exists(dotted):
    assert _resolve(dotted) is not None


def test_the_self_tests_answers_are_not_in_the_prose(rendered):
    """Chapter 9's page checks the learner's answer; its text must not give it away."""
    answers = [f(4)(v) for key in ("z", "r", "candidate", "h") for v in examples.chapter9_self_test()[key]]
    assert answers and not [a for a in answers if a in rendered["9"]]


def test_the_labs_are_built():
    for lab in ("memory", "extrapolation"):
        assert "Not built yet" not in content.render(lab)
    memory = content.render("memory")           # built: the carry challenge and the trained models
    assert "Not built yet" not in memory
    assert "## The carry challenge" in memory and "## Trained models: the acceptance test" in memory


def test_formatters():
    assert fmt_fixed(-0.00001, 4) == "0.0000"
    assert fmt_fixed(-0.0997, 4) == "-0.0997"
    assert fmt_sci(1.1594e-7) == r"1.16 \times 10^{-7}"
    assert fmt_sci(1e-20) == "10^{-20}"
    assert fmt_sig(0.0011790) == "0.00118"
    assert fmt_comma(295680) == "295,680"
    assert fmt_pct(0.0759) == "7.6"


def test_the_first_screen_names_every_chapter_once_with_its_heading_and_link():
    """start.md (above chapter 0, the site's index) lists each chapter and lab once, by its heading
    as the contents give it, linked by ?chapter=; it says what the lab is, for whom, where to start."""
    text = content.chapters.start_source()
    links = re.findall(r"^- \[([^\]]+)\]\(\?chapter=([\w-]+)\): (.+)$", text, re.M)
    assert [cid for _, cid, _ in links] == IDS
    assert all(heading == content.heading(cid) and len(line) > 20 for heading, cid, line in links)
    for words in ("Start here", "learners", "instructors", "researchers", "Read the chapters in order"):
        assert words in text
    html = content.start_html()
    assert html.count('<a href="?chapter=') == len(IDS) and "{{" not in html
