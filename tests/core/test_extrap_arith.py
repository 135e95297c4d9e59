"""gleam.labs.extrapolation.arith: Madsen & Johansen's arithmetic task with the heads on numbers. The
subsets, the extrapolation set and the criterion's threshold are recomputed from the docstring's
seeding and a closed form; a linear head cannot solve mul; bad configs are refused;
bad input is fuzzed with the policy of tests/core/test_fuzz.py."""
import math

import numpy as np
import pytest
from hypothesis import strategies as st

from gleam.labs.extrapolation import arith
from gleam.labs.extrapolation.arith import EPSILON, threshold, train_arith
from gleam.sweep.results import check_metrics
from tests.core.test_fuzz import (BAD_SCALARS, BAD_SIZES, E, call, farray, fuzz_entry, missing_entries,
                                  sometimes_bad)

TINY = {"k": 8, "updates": 200, "n_test": 50}


def task_of(config):
    """(a, b, X_extrap) as the module docstring says train_arith makes them."""
    c = arith.normalized(config)
    offset_ss, _, _, extrap_ss, _ = np.random.SeedSequence(c["seed"]).spawn(5)
    k = c["k"]
    s = math.floor(c["subset_ratio"] * k)
    o = math.floor(c["overlap_ratio"] * s)
    p = int(np.random.default_rng(int(offset_ss.generate_state(1)[0])).integers(0, k - (2 * s - o) + 1))
    a, b = np.zeros(k), np.zeros(k)
    a[p:p + s] = 1
    b[p + s - o:p + 2 * s - o] = 1
    X = np.random.default_rng(int(extrap_ss.generate_state(1)[0])).uniform(c["elo"], c["ehi"], (c["n_test"], k))
    return a, b, X


def threshold_by_hand(op, X, a, b):
    """a_ε = a + ε(S − 2a) (a weight 1 − ε on the subset, ε off it), so
    add: t_ε − t = 2ε(S − a − b);  mul: a_ε b_ε − ab = ε((S − 2a) b + (S − 2b) a) + ε²(S − 2a)(S − 2b)."""
    S, A, B, e = X.sum(axis=1), X @ a, X @ b, EPSILON
    if op == "add":
        d = 2 * e * (S - A - B)
    else:
        d = e * ((S - 2 * A) * B + (S - 2 * B) * A) + e * e * (S - 2 * A) * (S - 2 * B)
    return float(np.mean(d * d))


# ---- the task and the criterion ----------------------------------------------------------------
@pytest.mark.parametrize("op, head", [("add", "nau"), ("mul", "nmu"), ("add", "linear"), ("mul", "nalu")])
def test_the_threshold_and_solved_are_the_criterion_recomputed_by_hand(op, head):
    config = {**TINY, "op": op, "head": head, "seed": 3}
    a, b, X = task_of(config)
    # k = 8: subsets of ⌊0.25 · 8⌋ = 2 inputs overlapping in ⌊0.5 · 2⌋ = 1
    assert a.sum() == b.sum() == 2 and a @ b == 1
    m = train_arith(config)
    assert m["threshold"] == pytest.approx(threshold_by_hand(op, X, a, b), rel=1e-9)
    assert m["threshold"] == pytest.approx(threshold(op, X, a, b), rel=1e-12)
    assert m["solved"] == int(m["extrap_mse"] < m["threshold"])
    assert m["updates"] == 200 and 0 <= m["sparsity"] and m["diverged"] == 0


def test_the_default_subsets_are_the_papers():
    a, b, X = task_of({"seed": 5})
    assert a.sum() == b.sum() == 25 and a @ b == 12 and X.shape == (10000, 100)
    assert X.min() >= 2 and X.max() <= 6


def test_the_threshold_of_an_exact_answer():
    # one row: x = (1, 2, 3), a = x₀, b = x₁ -> S − a − b = 3;  add: (2ε · 3)²
    X = np.array([[1.0, 2.0, 3.0]])
    a, b = np.array([1.0, 0, 0]), np.array([0, 1.0, 0])
    assert threshold("add", X, a, b) == pytest.approx((6 * EPSILON) ** 2, rel=1e-9)
    # mul: ε((S − 2a) b + (S − 2b) a) + ε²(S − 2a)(S − 2b) = ε(4·2 + 2·1) + 8ε²
    assert threshold("mul", X, a, b) == pytest.approx((10 * EPSILON + 8 * EPSILON ** 2) ** 2, rel=1e-9)


