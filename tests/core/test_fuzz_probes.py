"""Fuzzing gleam.instruments.probes under the house policy (tests/core/test_fuzz.py): every call returns a
finite result or raises a ValueError naming one of its arguments."""
import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gleam.instruments import probes
from gleam.instruments import control as probes_control
from gleam.instruments import states as probes_states
from tests.core.test_fuzz import (BAD_SCALARS, E, call, choice, farray, flag, fuzz_entry,
                                  iarray, missing_entries, real, rng, size)


def rows(shape):
    """Rows of every magnitude (mostly refused beyond 1e100) or of ordinary size."""
    return st.one_of(farray(shape), farray(shape, 10.0))


def labels(N):
    return st.one_of(iarray((N,), 0, 2), farray((N,), 10.0), farray((N, 2), 10.0), BAD_SCALARS)


def types(N):
    return st.one_of(iarray((N,), 0, 3), st.just((["a", "b", "a", "c"] * 2)[:N]),
                     st.just([1.5] * N), st.just([[1, 2], [3]]), BAD_SCALARS)


def seeds():
    return st.one_of(size(0, 9), rng())


def probe_options(good=False):
    """fit_probe's options: any (now and then bad), or all good (so the fit itself runs)."""
    if good:
        return dict(l2=st.floats(0, 1e6, exclude_min=True), hidden=st.integers(0, 3),
                    seed=st.integers(0, 9), steps=st.integers(1, 20),
                    lr=st.floats(0, 1, exclude_min=True), tol=st.floats(0, 1e308))
    return dict(l2=real(0, 1e6), hidden=size(0, 3), seed=seeds(), steps=size(1, 20),
                lr=real(0, 1), tol=real(0))


def good_rows(shape):
    return hnp.arrays(np.float64, shape, elements=st.floats(-1e100, 1e100))


def good_labels(kind, N, k):
    if kind == "classify":
        return hnp.arrays(np.int64, (N,), elements=st.integers(-3, 3))
    return hnp.arrays(np.float64, (N,) if k == 1 else (N, k), elements=st.floats(-1e100, 1e100))


@st.composite
def good_report(draw):
    """probe_report's arguments, all well formed: only the numbers vary (up to 1e100)."""
    kind, k = draw(st.sampled_from(probes.KINDS)), draw(st.integers(1, 2))
    ids = hnp.arrays(np.int64, (5,), elements=st.integers(0, 3))
    args = (draw(good_rows((5, 3))), draw(good_labels(kind, 5, k)), draw(ids),
            draw(good_rows((4, 3))), draw(good_labels(kind, 4, k)), draw(ids)[:4])
    return args, dict(kind=kind, **{o: draw(v) for o, v in probe_options(good=True).items()})


@st.composite
def fitted(draw):
    """A probe fitted to ordinary data (linear or MLP, either kind)."""
    r = np.random.default_rng(draw(st.integers(0, 9)))
    kind = draw(st.sampled_from(probes.KINDS))
    y = r.integers(0, 3, 6) if kind == "classify" else r.standard_normal(draw(
        st.sampled_from([(6,), (6, 2)])))
    return probes.fit_probe(r.standard_normal((6, 3)), y, kind,
                            hidden=draw(st.sampled_from([0, 2])), steps=5)


@st.composite
def good_use(draw):
    """A fitted probe with well-formed (X, y) for it: only the numbers vary."""
    probe = draw(fitted())
    k = 1 if probe.kind == "classify" or probe.flat else 2
    y = draw(good_labels(probe.kind, 4, k))
    return (probe, draw(good_rows((4, 3))), y, draw(st.floats(0, 1e6))), {}


def use_probe(probe, X, y, l2):
    """Every method of a Probe on (X, y)."""
    out = [probe.predict(X), probe.score(X, y), probe.objective(X, y, l2=l2)]
    return out + [probe.direction]


def use_pca(X, k, Z):
    p = probes.pca(X, k)
    return p, p.transform(Z), probes.PCA(p.mean, p.components, p.explained_variance_ratio)


TABLE = [
    E(probes.flatten_states, call(rows((3, 2, 2)), st.one_of(
        st.none(), hnp.arrays(bool, (3, 2)).map(lambda m: np.vstack([[True, True], m[1:]])),
        hnp.arrays(bool, (3, 2)), farray((3, 2)), BAD_SCALARS)), aliases=("sequence",)),
    E(probes.fit_probe, call(rows((6, 3)), labels(6), kind=choice(probes.KINDS),
                             **probe_options())),
    E(probes.fit_probe, good_report().map(lambda c: (c[0][:2], c[1]))),
    E(use_probe, call(fitted(), rows((4, 3)), labels(4), real(0, 1e6)),
      aliases=("X", "y", "l2", "direction"), covers=(probes.Probe,)),
    E(use_probe, good_use(), aliases=("X", "y", "l2", "direction")),
    E(probes.Probe, call(choice(probes.KINDS), st.one_of(
        st.builds(lambda W, b: {"W": W, "b": b}, farray((3, 2)), farray((2,))),
        st.builds(lambda W1, b1, W2, b2: {"W1": W1, "b1": b1, "W2": W2, "b2": b2},
                  farray((3, 2)), farray((2,)), farray((2, 2)), farray((2,))), BAD_SCALARS),
        st.one_of(st.none(), iarray((2,), 0, 5)), flag()),
      aliases=("params['W']", "params['b']", "params['W1']", "params['b1']", "params['W2']",
               "params['b2']")),
    E(probes_control.control_labels, call(types(5), labels(5), seeds())),
    E(probes_control.probe_report, call(rows((6, 3)), labels(6), types(6), rows((5, 3)), labels(5),
                                types(5), kind=choice(probes.KINDS), **probe_options())),
    E(probes_control.probe_report, good_report()),
    E(probes.pca, call(rows((5, 3)), size(1, 4))),
    E(use_pca, call(rows((5, 3)), size(1, 4), rows((2, 3))), aliases=("X", "k"),
      covers=(probes.PCA,)),
    E(probes.PCA, call(farray((3,)), farray((2, 3)), farray((2,))),
      aliases=("mean", "components", "explained_variance_ratio")),
]

RECORDS = {probes_control.ProbeReport: "what probe_report returns",
           # the probes' input checks and score, shared by the three modules: fuzzed through
           # fit_probe's, pca's and probe_report's entries
           **{f: "an input check or score of the probes, fuzzed through their entries"
              for f in (probes.check_labels, probes.r2_score, probes_states.check_rows,
                        probes_states.check_bounded)}}


@pytest.mark.parametrize("entry", TABLE, ids=[getattr(e.fn, "__qualname__", "?") for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((probes, probes_states, probes_control), TABLE, RECORDS)
