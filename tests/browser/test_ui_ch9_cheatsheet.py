"""Chapter 9 in the browser: the self-test typed into its eight boxes and checked (the right answer
accepted, a wrong one named), the answer revealed, and the deployment budget's boxes, against
gleam.examples.chapter9_self_test / chapter9_check_self_test / chapter9_deployment computed here."""
import pytest

from gleam_lab.content import fmt_fixed
from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

ENTRIES = [(key, q, u, field) for key, q, u, field in examples.SELF_TEST_ENTRIES]
TASK = examples.chapter9_self_test()
INPUTS = {"d": 256, "n": 512, "layers": 2, "vocab": 50_000, "tokens": 10_000}
BUDGET = {"state_bytes": "state_bytes", "kv_per_token": "kv_cache_bytes_per_token", "kv_bytes": "kv_cache_bytes",
          "rec_macs": "recurrent_macs_per_token", "readout_macs": "readout_macs_per_token",
          "rec_params": "recurrent_params", "readout_params": "readout_params", "embedding_params": "embedding_params"}


def open_ch9(lab):
    if lab.chapter_in_url() != "9" or lab.page.locator(".gl-ch9-z-1").count() == 0:
        lab.show("9")


def right(key, q, u, field):
    return fmt_fixed(TASK[field][u - 1], 4)         # as a learner types it: four decimals


def type_and_check(lab, answers):
    for key, q, u, _ in ENTRIES:
        lab.fill(f"gl-ch9-{q}-{u}", answers[key])
    wait_until(lambda: all(lab.model_value(f"gl-ch9-{q}-{u}") == answers[key] for key, q, u, _ in ENTRIES),
               page=lab.page, message="for the typed answers to arrive")
    want = examples.chapter9_check_self_test(answers)
    summary = f"{want['n_correct']} of {want['n_entries']} correct"
    lab.click("gl-ch9-check")

    def verdicts():
        assert lab.text("ch9.summary") == summary
        for key, e in want["verdicts"].items():
            assert lab.text(f"ch9.verdict.{key}") == e["message"], key

    wait_until(verdicts, page=lab.page, message="for the verdicts")
    return want


def test_the_right_answer_is_accepted(shared_lab):
    lab = shared_lab
    lab.show("9")
    assert lab.text("ch9.tolerance") == fmt_fixed(examples.SELF_TEST_TOLERANCE, 4)
    want = type_and_check(lab, {e[0]: right(*e) for e in ENTRIES})
    assert want["all_correct"] and lab.text("ch9.summary") == "8 of 8 correct"


def test_a_wrong_answer_is_rejected_and_named(shared_lab):
    lab = shared_lab
    open_ch9(lab)
    answers = {e[0]: right(*e) for e in ENTRIES}
    answers["h2"] = fmt_fixed(TASK["h"][1] + 0.03, 4)          # too high, by a few hundredths
    answers["r1"] = ""                                         # left empty
    answers["z2"] = "0.5a"                                     # a typo
    want = type_and_check(lab, answers)
    assert want["off"] == ["h2"] and want["missing"] == ["r1"] and want["not a number"] == ["z2"]
    assert lab.text("ch9.verdict.h2").startswith("off: too high")
    assert fmt_fixed(TASK["h"][1], 4) not in lab.text("ch9.verdict.h2")
    assert lab.text("ch9.verdict.r1") == "missing" and lab.text("ch9.verdict.z2") == "not a number"
    assert lab.text("ch9.summary") == "5 of 8 correct"
    # corrected, and checked again
    answers.update(h2=right("h2", "h", 2, "h"), r1=right("r1", "r", 1, "r"), z2=right("z2", "z", 2, "z"))
    type_and_check(lab, answers)
    assert lab.text("ch9.summary") == "8 of 8 correct"


