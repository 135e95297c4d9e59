"""The memory lab's carry challenge in the browser: presets clicked and sliders moved by keyboard;
every number of the table is gleam's (gleam.memory.carry_challenge at the sliders' exact values,
5,000 trials, seed 46), and the verdict under it is the one its numbers call for."""
import math

import pytest

from content import fmt_fixed
from gleam import memory
from helpers import wait_until

pytestmark = pytest.mark.ui

SLIDERS = {"delay": "delay", "noise_sd": "noise", "gated_carry": "gc", "gated_admission": "ga",
           "elman_carry": "rc", "elman_admission": "ra"}
COLUMNS = [("accuracy", 3), ("mean_margin", 3), ("median_abs_grad", 6), ("carry", 3), ("half_life", 2)]


def open_memory(lab):
    if lab.chapter_in_url() != "memory" or lab.page.locator(".gl-chmemory-gc").count() == 0:
        lab.show("memory")


def sliders(lab):
    return {name: lab.model_value(f"gl-chmemory-{key}") for name, key in SLIDERS.items()}


def check_table(lab, what):
    """Every number of the table equals gleam's at the sliders' values (waits for the page)."""
    def equal():
        s = sliders(lab)
        rows = memory.carry_challenge(s["delay"], s["noise_sd"], s["gated_carry"], s["gated_admission"],
                                      s["elman_carry"], s["elman_admission"], trials=5000, seed=46)
        shown = lab.shown_values()
        for r in rows:
            for key, decimals in COLUMNS:
                want = "never halves" if r[key] == math.inf else fmt_fixed(r[key], decimals)
                got = shown.get(f"memory.{r['architecture']}.{key}")
                assert got == want, f"{what}: {r['architecture']} {key} shows {got!r}, gleam {want!r}"
        assert shown.get("memory.error") in ("", None)
        return {r["architecture"]: r for r in rows}
    return wait_until(equal, page=lab.page, message=what)


def preset(lab, cls, name):
    lab.click(cls)
    p = memory.PRESETS[name]
    wait_until(lambda: sliders(lab)["delay"] == p.delay and sliders(lab)["gated_carry"] == p.gated_carry,
               page=lab.page, message=f"for {cls} to set the sliders")


def test_the_presets_show_the_reference_table_and_their_verdicts(shared_lab):
    lab = shared_lab
    open_memory(lab)
    preset(lab, "gl-chmemory-control", "negative control")
    check_table(lab, "negative control")
    assert lab.text("memory.verdict").startswith("Every path passes")
    preset(lab, "gl-chmemory-misgated", "misgated")
    check_table(lab, "misgated")
    preset(lab, "gl-chmemory-long", "long noisy delay")
    rows = check_table(lab, "long noisy delay")
    assert rows["gru"]["accuracy"] >= 0.99 and rows["elman"]["accuracy"] < 0.6
    assert lab.text("memory.verdict").startswith("The gated paths keep the cue")
    assert (lab.text("memory.trials"), lab.text("memory.seed")) == ("5,000", "46")


@pytest.mark.parametrize("key, keys", [("gc", ("ArrowLeft",) * 9), ("delay", ("PageDown",) * 2),
                                       ("ra", ("End",))])
def test_sliders_move_the_table_to_gleams(shared_lab, key, keys):
    lab = shared_lab
    open_memory(lab)
    preset(lab, "gl-chmemory-long", "long noisy delay")
    before = lab.model_value(f"gl-chmemory-{key}")
    lab.slider_keys(f"gl-chmemory-{key}", *keys)
    wait_until(lambda: abs(lab.model_value(f"gl-chmemory-{key}") - before) > 1e-9, page=lab.page,
               message=f"for {key} to move")
    check_table(lab, f"{key} moved to {lab.model_value(f'gl-chmemory-{key}')}")
