"""The bad-input policy (tests/core/test_fuzz.py) over gleam.tasks*, gleam.tasks.splits.

Every call returns a finite result or raises a ValueError naming one of its arguments.
"""
import numpy as np
import pytest
from hypothesis import strategies as st

from gleam import tasks
from gleam.tasks import splits
from gleam.tasks import base as tasks_base
from gleam.tasks import dyck as tasks_brackets
from gleam.tasks import anbn as tasks_counting
from gleam.tasks import delayed_cue as tasks_cue_delay
from gleam.tasks import sums as tasks_nested_sums
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, choice, farray, flag,
                                  fuzz_entry, missing_entries, real, size, sometimes_bad)

MODULES = (tasks, tasks_base, tasks_brackets, tasks_counting, tasks_cue_delay,
           tasks_nested_sums, splits)


def seed():
    return sometimes_bad(st.one_of(st.integers(0, 2 ** 32),
                                   st.integers(0, 3).map(np.random.default_rng)), BAD_SCALARS)


def span(lo, hi):
    """An int or a pair (lo, hi) in [lo, hi], or now and then a bad one."""
    good = st.one_of(st.integers(lo, hi),
                     st.tuples(st.integers(lo, hi), st.integers(lo, hi)).map(
                         lambda p: tuple(sorted(p))))
    return sometimes_bad(good, st.one_of(BAD_SIZES, st.just((1, 2, 3)), st.just((5, 2)),
                                         st.tuples(size(lo, hi), size(lo, hi))))


def probability():
    return real(0, 1)


# small example lists of every family, built once
POOLS = [tasks.cue_delay(6, 0, (1, 5), p_supersede=0.5, amplitude=0.5),
         tasks.nested_sums(6, 0, max_depth=2), tasks.nested_sums(6, 1, max_depth=3),
         tasks.brackets(6, 0, "dyck2", (2, 8)), tasks.counting(6, 0, "anbncn", "predict", (1, 3)),
         tasks.counting(6, 0)]
ODD_LISTS = st.sampled_from([[], [1, 2], "abc", None, [POOLS[0][0], "x"], (), {}])
EXAMPLES = sometimes_bad(st.one_of(st.sampled_from(POOLS), st.tuples(
    st.sampled_from(POOLS), st.sampled_from(POOLS)).map(lambda p: p[0] + p[1])),
    st.one_of(ODD_LISTS, BAD_SCALARS))
NAMES = ["target", "value", "depth", "scope", "cue_in_force", "deterministic", "next_valid"]
ODD_NAMES = st.sampled_from(["nope", 3, None, b"depth", ["depth"]])
VOCABS = sometimes_bad(st.one_of(st.none(), st.sampled_from(["()+0123456789", "ab", ".abc"])),
                       st.one_of(st.sampled_from(["", "aab"]), st.text(max_size=8),
                                 BAD_SCALARS))


@st.composite
def example_args(draw):
    text = draw(sometimes_bad(st.text(min_size=1, max_size=6), st.one_of(st.just(""),
                                                                         BAD_SCALARS)))
    T = len(text) if isinstance(text, str) else 2
    target = draw(sometimes_bad(st.one_of(st.integers(-5, 5), st.floats(),
                                          st.text(min_size=T, max_size=T)),
                                st.one_of(st.text(max_size=T + 1), BAD_SCALARS)))
    labels = draw(sometimes_bad(
        st.fixed_dictionaries({"x": st.lists(st.integers(-3, 3), min_size=T, max_size=T)
                               .map(tuple), "y": st.just((1.5,) * T)}),
        st.one_of(st.just({"x": [0] * T}), st.just({1: ()}), st.just({"x": (0,) * (T + 1)}),
                  st.just({"x": (True,) * T}), BAD_SCALARS)))
    facts = draw(sometimes_bad(st.just({"depth": 1, "pairs": [[1, 2]], "p": None}),
                               st.one_of(st.just({"f": {1}}), st.just({"f": float("nan")}),
                                         st.just({2: 1}), BAD_SCALARS)))
    features = draw(st.one_of(st.none(), farray((T, 2)), farray((T + 1, 2))))
    return (text, target, labels, facts), {"features": features}


@st.composite
def encode_args(draw):
    pool = draw(st.sampled_from(POOLS))
    label = draw(st.sampled_from(sorted(pool[0].labels)))
    target = draw(sometimes_bad(st.sampled_from(["target", "value", label]),
                                st.one_of(st.sampled_from(NAMES), ODD_NAMES)))
    per_char = (label == target) or isinstance(pool[0].target, str)
    kw = {"vocab": draw(VOCABS), "target": target,
          "per_char": draw(sometimes_bad(st.just(per_char), flag())),
          "features": draw(sometimes_bad(st.just(pool[0].features is not None), flag()))}
    if draw(st.booleans()) and kw["per_char"] is True:
        kw["skip"] = draw(sometimes_bad(st.sampled_from([-1, 0, 1]), real()))
    if draw(st.booleans()) and kw["per_char"] is True:
        kw["loss_on"] = draw(sometimes_bad(st.just(label), st.one_of(st.sampled_from(NAMES),
                                                                     ODD_NAMES)))
    return (draw(sometimes_bad(st.just(pool), EXAMPLES)),), kw


