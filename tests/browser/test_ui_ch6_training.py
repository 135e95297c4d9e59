"""Chapter 6 in the browser: the logit sliders and target, the temperature slider and the gradient
check, driven as a learner does (slider keys, clicks) and read back from the page, against
gleam.examples.chapter6_cross_entropy / chapter6_gradient_check computed here."""
import pytest

from gleam import examples
from helpers import assert_shown, parse_shown, wait_until

pytestmark = pytest.mark.ui

LOGITS = ("z0", "z1", "z2", "z3", "z4")
DEFAULT = examples.chapter6_cross_entropy()["logits"]


def open_ch6(lab):
    if lab.chapter_in_url() != "6" or lab.page.locator(".gl-ch6-z0").count() == 0:
        lab.show("6")


def target(lab):
    return lab.model_value("gl-ch6-target", "active")


def choose_target(lab, k):
    lab.click("gl-ch6-target", str(k))
    wait_until(lambda: target(lab) == k, page=lab.page, message=f"for target {k}")


def check_shown(lab, what):
    """Every cross-entropy and temperature number on the page is gleam's for the controls' exact values."""
    def equal():
        logits = [lab.model_value(f"gl-ch6-{name}") for name in LOGITS]
        T, t = lab.model_value("gl-ch6-temperature"), target(lab)
        e = examples.chapter6_cross_entropy(logits, t, (T,))
        for k in range(5):
            assert_shown(lab.text(f"ch6.z.{k}"), e["logits"][k], 1, f"{what}: z{k}")
            assert_shown(lab.text(f"ch6.p.{k}"), e["p"][k], 4, f"{what}: p{k}")
            assert_shown(lab.text(f"ch6.grad.{k}"), e["grad"][k], 4, f"{what}: grad{k}")
            assert_shown(lab.text(f"ch6.pT.{k}"), e["p_at_temperature"][0][k], 4, f"{what}: pT{k}")
        assert_shown(lab.text("ch6.loss_nats"), e["loss_nats"], 4, f"{what}: loss")
        assert_shown(lab.text("ch6.loss_bits"), e["loss_bits"], 2, f"{what}: bits")
        assert_shown(lab.text("ch6.p_target"), e["p_target"], 4, f"{what}: p_target")
        assert_shown(lab.text("ch6.grad_sum"), e["grad_sum"], 4, f"{what}: sum")
        assert_shown(lab.text("ch6.pT_target"), e["p_target_at_temperature"][0], 4, f"{what}: p_target at T")
        assert lab.text("ch6.target") == str(t)
        return e

    return wait_until(equal, page=lab.page, message=what)


def back_to_the_example(lab):
    for name, value in zip(LOGITS, DEFAULT):
        lab.set_slider(f"gl-ch6-{name}", value)
    lab.set_slider("gl-ch6-temperature", 1.0)
    if target(lab) != 0:
        choose_target(lab, 0)


def test_opens_on_the_syllabus_example(shared_lab):
    lab = shared_lab
    lab.show("6")
    assert [lab.model_value(f"gl-ch6-{name}") for name in LOGITS] == DEFAULT
    assert target(lab) == 0 and lab.model_value("gl-ch6-temperature") == 1.0
    e = check_shown(lab, "first view")
    assert round(e["p_target"], 4) == 0.5250 and round(e["loss_nats"], 4) == 0.6444
    assert lab.text("ch6.gc.status") in ("not run yet", "done")


def test_logit_sliders_and_target(shared_lab):
    lab = shared_lab
    open_ch6(lab)
    back_to_the_example(lab)
    before = lab.model_value("gl-ch6-z3")
    lab.slider_keys("gl-ch6-z3", *["ArrowRight"] * 20)          # z3: 0.3 -> 2.3, now the largest but one
    wait_until(lambda: lab.model_value("gl-ch6-z3") > before + 1.5, page=lab.page, message="for z3 to move")
    e = check_shown(lab, "z3 raised")
    choose_target(lab, 2)                                      # the least likely class
    e2 = check_shown(lab, "target 2")
    assert e2["loss_nats"] > e["loss_nats"] and parse_shown(lab.text("ch6.grad.2"))[0] < 0
    assert all(parse_shown(lab.text(f"ch6.grad.{k}"))[0] > 0 for k in (0, 1, 3, 4))
    back_to_the_example(lab)
    check_shown(lab, "back to the example")


def test_temperature(shared_lab):
    lab = shared_lab
    open_ch6(lab)
    back_to_the_example(lab)
    loss = lab.text("ch6.loss_nats")
    for T in (0.5, 2.0):
        lab.set_slider("gl-ch6-temperature", T)
        e = check_shown(lab, f"T = {T}")
        assert_shown(lab.text("ch6.T"), lab.model_value("gl-ch6-temperature"), 2, "T shown")
        assert lab.text("ch6.loss_nats") == loss                 # a decoding choice: the model's loss stays
    assert round(e["p_target_at_temperature"][0], 4) == 0.3580
    lab.set_slider("gl-ch6-temperature", 1.0)
    check_shown(lab, "T = 1")


def run_check(lab, cls):
    """Click a gradient-check button; returns the statuses seen until it says done."""
    seen = []

    def done():
        seen.append(lab.text("ch6.gc.status"))
        return seen[-1] == "done" and "running…" in seen

    lab.click(cls)
    wait_until(done, interval=0.05, page=lab.page, message=f"for {cls} to finish (seen {seen[-3:]})")
    return seen


def test_gradient_check(shared_lab):
    lab = shared_lab
    open_ch6(lab)
    want = examples.chapter6_gradient_check()
    run_check(lab, "gl-ch6-gc-run")
    assert lab.text("ch6.gc.verdict") == "correct"
    for name in want["names"] + ["all"]:
        shown = lab.text(f"ch6.gc.{name}")
        assert "×10" in shown and parse_shown(shown)[0] < 1e-7, (name, shown)   # ~1e-9: rounding only
        if lab.mode == "serve":                                  # the same CPython: the same rounding noise
            assert_shown(shown, want["errors"][name], what=name)
    assert parse_shown(lab.text("ch6.gc.time"))[0] > 0
    assert lab.text("ch6.gc.n_params") == f"{want['n_params']:,}"


def test_gradient_check_with_the_bug(shared_lab):
    lab = shared_lab
    open_ch6(lab)
    want = examples.chapter6_gradient_check(bug="assign")
    run_check(lab, "gl-ch6-gc-bug")
    assert lab.text("ch6.gc.verdict") == "wrong" and lab.text("ch6.gc.failing") == ", ".join(want["failing"])
    for name in ("Wy", "by", "all"):                             # far above the noise: the same in both modes
        assert_shown(lab.text(f"ch6.gc.{name}"), want["errors"][name], what=name)
    assert parse_shown(lab.text("ch6.gc.Uh"))[0] < 1e-7
    run_check(lab, "gl-ch6-gc-run")
    assert lab.text("ch6.gc.verdict") == "correct"
