"""Fuzzing gleam.labs.extrapolation.brackets with the policy of tests/core/test_fuzz.py: every call returns a
finite result or raises a ValueError naming one of its arguments (small sizes throughout)."""
import pytest
from hypothesis import strategies as st

from gleam.labs.extrapolation import brackets as extrap_brackets
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, choice, flag, fuzz_entry,
                                  missing_entries, real, size, sometimes_bad)

MODULES = (extrap_brackets,)


def bracket_configs():
    """Small configs of train_brackets (sizes always given: the defaults take a second or two)."""
    sizes = {"n_train": size(1, 30), "n_test": size(1, 6), "epochs": size(1, 2),
             "max_train_length": size(2, 8), "n": size(1, 3),
             "test_lengths": sometimes_bad(st.sampled_from([[4], [4, 8], [2, 12]]),
                                           st.one_of(BAD_SCALARS, st.just([8, 4]), st.just([1]))),
             "test_depths": sometimes_bad(st.sampled_from([[1], [2], [1, 3]]),
                                          st.one_of(BAD_SCALARS, st.just([2, 2]), st.just([5]))),
             "length_lo": sometimes_bad(st.sampled_from([4, 6]), BAD_SIZES),
             "length_hi": sometimes_bad(st.sampled_from([6, 8]), BAD_SIZES)}
    rest = {"kind": choice(extrap_brackets.VOCABS), "cell": choice(["elman", "gru_torch", "lstm"]),
            "max_train_depth": size(1, 4), "p_wellformed": real(0, 1), "lr": real(0, 1),
            "batch_size": size(1, 8), "clip": sometimes_bad(st.sampled_from([None, 1.0, 5.0]), BAD_SCALARS),
            "reach_threshold": real(0, 1), "seed": size(0, 9)}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 0 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 1 else {})}))


def _stepped_run(config, n):
    run = extrap_brackets.BracketsRun(config)
    stats = run.step(n)
    return [stats.loss, run.metrics(), run.accuracy("iid")]


@st.composite
def curves(draw):
    """(values, accuracies, threshold): a curve of distinct values, now and then a broken one."""
    pairs = draw(st.lists(st.tuples(st.integers(-5, 100), st.floats(0, 1)), max_size=4,
                          unique_by=lambda p: p[0]))
    values = draw(sometimes_bad(st.just([v for v, _ in pairs]),
                                st.one_of(BAD_SCALARS, st.just([3, 3]), st.just([1, "x"]))))
    accs = draw(sometimes_bad(st.just([a for _, a in pairs]),
                              st.one_of(BAD_SCALARS, st.just([0.5, float("nan")]), st.just([0.5]))))
    return (values, accs, draw(real())), {}


TABLE = [
    E(extrap_brackets.train_brackets, call(bracket_configs())),
    E(extrap_brackets.normalized, call(bracket_configs())),
    # a run made, stepped any number of updates (any value as n), and tested as it is then
    E(_stepped_run, call(bracket_configs(), sometimes_bad(size(1, 20), BAD_SIZES)),
      covers=(extrap_brackets.BracketsRun,)),
    E(extrap_brackets.balanced_set, call(
        size(1, 6), size(0, 9), choice(extrap_brackets.VOCABS),
        sometimes_bad(st.sampled_from([(2, 8), (4, 6), 6, [6, 10]]),
                      st.one_of(BAD_SCALARS, st.sampled_from([(6, 4), (3, 3), (2, 10 ** 9), (1, 2, 3)]))),
        sometimes_bad(st.sampled_from([None, 1, 2, 3]), BAD_SIZES), real(0, 1), flag())),
    E(extrap_brackets.reach, curves()),
]

RECORDS = {}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    missing = missing_entries(MODULES, TABLE, RECORDS)
    assert not missing, f"no fuzz entry for {missing}"
