"""gleam.losses against independent formulas and central differences."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from gleam import losses

finite = st.floats(-20, 20, allow_nan=False)


@given(arrays(np.float64, st.integers(2, 8), elements=finite), st.floats(0.2, 5.0))
@settings(max_examples=60, deadline=None)
def test_softmax_is_a_distribution_matching_the_definition(z, T):
    p = losses.softmax(z, T)
    e = np.array([math.exp(v / T - max(z) / T) for v in z])
    assert np.allclose(p, e / e.sum())
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-12)


def test_softmax_survives_huge_logits():
    p = losses.softmax(np.array([1000.0, 0.0, -1000.0]))
    assert np.all(np.isfinite(p)) and p[0] == pytest.approx(1.0)


def test_cross_entropy_is_minus_log_p():
    z = np.array([0.3, -1.2, 2.0])
    assert losses.cross_entropy(z, 2) == pytest.approx(-math.log(np.exp(2.0) / np.exp(z).sum()))


def test_sequence_loss_is_the_mean_over_steps():
    rng = np.random.default_rng(0)
    Z, t = rng.standard_normal((4, 5)), np.array([0, 3, 1, 4])
    assert losses.cross_entropy(Z, t) == pytest.approx(np.mean([losses.cross_entropy(Z[i], t[i]) for i in range(4)]))


@given(arrays(np.float64, 6, elements=st.floats(-5, 5)), st.integers(0, 5))
@settings(max_examples=40, deadline=None)
def test_gradient_matches_central_differences(z, target):
    g = losses.cross_entropy_grad(z, target)
    eps = 1e-6
    num = np.array([(losses.cross_entropy(z + eps * e, target) - losses.cross_entropy(z - eps * e, target)) / (2 * eps)
                    for e in np.eye(6)])
    assert np.allclose(g, num, atol=1e-7)
    assert abs(g.sum()) < 1e-12 and g[target] < 0


def test_sequence_gradient_matches_central_differences():
    rng = np.random.default_rng(1)
    Z, t = rng.standard_normal((3, 4)), np.array([1, 0, 3])
    g, eps, num = losses.cross_entropy_grad(Z, t), 1e-6, np.zeros((3, 4))
    for i in range(3):
        for j in range(4):
            E = np.zeros((3, 4))
            E[i, j] = eps
            num[i, j] = (losses.cross_entropy(Z + E, t) - losses.cross_entropy(Z - E, t)) / (2 * eps)
    assert np.allclose(g, num, atol=1e-8)


def test_nats_to_bits():
    assert losses.nats_to_bits(math.log(8)) == pytest.approx(3.0)


def test_sample_follows_the_distribution_and_the_generator():
    z = np.log(np.array([0.7, 0.2, 0.1]))
    draws = [losses.sample(z, np.random.default_rng(s)) for s in range(3000)]
    freq = np.bincount(draws, minlength=3) / 3000
    assert np.allclose(freq, [0.7, 0.2, 0.1], atol=0.03)
    a = [losses.sample(z, np.random.default_rng(5)) for _ in range(3)]
    assert len(set(a)) == 1
    # a cold temperature picks the argmax
    assert all(losses.sample(z, np.random.default_rng(s), temperature=0.01) == 0 for s in range(50))


@pytest.mark.parametrize("call", [
    lambda: losses.softmax([1.0, 2.0], temperature=0),
    lambda: losses.softmax([1.0, 2.0], temperature=float("nan")),
    lambda: losses.cross_entropy([1.0, 2.0], 2),
    lambda: losses.cross_entropy([1.0, 2.0], 0.5),
    lambda: losses.cross_entropy(np.zeros((3, 2)), np.array([0, 1])),
    lambda: losses.cross_entropy(np.zeros((2, 2, 2)), 0),
    lambda: losses.sample([1.0, 2.0], rng=None),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_one_softmax_cross_entropy_under_the_losses_and_the_classify_head():
    from gleam.seqmodel import heads
    rng = np.random.default_rng(0)
    z, t = 3 * rng.standard_normal((6, 5)), rng.integers(0, 5, 6)
    nll, g = losses.softmax_cross_entropy(z, t)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(nll, -np.log(p[np.arange(6), t]), rtol=1e-12)
    np.testing.assert_allclose(g, p - np.eye(5)[t], atol=1e-15)
    assert losses.cross_entropy(z, t) == float(nll.mean())
    np.testing.assert_array_equal(losses.cross_entropy_grad(z, t), g / 6)
    loss, dlogits, _ = heads.classify_loss(z, t, np.ones(6, dtype=bool))
    assert loss == float(nll.sum() / 6)
    np.testing.assert_array_equal(dlogits, g * (1 / 6))


def test_bad_temperature_and_rng_are_named():
    with pytest.raises(ValueError, match="temperature must be a finite number > 0, got 0"):
        losses.softmax(np.zeros(3), 0)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator, got int"):
        losses.sample(np.zeros(3), 0)
