"""Chapter 3's examples: the bound curve, the measured decay per ρ and clipping, against the
syllabus's printed numbers and against plain NumPy written out here."""
import math

import numpy as np
import pytest

from gleam import examples as ex


def sig(x, digits):
    return float(f"{x:.{digits - 1}e}")


def loop_decay(rho, T, n=64):
    """The syllabus's recipe, multiplied out without renormalising: log10 ‖J_t … J_1‖₂, t = 1 … T."""
    W = np.random.default_rng(seed=0).standard_normal((n, n))
    W = W * rho / max(abs(np.linalg.eigvals(W)))
    X = np.random.default_rng(1).standard_normal((T, n)) * 0.5
    h, P, out = np.zeros(n), np.eye(n), []
    for t in range(T):
        h = np.tanh(W @ h + X[t])
        P = np.diag(1 - h ** 2) @ W @ P
        out.append(math.log10(np.linalg.norm(P, 2)))
    return out


def test_bound_curve_opens_on_the_syllabus_example():
    b = ex.chapter3_bound_curve()
    assert (b["rho"], b["gamma"]) == (0.9, 0.5)
    assert b["product"] == pytest.approx(0.45)
    assert sig(b["bound_at"], 3) == 1.16e-7 and b["read_at"] == 20
    assert b["bound_at"] < b["float32_epsilon"] == np.finfo(np.float32).eps    # below the noise floor
    assert b["regime"] == "vanishing"
    t = np.arange(1, 101)
    assert b["T"] == list(t)
    assert np.allclose(b["bound"], 0.45 ** t, rtol=1e-12, atol=0)


@pytest.mark.parametrize("rho, gamma, regime", [(1.0, 1.0, "critical"), (2.0, 0.5, "critical"),
                                                (1.25, 0.8, "critical"), (1.5, 1.0, "exploding"),
                                                (3.0, 0.34, "exploding"), (1.05, 0.95, "vanishing"),
                                                (0.0, 0.7, "vanishing"), (3.0, 0.0, "vanishing")])
def test_regimes(rho, gamma, regime):
    b = ex.chapter3_bound_curve(rho, gamma)
    assert b["regime"] == regime
    assert np.allclose(b["bound"], (gamma * rho) ** np.arange(1.0, 101.0), rtol=1e-12, atol=0)
    assert b["bound_at"] == pytest.approx((gamma * rho) ** 20, rel=1e-12, abs=0)


def test_bound_refuses_bad_inputs():
    for rho, gamma in ((-0.1, 0.5), (0.9, 1.5), (0.9, float("nan"))):
        with pytest.raises(ValueError):
            ex.chapter3_bound_curve(rho, gamma)


@pytest.mark.parametrize("rho", [0.9, 1.5, 2.35])
def test_decay_curve_is_the_multiplied_out_product(rho):
    m = ex.chapter3_decay_curve(rho)
    want = loop_decay(rho, 50)
    assert m["t"] == list(range(1, 51))
    assert m["log10_norm"] == pytest.approx(want, abs=1e-9)
    assert m["log10_rho_power"] == pytest.approx([t * math.log10(rho) for t in range(1, 51)], abs=1e-12)
    assert m["read_at"] == [5, 10, 20, 50]
    assert m["log10_norm_at"] == pytest.approx([want[s - 1] for s in (5, 10, 20, 50)], abs=1e-9)
    assert not m["zero"]


def test_decay_curve_matches_the_table():
    table = ex.chapter3_measured_decay()
    for rho, row in zip(table["rho"], table["log10_norm"]):
        assert ex.chapter3_decay_curve(rho)["log10_norm_at"] == pytest.approx(row, abs=1e-12)


def test_saturation_cancels_the_growth():
    s = ex.chapter3_saturation()
    assert s["rho"] == 1.5
    assert s["log10_rho_power_at"][-1] == pytest.approx(50 * math.log10(1.5))         # W_h alone: +8.8
    assert max(s["log10_norm"]) - min(s["log10_norm"]) < 1.0                          # measured: flat
    # at ρ = 0.9 saturation makes vanishing worse: below ρ^t from step 10 on, far below at 50
    m = ex.chapter3_decay_curve(0.9)
    assert all(a < b for a, b in zip(m["log10_norm_at"][1:], m["log10_rho_power_at"][1:]))
    assert m["log10_norm_at"][-1] < m["log10_rho_power_at"][-1] - 3


def test_decay_curve_cached_per_rho_and_fresh_each_call():
    a = ex.chapter3_decay_curve(1.2)
    a["log10_norm"][0] = 99.0
    b = ex.chapter3_decay_curve(1.2 + 1e-13)        # a slider's rounding noise: the same entry
    assert b["log10_norm"][0] != 99.0 and b["rho"] == 1.2


def test_zero_radius_is_exactly_zero():
    m = ex.chapter3_decay_curve(0.0)
    assert m["zero"] and all(v == -math.inf for v in m["log10_norm"] + m["log10_rho_power"])


def test_clipping_syllabus_example():
    c = ex.chapter3_clipping()
    assert round(c["pre_clip_norm"], 1) == 47.3 and c["clipped"]
    assert round(c["scale"], 4) == 0.1057
    assert round(c["clipped_components"][0], 3) == 1.268
    assert round(c["clipped_components"][1], 4) == -0.0423
    assert c["cosine_before_after"] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("norm, c, g", [(47.3, 5.0, (12.0, -0.4)), (30.0, 60.0, (3.0, 4.0)),
                                        (20.0, 0.5, (0.0, -19.9)), (5.0, 5.0, (3.0, 4.0)), (7.0, 1.0, (0.0, 0.0))])
def test_clipping_against_numpy(norm, c, g):
    r = ex.chapter3_clipping(norm, c, g)
    full = np.array([*g, math.sqrt(max(norm ** 2 - g[0] ** 2 - g[1] ** 2, 0.0))])
    scale = c / np.linalg.norm(full) if np.linalg.norm(full) > c else 1.0
    assert r["pre_clip_norm"] == pytest.approx(norm)
    assert r["scale"] == pytest.approx(scale, rel=1e-12)
    assert r["clipped_components"] == pytest.approx(list(np.array(g) * scale), abs=1e-12)
    assert r["post_clip_norm"] == pytest.approx(min(norm, c))
    assert r["cosine_before_after"] == pytest.approx(1.0, abs=1e-12)
    assert r["clipped"] == (norm > c)


def test_clipping_refuses_a_norm_below_its_components():
    with pytest.raises(ValueError, match="cannot be smaller"):
        ex.chapter3_clipping(10.0, 5.0, (12.0, -0.4))
    for bad in ((0.0, 5.0, (0.0, 0.0)), (10.0, 0.0, (1.0, 1.0)), (10.0, 5.0, (float("nan"), 1.0))):
        with pytest.raises(ValueError):
            ex.chapter3_clipping(*bad)
