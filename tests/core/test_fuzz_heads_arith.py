"""Fuzzing gleam.seqmodel.arith_heads and the SeqModel / Trainer paths of its heads, with the policy and
machinery of tests/core/test_fuzz.py: a call returns a finite result or raises a ValueError
naming one of its arguments. Kernel magnitudes (h, weights, dy) go up to KERNEL = 1e6, as for
gleam.seqmodel.heads there; beyond it products may overflow by IEEE rules.
"""
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gleam import optim, seqmodel
from gleam.seqmodel import arith_heads as heads_arith
from gleam.seqmodel import trainer as train
from gleam.cells.names import CELL_NAMES
from gleam.seqmodel.arith_heads import ARITH_HEADS
from tests.core.test_fuzz import (BAD_SCALARS, E, FUZZ, call, choice, farray, fuzz_entry,
                                  iarray, missing_entries, real, rng, size)

KERNEL = 1e6
HEAD_KEYS = ("W_nau", "W_nmu", "W_hat", "M_hat", "G")


def _max_abs(value):
    if isinstance(value, dict):
        return max((_max_abs(v) for v in value.values()), default=0.0)
    if isinstance(value, (list, tuple)):
        return max((_max_abs(v) for v in value), default=0.0)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.size:
        return float(np.max(np.abs(value.astype(np.float64))))
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        return abs(float(value))
    return 0.0


def beyond_kernel(result, args, kwargs):
    return _max_abs((args, kwargs)) > KERNEL


@st.composite
def head_args(draw, what, mag=KERNEL):
    """(head, [dy,] h, p) for arith_forward / arith_backward, or (head, p); sometimes malformed."""
    head = draw(st.sampled_from(ARITH_HEADS))
    n_out, n = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    lead = draw(st.sampled_from([(2,), (2, 3)]))
    p = {k: draw(farray(s, mag)) for k, s in heads_arith.arith_shapes(head, n_out, n).items()}
    broken = draw(st.integers(0, 11))
    if broken == 0:
        p.pop(draw(st.sampled_from(sorted(p))))
    elif broken == 1:
        p = draw(BAD_SCALARS)
    head = draw(choice([head]))
    if what == "params":
        return (head, p), {}
    h = draw(farray(lead + (n,), mag))
    if what == "forward":
        return (head, h, p), {}
    return (head, draw(farray(lead + (n_out,), mag)), h, p), {}


@st.composite
def arith_model(draw):
    """(model, X, mask, targets) for a small model with an arithmetic head."""
    head = draw(st.sampled_from(ARITH_HEADS))
    m2m = draw(st.booleans())
    n, n_out = draw(st.integers(1, 3)), draw(st.integers(1, 2))
    config = seqmodel.SeqModelConfig(
        draw(st.sampled_from(CELL_NAMES)), 3, n, n_out, head=head, many_to_many=m2m,
        seed=draw(st.integers(0, 5)),
        arith_reg=draw(st.sampled_from([0.0, 0.5])) if head != "nalu" else 0.0)
    model = seqmodel.SeqModel(config)
    T, B = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    X = draw(iarray((T, B), 0, 2)) if draw(st.booleans()) else draw(farray((T, B, 3), KERNEL))
    mask = draw(st.one_of(st.none(), hnp.arrays(bool, (T, B)).map(
        lambda m: np.vstack([np.ones((1, B), bool), m[1:]])), BAD_SCALARS))
    lead = (T, B) if m2m else (B,)
    y = draw(farray(lead if n_out == 1 else lead + (n_out,), KERNEL))
    return model, X, mask, y


def _model_call(method):
    def run(model, X, mask, y):
        if method == "forward":
            return model.forward(X, mask)[:2]
        if method == "predict":
            return model.predict(X, mask)
        if method == "project":
            model.project()
            return model.params
        if method == "regression_bound":
            return model.regression_bound()
        return getattr(model, method)(X, mask, y)
    run.__name__ = f"SeqModel.{method}[arith]"
    return run


