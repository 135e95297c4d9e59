"""Jacobian products, spectral radii and the chapter-3 tools against direct computation."""
import math

import numpy as np
import pytest

from gleam import dynamics


def test_spectral_radius_of_a_rotation_and_a_triangle():
    c, s = math.cos(0.3), math.sin(0.3)
    assert dynamics.spectral_radius(2 * np.array([[c, -s], [s, c]])) == pytest.approx(2.0)
    # non-normal: eigenvalues 0.5 and -0.7 although σ_max is much larger
    T = np.array([[0.5, 10.0], [0.0, -0.7]])
    assert dynamics.spectral_radius(T) == pytest.approx(0.7)
    assert np.linalg.norm(T, 2) > 10


def test_scale_and_random_recurrent_hit_the_radius():
    W = dynamics.random_recurrent(16, 1.3, np.random.default_rng(3))
    assert dynamics.spectral_radius(W) == pytest.approx(1.3)
    again = dynamics.random_recurrent(16, 1.3, np.random.default_rng(3))
    assert np.array_equal(W, again)
    raw = np.random.default_rng(3).standard_normal((16, 16))
    assert np.allclose(W, raw * 1.3 / np.max(np.abs(np.linalg.eigvals(raw))))


def test_jacobian_product_matches_the_direct_product():
    rng = np.random.default_rng(7)
    Js = rng.standard_normal((6, 4, 4)) * 0.8
    out = dynamics.jacobian_product(Js)
    P = np.eye(4)
    for t, J in enumerate(Js):
        P = J @ P
        assert out["log10_norms"][t] == pytest.approx(math.log10(np.linalg.norm(P, 2)))
    sv = np.linalg.svd(P, compute_uv=False)
    assert np.allclose(out["log10_singular_values"], np.log10(sv))
    assert np.allclose(out["singular_values"], sv / sv[0])
    assert out["log10_singular_values"][0] == pytest.approx(out["log10_norms"][-1])


def test_jacobian_product_does_not_overflow_over_long_spans():
    Js = np.repeat((2.0 * np.eye(3))[None], 2000, axis=0)
    out = dynamics.jacobian_product(Js)
    assert out["log10_norms"][-1] == pytest.approx(2000 * math.log10(2.0))
    Js = np.repeat((0.5 * np.eye(3))[None], 2000, axis=0)
    assert dynamics.jacobian_product(Js)["log10_norms"][-1] == pytest.approx(-2000 * math.log10(2.0))


def test_jacobian_product_of_zero_gives_minus_infinity():
    Js = np.stack([np.eye(2), np.zeros((2, 2)), np.eye(2)])
    out = dynamics.jacobian_product(Js)
    assert out["log10_norms"][0] == 0.0 and np.all(np.isneginf(out["log10_norms"][1:]))


def test_measured_decay_without_input_is_a_matrix_power():
    # x = 0 and h_0 = 0 keep h = 0, so D_t = I and the product is W_h^t
    out = dynamics.measured_decay(0.7, n=8, steps=(1, 3, 6), x_scale=0.0)
    W = np.random.default_rng(0).standard_normal((8, 8))
    W *= 0.7 / np.max(np.abs(np.linalg.eigvals(W)))
    for t, v in out.items():
        assert v == pytest.approx(math.log10(np.linalg.norm(np.linalg.matrix_power(W, t), 2)))


def test_measured_decay_saturation_only_shrinks():
    # diag(1 − h²) <= 1, so input can only lower the norm below the linear case at step 1
    lin = dynamics.measured_decay(2.5, steps=(1,), x_scale=0.0)[1]
    sat = dynamics.measured_decay(2.5, steps=(1,))[1]
    assert sat < lin


def test_bound_and_half_life():
    assert dynamics.gradient_bound(0.9, 1.2, 10) == pytest.approx(1.08 ** 10)
    assert dynamics.half_life(0.5) == pytest.approx(1.0)
    assert 0.8 ** dynamics.half_life(0.8) == pytest.approx(0.5)
    assert dynamics.half_life(1.0) == math.inf


@pytest.mark.parametrize("call", [
    lambda: dynamics.spectral_radius(np.zeros((2, 3))),
    lambda: dynamics.spectral_radius(np.array([[np.nan]])),
    lambda: dynamics.scale_to_spectral_radius(np.array([[0.0, 1.0], [0.0, 0.0]]), 1.0),
    lambda: dynamics.scale_to_spectral_radius(np.eye(2), float("inf")),
    lambda: dynamics.random_recurrent(4, 1.0, rng=0),
    lambda: dynamics.random_recurrent(0, 1.0, np.random.default_rng()),
    lambda: dynamics.jacobian_product(np.zeros((3, 2, 3))),
    lambda: dynamics.measured_decay(1.0, steps=(0, 5)),
    lambda: dynamics.half_life(1.5),
    lambda: dynamics.half_life(0.0),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_messages_name_the_argument_and_the_requirement():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator, got int"):
        dynamics.random_recurrent(4, 1.0, rng=0)
    with pytest.raises(ValueError, match="n must be an integer >= 1, got 0"):
        dynamics.random_recurrent(0, 1.0, np.random.default_rng())
    with pytest.raises(ValueError, match="n must be an integer >= 1, got True"):
        dynamics.random_recurrent(True, 1.0, np.random.default_rng())
    with pytest.raises(ValueError, match="rho must be a finite number >= 0, got inf"):
        dynamics.scale_to_spectral_radius(np.eye(2), float("inf"))
    with pytest.raises(ValueError, match=r"q must be a finite number in \(0, 1\], got 1.5"):
        dynamics.half_life(1.5)
    # a whole float is still a size here, as before
    assert dynamics.random_recurrent(3.0, 1.0, np.random.default_rng(0)).shape == (3, 3)
