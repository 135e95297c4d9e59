"""Fuzzing gleam.labs.extrapolation.counting with the policy of tests/core/test_fuzz.py: every call returns a
finite result or raises a ValueError naming one of its arguments."""
import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gleam import tasks
from gleam.labs.extrapolation import automata
from gleam.labs.extrapolation import counting as extrap_counting
from gleam.cells.names import CELL_NAMES
from gleam.seqmodel import SeqModel, SeqModelConfig
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, choice, farray, fuzz_entry, iarray,
                                  missing_entries, real, size, sometimes_bad)

MODULES = (extrap_counting, automata)
# what the task generator and the config checks name in their messages
CONFIG_NAMES = ("config", "typo", "n", "block")


def counting_configs():
    """Small configs of train_counting (the sizes always given: the defaults take a second)."""
    sizes = {"n_train": size(1, 30), "n_test": size(1, 6), "epochs": size(1, 2), "n": size(1, 3),
             "max_train_n": size(2, 3), "max_test_n": size(4, 5)}
    rest = {"cell": choice(CELL_NAMES), "kind": choice(["anbn", "anbncn"]), "lr": real(1e-6, 1),
            "batch_size": size(1, 8), "clip": sometimes_bad(st.sampled_from([None, 1.0]), BAD_SCALARS),
            "threshold": real(0, 1), "probe_l2": real(1e-9, 1e6), "seed": size(0, 9),
            "mode": choice(["accept", "predict"]), "test_stride": size(1, 3), "n_val": size(0, 5),
            "check_every": size(0, 4), "criterion": real(0, 1),
            "stop_at": sometimes_bad(st.sampled_from([None, 0.5]), BAD_SCALARS)}
    return st.integers(0, 11).flatmap(lambda k: BAD_SCALARS if k == 0 else st.fixed_dictionaries(
        sizes, optional={**rest, **({"typo": st.just(1)} if k == 1 else {})}))


def _stepped_run(config, n):
    run = extrap_counting.CountingRun(config)
    stats = run.step(n)
    return [stats.loss, run.metrics()]


def increasing(count):
    good = hnp.arrays(np.int64, (count,), elements=st.integers(1, 4)).map(np.cumsum)
    return sometimes_bad(good, st.one_of(BAD_SCALARS, iarray((count,), -3, 3),
                                         st.just([1.5, 2.0][:count] or [1.5])))


@st.composite
def reached_args(draw):
    count = draw(st.integers(1, 4))
    acc = draw(sometimes_bad(hnp.arrays(np.float64, (count,), elements=st.floats(0, 1)),
                             farray((count,))))
    return (draw(increasing(count)), acc, draw(real(0, 1))), {}


def rows(shape):
    """States of every magnitude (refused beyond 1e100) or of ordinary size."""
    return st.one_of(farray(shape), farray(shape, 10.0))


def words(N):
    """A word per row: mostly two or three words (the probe holds one out at a time)."""
    return sometimes_bad(st.integers(2, 3).map(lambda w: np.arange(N) % w),
                         st.one_of(iarray((N,), 0, 2), BAD_SCALARS))


@st.composite
def probe_args(draw):
    N, M, n = draw(st.integers(2, 7)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    k = draw(st.sampled_from([None, 2]))
    lab = (lambda m: (m,)) if k is None else (lambda m: (m, k))
    return (draw(rows((N, n))), draw(rows(lab(N))), draw(words(N)), draw(rows((M, n))),
            draw(rows(lab(M)))), {"l2": draw(real(1e-9, 1e6))}


@st.composite
def metrics_args(draw):
    """counter_metrics's arguments: mostly a small SeqModel over the kind's letters."""
    kind = draw(choice(["anbn", "anbncn"]))
    d = draw(sometimes_bad(st.just(extrap_counting.LETTERS.get(kind, "ab")).map(len), st.just(4)))
    cell, scale = draw(st.sampled_from(CELL_NAMES)), draw(st.sampled_from([None, 0.1, 10.0, 1e6]))
    model = SeqModel(SeqModelConfig(cell, d=d, n=draw(st.integers(1, 3)), n_out=2, init_scale=scale,
                                    seed=draw(st.integers(0, 9))))
    return (draw(sometimes_bad(st.just(model), BAD_SCALARS)), kind, draw(size(2, 3)),
            draw(size(4, 5))), {"l2": draw(real(1e-9, 1e6))}


TEXTS = st.lists(st.one_of(st.text("abc", max_size=12), BAD_SCALARS), max_size=4)


def _automaton(make):
    """Fuzz an automaton maker through what it makes: the verdicts on a few texts (any value)."""
    def run(args, texts):
        accepts = make(*args)
        return [accepts(t) for t in texts]
    run.__qualname__ = f"{make.__name__}(...)(text)"
    return run


def examples_for_accuracy():
    good = st.builds(lambda n, seed, k: automata.hard_counting(n, seed, "anbn", k), st.integers(1, 4),
                     st.integers(0, 9), st.integers(1, 4))
    return sometimes_bad(good, st.one_of(BAD_SCALARS, st.just([]), st.builds(
        lambda n: tasks.counting(n, 0, "anbn", "predict"), st.integers(1, 3))))


TABLE = [
    E(_automaton(automata.mod_counter), call(st.tuples(size(1, 5), choice(["anbn", "anbncn"])), TEXTS),
      aliases=("m", "kind"), covers=(automata.mod_counter,)),
    E(_automaton(automata.length_parity), call(st.tuples(choice(["anbn", "anbncn"])), TEXTS),
      aliases=("kind",), covers=(automata.length_parity,)),
    E(_automaton(automata.exact_counter), call(st.tuples(choice(["anbn", "anbncn"])), TEXTS),
      aliases=("kind",), covers=(automata.exact_counter,)),
    E(automata.shortcuts, call(choice(["anbn", "anbncn"]))),
    E(automata.accuracy, call(sometimes_bad(st.just(automata.mod_counter(4)), BAD_SCALARS),
                              examples_for_accuracy())),
    E(automata.hard_counting, call(size(1, 5), size(0, 9), choice(["anbn", "anbncn"]),
                                   size(1, 6), p_positive=real(0, 1))),
    E(automata.hard_longest, call(choice(["anbn", "anbncn"]), size(1, 10 ** 4))),
    E(extrap_counting.tested_ns, call(size(2, 5), size(3, 40), size(1, 9))),
    E(extrap_counting.train_counting, call(counting_configs()), aliases=CONFIG_NAMES),
    E(extrap_counting.normalized, call(counting_configs()), aliases=CONFIG_NAMES),
    # a run made, stepped any number of updates (any value as n), and tested as it is then
    E(_stepped_run, call(counting_configs(), sometimes_bad(size(1, 40), BAD_SIZES)),
      aliases=CONFIG_NAMES, covers=(extrap_counting.CountingRun,)),
    E(extrap_counting.largest_reached, reached_args()),
    E(extrap_counting.unit_correlations, st.integers(1, 5).flatmap(
        lambda N: call(rows((N, 2)), rows((N,)))) | call(rows((3, 2)), rows((4,)))),
    E(extrap_counting.counter_probe, probe_args()),
    E(extrap_counting.counter_metrics, metrics_args()),
]


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    missing = missing_entries(MODULES, TABLE)
    assert not missing, f"no fuzz entry for {missing}"
