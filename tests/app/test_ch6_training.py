"""Chapter 6 without a browser: logit sliders, target, temperature and the gradient check, read
from what the page shows. Expected softmax numbers are computed here with plain NumPy; the
gradient check's come from gleam.examples.chapter6_gradient_check."""
import asyncio

import numpy as np
import pytest

from gleam_lab.app.chapters.ch6_training import TrainingChapter
from gleam_lab.content import fmt_fixed, fmt_sci
from gleam import examples
from surface import click, figure_data, find, set_value, shown

LOGITS = ("z0", "z1", "z2", "z3", "z4")


def parse_shown(text):
    """'0.5250' or '3.45×10⁻⁹' -> (value,)."""
    mantissa, _, exponent = text.partition("×10")
    return (float(mantissa) * 10.0 ** int(exponent.translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")) or 0),)


def softmax(z, T=1.0):
    e = np.exp(np.asarray(z, dtype=float) / T)
    return e / e.sum()


def logits(c):
    return [find(c, f"gl-ch6-{name}").value for name in LOGITS]


def check_loss_part(c, z, target, T):
    v, p = c.values(), softmax(z)
    grad = p - np.eye(5)[target]
    for k in range(5):
        assert v[f"ch6.p.{k}"] == fmt_fixed(p[k], 4) and v[f"ch6.grad.{k}"] == fmt_fixed(grad[k], 4)
        assert v[f"ch6.pT.{k}"] == fmt_fixed(softmax(z, T)[k], 4)
        assert v[f"ch6.z.{k}"] == fmt_fixed(z[k], 1)
    assert v["ch6.loss_nats"] == fmt_fixed(-np.log(p[target]), 4)
    assert v["ch6.loss_bits"] == fmt_fixed(-np.log2(p[target]), 2)
    assert v["ch6.grad_sum"] == "0.0000" and v["ch6.target"] == str(target)
    assert v["ch6.pT_target"] == fmt_fixed(softmax(z, T)[target], 4)
    bars = figure_data(c, "gl-ch6-bars")
    assert np.allclose(bars["top"], list(p) + list(grad))
    # the gradient's bars: the target's negative, all the others positive
    assert [t < 0 for t in bars["top"][5:]] == [k == target for k in range(5)]
    assert len(set(bars["color"][5:])) == 2 and bars["color"][5 + target] != bars["color"][5 + (target + 1) % 5]
    assert np.allclose(figure_data(c, "gl-ch6-temp-bars")["top"], list(p) + list(softmax(z, T)))
    assert shown(c) == v


def test_opens_on_the_syllabus_example():
    c = TrainingChapter()
    e = examples.chapter6_cross_entropy()
    assert logits(c) == e["logits"] == [2.0, 0.5, -1.0, 0.3, 1.2]
    assert find(c, "gl-ch6-target").value == 0 and find(c, "gl-ch6-temperature").value == 1.0
    v = c.values()
    assert (v["ch6.p_target"], v["ch6.loss_nats"], v["ch6.loss_bits"]) == \
        (fmt_fixed(e["p_target"], 4), fmt_fixed(e["loss_nats"], 4), fmt_fixed(e["loss_bits"], 2))
    assert (v["ch6.p_target"], v["ch6.loss_nats"], v["ch6.uniform"]) == ("0.5250", "0.6444", "1.6094")
    check_loss_part(c, e["logits"], 0, 1.0)
    assert v["ch6.gc.status"] == "not run yet" and "ch6.gc.all" not in v


def test_sliders_and_target_move_everything():
    c = TrainingChapter()
    set_value(c, "gl-ch6-z2", 3.1)
    set_value(c, "gl-ch6-z0", -4.0)
    set_value(c, "gl-ch6-target", 2)
    check_loss_part(c, logits(c), 2, 1.0)
    set_value(c, "gl-ch6-target", 4)
    check_loss_part(c, logits(c), 4, 1.0)


@pytest.mark.parametrize("T, shown_p", [(0.5, "0.7767"), (1.0, "0.5250"), (2.0, "0.3580")])
def test_temperature_is_a_decoding_choice(T, shown_p):
    c = TrainingChapter()
    before = {k: v for k, v in c.values().items() if not k.startswith(("ch6.pT", "ch6.T"))}
    set_value(c, "gl-ch6-temperature", T)
    v = c.values()
    assert v["ch6.pT_target"] == shown_p == fmt_fixed(examples.chapter6_cross_entropy(temperatures=(T,))
                                                      ["p_target_at_temperature"][0], 4)
    assert v["ch6.T"] == fmt_fixed(T, 2)
    # the model's own numbers do not move with T
    assert {k: x for k, x in v.items() if k in before} == before
    check_loss_part(c, logits(c), 0, T)


def test_temperature_extremes_sharpen_and_flatten():
    c = TrainingChapter()
    set_value(c, "gl-ch6-temperature", 0.1)
    assert parse_shown(c.values()["ch6.pT_target"])[0] > 0.99
    set_value(c, "gl-ch6-temperature", 3.0)
    check_loss_part(c, logits(c), 0, 3.0)
    assert parse_shown(c.values()["ch6.pT_target"])[0] < parse_shown(c.values()["ch6.p_target"])[0]


def test_gradient_check_as_written():
    c = TrainingChapter()
    click(c, "gl-ch6-gc-run")
    v, want = c.values(), examples.chapter6_gradient_check()
    assert v["ch6.gc.status"] == "done" and v["ch6.gc.verdict"] == "correct"
    assert float(v["ch6.gc.time"]) > 0
    for name in want["names"] + ["all"]:
        assert parse_shown(v[f"ch6.gc.{name}"])[0] < 1e-7
        assert v[f"ch6.gc.{name}"] == fmt_sci(want["errors"][name], text=True)
    assert v["ch6.gc.worst"] == want["worst"] and v["ch6.gc.n_params"] == f"{want['n_params']:,}"
    assert shown(c) == v


def test_gradient_check_with_the_bug():
    c = TrainingChapter()
    click(c, "gl-ch6-gc-bug")
    v, want = c.values(), examples.chapter6_gradient_check(bug="assign")
    assert v["ch6.gc.verdict"] == "wrong" and v["ch6.gc.failing"] == "Wy, by"
    assert parse_shown(v["ch6.gc.Wy"])[0] > 0.1 and parse_shown(v["ch6.gc.Wz"])[0] < 1e-7
    for name in want["names"] + ["all"]:
        assert v[f"ch6.gc.{name}"] == fmt_sci(want["errors"][name], text=True)
    assert shown(c) == v
    click(c, "gl-ch6-gc-run")                     # and back to the backward pass as written
    assert c.values()["ch6.gc.verdict"] == "correct" and "ch6.gc.failing" not in c.values()


def test_gradient_check_says_running_first_when_it_can_wait():
    c = TrainingChapter()
    seen = []

    async def run():
        click(c, "gl-ch6-gc-run")
        for _ in range(200):
            seen.append(c.values()["ch6.gc.status"])
            if seen[-1] == "done":
                return
            await asyncio.sleep(0.01)

    asyncio.run(run())
    assert "running…" in seen and seen[-1] == "done"
    assert c.values()["ch6.gc.verdict"] == "correct" and shown(c) == c.values()


def test_fmt_error():
    assert fmt_sci(3.4469e-09, text=True) == "3.45×10⁻⁹" and fmt_sci(0.836, text=True) == "8.36×10⁻¹" and fmt_sci(0, text=True) == "0"
    assert fmt_sci(1e-6, 1, text=True) == "1×10⁻⁶" and fmt_sci(1e-9, text=True) == "1.00×10⁻⁹"
    assert parse_shown(fmt_sci(1.47e-10, text=True))[0] == pytest.approx(1.47e-10)
