"""Chapter 4 without a browser: the gate sliders, the presets and the convention toggle.

The expected numbers are computed here independently (the GRU written out on the hand example's
weights with the gates given), not by the chapter's own gleam call."""
import numpy as np

from gleam_lab.app.chapters.ch4_gru import GRUChapter
from gleam_lab.content import fmt_gate
from gleam import examples
from surface import click, find, set_value, shown


def _textbook(z, r):
    """Independent textbook GRU step on the hand example with gates z, r given."""
    p, x, h = examples.gru_hand_params(), np.array([0.0, 1.0, 0.0]), np.array([0.5, -0.2])
    cand = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])
    return cand, (1 - z) * h + z * cand


def _torch(z, r):
    p, x, h = examples.gru_hand_params_torch(), np.array([0.0, 1.0, 0.0]), np.array([0.5, -0.2])
    n = np.tanh(p["W_ih"][4:] @ x + p["b_ih"][4:] + r * (p["W_hh"][4:] @ h + p["b_hh"][4:]))
    return n, (1 - z) * n + z * h


def slider(c, name):
    return find(c, f"gl-ch4-{name}").value


def test_opens_on_the_hand_example():
    c = GRUChapter()
    v = c.values()
    e = examples.chapter4_gru_hand_example()
    for i in range(2):
        assert v[f"ch4.z.{i}"] == fmt_gate(e["z"][i]) and v[f"ch4.h.{i}"] == fmt_gate(e["h"][i])
        assert v[f"ch4.htilde.{i}"] == fmt_gate(e["candidate"][i])
        assert v[f"ch4.keep20.{i}"] == fmt_gate(e["carry_multiplier_20"][i])
    assert (v["ch4.h.0"], v["ch4.h.1"]) == ("0.5508", "-0.0306")
    assert shown(c) == v
    assert (slider(c, "z1"), slider(c, "r2")) == (e["z"][0], e["r"][1])


def test_sliders_pin_gates():
    c = GRUChapter()
    set_value(c, "gl-ch4-z1", 0.2)
    set_value(c, "gl-ch4-r2", 0.1)
    z, r = np.array([0.2, slider(c, "z2")]), np.array([slider(c, "r1"), 0.1])
    cand, h = _textbook(z, r)
    v = c.values()
    assert v["ch4.z.0"] == "0.2000" and v["ch4.r.1"] == "0.1000"
    for i in range(2):
        assert v[f"ch4.htilde.{i}"] == fmt_gate(cand[i])
        assert v[f"ch4.h.{i}"] == fmt_gate(h[i])
        assert v[f"ch4.keep.{i}"] == fmt_gate(1 - z[i])
        assert v[f"ch4.keep20.{i}"] == fmt_gate((1 - z[i]) ** 20)
    assert shown(c) == v


def test_presets():
    c = GRUChapter()
    click(c, "gl-ch4-preset-hold")
    v = c.values()
    assert (v["ch4.z.0"], v["ch4.z.1"]) == ("1.0000", "0.0000")
    assert v["ch4.h.0"] == v["ch4.htilde.0"] and v["ch4.h.1"] == "-0.2000"   # writes / holds
    assert (slider(c, "z1"), slider(c, "z2")) == (1.0, 0.0)
    click(c, "gl-ch4-preset-hand")
    assert c.values()["ch4.h.0"] == "0.5508"


def test_convention_toggle_changes_the_numbers():
    c = GRUChapter()
    textbook = c.values()
    set_value(c, "gl-ch4-convention", "PyTorch")
    v = c.values()
    t = examples.chapter4_gru_hand_example("torch")
    assert v["ch4.z.0"] == textbook["ch4.z.0"]                   # same weights, same gates
    assert v["ch4.h.0"] != textbook["ch4.h.0"] and v["ch4.htilde.0"] != textbook["ch4.htilde.0"]
    for i in range(2):
        assert v[f"ch4.h.{i}"] == fmt_gate(t["h"][i])
        assert v[f"ch4.keep.{i}"] == fmt_gate(t["z"][i])        # z keeps under PyTorch's convention
    set_value(c, "gl-ch4-z1", 0.3)
    set_value(c, "gl-ch4-r1", 0.0)
    z, r = np.array([0.3, slider(c, "z2")]), np.array([0.0, slider(c, "r2")])
    n, h = _torch(z, r)
    assert c.values()["ch4.h.0"] == fmt_gate(h[0]) and c.values()["ch4.htilde.1"] == fmt_gate(n[1])
    click(c, "gl-ch4-preset-hold")                                # writing is z = 0 here
    assert c.values()["ch4.h.1"] == "-0.2000"
    assert shown(c) == c.values()


def test_a_preset_keeps_its_meaning_across_conventions():
    c = GRUChapter()
    click(c, "gl-ch4-preset-hold")
    set_value(c, "gl-ch4-convention", "PyTorch")         # z keeps here: the sliders flip
    v = c.values()
    assert (slider(c, "z1"), slider(c, "z2")) == (0.0, 1.0) and v["ch4.preset"] == "unit 1 writes, unit 2 holds"
    assert v["ch4.h.0"] == v["ch4.htilde.0"] and v["ch4.h.1"] == "-0.2000"   # still writes / holds
    assert find(c, "gl-ch4-z1").name == "z₁ (keep)" and find(c, "gl-ch4-r1").name == "r₁ (reset)"
    set_value(c, "gl-ch4-z2", 0.25)                      # the learner's own gates now
    set_value(c, "gl-ch4-convention", "textbook")
    assert slider(c, "z2") == 0.25 and find(c, "gl-ch4-z2").name == "z₂ (write)"
    assert c.values()["ch4.preset"].startswith("your gates") and shown(c) == c.values()
