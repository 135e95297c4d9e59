"""Clipping and the optimisers, each against its update written out by hand."""
import math

import numpy as np
import pytest

from gleam import optim


def grads_example():
    return {"W": np.array([[3.0, 0.0], [0.0, 4.0]]), "b": np.array([12.0])}   # ‖g‖ = 13


def test_global_norm_clip_keeps_direction_and_reports_pre_clip_norm():
    g = grads_example()
    clipped, norm = optim.clip_global_norm(g, 6.5)
    assert norm == pytest.approx(13.0)
    assert optim.global_norm(clipped) == pytest.approx(6.5)
    for k in g:
        assert np.allclose(clipped[k], g[k] * 0.5)
    assert g["b"][0] == 12.0                   # input untouched


def test_global_norm_clip_leaves_small_gradients_alone():
    clipped, norm = optim.clip_global_norm(grads_example(), 100.0)
    assert norm == pytest.approx(13.0) and np.array_equal(clipped["b"], [12.0])


def test_global_norm_clip_passes_non_finite_norms_through():
    clipped, norm = optim.clip_global_norm({"W": np.array([np.inf, 1.0])}, 5.0)
    assert math.isinf(norm) and clipped["W"][1] == 1.0


def test_elementwise_clip():
    out = optim.clip_elementwise({"W": np.array([-9.0, 2.0, 7.0])}, 5)
    assert np.array_equal(out["W"], [-5.0, 2.0, 5.0])


def test_sgd_step():
    p = {"W": np.array([1.0, 2.0])}
    optim.SGD(0.1).step(p, {"W": np.array([10.0, -20.0])})
    assert np.allclose(p["W"], [0.0, 4.0])


def test_adagrad_matches_min_char_rnn():
    p, opt = {"W": np.array([1.0, -1.0])}, optim.Adagrad(0.5)
    M, theta = np.zeros(2), np.array([1.0, -1.0])
    for g in ([1.0, 2.0], [-3.0, 0.5], [0.0, 1.0]):
        g = np.array(g)
        opt.step(p, {"W": g})
        M += g * g
        theta -= 0.5 * g / (np.sqrt(M) + 1e-8)
        assert np.allclose(p["W"], theta)
    assert np.allclose(opt.memory["W"], M)
    opt.reset()
    assert opt.memory == {}


def test_adam_matches_the_paper():
    p, opt = {"W": np.array([0.5])}, optim.Adam(0.01)
    m = v = 0.0
    theta = 0.5
    for t, g in enumerate([0.3, -0.1, 0.7, 0.2], start=1):
        opt.step(p, {"W": np.array([g])})
        m, v = 0.9 * m + 0.1 * g, 0.999 * v + 0.001 * g * g
        theta -= 0.01 * (m / (1 - 0.9 ** t)) / (math.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        assert p["W"][0] == pytest.approx(theta, rel=1e-12)
    # the first Adam step moves each parameter by about lr whatever the gradient's scale
    q = {"W": np.array([0.0])}
    optim.Adam(0.01).step(q, {"W": np.array([1e-3])})
    assert q["W"][0] == pytest.approx(-0.01, rel=1e-4)


def test_learning_rate_is_validated_and_settable():
    opt = optim.Adagrad(0.1)
    opt.lr = 5
    assert opt.lr == 5.0
    for bad in (float("nan"), float("inf"), -0.1, "fast"):
        with pytest.raises(ValueError):
            optim.SGD(bad)
        with pytest.raises(ValueError):
            opt.lr = bad


@pytest.mark.parametrize("call", [
    lambda: optim.clip_global_norm(grads_example(), 0.0),
    lambda: optim.clip_global_norm(grads_example(), float("nan")),
    lambda: optim.clip_elementwise(grads_example(), -1),
    lambda: optim.SGD(0.1).step({"W": np.zeros(2)}, {"V": np.zeros(2)}),
    lambda: optim.SGD(0.1).step({"W": np.zeros(2)}, {"W": np.zeros(3)}),
    lambda: optim.SGD(0.1).step({"W": [0.0, 0.0]}, {"W": np.zeros(2)}),
    lambda: optim.Adam(0.1, betas=(1.0, 0.9)),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_messages_name_the_argument_and_the_requirement():
    with pytest.raises(ValueError, match="lr must be a finite number >= 0, got -0.1"):
        optim.SGD(-0.1)
    with pytest.raises(ValueError, match="max_norm must be a finite number > 0, got 0.0"):
        optim.clip_global_norm(grads_example(), 0.0)
    with pytest.raises(ValueError, match="eps must be a finite number > 0, got 0"):
        optim.Adagrad(0.1, eps=0)
