"""The memory lab's carry challenge without a browser: presets and sliders through the chapter's
controls, every number of the table gleam's (gleam.labs.memory.carry at the sliders' values), the verdict
computed from the table, and the trajectories the reference draws' first trials."""
import math

import numpy as np
import pytest
from bokeh.models import GlyphRenderer

from gleam_lab.app.chapters.memory_lab import COLUMNS, PATHS, MemoryLabChapter
from gleam_lab.content import fmt_fixed
from gleam.labs.memory import carry as memory
from surface import click, figure, find, set_value, shown

SLIDERS = ("delay", "noise_sd", "gated_carry", "gated_admission", "elman_carry", "elman_admission")


def sliders(c):
    return {name: find(c, f"gl-chmemory-{c.url_controls()[name]}").value for name in SLIDERS}


def expected(s):
    rows = memory.carry_challenge(s["delay"], s["noise_sd"], s["gated_carry"], s["gated_admission"],
                                  s["elman_carry"], s["elman_admission"], trials=5000, seed=46)
    out = {}
    for r in rows:
        for key, _, decimals in COLUMNS:
            out[f"memory.{r['architecture']}.{key}"] = (
                "never halves" if r[key] == math.inf else fmt_fixed(r[key], decimals))
    return rows, out


def check(c):
    rows, want = expected(sliders(c))
    v = c.values()
    assert {k: v[k] for k in want} == want and v["memory.error"] == ""
    assert shown(c) == v
    return {r["architecture"]: r for r in rows}


def test_opens_on_the_long_noisy_delay_and_the_gated_paths_keep_the_cue():
    c = MemoryLabChapter()
    p = memory.PRESETS["long noisy delay"]
    assert sliders(c) == {"delay": p.delay, "noise_sd": p.noise_sd, "gated_carry": p.gated_carry,
                          "gated_admission": p.gated_admission, "elman_carry": p.elman_carry,
                          "elman_admission": p.elman_admission}
    rows = check(c)
    assert rows["gru"]["accuracy"] >= 0.99 and rows["elman"]["accuracy"] < 0.6
    assert c.values()["memory.verdict"].startswith("The gated paths keep the cue")
    assert c.values()["memory.lstm.half_life"] == c.values()["memory.gru.half_life"] == "68.97"
    assert set(PATHS) == set(rows)


@pytest.mark.parametrize("cls, preset, verdict", [
    ("gl-chmemory-control", "negative control", "Every path passes"),
    ("gl-chmemory-misgated", "misgated", "Every path is at chance"),
    ("gl-chmemory-long", "long noisy delay", "The gated paths keep the cue")])
def test_presets_set_the_sliders_and_the_table(cls, preset, verdict):
    c = MemoryLabChapter()
    if preset == "long noisy delay":
        click(c, "gl-chmemory-control")
    click(c, cls)
    p = memory.PRESETS[preset]
    assert sliders(c)["delay"] == p.delay and sliders(c)["gated_carry"] == p.gated_carry
    assert sliders(c)["noise_sd"] == p.noise_sd
    check(c)
    assert c.values()["memory.verdict"].startswith(verdict)


@pytest.mark.parametrize("moves", [{"gated_carry": 0.9}, {"delay": 10, "noise_sd": 0.5},
                                   {"elman_carry": 1.0, "elman_admission": 0.0}, {"gated_carry": 1.0},
                                   {"delay": 0}])
def test_sliders_change_every_number_to_gleams(moves):
    c = MemoryLabChapter()
    for name, value in moves.items():
        set_value(c, f"gl-chmemory-{c.url_controls()[name]}", value)
    check(c)
    if moves.get("gated_carry") == 1.0:
        assert c.values()["memory.gru.half_life"] == "never halves"


def test_the_trajectories_are_the_first_trials_of_each_cue():
    c = MemoryLabChapter()
    set_value(c, "gl-chmemory-delay", 12)
    cues, noise = memory.draws(12, 0.35, 5000, 46)
    plus = [i for i in range(5000) if cues[i] > 0][:2]
    minus = [i for i in range(5000) if cues[i] < 0][:2]
    for arch, carry, admission in (("elman", 0.90, 0.12), ("gru", 0.99, 0.02)):
        lines = [r.data_source.data for r in figure(c, f"gl-chmemory-path-{arch}").renderers
                 if isinstance(r, GlyphRenderer)]
        xs, ys = [d["x"] for d in lines], [d["y"] for d in lines]
        for k, trial in enumerate(plus + minus):
            h = [math.tanh(cues[trial])]                    # by hand: the update rule, step by step
            for x in noise[:, trial]:
                h.append(math.tanh(carry * h[-1] + admission * x) if arch == "elman"
                         else carry * h[-1] + admission * math.tanh(x))
            assert list(xs[k]) == list(range(13)) and np.allclose(ys[k], h, rtol=0, atol=1e-15)
        assert ys[0][0] == pytest.approx(math.tanh(1)) and ys[2][0] == pytest.approx(math.tanh(-1))


def test_sessions_do_not_share_state():
    a, b = MemoryLabChapter(), MemoryLabChapter()
    click(a, "gl-chmemory-control")
    assert sliders(b)["delay"] == 64 and b.values()["memory.verdict"].startswith("The gated paths")
