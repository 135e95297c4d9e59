"""The bad-input policy (tests/core/test_fuzz.py) over gleam.labs.memory.acceptance*: every call returns a
finite result or raises a ValueError naming one of its arguments.

Each call is well-formed half the time, and otherwise has one argument drawn from that
argument's bad values (so that both the results and each refusal are reached). Models are
small (d = 8, n <= 3, every cell), sometimes of the wrong kind (a regression head,
many-to-many, d = 5) or with weights near 1e300; sets are a few pairs at delays up to 5, so
that fifty calls per entry stay quick.
"""
import numpy as np
import pytest
from hypothesis import strategies as st

from gleam.labs.memory import acceptance
from gleam.labs.memory import probe_sets as acceptance_probes
from gleam.labs.memory import window as acceptance_window
from gleam.cells.names import CELL_NAMES
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.tasks import cue_delay, nested_sums
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, farray, fuzz_entry,
                                  missing_entries, real)

MODULES = (acceptance, acceptance_probes, acceptance_window)
V = "!?abcdef"


def _huge(cell):
    model = SeqModel(SeqModelConfig(cell, 8, 3, 2, seed=1))
    return SeqModel(model.config, {k: v * 1e300 for k, v in model.params.items()})


def A(good, bad):
    """One argument: its good values and its bad ones."""
    return (good, bad)


def args(*positional, **keywords):
    """(args, kwargs): all good half the time, else one argument (drawn uniformly) bad."""
    slots = list(positional) + list(keywords.values())

    @st.composite
    def build(draw):
        broken = draw(st.integers(-len(slots), len(slots) - 1))      # < 0: none
        values = [draw(bad if i == broken else good) for i, (good, bad) in enumerate(slots)]
        k = len(positional)
        return tuple(values[:k]), dict(zip(keywords, values[k:]))
    return build()


GOOD_MODELS = st.builds(lambda cell, n, s: SeqModel(SeqModelConfig(cell, 8, n, 2, seed=s)),
                        st.sampled_from(CELL_NAMES), st.integers(1, 3), st.integers(0, 3))
ODD_MODELS = [SeqModel(SeqModelConfig("elman", 8, 2, 1, head="regress")),
              SeqModel(SeqModelConfig("gru_textbook", 8, 2, 2, many_to_many=True)),
              SeqModel(SeqModelConfig("elman", 5, 2, 2))]
MODEL = A(st.one_of(GOOD_MODELS, st.sampled_from([_huge("elman"), _huge("lstm"),
                                                  SeqModel(SeqModelConfig("lstm", 8, 2, 3))])),
          st.one_of(st.sampled_from(ODD_MODELS), BAD_SCALARS))
VOCAB = A(st.sampled_from([V, "abcdef?!"]),
          st.one_of(st.sampled_from(["!?abcde", "!?abcdefg", "!?abcdee", None]), BAD_SCALARS))
DISTRACTORS = A(st.sampled_from(["cdef", "fedc"]),
                st.one_of(st.sampled_from(["cd", "xyzw", "ab", "c"]), BAD_SCALARS))
AMPLITUDE = A(st.one_of(st.none(), st.floats(1e-3, 10)), st.one_of(real(), BAD_SCALARS))
SEED = A(st.one_of(st.integers(0, 2 ** 32), st.none(), st.integers(0, 3).map(
    np.random.default_rng)), BAD_SCALARS)
SIZES = A(st.one_of(st.integers(1, 5), st.lists(st.integers(1, 5), min_size=1, max_size=3)),
          st.one_of(BAD_SIZES, st.sampled_from([[], [0], [1, 10 ** 6], [2, "3"], "ab"])))
PAIRS = A(st.integers(1, 3), BAD_SIZES)
DELAY = A(st.integers(1, 5), BAD_SIZES)
UNIT = A(st.floats(0.01, 1), st.one_of(real(), BAD_SCALARS))
Z = A(st.floats(0, 10), st.one_of(real(), BAD_SCALARS))
COMMON = {"n": PAIRS, "seed": SEED, "distractors": DISTRACTORS}


