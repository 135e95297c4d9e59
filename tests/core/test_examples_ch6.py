"""gleam.examples for chapter 6: cross-entropy, temperature and the gradient check, against the
syllabus's printed numbers and against plain NumPy written out here."""
import math

import numpy as np
import pytest

from gleam import examples as ex
from gleam.chargru import CharGRU

LOGITS = np.array([2.0, 0.5, -1.0, 0.3, 1.2])


def softmax(z, T=1.0):
    e = np.exp(np.asarray(z, dtype=float) / T)
    return e / e.sum()


def test_cross_entropy_syllabus_numbers():
    c = ex.chapter6_cross_entropy()
    assert round(c["p_target"], 4) == 0.5250
    assert round(c["loss_nats"], 4) == 0.6444 and round(c["loss_bits"], 2) == 0.93
    assert round(c["uniform_loss"], 4) == 1.6094
    assert [round(p, 4) for p in c["p_target_at_temperature"]] == [0.7767, 0.5250, 0.3580]


@pytest.mark.parametrize("logits, target, T", [(LOGITS, 0, 0.5), ([-4.0, 4.0, 0.1, 0.0, -2.5], 3, 2.75),
                                               ([1.0] * 5, 4, 0.1)])
def test_cross_entropy_against_numpy(logits, target, T):
    c = ex.chapter6_cross_entropy(logits, target, (T,))
    p = softmax(logits)
    onehot = np.eye(5)[target]
    assert np.allclose(c["p"], p, atol=1e-15)
    assert math.isclose(c["loss_nats"], -math.log(p[target]), rel_tol=1e-12)
    assert math.isclose(c["loss_bits"], -math.log2(p[target]), rel_tol=1e-12)
    assert np.allclose(c["grad"], p - onehot, atol=1e-15)
    assert abs(c["grad_sum"]) < 1e-12
    # the sign structure: the target's entry negative, every other entry positive
    assert c["grad"][target] < 0 and all(g > 0 for k, g in enumerate(c["grad"]) if k != target)
    assert np.allclose(c["p_at_temperature"][0], softmax(logits, T), atol=1e-15)
    assert math.isclose(c["p_target_at_temperature"][0], softmax(logits, T)[target], rel_tol=1e-12)
    assert c["logits"] == [float(v) for v in logits] and c["target"] == target


def _chunk_forward(p, inputs, targets, h0):
    """The char-level GRU on one chunk, written out: states h_1..h_K and probabilities p_1..p_K."""
    sig = lambda a: 1 / (1 + np.exp(-a))   # noqa: E731
    h, hs, ps = h0.copy(), [], []
    for x in inputs:
        z = sig(p["Wz"][:, x] + p["Uz"] @ h + p["bz"])
        r = sig(p["Wr"][:, x] + p["Ur"] @ h + p["br"])
        cand = np.tanh(p["Wh"][:, x] + p["Uh"] @ (r * h) + p["bh"])
        h = (1 - z) * h + z * cand
        hs.append(h)
        ps.append(softmax(p["Wy"] @ h + p["by"]))
    return np.array(hs), np.array(ps)


@pytest.fixture(scope="module")
def checks():
    return {bug: ex.chapter6_gradient_check(bug=bug) for bug in (None, "assign")}


def test_gradient_check_as_written_passes(checks):
    c = checks[None]
    H, V = c["hidden"], c["V"]
    assert (H, c["trained_steps"], c["seed"]) == (8, 50, 0) == tuple(ex.GRADIENT_CHECK_SETUP.values())
    assert c["n_params"] == 3 * (H * V + H * H + H) + V * H + V
    assert c["names"] == ["Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by"]
    assert c["passed"] and c["failing"] == []
    assert max(c["errors"].values()) < 1e-7 and c["errors"]["all"] < 1e-8   # float64: ~1e-9 or less
    assert c["worst_error"] == max(c["errors"][n] for n in c["names"])


def test_gradient_check_with_the_bug_finds_it(checks):
    c, ok = checks["assign"], checks[None]
    assert not c["passed"] and c["failing"] == ["Wy", "by"] and c["worst"] in ("Wy", "by")
    for name in c["names"]:
        if name not in ("Wy", "by"):
            assert math.isclose(c["errors"][name], ok["errors"][name], rel_tol=1e-9)   # the rest is untouched
    # the bug's error, from a forward pass written out here: dWy = dy_1 h_1ᵀ instead of Σ_t dy_t h_tᵀ
    model = CharGRU(hidden=c["hidden"], seed=c["seed"])
    model.step(c["trained_steps"])
    inputs, targets, h0 = model.next_chunk()
    hs, ps = _chunk_forward(model.params, inputs, targets, h0)
    dy = ps - np.eye(model.V)[targets]
    true_Wy, true_by = dy.T @ hs, dy.sum(axis=0)
    bug_Wy, bug_by = np.outer(dy[0], hs[0]), dy[0]
    rel = lambda a, b: np.linalg.norm(a - b) / (np.linalg.norm(a) + np.linalg.norm(b))   # noqa: E731
    assert math.isclose(c["errors"]["Wy"], rel(bug_Wy, true_Wy), rel_tol=1e-6)
    assert math.isclose(c["errors"]["by"], rel(bug_by, true_by), rel_tol=1e-6)


def test_gradient_check_refuses_unknown_bugs():
    with pytest.raises(ValueError, match="bug must be one of"):
        ex.chapter6_gradient_check(bug="typo")