@st.composite
def arith_trainer(draw):
    model, X, mask, y = draw(arith_model())
    opt = draw(st.sampled_from([optim.SGD, optim.Adagrad, optim.Adam]))(
        draw(st.sampled_from([0.0, 0.1, 1e308])))
    tr = train.Trainer(model, opt, clip=draw(st.sampled_from([None, 1.0])),
                       batch_size=draw(st.integers(1, 3)))
    return (tr, draw(st.one_of(st.just((X, mask, y)), BAD_SCALARS))), {}


def _trainer_call(method):
    def run(tr, data):
        return getattr(tr, method)(data)
    run.__name__ = f"Trainer.{method}[arith]"
    return run


MODEL_ALIASES = ("X", "mask", "targets", "target_mask", "token ids", "weights",
                 "regression_bound")
TRAIN_ALIASES = ("X", "mask", "targets", "token ids", "data set", "weights")

TABLE = [
    E(heads_arith.arith_shapes, call(choice(ARITH_HEADS), size(), size())),
    E(heads_arith.init_arith, call(choice(ARITH_HEADS), size(), size(), rng())),
    E(heads_arith.arith_forward, head_args("forward"), HEAD_KEYS, beyond_kernel),
    E(heads_arith.arith_backward, head_args("backward"), HEAD_KEYS, beyond_kernel),
    E(heads_arith.arith_penalty, head_args("params", 1e308), HEAD_KEYS,
      beyond_kernel),   # the mean of entries near ±1e308 overflows
    E(heads_arith.arith_project, head_args("params", 1e308), HEAD_KEYS),
    E(seqmodel.SeqModelConfig, call(choice(CELL_NAMES), size(), size(), size(1, 3),
                                    head=choice(ARITH_HEADS + ("classify",)),
                                    arith_reg=st.one_of(st.just(0.0), real(0, 10))),
      covers=("SeqModelConfig with an arithmetic head",)),
    E(_model_call("forward"), st.builds(lambda s: (s, {}), arith_model()), MODEL_ALIASES,
      covers=("SeqModel.forward",)),
    E(_model_call("predict"), st.builds(lambda s: (s, {}), arith_model()), MODEL_ALIASES,
      nonfinite=lambda r, a, k: True, covers=("SeqModel.predict",)),  # NaN marks padding
    E(_model_call("loss"), st.builds(lambda s: (s, {}), arith_model()), MODEL_ALIASES,
      covers=("SeqModel.loss",)),
    E(_model_call("loss_and_grads"), st.builds(lambda s: (s, {}), arith_model()),
      MODEL_ALIASES, covers=("SeqModel.loss_and_grads",)),
    E(_model_call("project"), st.builds(lambda s: (s, {}), arith_model()), MODEL_ALIASES,
      covers=("SeqModel.project",)),
    E(_model_call("regression_bound"), st.builds(lambda s: (s, {}), arith_model()),
      MODEL_ALIASES, covers=("SeqModel.regression_bound",)),
    E(_trainer_call("step"), arith_trainer(), TRAIN_ALIASES,
      nonfinite=lambda r, a, k: r.diverged, covers=("Trainer.step",)),
    E(_trainer_call("fit_epoch"), arith_trainer(), TRAIN_ALIASES,
      nonfinite=lambda r, a, k: r.n_diverged > 0, covers=("Trainer.fit_epoch",)),
]
RECORDS = {}


@pytest.mark.parametrize("entry", TABLE, ids=[getattr(e.fn, "__name__", "?") for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((heads_arith,), TABLE, RECORDS)


def test_a_projected_model_stays_in_range():
    """After project() on any fuzzed weights, NAU's in [−1, 1], NMU's in [0, 1]."""
    @FUZZ
    @given(st.sampled_from(["nau", "nmu"]), hnp.arrays(np.float64, (2, 3),
                                                       elements=st.floats(-1e308, 1e308)))
    def run(head, W):
        model = seqmodel.SeqModel(seqmodel.SeqModelConfig("elman", 2, 3, 2, head=head))
        model.params[f"W_{head}"][...] = W
        model.project()
        lo = -1.0 if head == "nau" else 0.0
        assert np.all((model.params[f"W_{head}"] >= lo) & (model.params[f"W_{head}"] <= 1.0))
    run()
