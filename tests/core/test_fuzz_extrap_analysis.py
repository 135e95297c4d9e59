"""Fuzzing gleam.labs.extrapolation.analysis and gleam.labs.extrapolation.measures with the policy of
tests/core/test_fuzz.py: every call returns a finite result or raises a ValueError naming one
of its arguments. Models are tiny (n <= 3), example sets a few nested sums of depth <= 2."""
import dataclasses

import numpy as np
import pytest
from hypothesis import strategies as st

from gleam.labs.extrapolation import analysis as ea
from gleam.labs.extrapolation import measures as parts
from gleam import tasks
from gleam.instruments.probes import Probe
from gleam.seqmodel import SeqModel, SeqModelConfig
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, choice, fuzz_entry,
                                  missing_entries, real, size, sometimes_bad)

MODULES = (ea, parts)
CELLS = ["elman", "gru_torch", "lstm"]
# what the task generators, the encoder and the probes name in their messages
NAMES = ("config", "n", "seed", "max_depth", "min_depth", "max_operands", "p_nest", "examples",
         "vocab", "alphas", "spans", "unknown", "typo")


def _lists(good):
    return sometimes_bad(good, st.one_of(BAD_SCALARS, st.just([]), st.just([1, 1]), st.just([0.5, "a"])))


def configs():
    """Small configs of analyse_sums (the sizes always given)."""
    sizes = {"n_train": size(1, 8), "n_test": size(1, 4), "probe_examples": size(1, 4),
             "epochs": size(1, 2), "n": size(1, 3)}
    rest = {"cell": choice(CELLS), "max_depth": size(1, 2), "max_operands": size(2, 3),
            "p_nest": real(0, 1), "lr": real(0, 1), "batch_size": size(1, 4),
            "clip": sometimes_bad(st.sampled_from([None, 1.0]), BAD_SCALARS),
            "alphas": _lists(st.lists(st.floats(-10, 10), min_size=1, max_size=2, unique=True)),
            "spans": _lists(st.lists(st.integers(1, 6), min_size=1, max_size=2, unique=True)),
            "n_long": size(1, 3), "seed": size(0, 9)}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 11 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 10 else {})}))


def _stepped_run(config, n):
    run = ea.AnalysisRun(config)
    stats = run.step(n)
    return [stats.loss, run.metrics()]


@st.composite
def models(draw):
    """A tiny many-to-one classify model reading VOCAB, now and then one the parts refuse."""
    k = draw(st.integers(0, 9))
    if k == 9:
        return draw(BAD_SCALARS)
    cell, n = draw(st.sampled_from(CELLS)), draw(st.integers(1, 3))
    if k == 8:
        return SeqModel(SeqModelConfig(cell, d=len(ea.VOCAB), n=n, n_out=1, head="regress"))
    d = len(ea.VOCAB) - 1 if k == 7 else len(ea.VOCAB)
    return SeqModel(SeqModelConfig(cell, d=d, n=n, n_out=draw(st.sampled_from([10, 10, 2])),
                                   seed=draw(st.integers(0, 5))))


@st.composite
def example_sets(draw):
    """A few nested sums, or now and then other examples or none."""
    k = draw(st.integers(0, 11))
    if k == 11:
        return draw(st.one_of(BAD_SCALARS, st.just([])))
    if k == 10:
        return tasks.cue_delay(2, draw(st.integers(0, 3)))
    return tasks.nested_sums(draw(st.integers(1, 4)), draw(st.integers(0, 99)),
                             max_depth=draw(st.integers(1, 2)), max_operands=draw(st.integers(2, 3)))


def vocabs():
    return sometimes_bad(st.just(ea.VOCAB), st.one_of(BAD_SCALARS, st.just(ea.VOCAB[:-1]),
                                                      st.just("()+0123456789x")))


def _rows_of(model, examples):
    try:
        return parts.state_rows(model, examples, ea.VOCAB)
    except ValueError:
        return None


@st.composite
def rows(draw, model):
    """state_rows of the model on fresh nested sums, or (1 in 8) something else."""
    if draw(st.integers(0, 7)) == 7 or not isinstance(model, SeqModel):
        return draw(BAD_SCALARS)
    r = _rows_of(model, tasks.nested_sums(draw(st.integers(1, 4)), draw(st.integers(0, 99)), max_depth=2))
    return draw(BAD_SCALARS) if r is None else r


