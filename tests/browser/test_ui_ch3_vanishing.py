"""Chapter 3 in the browser: the ρ and γ sliders move the bound, the regime and (once ρ comes to
rest: each key press) the measured decay; the clipping sliders rescale the gradient (and a norm
below its own entries is refused with a message). Every number is checked against gleam.examples
at the sliders' exact values."""

from urllib.parse import parse_qs, urlsplit

import pytest

from gleam import examples
from helpers import assert_shown, wait_until

pytestmark = pytest.mark.ui

DEFAULTS = {"rho": 0.9, "gamma": 0.5, "threshold": 5.0, "g1": 12.0, "g2": -0.4, "norm": 47.3}


def open_ch3(lab):
    if lab.chapter_in_url() != "3" or lab.page.locator(".gl-ch3-rho").count() == 0:
        lab.show("3")


def value(lab, name):
    return lab.model_value(f"gl-ch3-{name}")


def expected_phase(rho, gamma):
    """key -> gleam's value for every ch3 number of the first widget."""
    b, m = examples.chapter3_bound_curve(rho, gamma), examples.chapter3_decay_curve(rho)
    out = {"ch3.product": (b["product"], 4), "ch3.bound20": (b["bound_at"], None)}
    for s, x, a in zip(m["read_at"], m["log10_norm_at"], m["log10_rho_power_at"]):
        out[f"ch3.decay.{s}"], out[f"ch3.alone.{s}"] = (x, 2), (a, 2)
    return out, b["regime"]


def check_phase(lab, what):
    rho, gamma = value(lab, "rho"), value(lab, "gamma")
    want, regime = expected_phase(rho, gamma)

    def shown_equal():
        for key, (x, decimals) in want.items():
            assert_shown(lab.text(key), x, decimals, f"{what} (ρ = {rho}, γ = {gamma}): {key}")
        assert lab.text("ch3.regime") == regime, f"{what}: regime"

    wait_until(shown_equal, page=lab.page, message=what)
    return regime


def check_clip(lab, what):
    norm, c, g = value(lab, "norm"), value(lab, "threshold"), (value(lab, "g1"), value(lab, "g2"))
    r = examples.chapter3_clipping(norm, c, g)
    want = {"ch3.clip.norm": (r["pre_clip_norm"], 2), "ch3.clip.scale": (r["scale"], 4),
            "ch3.clip.post": (r["post_clip_norm"], 4), "ch3.clip.cos": (r["cosine_before_after"], 4),
            "ch3.clip.before.0": (g[0], 1), "ch3.clip.before.1": (g[1], 1),
            "ch3.clip.after.0": (r["clipped_components"][0], 4), "ch3.clip.after.1": (r["clipped_components"][1], 4)}

    def shown_equal():
        for key, (x, decimals) in want.items():
            assert_shown(lab.text(key), x, decimals, f"{what}: {key}")
        assert lab.text("ch3.clip.error") == ""

    wait_until(shown_equal, page=lab.page, message=what)
    return r


def to_defaults(lab):
    for name, target in DEFAULTS.items():
        if abs(value(lab, name) - target) > 1e-9:
            lab.set_slider(f"gl-ch3-{name}", target)


def test_opens_on_the_syllabus_example(shared_lab):
    lab = shared_lab
    open_ch3(lab)
    to_defaults(lab)
    assert check_phase(lab, "first view") == "vanishing"
    # the syllabus's per-step factor 0.45 and its 20-step bound, float32's noise floor
    assert_shown(lab.text("ch3.product"), 0.45, 4, "product")
    assert lab.text("ch3.bound20") == "1.16×10⁻⁷"
    assert_shown(lab.text("ch3.eps"), examples.chapter3_vanishing()["float32_epsilon"], what="float32 ε")
    r = check_clip(lab, "first view")
    assert r["clipped"] and lab.text("ch3.clip.scale") == "0.1057"


def test_rho_and_gamma_sliders(shared_lab):
    lab = shared_lab
    open_ch3(lab)
    to_defaults(lab)
    lab.set_slider("gl-ch3-rho", 1.5)                     # the syllabus's saturation case
    check_phase(lab, "ρ = 1.5")
    assert abs(lab.number("ch3.decay.50")) < 1.0 < lab.number("ch3.alone.50")
    lab.slider_keys("gl-ch3-gamma", *["ArrowLeft"] * 3)
    wait_until(lambda: abs(value(lab, "gamma") - 0.47) < 1e-6, page=lab.page, message="for γ = 0.47")
    check_phase(lab, "γ lowered")
    lab.set_slider("gl-ch3-rho", 2.0)
    lab.set_slider("gl-ch3-gamma", 0.5)
    assert check_phase(lab, "γρ = 1") == "critical"
    lab.set_slider("gl-ch3-gamma", 0.75)
    assert check_phase(lab, "γρ = 1.5") == "exploding"
    lab.slider_keys("gl-ch3-rho", "Home")           # ρ = 0: W_h = 0, nothing survives one step
    wait_until(lambda: value(lab, "rho") == 0.0, page=lab.page, message="for ρ = 0")
    lab.wait_text("ch3.decay.5", lambda t: t == "−∞", what="−∞ at ρ = 0")
    assert lab.text("ch3.bound20") == "0" and lab.text("ch3.regime") == "vanishing"
    to_defaults(lab)
    check_phase(lab, "back to the defaults")


