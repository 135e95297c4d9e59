"""Exponential smoothing of a noisy curve: the live lab's loss curve (chapter 7)."""
import numpy as np

from gleam import checks

__all__ = ["EMA_DECAY", "ema", "ema_lag"]

# the lab's one EMA decay: the loss curve's smoothing, lag ≈ 1/(1 − decay) ≈ 33 steps
EMA_DECAY = 0.97


def _decay(decay):
    return checks.number("decay", decay, minimum=0, maximum=1, strict_max=True)


def ema(values, decay=EMA_DECAY, start=None):
    """Exponential moving average: e_i = decay · e_{i−1} + (1 − decay) · v_i.

    e_{−1} = start (e.g. the last value of a previous call, to continue a stream); without a start,
    the average begins at the first value. It lags the signal by about 1 / (1 − decay) steps.
    values (a 1-D array, or one number) and start must be finite: filter a diverged loss out first.
    """
    decay = _decay(decay)
    values = checks.array("values", values, ndim=(0, 1)).ravel()
    start = checks.number("start", start, none_ok=True)
    out = np.empty_like(values)
    if values.size == 0:
        return out
    e = float(values[0]) if start is None else start
    with np.errstate(all="ignore"):
        for i, v in enumerate(values.tolist()):
            e = decay * e + (1.0 - decay) * v
            out[i] = e
    return out


def ema_lag(decay=EMA_DECAY):
    """The EMA's time constant in steps, 1 / (1 − decay): about how far it lags the signal."""
    return 1 / (1 - _decay(decay))
