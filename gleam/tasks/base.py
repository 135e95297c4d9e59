"""What every rule-made task shares: the Example record and the checks of the generators' sizes.

An Example is one sequence of characters (one character per step) with
    target    the answer for the whole sequence: an int class or a float value, or, for
              next-character prediction, a str of len(text): target[t] is the character after
              text[t] (the last one a terminator);
    labels    probe labels per character: name -> tuple of len(text) ints or floats, each the
              value *after* reading that character;
    facts     what the splits read (length, depth, value, ...), JSON-able: ints, floats, bools,
              None, str and lists of them;
    features  None, or a (len(text), d) float array for tasks whose input is richer than its
              text (gleam.tasks.delayed_cue's distractor amplitude); read-only.
The generators (gleam.tasks_*) are `family(n, seed, **options) -> list[Example]`, drawing only
from np.random.default_rng(seed) through `integers` and `random`, so one seed gives the same
examples on every NumPy with the Generator API (2.0.2 in Pyodide and later).

Sizes are bounded: at most MAX_EXAMPLES examples of at most MAX_LENGTH characters, and
n × (longest possible text) <= MAX_CHARS characters in one call.
"""
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from gleam import checks

__all__ = ["Example", "MAX_EXAMPLES", "MAX_LENGTH", "MAX_CHARS", "int_range", "example_count",
           "unit_probability"]

MAX_EXAMPLES = 100_000
MAX_LENGTH = 4096
MAX_CHARS = 2 ** 24          # characters per call, counted at the longest text each: nested sums of
                             # depth 4 bound 69,000 examples (their mean is 18 characters, not 241)


def _jsonable(value, depth=0):
    if depth > 4:
        return False
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_jsonable(v, depth + 1) for v in value)
    return False


def _finite_real(x):
    """A finite int or float (numpy's too), not a bool."""
    t = type(x)
    if t is int:                          # the common cases first: the ABC check is slow
        return True
    if t is float:
        return math.isfinite(x)
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def _finite_reals(values):
    """Every entry a finite int or float (numpy's too), not a bool: the types looked at once, in
    C (a label tuple is as long as its text, and the generators make tens of thousands)."""
    kinds = set(map(type, values))
    if kinds <= {int}:
        return True
    if kinds <= {float}:
        return all(map(math.isfinite, values))
    return all(map(_finite_real, values))


@dataclass(frozen=True)
class Example:
    text: str                 # the input, one character per step
    target: object            # int class, float value, or the next-character str
    labels: dict              # name -> tuple of len(text) ints/floats (after reading each char)
    facts: dict               # JSON-able facts the splits read
    features: np.ndarray = field(default=None, compare=False)  # None or (len(text), d)

    def __post_init__(self):
        if not isinstance(self.text, str) or not 1 <= len(self.text) <= MAX_LENGTH:
            raise ValueError(f"text must be a str of 1 to {MAX_LENGTH} characters, "
                             f"got {self.text!r:.80}")
        t = self.target
        if isinstance(t, str):
            if len(t) != len(self.text):
                raise ValueError(f"target is a next-character str, so it must have "
                                 f"len(text) = {len(self.text)} characters, got {len(t)}")
        elif isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, float, np.integer,
                                                                   np.floating)):
            raise ValueError(f"target must be an int, a float or a str, got {t!r:.80}")
        elif not math.isfinite(float(t)):
            raise ValueError(f"target must be finite, got {t!r}")
        for name, value in (("labels", self.labels), ("facts", self.facts)):
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise ValueError(f"{name} must be a dict with str keys, got {value!r:.80}")
        for k, v in self.labels.items():
            ok = isinstance(v, tuple) and len(v) == len(self.text) and _finite_reals(v)
            if not ok:
                raise ValueError(f"labels[{k!r}] must be a tuple of len(text) = "
                                 f"{len(self.text)} finite ints or floats, got {v!r:.80}")
        for k, v in self.facts.items():
            if not _jsonable(v):
                raise ValueError(f"facts[{k!r}] must be JSON-able (ints, finite floats, bools, "
                                 f"None, str, lists of them), got {v!r:.80}")
        if self.features is not None:
            f = checks.array("features", self.features, ndim=2)
            if f.shape[0] != len(self.text) or f.shape[1] == 0:
                raise ValueError(f"features has shape {f.shape}, expected (len(text), d) = "
                                 f"({len(self.text)}, d >= 1)")
            f = f.copy()
            f.setflags(write=False)
            object.__setattr__(self, "features", f)

    def __hash__(self):                   # equal examples share their text (labels are dicts)
        return hash(self.text)


def int_range(name, value, minimum, maximum):
    """An option that is one int or an inclusive range (lo, hi) -> (lo, hi), each in bounds."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(f"{name} must be an integer or a pair (lo, hi), got {value!r:.80}")
        lo = checks.integer(f"{name}", value[0], minimum=minimum, maximum=maximum)
        hi = checks.integer(f"{name}", value[1], minimum=minimum, maximum=maximum)
        if lo > hi:
            raise ValueError(f"{name} must be a pair (lo, hi) with lo <= hi, got {value!r}")
        return lo, hi
    v = checks.integer(name, value, minimum=minimum, maximum=maximum)
    return v, v


def example_count(n, longest):
    """n as an int in [1, MAX_EXAMPLES], or ValueError if n texts of `longest` characters would
    exceed MAX_CHARS."""
    n = checks.integer("n", n, minimum=1, maximum=MAX_EXAMPLES)
    longest = checks.integer("longest", longest, minimum=1)
    checks.entries("n", n, (n, longest), limit=MAX_CHARS)
    return n


def unit_probability(name, value):
    """A probability option: a finite number in [0, 1], as a float."""
    return checks.number(name, value, minimum=0, maximum=1)
