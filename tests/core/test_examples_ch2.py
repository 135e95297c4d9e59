"""Chapter 2's examples: the hand example's backward walk and the truncation window, against the
syllabus's printed numbers, BPTT written out here in plain NumPy, and central differences."""
import json

import numpy as np
import pytest

from gleam import examples as ex


def plain_bptt(w, u, xs, y):
    """h_t = tanh(w x_t + u h_{t−1}), L = ½ (h_T − y)², backward written out step by step.
    Returns states, loss, deltas (∂L/∂h_t), dw terms, du terms (step 1 first)."""
    hs, h = [], 0.0
    for x in xs:
        h = np.tanh(w * x + u * h)
        hs.append(h)
    hs = np.array(hs)
    prev = np.concatenate([[0.0], hs[:-1]])
    T = len(xs)
    deltas, dw, du = np.zeros(T), np.zeros(T), np.zeros(T)
    delta = hs[-1] - y
    for t in reversed(range(T)):
        deltas[t] = delta
        da = delta * (1 - hs[t] ** 2)
        dw[t], du[t] = da * xs[t], da * prev[t]
        delta = da * u                                    # δ_{t−1} = δ_t (1 − h_t²) u
    return hs, 0.5 * (hs[-1] - y) ** 2, deltas, dw, du


def loss(w, u, xs, y):
    return plain_bptt(w, u, xs, y)[1]


def test_walk_has_the_syllabus_numbers():
    r = ex.chapter2_backward_walk()
    assert (r["w"], r["u"], r["y"], r["xs"], r["h0"]) == (0.8, 0.9, 0.5, [1.0, 1.0, 1.0], 0.0)
    assert [round(s["h"], 4) for s in r["steps"]] == [0.6640, 0.8848, 0.9211]
    assert [round(s["tanh_derivative"], 3) for s in r["steps"]] == [0.559, 0.217, 0.152]
    assert (round(r["loss"], 4), round(r["dL_dw"], 4), round(r["dL_du"], 4)) == (0.0887, 0.0826, 0.0647)
    assert r["steps"][0]["dL_du_term"] == 0.0                    # h_0 = 0: step 1 adds nothing to dL/du
    assert round(r["running"][2]["dL_dw"], 5) == 0.07628          # the last k = 2 steps: truncation
    # the same numbers as chapter2_bptt, which the prose's table prints
    b = ex.chapter2_bptt()
    assert [s["dL_dw_term"] for s in r["steps"]] == pytest.approx(b["dL_dw_per_step"], rel=1e-14)
    assert [s["dL_du_term"] for s in r["steps"]] == pytest.approx(b["dL_du_per_step"], rel=1e-14)
    assert r["dL_dw"] == pytest.approx(b["dL_dw"], rel=1e-14) and r["loss"] == pytest.approx(b["loss"], rel=1e-14)


@pytest.mark.parametrize("w, u, xs, y", [(0.8, 0.9, (1.0, 1.0, 1.0), 0.5), (-0.5, 1.3, (1.0, 1.0, 1.0), 0.5),
                                          (1.2, -0.7, (0.5, -1.0, 2.0), -0.2), (0.8, 0.0, (1.0, 1.0, 1.0), 0.5)])
def test_walk_against_plain_numpy(w, u, xs, y):
    r = ex.chapter2_backward_walk(w, u, xs, y)
    hs, L, deltas, dw, du = plain_bptt(w, u, np.array(xs), y)
    steps = r["steps"]
    assert [s["t"] for s in steps] == [1, 2, 3]
    assert np.allclose([s["h"] for s in steps], hs, atol=1e-15)
    assert np.allclose([s["h_prev"] for s in steps], np.concatenate([[0.0], hs[:-1]]), atol=1e-15)
    assert np.allclose([s["tanh_derivative"] for s in steps], 1 - hs ** 2, atol=1e-15)
    assert np.allclose([s["delta"] for s in steps], deltas, atol=1e-15)
    assert np.allclose([s["dL_dw_term"] for s in steps], dw, atol=1e-15)
    assert np.allclose([s["dL_du_term"] for s in steps], du, atol=1e-15)
    assert r["loss"] == pytest.approx(L, abs=1e-15)
    # the running sums after r backward steps: the last r terms, added (+=)
    for k, running in enumerate(r["running"]):
        assert running["dL_dw"] == pytest.approx(dw[len(dw) - k:].sum(), abs=1e-15)
        assert running["dL_du"] == pytest.approx(du[len(du) - k:].sum(), abs=1e-15)
    assert (r["dL_dw"], r["dL_du"]) == (r["running"][-1]["dL_dw"], r["running"][-1]["dL_du"])


