"""Input checks that all speak one way: "{name} must be {requirement}, got {value!r}".

    integer("hidden", 0, minimum=1)                  hidden must be an integer >= 1, got 0
    number("lr", -1.0, minimum=0, strict_min=True)   lr must be a finite number > 0, got -1.0
    number("decay", 1.0, 0, 1, strict_max=True)      decay must be a finite number in [0, 1), got 1.0
    generator("rng", 3)                              rng must be a numpy.random.Generator, got int
    one_of("head", "ranking", HEADS)                 head must be one of 'classify', 'regress', got ...
    flag("bidirectional", "yes")                     bidirectional must be True or False, got 'yes'
    array("W", [[1, nan]], ndim=2)                   W must be a finite 2-D array of numbers, got ...
    seed("seed", -1)                                 seed must be None or an integer >= 0, got -1
    entries("n", 10**5, (3 * 10**5, 10**5))          n = 100000 asks for an array of ... entries

Each returns what it accepted: `integer` an int, `number` a float, `array` a float64 array, the
others the value itself. A bool is neither an integer nor a number here, a str never is.
`none_ok=True` also accepts None (and returns it): "truncate must be None or an integer >= 1".

The policy these serve, across gleam's public API: bad input raises a ValueError that names the
argument and what was expected (never another exception type, never a silent NaN). Checks run
at public entry points; the per-step kernels (cells' steps) check shapes only, so NaN there
propagates to the caller, who reports it as divergence (gleam.seqmodel).
"""
import math
import numbers

import numpy as np

__all__ = ["integer", "number", "generator", "one_of", "flag", "array", "seed", "entries",
           "MAX_ENTRIES"]

# the most entries gleam allocates in one array for a size it is given (128 MiB of float64):
# far above every chapter's needs, far below what would exhaust a shared server
MAX_ENTRIES = 2 ** 24


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
    """value as a float, or ValueError unless it is a real number (not a bool), not NaN, within the bounds
    (strict_min: > minimum, else >=; likewise strict_max) and finite unless allow_inf."""
    if value is None and none_ok:
        return None
    requirement = ("a number" if allow_inf else "a finite number") + _bounds(
        minimum, maximum, strict_min, strict_max)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
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


def flag(name, value):
    """value as a bool, or ValueError unless it is True or False (NumPy's bool too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def seed(name, value):
    """value, or ValueError unless it is None, an integer >= 0 or a np.random.Generator
    (what np.random.default_rng accepts, without its arrays of seeds)."""
    if isinstance(value, np.random.Generator):
        return value
    return integer(name, value, minimum=0, none_ok=True)


def _short(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def array(name, value, ndim=None, finite=True, allow_empty=True):
    """value as a float64 array, or ValueError unless it holds real numbers (no bools, no str)
    of the given number of dimensions (an int or a tuple of ints) and, if finite, no NaN/inf."""
    dims = (ndim,) if isinstance(ndim, int) else ndim
    what = ("finite " if finite else "") + (
        "" if dims is None else "/".join(f"{k}-D" for k in dims) + " ") + "array of numbers"
    try:
        a = np.asarray(value)
        ok = a.dtype.kind in "iuf" or (a.size == 0 and a.dtype.kind in "iufbO")
        a = a.astype(np.float64) if ok else a
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a {what}, got {_short(value)}")
    if dims is not None and a.ndim not in dims:
        raise ValueError(f"{name} must be a {what}, got shape {a.shape}")
    if not allow_empty and a.size == 0:
        raise ValueError(f"{name} must be a non-empty {what}, got shape {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a {what}, got non-finite entries (NaN or inf)")
    return a


def numeric(name, value):
    """value as an array of its own numeric dtype (ints stay ints), or ValueError unless it holds
    numbers (not bools, strings or objects)."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        a = np.asarray(None)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be an array of numbers, got dtype {a.dtype}")
    return a


def entries(name, value, shape, limit=None):
    """ValueError (naming the size argument `name` = value) if an array of `shape` would hold
    more than `limit` (MAX_ENTRIES) entries. Returns the entry count."""
    limit = MAX_ENTRIES if limit is None else limit
    count = math.prod(int(s) for s in shape)
    if count > limit or any(int(s) > limit for s in shape):     # (10**20, 0) too
        raise ValueError(f"{name} = {value!r} asks for an array of shape {tuple(shape)} "
                         f"({count:,} entries); gleam allocates at most {limit:,}")
    return count