@st.composite
def probes(draw, model):
    """The model's partial probe, a random linear one, or one patch_metrics refuses."""
    k = draw(st.integers(0, 7))
    n = model.config.n if isinstance(model, SeqModel) else 2
    if k == 7:
        return draw(BAD_SCALARS)
    if k == 6:
        return Probe("regress", {"W": np.ones((n, 1)), "b": np.zeros(1)})
    if k == 5:
        return Probe("classify", {"W": np.ones((n + 1, 2)), "b": np.zeros(2)}, np.arange(2))
    if k >= 3:
        W = np.random.default_rng(k).standard_normal((n, 10))
        return Probe("classify", {"W": W, "b": np.zeros(10)}, np.arange(10))
    r = _rows_of(model, tasks.nested_sums(4, draw(st.integers(0, 9))))
    return draw(BAD_SCALARS) if r is None else parts.fit_partial_probe(r)


@st.composite
def state_row_fields(draw):
    """StateRows's fields from state_rows, one of them (2 times in 3) replaced by a wrong value."""
    model = SeqModel(SeqModelConfig("elman", d=len(ea.VOCAB), n=2, n_out=10))
    r = parts.state_rows(model, tasks.nested_sums(2, draw(st.integers(0, 9))), ea.VOCAB)
    fields = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)}
    if draw(st.integers(0, 2)):
        fields[draw(st.sampled_from(sorted(fields)))] = draw(st.one_of(
            BAD_SCALARS, st.just(np.zeros(3)), st.just(np.zeros((2, 2), int)), st.just(np.zeros((0, 2))),
            st.just({"depth": 1}), st.just(np.array(["a", "b"]))))
    return (), fields


def with_model(build):
    """(args, kwargs) from build(draw, model) for a drawn model."""
    @st.composite
    def strategy(draw):
        model = draw(models())
        return build(draw, model)
    return strategy()


ALPHAS = _lists(st.lists(st.one_of(st.floats(-10, 10), real(-1e7, 1e7)), min_size=1, max_size=3))
SPANS = _lists(st.lists(sometimes_bad(st.integers(1, 8), BAD_SIZES), min_size=1, max_size=3))

def _pca_of_run(config, limit):
    run = ea.AnalysisRun(config)
    run.step(3)
    out = ea.pca_by_depth(run, limit)
    return [out["x"], out["y"], out["depth"], out["explained"]]


TABLE = [
    E(ea.analyse_sums, call(configs()), aliases=NAMES),
    E(ea.normalized, call(configs()), aliases=NAMES),
    E(_pca_of_run, call(configs(), sometimes_bad(size(2, 50), BAD_SIZES)), aliases=NAMES + ("limit", "X", "k"),
      covers=(ea.pca_by_depth,)),
    E(ea.pca_by_depth, call(st.one_of(BAD_SCALARS, st.just("run"))), aliases=("run",)),
    E(_stepped_run, call(configs(), sometimes_bad(size(1, 20), BAD_SIZES)), aliases=NAMES,
      covers=(ea.AnalysisRun,)),
    E(parts.state_rows, call(models(), example_sets(), vocabs()), aliases=NAMES),
    E(parts.StateRows, state_row_fields()),
    E(parts.probe_metrics, with_model(lambda draw, m: (
        (draw(rows(m)), draw(rows(m))), {"seed": draw(sometimes_bad(st.integers(0, 9), BAD_SCALARS))})),
      aliases=NAMES),
    E(parts.fit_partial_probe, with_model(lambda draw, m: (
        (draw(rows(m)),), {"seed": draw(sometimes_bad(st.integers(0, 9), BAD_SCALARS))})), aliases=NAMES),
    E(parts.patch_metrics, with_model(lambda draw, m: (
        (m, draw(probes(m)), draw(example_sets()), draw(vocabs())), {"alphas": draw(ALPHAS)})),
      aliases=NAMES),
    E(parts.swap_metrics, call(models(), example_sets(), vocabs(),
                               seed=sometimes_bad(st.integers(0, 9), BAD_SCALARS)), aliases=NAMES),
    E(parts.clamp_metrics, with_model(lambda draw, m: (
        (m, draw(rows(m)), draw(example_sets()), draw(vocabs())), {})), aliases=NAMES),
    E(parts.stability_metrics, call(models(), example_sets(), vocabs(), spans=SPANS,
                                    n_long=sometimes_bad(st.integers(1, 3), BAD_SIZES)), aliases=NAMES),
]


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    missing = missing_entries(MODULES, TABLE, {})
    assert not missing, f"no fuzz entry for {missing}"
