"""Fuzzing gleam.labs.extrapolation.sums with the policy of tests/core/test_fuzz.py: every call returns a
finite result or raises a ValueError naming one of its arguments (a config's messages name
config['...'])."""
import numpy as np
import pytest
from hypothesis import strategies as st

from gleam.labs.extrapolation import sums as extrap_sums
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, fuzz_entry,
                                  missing_entries, real, size, sometimes_bad)

MODULES = (extrap_sums,)


# a threshold that fits each split (and tiny data sets)
FITTING = {"length": st.integers(7, 15), "depth": st.integers(1, 2), "value": st.integers(5, 15),
           "composition": st.sampled_from([[[3, 2]], [[1, 2], [2, 1]], [[0, 1]]])}
BAD_VALUES = st.one_of(BAD_SCALARS, BAD_SIZES, st.just([[3, 2]]))


@st.composite
def sums_configs(draw):
    """Small configs of train_sums (texts at most 79 characters): a good one, or one with a single
    name bad (a wrong value, an unknown name) or not a dict at all."""
    split = draw(st.sampled_from(extrap_sums.SPLITS))
    head = draw(st.sampled_from(extrap_sums.HEADS))
    config = {"n_examples": draw(st.integers(15, 40)), "n": draw(st.integers(1, 3)),
              "epochs": draw(st.integers(1, 2)), "batch_size": draw(st.integers(1, 8)),
              "split": split, "head": head, "max_depth": draw(st.integers(2, 3)),
              "threshold": draw(st.sampled_from(range(8)).flatmap(
                  lambda k: st.none() if k == 4 else FITTING[split]))}
    rest = {"max_operands": st.integers(2, 3), "p_nest": st.floats(0, 1),
            "iid_fraction": st.floats(0.1, 0.9), "cell": st.sampled_from(["elman", "gru_torch", "lstm"]),
            "lr": st.floats(1e-3, 1), "clip": st.sampled_from([None, 1.0, 5.0]),
            "arith_reg": st.sampled_from([0.0, 0.1] if head in ("nau", "nmu") else [0.0]),
            "seed": st.integers(0, 9)}
    config.update(draw(st.fixed_dictionaries({}, optional=rest)))
    broken = draw(st.sampled_from([None] * 12 + ["not a dict", "typo"] + sorted(extrap_sums.DEFAULTS)))
    if broken == "not a dict":
        return draw(BAD_SCALARS)
    if broken is not None:
        config[broken] = 1 if broken == "typo" else draw(BAD_VALUES)
    return config


def _stepped_run(config, n):
    run = extrap_sums.SumsRun(config)
    stats = run.step(n)
    return [stats.loss, run.metrics()]


@st.composite
def reached_args(draw):
    """(values, predictions) of one length (now and then a wrong one), tolerance as a keyword."""
    k = draw(st.integers(1, 6))
    values = draw(sometimes_bad(st.lists(st.integers(0, 50), min_size=k, max_size=k).map(
        lambda v: np.array(v, float)), st.one_of(BAD_SCALARS, st.just(np.array([-1.0] * k)),
                                                 st.just(np.array([np.nan] * k)), st.just(np.zeros((k, 2))))))
    floats = st.floats(allow_nan=True, allow_infinity=True)
    predictions = draw(sometimes_bad(st.lists(floats, min_size=k, max_size=k).map(
        lambda v: np.array(v, float)), st.one_of(BAD_SCALARS, st.just(np.zeros(k + 1)))))
    tolerance = draw(sometimes_bad(st.just(0.5), real(0, 2)))
    return (values, predictions), {"tolerance": tolerance}


def _curve_of_run(config):
    run = extrap_sums.SumsRun(config)
    run.step(2)
    c = extrap_sums.prediction_curve(run)
    return [c["values"], c["mean_prediction"], c["bound"], c["max_train_value"]]


TABLE = [
    E(extrap_sums.train_sums, call(sums_configs())),
    E(extrap_sums.normalized, call(sums_configs())),
    # a run made, stepped any number of updates (any value as n), and tested as it is then
    E(_stepped_run, call(sums_configs(), sometimes_bad(size(1, 40), BAD_SIZES)),
      covers=(extrap_sums.SumsRun,)),
    # predictions may be NaN or inf (a miss), so a finite answer is owed for them too
    E(extrap_sums.largest_value_reached, reached_args()),
    E(_curve_of_run, call(sums_configs()), aliases=("head", "classify"), covers=(extrap_sums.prediction_curve,)),
    E(extrap_sums.prediction_curve, call(st.one_of(BAD_SCALARS, st.just("run"))), aliases=("run",)),
]

RECORDS = {}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    missing = missing_entries(MODULES, TABLE, RECORDS)
    assert not missing, f"no fuzz entry for {missing}"