def test_same_config_same_metrics():
    config = {**TINY, "op": "mul", "head": "nmu", "seed": 2}
    first = train_arith(config)
    assert train_arith(dict(config)) == first
    assert check_metrics("metrics", first) == first
    assert train_arith({**config, "seed": 4}) != first


# ---- the heads (their comparison at the default budget is the shipped records': tests/research) -----
def test_a_linear_head_does_not_solve_mul():
    # W₂ W₁ x is linear in x, a · b is not: whatever the budget, its extrapolation misses
    m = train_arith({**TINY, "op": "mul", "head": "linear", "seed": 0})
    assert m["solved"] == 0 and m["extrap_mse"] > m["threshold"]


# ---- refusals ----------------------------------------------------------------------------------
@pytest.mark.parametrize("config, name", [
    ({"op": "add", "head": "nmu"}, "head"),             # the NMU multiplies
    ({"op": "mul", "head": "nau"}, "head"),
    ({"head": "relu"}, "head"),
    ({"head": ["nau"]}, "head"),
    ({"op": "sub"}, "op"),
    ({"lo": 2.0, "hi": 1.0}, "lo"),
    ({"elo": 6, "ehi": 6}, "elo"),
    ({"ehi": 1e4}, "ehi"),
    ({"k": 1}, "k"),
    ({"k": 4, "subset_ratio": 0.1}, "subset_ratio"),    # ⌊0.4⌋ = 0 inputs
    ({"subset_ratio": 0.9}, "subset_ratio"),            # 2 · 90 − 45 > 100
    ({"overlap_ratio": 1.5}, "overlap_ratio"),
    ({"reg_start": 0.5, "reg_end": 0.4}, "reg_start"),
    ({"reg": -1}, "reg"),
    ({"updates": 0}, "updates"),
    ({"lr": 0}, "lr"),
    ({"batch_size": 2.5}, "batch_size"),
    ({"n_test": 10 ** 5, "k": 1000}, "n_test"),         # 10⁸ test inputs
    ({"seed": -1}, "seed"),
    ({"typo": 1}, "typo"),
])
def test_bad_configs_are_refused(config, name):
    with pytest.raises(ValueError, match=name):
        arith.normalized(config)
    with pytest.raises(ValueError, match=name):
        train_arith(config)


def test_a_config_must_be_a_dict():
    with pytest.raises(ValueError, match="config must be a dict"):
        train_arith("nau")


# ---- fuzzing (tests/core/test_fuzz.py's policy) --------------------------------------------------
@st.composite
def arith_configs(draw):
    """Tiny configs (k <= 8, a few updates), now and then one value bad or one name unknown."""
    op = draw(st.sampled_from(arith.OPS))
    config = {"op": op, "head": draw(st.sampled_from(arith.HEADS[op] + ("nmu", "nau"))),
              "k": draw(st.integers(4, 8)), "updates": draw(st.integers(1, 5)), "n_test": draw(st.integers(1, 5)),
              "batch_size": draw(st.integers(1, 4))}
    rest = {"lr": st.floats(1e-6, 1), "reg": st.floats(0, 1e6), "lo": st.floats(-5, 0), "hi": st.floats(1, 5),
            "elo": st.floats(-1e3, 0), "ehi": st.floats(1, 1e3), "seed": st.integers(0, 9)}
    config.update(draw(st.fixed_dictionaries({}, optional=rest)))
    broken = draw(st.sampled_from([None] * 8 + ["not a dict", "typo"] + sorted(arith.DEFAULTS)))
    if broken == "not a dict":
        return draw(BAD_SCALARS)
    if broken is not None:
        config[broken] = 1 if broken == "typo" else draw(st.one_of(BAD_SCALARS, BAD_SIZES))
    return config


@st.composite
def threshold_args(draw):
    N, k = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    mask = st.lists(st.sampled_from([0.0, 1.0]), min_size=k, max_size=k).map(np.array)
    X = sometimes_bad(st.lists(st.floats(-1e3, 1e3), min_size=N * k, max_size=N * k).map(
        lambda v: np.array(v).reshape(N, k)), farray((N, k)))
    return (draw(sometimes_bad(st.sampled_from(arith.OPS), BAD_SCALARS)), draw(X),
            draw(sometimes_bad(mask, st.one_of(BAD_SCALARS, st.just(np.full(k, 0.5))))),
            draw(sometimes_bad(mask, farray((k + 1,))))), {}


TABLE = [E(train_arith, call(arith_configs())), E(arith.normalized, call(arith_configs())),
         E(threshold, threshold_args())]


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__qualname__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((arith,), TABLE)
