"""Fuzzing gleam.instruments.interventions and gleam.instruments.stability under the house policy (tests/core/test_fuzz.py):
every call returns a finite result or raises a ValueError naming one of its arguments.

The intervention builders return functions that run inside SeqModel.forward, where a bad unit,
direction or pair can only be found out; so each builder is fuzzed through `effect` on a model.
"""
import math

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gleam.instruments import interventions as iv
from gleam.instruments import input_interventions as ivi
from gleam.instruments import stability as stab
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, KERNEL, call, choice, farray,
                                  flag, fuzz_entry, iarray, missing_entries, model_setup, real,
                                  rng, size)

# what SeqModel and effect's own checks may name besides a wrapper's arguments
MODEL = ("X", "mask", "h0", "token ids", "intervene", "targets", "target_mask", "class targets",
         "weights", "sequence")


def mostly(good, bad, odds=6):
    """good, or 1 time in `odds` bad: as test_fuzz's sometimes_bad, but with the good branch
    first, so that hypothesis's simplest examples (its first tries) are the well-formed ones."""
    return st.integers(0, odds - 1).flatmap(lambda k: bad if k == odds - 1 else good)


@st.composite
def setup(draw):
    """(model, X, mask, targets, T, m): model_setup's, or (3 times in 4) a well-formed batch for
    its model; m is the state's width (2n for an LSTM)."""
    model, X, mask, y = draw(model_setup())
    if draw(st.integers(0, 3)) < 3:
        T, B = draw(st.integers(1, 3)), draw(st.integers(2, 3))
        X = draw(st.one_of(hnp.arrays(np.int64, (T, B), elements=st.integers(0, 2)),
                           hnp.arrays(np.float64, (T, B, 3), elements=st.floats(-KERNEL, KERNEL))))
        mask = draw(st.one_of(st.none(), hnp.arrays(bool, (T, B)).map(
            lambda m: np.vstack([np.ones((1, B), bool), m[1:]]))))
        lead = (T, B) if model.config.many_to_many else (B,)
        if model.config.head == "classify":
            y = draw(hnp.arrays(np.int64, lead, elements=st.integers(0, 1)))
        else:
            y = draw(hnp.arrays(np.float64, lead + (model.config.n_out,),
                                elements=st.floats(-KERNEL, KERNEL)))
    T = X.shape[0] if isinstance(X, np.ndarray) and X.ndim >= 2 and X.shape[0] else 1
    return model, X, mask, y, T, (2 if model.lstm else 1) * model.config.n


def steps(T, m=None):
    """Mostly steps of a T-step batch (a list may reach one past its end)."""
    good = st.one_of(st.integers(0, T - 1), st.lists(st.integers(0, T), min_size=1, max_size=3))
    return mostly(good, st.one_of(BAD_SCALARS, BAD_SIZES, st.just([]), st.just([0, -1])))


def parts():
    return st.one_of(st.just("h"), choice(iv.PARTS))