def metric(*sized, **extra):
    return args(MODEL, VOCAB, *sized, **COMMON, **extra)


# ---------------------------------------------------------------- horizons
def horizon_args():
    def with_length(k):
        delays = A(st.lists(st.integers(1, 50), min_size=k, max_size=k, unique=True).map(sorted),
                   st.one_of(st.just([3, 1]), st.just([]), BAD_SIZES))
        R = A(st.lists(st.floats(0, 1), min_size=k, max_size=k),
              st.one_of(farray((k,)), st.just([0.5] * (k + 1)), st.just([1.5] * k)))
        return args(delays, R, A(st.integers(1, 10 ** 6), BAD_SIZES), z=Z)
    return st.integers(1, 5).flatmap(with_length)


# ---------------------------------------------------------------- examples
POOLS = [cue_delay(6, 0, (1, 5), p_supersede=0.5), cue_delay(6, 1, 3, amplitude=0.5),
         cue_delay(4, 2, (1, 3), p_needs_cue=1.0)]
EXAMPLES = A(st.sampled_from(POOLS), st.one_of(st.sampled_from(
    [nested_sums(3, 0), [], [1, 2], "abc", None, [POOLS[0][0], "x"]]), BAD_SCALARS))
ONE = A(st.sampled_from([e for p in POOLS for e in p]),
        st.one_of(st.sampled_from(nested_sums(3, 0)), BAD_SCALARS))
WINDOW = A(st.integers(1, 8), BAD_SIZES)
SMALL = A(st.lists(st.integers(1, 4), min_size=1, max_size=2), BAD_SIZES)
AMPLITUDES = A(st.one_of(st.just((None,)), st.lists(st.floats(1e-3, 10), min_size=1,
                                                    max_size=2)),
               st.one_of(st.just([None, 1.0]), st.just([]), st.just([-1.0]), BAD_SCALARS))

TABLE = [
    E(acceptance.horizons, horizon_args()),
    E(acceptance.retention_curve, metric(SIZES, amplitude=AMPLITUDE, z=Z)),
    E(acceptance.interference, metric(SIZES, AMPLITUDES)),
    E(acceptance.revision_latency, metric(SIZES, delay=A(st.one_of(st.none(), st.just(5)),
                                                         BAD_SIZES),
                                          amplitude=AMPLITUDE, threshold=UNIT)),
    E(acceptance.read_selectivity, metric(DELAY, amplitude=AMPLITUDE)),
    E(acceptance.state_swap, metric(DELAY, amplitude=AMPLITUDE)),
    E(acceptance.cue_erasure, metric(DELAY, amplitude=AMPLITUDE)),
    E(acceptance.acceptance_report, metric(
        delays=SMALL, amplitude=AMPLITUDE, delay=DELAY, gaps=SMALL, threshold=UNIT, z=Z,
        amplitudes=A(st.none(), st.one_of(st.just([0.5, 2.0]), BAD_SCALARS)),
        train_examples=A(st.one_of(st.none(), st.sampled_from(POOLS)), EXAMPLES[1]),
        window=WINDOW)),
    E(acceptance_window.window_baseline, args(
        EXAMPLES, EXAMPLES, VOCAB, WINDOW, l2=A(st.floats(1e-6, 1), st.one_of(
            real(), BAD_SCALARS)), steps=A(st.integers(1, 30), BAD_SIZES))),
    E(acceptance_probes.mirror, args(ONE)),
]
# the probe sets' checks, pairs and runs, shared with the acceptance test's metrics: fuzzed
# through the metrics' entries
RECORDS = {getattr(acceptance_probes, name): "a part of the acceptance metrics, fuzzed through their entries"
           for name in ("check_model", "check_inputs", "check_seed", "check_pairs", "check_sizes",
                        "check_budget", "mirror_pairs", "supersede_all", "run_pairs", "pair_fraction")}


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__name__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries(MODULES, TABLE, RECORDS)


def test_missing_entries_sees_a_new_public_function():
    assert missing_entries(MODULES, TABLE[1:], RECORDS) == ["gleam.labs.memory.acceptance.horizons"]