def test_walk_agrees_with_central_differences():
    # check a backward pass against the loss itself before trusting it
    for w, u in [(0.8, 0.9), (-1.1, 0.4), (1.7, -1.9)]:
        r, eps = ex.chapter2_backward_walk(w, u), 1e-6
        xs = np.ones(3)
        assert r["dL_dw"] == pytest.approx((loss(w + eps, u, xs, 0.5) - loss(w - eps, u, xs, 0.5)) / (2 * eps),
                                           abs=1e-9)
        assert r["dL_du"] == pytest.approx((loss(w, u + eps, xs, 0.5) - loss(w, u - eps, xs, 0.5)) / (2 * eps),
                                           abs=1e-9)


def test_assigning_instead_of_adding_keeps_only_step_one():
    # the `=` bug in a right-to-left loop ends with the last assignment: step 1's terms
    r = ex.chapter2_backward_walk()
    assert r["steps"][0]["dL_dw_term"] != pytest.approx(r["dL_dw"], rel=0.5)
    assert r["steps"][0]["dL_du_term"] == 0.0 != r["dL_du"]


def plain_window(u, k, w=0.8, T=12, amplitude=0.5, y=0.5):
    xs = amplitude * (-1.0) ** np.arange(T)
    _, _, _, dw, _ = plain_bptt(w, u, xs, y)
    return xs, dw


@pytest.mark.parametrize("u, k", [(0.9, 4), (0.3, 4), (0.0, 1), (1.2, 12), (0.65, 7)])
def test_truncation_window_against_plain_numpy(u, k):
    r = ex.chapter2_truncation_window(u, k)
    xs, dw = plain_window(u, k)
    assert (r["u"], r["k"], r["T"], r["w"], r["amplitude"]) == (u, k, 12, 0.8, 0.5)
    assert np.allclose(r["inputs"], xs)
    assert np.allclose(r["contributions"], dw, atol=1e-15)
    assert np.allclose(r["abs_contributions"], np.abs(dw), atol=1e-15)
    assert r["kept"] == [t >= 12 - k for t in range(12)]
    assert r["share_kept"] == pytest.approx(np.abs(dw[-k:]).sum() / np.abs(dw).sum(), rel=1e-12)
    assert r["dL_dw"] == pytest.approx(dw.sum(), abs=1e-15)
    # truncating to k steps keeps the last k steps' terms exactly and drops the rest
    assert r["dL_dw_truncated"] == pytest.approx(dw[-k:].sum(), abs=1e-15)


def test_truncation_window_keeps_chapter2_contributions():
    for u in (0.3, 0.9):
        for k in (2, 4, 9):
            old, new = ex.chapter2_contributions(u=u, k=k), ex.chapter2_truncation_window(u, k)
            assert old["abs_contributions"] == new["abs_contributions"]
            assert old["share_kept_last_k"] == new["share_kept"] and old["dL_dw"] == new["dL_dw"]
    low, high = ex.chapter2_truncation_window(0.3), ex.chapter2_truncation_window(0.9)
    assert high["abs_contributions"][0] > 100 * low["abs_contributions"][0]      # far bars grow with u
    assert ex.chapter2_truncation_window(0.9, 12)["dL_dw_truncated"] == pytest.approx(high["dL_dw"], rel=1e-14)


@pytest.mark.parametrize("bad", [dict(k=0), dict(k=13), dict(k=2.5), dict(u=float("nan"))])
def test_truncation_window_refuses_bad_inputs(bad):
    with pytest.raises(ValueError, match="must be"):
        ex.chapter2_truncation_window(**{"u": 0.9, "k": 4, **bad})


def test_listed_and_in_the_json_document():
    from gleam.examples import ch2_bptt
    assert {"chapter2_backward_walk", "chapter2_truncation_window"} <= set(ch2_bptt.__all__)
    doc = ch2_bptt.examples()
    assert doc["chapter2_backward_walk"]["dL_dw"] == ex.chapter2_bptt()["dL_dw"]
    json.dumps(doc, allow_nan=False)
