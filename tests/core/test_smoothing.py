"""gleam.smoothing: the EMA against a plain-Python recurrence, and its lag."""
import numpy as np
import pytest

from gleam.smoothing import EMA_DECAY, ema, ema_lag


def test_ema_matches_the_recurrence_and_continues_a_stream():
    values = [3.0, 2.0, 2.5, 1.0, 0.5]
    e, want = values[0], []
    for v in values:
        e = 0.97 * e + 0.03 * v
        want.append(e)
    np.testing.assert_allclose(ema(values), want, rtol=1e-15)
    np.testing.assert_allclose(ema(values[2:], start=want[1]), want[2:], rtol=1e-15)
    np.testing.assert_allclose(ema([1.0, 0.0], decay=0.5, start=4.0), [2.5, 1.25])
    assert ema([]).shape == (0,)
    with pytest.raises(ValueError, match=r"decay must be a finite number in \[0, 1\), got 1.0"):
        ema(values, decay=1.0)


def test_the_lab_decay_and_its_lag():
    assert EMA_DECAY == 0.97
    assert ema_lag() == 1 / (1 - 0.97) and round(ema_lag()) == 33
    assert ema_lag(0.5) == 2.0 and ema_lag(0.0) == 1.0
    np.testing.assert_array_equal(ema([1.0, 2.0]), ema([1.0, 2.0], decay=EMA_DECAY))
    for bad in (1.0, -0.1, float("nan")):
        with pytest.raises(ValueError, match=r"decay must be a finite number in \[0, 1\)"):
            ema_lag(bad)