def test_show_the_answer(shared_lab):
    lab = shared_lab
    open_ch9(lab)
    if lab.model_value("gl-ch9-reveal") is not True:
        lab.click("gl-ch9-reveal")
    for key, q, u, field in ENTRIES:
        wait_until(lambda: lab.gv_locator(f"ch9.answer.{key}").count() == 1, page=lab.page)
        assert_shown(lab.text(f"ch9.answer.{key}"), TASK[field][u - 1], 4, key)
    lab.click("gl-ch9-reveal")
    wait_until(lambda: lab.gv_locator("ch9.answer.z1").count() == 0, page=lab.page, message="answers hidden")


def set_inputs(lab, values):
    for name, value in values.items():
        lab.fill(f"gl-ch9-{name}", str(value), selector="input")


def check_budget(lab, inputs):
    b = examples.chapter9_deployment(**inputs)

    def equal():
        for key, field in BUDGET.items():
            assert_shown(lab.text(f"ch9.dep.{key}"), b[field], 0, key)
        assert_shown(lab.text("ch9.dep.kv_mb"), b["kv_cache_megabytes"], 1, "MB")
        assert_shown(lab.text("ch9.dep.readout_ratio"), b["readout_over_recurrent_macs"], what="ratio")
        assert lab.text("ch9.dep.error") == ""

    wait_until(equal, page=lab.page, message=f"budget for {inputs}")


def test_deployment_budget(shared_lab):
    lab = shared_lab
    open_ch9(lab)
    set_inputs(lab, INPUTS)
    check_budget(lab, INPUTS)
    changed = {"d": 64, "n": 1024, "layers": 3, "vocab": 100, "tokens": 2500}
    set_inputs(lab, changed)
    wait_until(lambda: all(lab.model_value(f"gl-ch9-{k}") == v for k, v in changed.items()), page=lab.page)
    check_budget(lab, changed)
    set_inputs(lab, INPUTS)
    check_budget(lab, INPUTS)


@pytest.mark.parametrize("name, bad, words", [("n", "", "State width n is empty"),
                                              ("d", "0", "d must be an integer >= 1")])
def test_bad_budget_input_shows_a_message(shared_lab, name, bad, words):
    lab = shared_lab
    open_ch9(lab)
    set_inputs(lab, {name: bad})
    lab.wait_text("ch9.dep.error", lambda t: words in t, what=f"a message containing {words!r}")
    assert lab.text("ch9.dep.state_bytes") == "—"
    set_inputs(lab, {name: INPUTS[name]})
    check_budget(lab, INPUTS)


def test_the_failures_link_to_their_widgets(shared_lab):
    lab = shared_lab
    open_ch9(lab)
    for chapter in ("2", "3", "4", "6", "7"):
        assert lab.page.locator(f'.gl-prose a[href="?chapter={chapter}"]').count() >= 1, chapter


def test_the_weights_of_input_a_stand_beside_the_boxes(shared_lab):
    """The self-test asks for chapter 4's cell on input a: every weight it needs is on screen with
    the boxes (the column for a was only in the prose, far below), as gleam has it."""
    lab = shared_lab
    open_ch9(lab)
    q, g = examples.chapter9_self_test(), examples.gru_hand_params()
    table = lab.page.locator(".gl-ch9-weights").first
    wait_until(table.is_visible, page=lab.page, message="for the weights beside the self-test")
    vec = lambda v: "(" + ", ".join(fmt_fixed(x, 1) for x in v) + ")"      # noqa: E731
    for k in ("z", "r", "h"):
        assert lab.text(f"ch9.W{k}a") == vec(q["input_columns"][k])
        assert lab.text(f"ch9.b{k}") == vec(g["b" + k])
        assert lab.text(f"ch9.U{k}") == "; ".join(vec(r) for r in g["U" + k])
    box, first = table.bounding_box(), lab.page.locator(".gl-ch9-z-1 input").bounding_box()
    assert box["y"] + box["height"] <= first["y"] + 1, "the weights are not above the boxes they serve"
    assert first["y"] - (box["y"] + box["height"]) < 200, "the weights are far from the boxes"
