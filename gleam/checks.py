"""Input checks that all speak one way: "{name} must be {requirement}, got {value!r}".

    integer("hidden", 0, minimum=1)                  hidden must be an integer >= 1, got 0
    number("lr", -1.0, minimum=0, strict_min=True)   lr must be a finite number > 0, got -1.0
    number("decay", 1.0, 0, 1, strict_max=True)      decay must be a finite number in [0, 1), got 1.0
    generator("rng", 3)                              rng must be a numpy.random.Generator, got int
    one_of("head", "ranking", HEADS)                 head must be one of 'classify', 'regress', got ...

Each returns what it accepted: `integer` an int, `number` a float, the others the value itself.
A bool is not an integer here; `number` takes any real (a bool counts as 0 or 1), never a str.
`none_ok=True` also accepts None (and returns it): "truncate must be None or an integer >= 1".
"""
import math
import numbers

import numpy as np

__all__ = ["integer", "number", "generator", "one_of"]


def _fail(name, requirement, value, none_ok):
    raise ValueError(f"{name} must be {'None or ' if none_ok else ''}{requirement}, got {value!r}")


def _bounds(low, high, strict_min, strict_max):
    """The bounds as text: " >= 0", " > 0", " <= 1", " in [0, 1)", or ""."""
    if low is not None and high is not None:
        return f" in {'(' if strict_min else '['}{low}, {high}{')' if strict_max else ']'}"
    if low is not None:
        return f" {'>' if strict_min else '>='} {low}"
    if high is not None:
        return f" {'<' if strict_max else '<='} {high}"
    return ""


def _outside(v, low, high, strict_min, strict_max):
    return ((low is not None and (v < low or (strict_min and v == low)))
            or (high is not None and (v > high or (strict_max and v == high))))


def integer(name, value, minimum=None, maximum=None, none_ok=False, whole_floats=False):
    """value as an int, or ValueError unless it is an int or NumPy integer (not a bool) in bounds.

    whole_floats=True also accepts a finite real with no fractional part (3.0 -> 3).
    """
    if value is None and none_ok:
        return None
    requirement = "an integer" + _bounds(minimum, maximum, False, False)
    whole = (whole_floats and isinstance(value, numbers.Real) and math.isfinite(value)
             and value == int(value))
    if isinstance(value, bool) or not (isinstance(value, (int, np.integer)) or whole):
        _fail(name, requirement, value, none_ok)
    if _outside(value, minimum, maximum, False, False):
        _fail(name, requirement, value, none_ok)
    return int(value)


def number(name, value, minimum=None, maximum=None, strict_min=False, strict_max=False,
           allow_inf=False, none_ok=False):
    """value as a float, or ValueError unless it is a real number, not NaN, within the bounds
    (strict_min: > minimum, else >=; likewise strict_max) and finite unless allow_inf."""
    if value is None and none_ok:
        return None
    requirement = ("a number" if allow_inf else "a finite number") + _bounds(
        minimum, maximum, strict_min, strict_max)
    if not isinstance(value, numbers.Real):
        _fail(name, requirement, value, none_ok)
    try:
        v = float(value)
    except OverflowError:                   # an int too large for a float
        v = math.copysign(math.inf, value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        _fail(name, requirement, value, none_ok)
    if _outside(v, minimum, maximum, strict_min, strict_max):
        _fail(name, requirement, value, none_ok)
    return v


def generator(name, rng):
    """rng, or ValueError unless it is a np.random.Generator (the lab never uses the global RNG)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def one_of(name, value, options):
    """value, or ValueError unless it is one of `options`."""
    try:
        ok = value in options
    except (TypeError, ValueError):         # unhashable (dict options) or an array
        ok = False
    if not ok:
        _fail(name, "one of " + ", ".join(repr(o) for o in options), value, False)
    return value