def vector(m):
    """Mostly an m-vector (the state's width, or n = m / 2 of an LSTM), sometimes any length."""
    return st.one_of(st.just(np.arange(1.0, m + 1)), st.just(np.ones(max(m // 2, 1))),
                     farray((m,), 10.0), st.integers(1, 6).flatmap(lambda k: farray((k,))))


def small_or_any():
    return mostly(st.floats(-2, 2), real())


def on_model(*makers):
    """(model, X, mask) from model_setup, then one argument from each maker(T, m)."""
    return setup().flatmap(lambda s: st.tuples(*[make(s[4], s[5]) for make in makers]).map(
        lambda args: (s[:3] + args, {})))


def _finite(*values):
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)


def nan_at_padding(result, args, kwargs):
    """A regression's predictions are NaN at its padded steps (SeqModel.predict), and only there."""
    model, mask, e = args[0], args[2], result
    if not (model.config.many_to_many and e.before.dtype.kind == "f"):
        return False
    valid = np.ones(e.before.shape[:2], bool) if mask is None else np.asarray(mask).astype(bool)
    for p in (e.before, e.after):
        bad = ~np.isfinite(p)
        if np.any((bad.any(axis=-1) if p.ndim == 3 else bad) & valid):
            return False
    return _finite(e.outputs_before, e.outputs_after, e.changed, e.mean_abs_change,
                   *(v for v in (e.accuracy_before, e.accuracy_after) if v is not None))


def no_nan_or_plus_inf(result, args, kwargs):
    """Exact zeros on a log scale are −inf; NaN and +inf still fail."""
    leaves = [result] if isinstance(result, np.ndarray) else [
        getattr(result, f) for f in ("log10_norm", "matrix", "log10_gain", "log10_step_gain")
        if hasattr(result, f)]
    return all(not np.any(np.isnan(v)) and not np.any(np.isposinf(v)) for v in leaves)


# ---------------------------------------------------------------- interventions
def clamp_unit_effect(model, X, mask, unit, value, steps, part):
    return iv.effect(model, X, mask, iv.clamp_unit(unit, value, steps, part=part))


def clamp_direction_effect(model, X, mask, direction, value, steps, part):
    return iv.effect(model, X, mask, iv.clamp_direction(direction, value, steps, part=part))


def add_along_effect(model, X, mask, direction, alpha, steps, part):
    return iv.effect(model, X, mask, iv.add_along(direction, alpha, steps, part=part))


def swap_effect(model, X, mask, step, pairs, units, part, check):
    checked = mask if check else None
    return iv.effect(model, X, mask, iv.swap_states(step, pairs, checked, units, part))


def combine_effect(model, X, mask, intervenes):
    return iv.effect(model, X, mask, iv.combine(*intervenes))


SOME = [iv.clamp_unit(0, 0.5, 0), iv.swap_states(0, (0, 1)), iv.add_along([1.0], 0.1, 1),
        iv.clamp_direction([1.0, 1.0], 2.0, [0, 1], part="both"), {0: lambda s: s}]
INTERVENE = st.one_of(st.sampled_from(SOME), st.just({0: "f"}), st.just({-1: lambda s: s}),
                      st.just({0: lambda s: 1.0}), BAD_SCALARS, st.none())
PAIR = st.sampled_from([(0, 1), (1, 0), (0, 2), (2, 1)])
PAIRS = mostly(st.one_of(PAIR, st.lists(PAIR, min_size=1, max_size=2)), st.one_of(
    BAD_SCALARS, st.tuples(size(0, 3), size(0, 3)), st.just([(0, 1), (1, 2)]), st.just([[0]])))


def effect_args():
    @st.composite
    def build(draw):
        model, X, mask, y, T, _ = draw(setup())
        lead = (T, X.shape[1]) if isinstance(X, np.ndarray) and X.ndim >= 2 else (T, 1)
        tm = st.one_of(hnp.arrays(bool, lead), BAD_SCALARS)
        kw = {"targets": draw(st.one_of(st.none(), st.just(y))),
              "target_mask": draw(st.one_of(st.none(), st.none(), st.none(), tm)),
              "tol": draw(mostly(st.just(1e-9), real(0)))}
        return (model, X, mask, draw(INTERVENE)), kw
    return build()


def inputs():
    good = st.one_of(hnp.arrays(np.int64, (3, 2), elements=st.integers(0, 3)),
                     hnp.arrays(np.float64, (3, 2, 4), elements=st.floats(-1e308, 1e308)))
    return mostly(good, st.one_of(iarray((3, 2), 0, 3), farray((3, 2, 4)), BAD_SCALARS))


def masks():
    valid_first = hnp.arrays(bool, (3, 2)).map(lambda m: np.vstack([[True, True], m[1:]]))
    return mostly(st.one_of(st.none(), valid_first),
                         st.one_of(hnp.arrays(bool, (3, 2)), farray((3, 2)), BAD_SCALARS))


TABLE = [
    E(clamp_unit_effect, on_model(lambda T, m: size(0, m), lambda T, m: small_or_any(), steps,
                                  lambda T, m: parts()), MODEL,
      nan_at_padding, covers=(iv.clamp_unit,)),
    E(clamp_direction_effect, on_model(lambda T, m: vector(m), lambda T, m: small_or_any(),
                                       steps, lambda T, m: parts()), MODEL,
      nan_at_padding, covers=(iv.clamp_direction,)),
    E(add_along_effect, on_model(lambda T, m: vector(m), lambda T, m: small_or_any(), steps,
                                 lambda T, m: parts()), MODEL,
      nan_at_padding, covers=(iv.add_along,)),
    E(swap_effect, on_model(lambda T, m: size(0, T - 1), lambda T, m: PAIRS,
                            lambda T, m: st.one_of(st.none(), steps(m)), lambda T, m: parts(),
                            lambda T, m: flag()),
      MODEL, nan_at_padding, covers=(iv.swap_states,)),
    E(combine_effect, on_model(lambda T, m: st.lists(INTERVENE, max_size=3)), MODEL,
      nan_at_padding,
      covers=(iv.combine,)),
    E(iv.effect, effect_args(), MODEL, nan_at_padding, covers=(iv.effect, iv.Effect)),
    E(iv.zero_input, call(inputs(), steps(3), d=st.one_of(st.none(), size(4, 4), size(1, 5)),
                          mask=masks())),
    E(iv.permute_inputs, call(inputs(), masks(), steps(3),
                              seed=st.one_of(size(0), rng(), BAD_SCALARS))),
]


# ---------------------------------------------------------------- stability
def stacks():
    good = st.one_of(*[hnp.arrays(np.float64, shape, elements=st.floats(-mag, mag))
                       for shape in ((3, 2, 2), (1, 3, 3), (0, 2, 2)) for mag in (10.0, 1e308)])
    return mostly(good, st.one_of(farray((3, 2, 2)), farray((2, 2)), farray((2, 3, 2))))


def span_value(jacobians, s, e):
    return stab.span_product(jacobians, s, e).value()


FINITE_STACKS = hnp.arrays(np.float64, (3, 2, 2), elements=st.floats(-1e308, 1e308))
SPANS = st.one_of(FINITE_STACKS.map(stab.span_product),       # and hand-made ones
                  st.builds(stab.SpanProduct, farray((2, 2)),
                            st.sampled_from([0.0, -math.inf, math.inf, 400.0, -400.0]) | real(),
                            st.just(0), st.just(1)))

TABLE += [
    E(stab.state_jacobians, on_model(lambda T, m: size(0, 2), lambda T, m: st.one_of(
        st.none(), farray((2,), KERNEL))),
      MODEL),
    E(stab.span_product, call(stacks(), size(0, 4), st.one_of(st.none(), size(0, 4))),
      nonfinite=no_nan_or_plus_inf),
    E(span_value, call(stacks(), size(0, 4), st.one_of(st.none(), size(0, 4))),
      aliases=("SpanProduct.value",), covers=(stab.SpanProduct,)),
    E(stab.singular_values, call(stacks(), log10=flag()), nonfinite=no_nan_or_plus_inf),
    E(stab.singular_values, call(SPANS, log10=flag()),
      aliases=("jacobians.matrix", "jacobians.log10_norm"), nonfinite=no_nan_or_plus_inf),
    E(stab.perturbation_growth, on_model(
        lambda T, m: size(0, 2), lambda T, m: size(0, T - 1),
        lambda T, m: st.one_of(st.none(), vector(m)),
        lambda T, m: st.one_of(size(0), rng(), BAD_SCALARS),
        lambda T, m: st.one_of(st.just(1e-6), real(1e-12, 1), real(0, 2))),
      MODEL, covers=(stab.perturbation_growth, stab.Perturbation)),
    E(stab.growth_profile, call(stacks(), start=size(0, 4), tol=real(0, 1)),
      nonfinite=no_nan_or_plus_inf, covers=(stab.growth_profile, stab.GrowthProfile)),
]

# the input checks shared by the interventions on inputs and on states: fuzzed through their entries
RECORDS = {ivi.check_indices: "an input check of the interventions, fuzzed through their entries",
           ivi.as_array_or_object: "an input check of the interventions, fuzzed through their entries"}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__name__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((iv, ivi, stab), TABLE, RECORDS)


def test_missing_entries_sees_a_new_public_function():
    assert missing_entries((iv, stab), TABLE[1:], RECORDS) == ["gleam.instruments.interventions.clamp_unit"]