def test_clipping_sliders(shared_lab):
    lab = shared_lab
    open_ch3(lab)
    to_defaults(lab)
    lab.slider_keys("gl-ch3-threshold", *["PageUp"] * 4)        # c: 5.0 -> 7.0
    wait_until(lambda: abs(value(lab, "threshold") - 7.0) < 1e-6, page=lab.page, message="for c = 7")
    r = check_clip(lab, "c = 7")
    assert abs(r["scale"] - 7.0 / 47.3) < 1e-12
    lab.slider_keys("gl-ch3-g1", *["PageDown"] * 6)             # g1: 12.0 -> 9.0
    lab.slider_keys("gl-ch3-g2", *["PageUp"] * 10)              # g2: -0.4 -> 4.6
    wait_until(lambda: abs(value(lab, "g2") - 4.6) < 1e-6 and abs(value(lab, "g1") - 9.0) < 1e-6,
               page=lab.page, message="for g = (9.0, 4.6)")
    check_clip(lab, "g = (9.0, 4.6)")
    assert lab.text("ch3.clip.cos") == "1.0000"
    lab.slider_keys("gl-ch3-threshold", "End")                  # c = 60 > ‖g‖: passes unchanged
    wait_until(lambda: value(lab, "threshold") == 60.0, page=lab.page, message="for c = 60")
    r = check_clip(lab, "c = 60")
    assert r["scale"] == 1.0 and lab.text("ch3.clip.scale") == "1.0000"
    lab.slider_keys("gl-ch3-norm", "Home")                      # ‖g‖ = 0.5 < the entries' own length
    msg = lab.wait_text("ch3.clip.error", lambda t: "cannot be smaller" in t, what="a refusal message")
    assert msg.startswith("Not clipped") and lab.text("ch3.clip.scale") == "—"
    to_defaults(lab)
    check_clip(lab, "back to the defaults")
    assert lab.text("ch3.clip.error") == ""


def test_dragging_rho_updates_the_measured_curve_on_release(shared_lab):
    lab = shared_lab
    open_ch3(lab)
    to_defaults(lab)
    handle = lab.page.locator(".gl-ch3-rho .noUi-handle")
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    lab.page.mouse.move(x, y)
    lab.page.mouse.down()
    for dx in range(10, 90, 10):                    # a drag to the right, in steps
        lab.page.mouse.move(x + dx, y)
    lab.page.mouse.up()
    wait_until(lambda: value(lab, "rho") > 1.0, page=lab.page, message="for ρ to move right")
    check_phase(lab, "after a drag")                # bound and measured curve at the released ρ
    to_defaults(lab)


def test_a_screen_reader_reads_the_sliders_exact_value(shared_lab):
    """noUiSlider writes aria-valuenow with one decimal (ρ 1.25 was read as 1.3, 0.05 as 0.1): the
    handle carries the model's value instead, at every key."""
    lab = shared_lab
    open_ch3(lab)
    handle = lab.page.locator(".gl-ch3-rho .noUi-handle")
    lab.slider_keys("gl-ch3-rho", "Home")
    wait_until(lambda: value(lab, "rho") == 0.0, page=lab.page, message="for ρ = 0")
    reached = []
    for key in ["ArrowRight"] * 3 + ["PageUp"] * 2 + ["End", "PageDown", "PageDown"]:
        before = value(lab, "rho")
        lab.slider_keys("gl-ch3-rho", key)
        wait_until(lambda: value(lab, "rho") != before, page=lab.page, message=f"for {key} to move ρ")
        rho = float(value(lab, "rho"))
        reached.append(rho)
        wait_until(lambda: abs(float(handle.get_attribute("aria-valuenow")) - rho) < 1e-9
                   and abs(float(handle.get_attribute("aria-valuetext")) - rho) < 1e-9,
                   page=lab.page, message=f"for aria-valuenow to read ρ = {rho!r}")
        # the link carries the step's grid point (ρ steps by 0.05), not a float sum's error
        on_grid = repr(round(rho, 2))
        wait_until(lambda: parse_qs(urlsplit(lab.page.url).query).get("rho") == [on_grid],
                   page=lab.page, message=f"for the URL to read rho={on_grid} (ρ = {rho!r})")
    assert any(rho != round(rho, 2) for rho in reached), reached   # a value the rounding is for
    lab.click("gl-ch3-defaults")
    wait_until(lambda: value(lab, "rho") == DEFAULTS["rho"], page=lab.page, message="for Reset to defaults")
