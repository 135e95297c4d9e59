"""Chapter 9 without a browser: the self-test typed into its boxes and checked, the answer
revealed, and the deployment budget's inputs, read from what the page shows. The self-test's
right answers are computed here (chapter 4's cell written out on input a)."""
import numpy as np
import pytest

from gleam_lab.app.chapters.ch9_cheatsheet import CheatSheetChapter
from gleam_lab.content import fmt_comma, fmt_fixed
from gleam import examples
from surface import click, find, set_value, shown

QUANTITIES = ("z", "r", "htilde", "h")


def right_answers():
    sig = lambda a: 1 / (1 + np.exp(-a))   # noqa: E731
    h = np.array([0.5, -0.2])
    z = sig(np.array([-0.2, 0.5]) + np.array([[0.3, 0.1], [-0.2, 0.5]]) @ h + np.array([0.0, 0.1]))
    r = sig(np.array([0.4, -0.1]) + np.array([[0.2, -0.4], [0.1, 0.3]]) @ h + np.array([0.2, 0.0]))
    cand = np.tanh(np.array([0.3, -0.6]) + np.array([[0.7, 0.2], [-0.1, 0.9]]) @ (r * h))
    return {"z": z, "r": r, "htilde": cand, "h": (1 - z) * h + z * cand}


RIGHT = right_answers()


def type_answers(c, answers):
    for (q, u), text in answers.items():
        set_value(c, f"gl-ch9-{q}-{u}", text)


def all_right():
    return {(q, u): fmt_fixed(RIGHT[q][u - 1], 4) for q in QUANTITIES for u in (1, 2)}


def test_opens_unchecked_on_the_syllabus_budget():
    c = CheatSheetChapter()
    v = c.values()
    assert v["ch9.summary"] == "not checked yet" and v["ch9.tolerance"] == "0.0005"
    assert not any(k.startswith(("ch9.verdict", "ch9.answer")) for k in v)
    b = examples.chapter9_deployment()
    assert [find(c, f"gl-ch9-{k}").value for k in ("d", "n", "layers", "vocab", "tokens")] == \
        [256, 512, 2, 50_000, 10_000]
    assert (v["ch9.dep.state_bytes"], v["ch9.dep.kv_per_token"]) == ("4,096", "8,192")
    assert v["ch9.dep.kv_bytes"] == fmt_comma(b["kv_cache_bytes"]) and v["ch9.dep.kv_mb"] == "81.9"
    assert v["ch9.dep.rec_macs"] == fmt_comma(b["recurrent_macs_per_token"])
    assert v["ch9.dep.readout_macs"] == fmt_comma(b["readout_macs_per_token"])
    assert v["ch9.dep.error"] == ""
    assert shown(c) == v


def test_the_right_answer_typed_to_four_decimals_is_accepted():
    c = CheatSheetChapter()
    type_answers(c, all_right())
    click(c, "gl-ch9-check")
    v = c.values()
    assert v["ch9.summary"] == "8 of 8 correct"
    assert all(v[f"ch9.verdict.{q}{u}"] == "correct" for q in QUANTITIES for u in (1, 2))
    assert shown(c) == v


def test_a_wrong_answer_is_rejected_and_named():
    c = CheatSheetChapter()
    answers = all_right()
    answers[("h", 2)] = fmt_fixed(RIGHT["h"][1] + 0.03, 4)      # too high
    answers[("r", 1)] = fmt_fixed(RIGHT["r"][0] - 0.5, 4)       # far too low
    answers[("z", 2)] = ""                                      # left empty
    answers[("htilde", 1)] = "zero point five"
    type_answers(c, answers)
    click(c, "gl-ch9-check")
    v = c.values()
    assert v["ch9.summary"] == "4 of 8 correct"
    assert v["ch9.verdict.h2"].startswith("off: too high") and v["ch9.verdict.r1"].startswith("off: too low")
    assert v["ch9.verdict.z2"] == "missing" and v["ch9.verdict.htilde1"] == "not a number"
    assert v["ch9.verdict.z1"] == v["ch9.verdict.h1"] == "correct"
    for key, q, u in (("h2", "h", 2), ("r1", "r", 1)):
        assert fmt_fixed(RIGHT[q][u - 1], 4) not in v[f"ch9.verdict.{key}"]   # the answer is not given away
    want = examples.chapter9_check_self_test({f"{q}{u}": t for (q, u), t in answers.items()})
    assert all(v[f"ch9.verdict.{k}"] == e["message"] for k, e in want["verdicts"].items())
    assert shown(c) == v
    # corrected and checked again
    set_value(c, "gl-ch9-h-2", fmt_fixed(RIGHT["h"][1], 4))
    click(c, "gl-ch9-check")
    assert c.values()["ch9.verdict.h2"] == "correct" and c.values()["ch9.summary"] == "5 of 8 correct"


