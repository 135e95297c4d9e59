"""Chapter 0's examples: the scalar recurrence h_t = tanh(a h_{t−1}) the widget runs, against the
syllabus's printed numbers and against the recurrence written out here in plain NumPy."""
import json
import math

import numpy as np
import pytest

from gleam import examples as ex


def plain_run(a, h0, T):
    """The recurrence and its retained fraction, written out: h_t, a (1 − h_t²), ∏ |…|."""
    hs = [h0]
    for _ in range(T):
        hs.append(math.tanh(a * hs[-1]))
    hs = np.array(hs)
    factors = a * (1 - hs[1:] ** 2)             # ∂h_t/∂h_{t−1} = a (1 − tanh²(a h_{t−1}))
    return hs, factors, np.concatenate([[1.0], np.cumprod(np.abs(factors))])


@pytest.mark.parametrize("a, h0", [(0.9, 0.01), (1.0, 2.0), (0.99, 0.1), (2.5, -0.4), (0.3, 3.0)])
def test_recurrence_against_plain_numpy(a, h0):
    r = ex.chapter0_recurrence(a, h0)
    hs, factors, retained = plain_run(a, h0, 64)
    assert r["T"] == 64 and r["t"] == list(range(65))
    assert np.allclose(r["states"], hs, rtol=0, atol=1e-15)
    assert np.allclose(r["sensitivities"], factors, rtol=1e-12, atol=0)
    assert np.allclose(r["retained"], retained, rtol=1e-10, atol=0)
    assert r["first_sensitivity"] == pytest.approx(a * (1 - math.tanh(a * h0) ** 2), rel=1e-12)
    assert r["retained_T"] == r["retained"][-1] and r["h_T"] == r["states"][-1]
    assert np.allclose(r["pure"], a ** np.arange(65.0), rtol=1e-12)


def test_syllabus_numbers():
    small = ex.chapter0_recurrence(0.9, 0.01)
    assert float(f"{small['retained_T']:.3g}") == 0.00118          # 0.9^64 ≈ 0.00118
    assert round(small["factor_half_life"], 1) == 6.6
    assert round(small["half_life"], 1) == 6.6                      # nearly linear: measured = formula
    assert round(ex.chapter0_recurrence(0.99, 0.01)["factor_half_life"]) == 69
    sat = ex.chapter0_recurrence(1.0, 2.0)                           # a weight of one, saturated
    assert round(sat["first_sensitivity"], 2) == 0.07
    assert sat["factor_half_life"] is None and sat["factor_never_halves"]


def test_presets_are_the_syllabus_cases():
    p = ex.chapter0_presets()
    assert p["saturated"] == {"a": 1.0, "h0": 2.0}
    assert (p["0.90"]["a"], p["0.99"]["a"]) == (0.90, 0.99)
    assert p["0.90"]["h0"] == p["0.99"]["h0"] and abs(p["0.90"]["h0"]) <= 0.01
    runs = ex.chapter0_preset_runs()
    assert set(runs) == set(p) | {"0.99_from_0.1"}
    assert runs["0.99_from_0.1"]["h0"] == 0.1
    assert runs["0.99_from_0.1"]["half_life"] < 0.7 * runs["0.99"]["factor_half_life"]   # saturation's toll


@pytest.mark.parametrize("a", [0.3, 0.5, 0.8, 0.9, 0.95])
def test_unsaturated_half_life_is_ln_half_over_ln_a(a):
    # from h_0 = 0 the state never moves, every factor is exactly a, log R_t = t ln a is a straight
    # line and the log-scale interpolation lands on ln 0.5 / ln a exactly
    r = ex.chapter0_recurrence(a, 0.0)
    want = math.log(0.5) / math.log(a)
    assert r["half_life"] == pytest.approx(want, rel=1e-12)
    assert r["factor_half_life"] == pytest.approx(want, rel=1e-12)
    assert r["half_life_step"] == math.ceil(want)


def test_half_life_is_the_first_step_at_or_below_one_half():
    for a, h0 in [(0.9, 0.5), (3.0, 0.1), (1.0, 2.0), (0.7, -1.5)]:
        r = ex.chapter0_recurrence(a, h0)
        R = np.array(r["retained"])
        t = int(np.argmax(R <= 0.5))
        assert t >= 1 and r["half_life_step"] == t and np.all(R[:t] > 0.5)
        assert t - 1 < r["half_life"] <= t
        # the log-linear interpolation between (t − 1, R_{t−1}) and (t, R_t) passes through ½ there
        x = r["half_life"] - (t - 1)
        assert math.exp((1 - x) * math.log(R[t - 1]) + x * math.log(R[t])) == pytest.approx(0.5, rel=1e-12)


def test_edge_gains_say_never_or_at_once():
    for a in (1.0, 1.5, 3.0):
        r = ex.chapter0_recurrence(a, 0.0)                          # a unit that never saturates
        assert r["half_life"] is None and r["factor_half_life"] is None and r["factor_never_halves"]
        assert r["retained_T"] == pytest.approx(a ** 64, rel=1e-12)
    zero = ex.chapter0_recurrence(0.0, 0.5)                          # a = 0 wipes the state at once
    assert zero["retained"][1:] == [0.0] * 64 and zero["half_life"] == 1.0
    assert zero["factor_half_life"] is None and not zero["factor_never_halves"]
    # deep saturation: a tiny but exact retained fraction (accumulated in logs); all JSON-able
    deep = ex.chapter0_recurrence(3.0, 3.0)
    _, _, retained = plain_run(3.0, 3.0, 64)
    assert 0 < deep["retained_T"] < 1e-90 and deep["retained_T"] == pytest.approx(retained[-1], rel=1e-9)
    for run in (deep, zero, ex.chapter0_recurrence(3.0, 0.0)):
        json.dumps(run, allow_nan=False)


@pytest.mark.parametrize("bad", [dict(a=-0.1), dict(a=float("nan")), dict(h0=float("inf")), dict(T=0)])
def test_bad_inputs_say_what_is_wrong(bad):
    with pytest.raises(ValueError, match="must be"):
        ex.chapter0_recurrence(**bad)


def test_listed_and_in_the_json_document():
    from gleam.examples import ch0_scalar
    assert {"chapter0_recurrence", "chapter0_presets", "chapter0_preset_runs"} <= set(ch0_scalar.__all__)
    doc = ch0_scalar.examples()
    assert doc["chapter0_preset_runs"]["0.90"]["half_life"] == ex.chapter0_recurrence(0.9, 0.01)["half_life"]
    json.dumps(doc, allow_nan=False)