@st.composite
def target_of_args(draw):
    example = draw(sometimes_bad(st.sampled_from([p[0] for p in POOLS]), BAD_SCALARS))
    name = sorted(example.labels) if isinstance(example, tasks.Example) else NAMES
    target = draw(sometimes_bad(st.sampled_from(["target", "value"] + name),
                                st.one_of(st.sampled_from(NAMES), ODD_NAMES), odds=4))
    return (example,), {"target": target, "per_char": draw(flag())}


SUMS = [p for p in POOLS if "digit_depths" in p[0].facts]
DEEP = [p for p in POOLS if "depth" in p[0].facts]
ODD_HELD = st.sampled_from([[(1,), (1, 2)], [], "ab", [[[1], 2]], {(1, 1, 1)}, [[]], None, 3,
                            [object()], [(1, 1)] * 3, ["a"], [True], [float("nan")], {3: 4}])


@st.composite
def composition_args(draw):
    pool = draw(st.sampled_from(SUMS))
    key = draw(sometimes_bad(st.sampled_from(["digit_depths", "operand_patterns"]), ODD_KEYS))
    src = key if key in ("digit_depths", "operand_patterns") else "digit_depths"
    present = sorted({tuple(c) for e in pool for c in e.facts[src]})
    held = draw(sometimes_bad(st.lists(st.sampled_from(present), min_size=1, max_size=3),
                              ODD_HELD))
    return (draw(sometimes_bad(st.just(pool), EXAMPLES)), held), {"key": key}


@st.composite
def value_args(draw):
    pool = draw(st.sampled_from(POOLS))
    key = "value" if "value" in pool[0].facts else "target"
    present = sorted({e.facts["value"] if key == "value" else e.target for e in pool},
                     key=repr)
    values = draw(sometimes_bad(st.lists(st.sampled_from(present), min_size=1, max_size=3),
                                ODD_HELD))
    return (draw(sometimes_bad(st.just(pool), EXAMPLES)), values), {
        "key": draw(sometimes_bad(st.just(key), ODD_KEYS))}


ODD_KEYS = st.sampled_from(["nope", 3, None, "counts", "delay"])


def split_args(pools, threshold):
    """(examples, threshold) with examples that fit the split (mostly)."""
    return call(sometimes_bad(st.sampled_from(pools), EXAMPLES), threshold)

TABLE = [
    E(tasks_base.Example, example_args()),
    E(tasks_base.int_range, call(st.just("delay"), span(1, 9), st.just(1), st.just(8)),
      aliases=("delay",)),
    E(tasks_base.example_count, call(size(1, 10 ** 6), size(1, 10 ** 6))),
    E(tasks_base.unit_probability, call(st.just("p"), probability()), aliases=("p",)),
    E(tasks_cue_delay.cue_delay, call(size(1, 6), seed(), delay=span(1, 12),
                                      distractors=sometimes_bad(st.sampled_from(["cdef", "xy"]), (
                                          st.sampled_from(["c", "cc", "ab?", ""]))),
                                      p_supersede=probability(), p_needs_cue=probability(),
                                      amplitude=st.one_of(st.none(), real(0, 10)))),
    E(tasks_cue_delay.channels, call(sometimes_bad(st.sampled_from(["cdef", "xyz"]),
                                                   st.sampled_from(["a", "", "cc"])))),
    E(tasks_cue_delay.features, call(sometimes_bad(st.text("abcdef?!", min_size=1, max_size=12),
                                                   st.one_of(st.sampled_from(["", "abz", "a\n"]), BAD_SCALARS)),
                                     sometimes_bad(st.just("cdef"), st.sampled_from(["a", "", "cc"])),
                                     sometimes_bad(real(0.01, 10), st.one_of(st.sampled_from([0, -1.0]), BAD_SCALARS)))),
    E(tasks_nested_sums.longest_sum, call(size(1, 12), size(1, 12))),
    E(tasks_nested_sums.nested_sums, call(size(1, 6), seed(), max_depth=size(1, 5),
                                          max_operands=size(2, 4), p_nest=probability(),
                                          min_depth=size(1, 2))),
    E(tasks_brackets.brackets, call(size(1, 6), seed(), kind=choice(tasks_brackets.KINDS),
                                    length=span(2, 20), p_wellformed=probability(),
                                    max_depth=st.one_of(st.none(), size(1, 5)))),
    E(tasks_counting.counting, call(size(1, 6), seed(), kind=choice(tasks_counting.KINDS),
                                    mode=choice(tasks_counting.MODES), block=span(1, 10),
                                    p_positive=probability())),
    E(tasks_counting.next_valid, call(sometimes_bad(st.text("abc.x", max_size=8), BAD_SCALARS),
                                      choice(tasks_counting.KINDS))),
    E(tasks.check_examples, call(EXAMPLES)),
    E(tasks.vocabulary, call(EXAMPLES)),
    E(tasks.target_of, target_of_args()),
    E(tasks.encode, encode_args()),
    E(tasks.decode, call(sometimes_bad(st.lists(st.integers(0, 1), max_size=5), st.one_of(
        st.lists(st.integers(-2, 12), max_size=5), farray((3,)), BAD_SCALARS)),
        sometimes_bad(st.sampled_from(["ab", "()"]), VOCABS))),
    E(splits.length_split, split_args(POOLS, sometimes_bad(st.integers(3, 20), BAD_SIZES))),
    E(splits.depth_split, split_args(DEEP, sometimes_bad(st.integers(1, 3), BAD_SIZES))),
    E(splits.composition_split, composition_args()),
    E(splits.value_split, value_args()),
]

RECORDS = {splits.Split: "a frozen record of what a split function returns"}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries(MODULES, TABLE, RECORDS)