def test_show_the_answer():
    c = CheatSheetChapter()
    set_value(c, "gl-ch9-reveal", True)
    v = c.values()
    for q in QUANTITIES:
        for u in (1, 2):
            assert v[f"ch9.answer.{q}{u}"] == fmt_fixed(RIGHT[q][u - 1], 4)
    assert shown(c) == v
    set_value(c, "gl-ch9-reveal", False)
    assert not any(k.startswith("ch9.answer") for k in c.values()) and shown(c) == c.values()


def test_budget_inputs():
    c = CheatSheetChapter()
    for cls, value in (("gl-ch9-d", 128), ("gl-ch9-n", 64), ("gl-ch9-layers", 3), ("gl-ch9-vocab", 100),
                       ("gl-ch9-tokens", 7)):
        set_value(c, cls, value)
    v = c.values()
    rec = 3 * (64 * 128 + 64 * 64) + 2 * 3 * (2 * 64 * 64)
    assert v["ch9.dep.state_bytes"] == fmt_comma(3 * 64 * 4)                 # constant in the tokens
    assert v["ch9.dep.kv_per_token"] == fmt_comma(2 * 3 * 64 * 4)
    assert v["ch9.dep.kv_bytes"] == fmt_comma(7 * 2 * 3 * 64 * 4)
    assert v["ch9.dep.rec_macs"] == fmt_comma(rec) and v["ch9.dep.readout_macs"] == fmt_comma(64 * 100)
    assert v["ch9.dep.readout_params"] == fmt_comma(100 * 65) and v["ch9.dep.embedding_params"] == fmt_comma(12_800)
    assert shown(c) == v


@pytest.mark.parametrize("cls, bad, words", [("gl-ch9-n", None, "State width n is empty"),
                                             ("gl-ch9-d", 0, "d must be an integer >= 1"),
                                             ("gl-ch9-tokens", -5, "tokens must be an integer >= 0"),
                                             ("gl-ch9-layers", -1, "layers must be")])
def test_bad_budget_input_shows_a_message(cls, bad, words):
    c = CheatSheetChapter()
    set_value(c, cls, bad)
    v = c.values()
    assert words in v["ch9.dep.error"] and v["ch9.dep.state_bytes"] == "—" and "ch9.dep.kv_mb" not in v
    assert shown(c) == v
    set_value(c, cls, 4)
    assert c.values()["ch9.dep.error"] == "" and c.values()["ch9.dep.state_bytes"] != "—"


def test_typed_text_is_escaped():
    c = CheatSheetChapter()
    set_value(c, "gl-ch9-z-1", "<img src=x onerror=alert(1)>")
    click(c, "gl-ch9-check")
    assert c.values()["ch9.verdict.z1"] == "not a number" and shown(c) == c.values()


def test_each_failure_links_to_the_widget_that_shows_it():
    import re

    from gleam_lab import content
    html = content.render_html("9")
    table = html[html.index("The five failures"):html.index("Self-test")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)[1:]
    assert len(rows) == 5
    for row in rows:
        links = re.findall(r'<a href="\?chapter=(\d)">', row)
        assert links and all(c in content.chapter_ids() for c in links), row


def test_the_weights_the_self_test_needs_stand_beside_its_boxes():
    """Chapter 4 prints the input column for b; the self-test asks for input a, whose column was
    only in the prose far below: every number the step needs is beside the boxes, as gleam has it."""
    from gleam import examples
    c = CheatSheetChapter()
    c.__panel__()
    q, g = examples.chapter9_self_test(), examples.gru_hand_params()
    shown = find(c, "gl-ch9-weights").object
    for k in ("z", "r", "h"):
        assert [float(x) for x in c.values()[f"ch9.W{k}a"].strip("()").split(",")] == q["input_columns"][k]
        assert [float(x) for x in c.values()[f"ch9.b{k}"].strip("()").split(",")] == list(g["b" + k])
        rows = [[float(x) for x in r.strip(" ()").split(",")] for r in c.values()[f"ch9.U{k}"].split(";")]
        assert rows == g["U" + k].tolist()
        for key in (f"ch9.W{k}a", f"ch9.U{k}", f"ch9.b{k}"):
            assert f'data-key="{key}">{c.values()[key]}</span>' in shown
