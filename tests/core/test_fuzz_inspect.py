"""Fuzzing gleam.instruments.inspect under the house policy (tests/core/test_fuzz.py): every call
returns a finite result or raises a ValueError naming one of its arguments. (A Look made under a
state intervention has no sensitivity: NaN there is its documented answer.)"""

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gleam.instruments import inspect as ins
from gleam.instruments import interventions as iv
from gleam.instruments.probes import fit_probe
from tests.core.test_fuzz import BAD_SCALARS, E, KERNEL, call, farray, fuzz_entry, missing_entries, model_setup

ALIASES = ("model", "ids", "reference", "intervention", "classes", "probe", "X", "mask", "intervene",
           "token ids", "direction", "unit", "value", "step")


def ids_for(model):
    return st.one_of(hnp.arrays(np.int64, st.integers(0, 4), elements=st.integers(0, model.config.d - 1)),
                     hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.just(model.config.d)),
                                elements=st.floats(-KERNEL, KERNEL)),
                     hnp.arrays(np.int64, (3, 2), elements=st.integers(0, 2)), BAD_SCALARS)


@st.composite
def looks(draw):
    model = draw(model_setup())[0]
    reference = draw(st.one_of(st.none(), farray((draw(st.integers(1, 5)), model.config.n), KERNEL),
                               farray((3, 7), 1.0)))
    return (model, draw(ids_for(model)), reference), {}


@st.composite
def known_looks(draw):
    """look(model, ids, known=...) with a known of another input of the model (when its Look can be
    made), of its own, or a bad one."""
    model = draw(model_setup())[0]
    ids, other = draw(ids_for(model)), draw(ids_for(model))
    try:
        known = (other, ins.look(model, other))
    except ValueError:
        known = None
    known = draw(st.one_of(st.just(known), st.just((ids, None)), st.just((other,)), BAD_SCALARS))
    return (model, ids), {"known": known}


@st.composite
def edits(draw):
    model = draw(model_setup())[0]
    ids = draw(ids_for(model))
    intervention = draw(st.one_of(
        st.sampled_from([iv.clamp_unit(0, 0.5, 0), iv.add_along([1.0] * model.config.n, 2.0, [0, 1]),
                         {}, {0: "f"}]),
        ids_for(model)))
    return (model, ids, intervention), {}


def sensitivity_nan_under_a_state_edit(result, args, kwargs):
    before, after = result
    return isinstance(args[2], dict) and np.isnan(after.sensitivity).all() and all(
        np.isfinite(v).all() for look in result for v in (look.states, look.path, look.probabilities))


@st.composite
def words(draw):
    model = draw(model_setup())[0]
    ids = np.array([0, 1, 2])
    if model.config.head != "classify" or model.config.many_to_many:
        return (None, None, ["a"]), {}
    before, after = ins.edit(model, ids, iv.clamp_unit(0, 0.9, [2]))
    classes = draw(st.one_of(st.just(["a", "b"]), st.just(["a"]), st.just([])))
    probe = draw(st.one_of(st.none(), st.just(fit_probe(np.eye(model.config.n)[[0, 0, 0]] + np.arange(3)[:, None],
                                                           np.arange(3.0), kind="regress"))))
    return (before, after, classes, probe), {}


@st.composite
def transplants(draw):
    model = draw(model_setup())[0]
    return (model, draw(ids_for(model)), draw(st.one_of(st.integers(-1, 5), BAD_SCALARS))), {}


@st.composite
def references(draw):
    return (draw(st.one_of(farray((draw(st.integers(0, 5)), draw(st.integers(0, 4))), KERNEL), BAD_SCALARS)),), {}


def transplant_applied(model, other, step):
    """The transplant, put into a run of the other input itself (so that its function is called)."""
    intervention = ins.transplant(model, other, step)
    return ins.edit(model, other, intervention)


def in_words_checked(before, after, classes, probe=None):
    if before is None:
        raise ValueError("model: not a classifier (no words to compare)")
    return ins.in_words(before, after, classes, probe)


TABLE = [
    E(ins.look, looks(), aliases=ALIASES, covers=(ins.look, ins.Look, ins.as_batch)),
    E(ins.edit, edits(), aliases=ALIASES, nonfinite=sensitivity_nan_under_a_state_edit),
    E(ins.look, known_looks(), aliases=ALIASES + ("known",)),
    E(in_words_checked, words(), aliases=ALIASES, covers=(ins.in_words,)),
    E(transplant_applied, transplants(), aliases=ALIASES + ("other",), nonfinite=sensitivity_nan_under_a_state_edit,
      covers=(ins.transplant,)),
    E(ins.fit_reference, references(), aliases=ALIASES + ("rows",), covers=(ins.fit_reference,)),
]


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__name__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((ins,), TABLE)
