"""gleam.labs.extrapolation.sums: nested sums under one split, with a classify, a linear regression or an
arithmetic head. The splits' counts are recomputed from the texts by hand (eval for the value, a
stack count for depths); the ceiling |b| + ‖w‖₁ is checked on hand-set heads against states drawn
in [−1, 1]^n; the regression metrics on a constant head whose answers are known in advance."""
import json
import math

import numpy as np
import pytest

from gleam import tasks
from gleam.labs.extrapolation import sums as extrap_sums
from gleam.labs.extrapolation.sums import HEADS, SumsRun, largest_value_reached, train_sums
from gleam.sweep import run_sweep

SMALL = {"n_examples": 200, "n": 8, "epochs": 2, "batch_size": 16}


def examples_of(config):
    """The examples SumsRun makes, by the seeding its docstring states."""
    data_ss = np.random.SeedSequence(config.get("seed", 0)).spawn(4)[0]
    return tasks.nested_sums(config["n_examples"], int(data_ss.generate_state(1)[0]), max_depth=4)


def value(text):
    return eval(text)          # "(3+(4+5))" is a Python expression with the same value


def depth(text):
    d = deepest = 0
    for ch in text:
        d += (ch == "(") - (ch == ")")
        deepest = max(deepest, d)
    return deepest


def digit_depths(text):
    d, out = 0, set()
    for ch in text:
        d += (ch == "(") - (ch == ")")
        if ch.isdigit():
            out.add((int(ch), d))
    return out


def vs(examples):
    return np.array([value(e.text) for e in examples], dtype=float)


# ---- the splits ------------------------------------------------------------------------------
@pytest.mark.parametrize("split, threshold, held_out", [
    ("value", None, lambda t: value(t) > 40),              # the default threshold, THRESHOLDS
    ("value", 25, lambda t: value(t) > 25),
    ("depth", 2, lambda t: depth(t) > 2),
    ("length", 20, lambda t: len(t) > 20),
    ("composition", [[3, 2], [7, 1]], lambda t: bool(digit_depths(t) & {(3, 2), (7, 1)})),
])
def test_the_counts_are_the_split_recomputed_by_hand(split, threshold, held_out):
    config = {**SMALL, "split": split, "threshold": threshold, "seed": 3}
    run = SumsRun(config)
    unique = {e.text for e in examples_of(config)}
    n_ood = sum(held_out(t) for t in unique)
    out = run.metrics()
    assert out["n_ood"] == n_ood and out["n_train"] + out["n_iid"] == len(unique) - n_ood
    assert out["n_iid"] == round(0.2 * (len(unique) - n_ood))
    assert all(held_out(e.text) for e in run.ood_examples)
    assert not any(held_out(e.text) for e in run.train_examples + run.iid_examples)
    assert out["max_train_value"] == max(value(e.text) for e in run.train_examples)


# ---- stepping, seeding, heads ------------------------------------------------------------------
def test_a_run_stepped_in_pieces_is_train_sums_run():
    config = {**SMALL, "head": "regress", "seed": 4}
    run = SumsRun(config)
    per_epoch = -(-len(run.train_examples) // 16)
    assert (run.steps_per_epoch, run.total_steps) == (per_epoch, 2 * per_epoch)
    taken = [run.step(k).n for k in (3, 7, 1, 10 ** 3)]           # across the epoch boundary, then past the end
    assert taken == [3, 7, 1, run.total_steps - 11] and run.finished
    assert run.step(5).n == 0
    assert run.metrics() == train_sums(config)
    run.reset()
    assert run.metrics()["updates"] == 0 and run.metrics()["train_mse"] == -1
    run.step(run.total_steps)
    assert run.metrics() == train_sums(config)


def test_a_config_fixes_its_metrics_and_the_seed_moves_them():
    config = {**SMALL, "head": "classify", "split": "depth", "threshold": 2, "seed": 1}
    a = train_sums(config)
    assert a == train_sums(dict(config))
    b = train_sums({**config, "seed": 2})
    assert b != a and set(b) == set(a)
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in a.values())


REGRESSION_KEYS = {"updates", "train_mse", "iid_mae", "ood_mae", "iid_exact", "ood_exact",
                   "max_abs_prediction", "largest_value_reached", "bound", "ood_above_bound",
                   "n_train", "n_iid", "n_ood", "max_train_value"}


@pytest.mark.parametrize("head", HEADS)
def test_each_head_trains_and_reports_finite_metrics(head):
    run = SumsRun({**SMALL, "head": head, "arith_reg": 0.1 if head in ("nau", "nmu") else 0.0})
    out = run.run()
    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in out.values()), out
    assert out["updates"] <= 2 * -(-out["n_train"] // 16)
    if head == "classify":
        assert set(out) == {"updates", "train_accuracy", "iid_accuracy", "ood_accuracy", "n_train",
                            "n_iid", "n_ood", "max_train_value"}
        assert all(0 <= out[k] <= 1 for k in ("train_accuracy", "iid_accuracy", "ood_accuracy"))
        return
    assert set(out) == REGRESSION_KEYS and out["train_mse"] >= 0
    assert all(0 <= out[k] <= 1 for k in ("iid_exact", "ood_exact"))
    if head in ("nmu", "nalu"):
        assert out["bound"] == -1 and out["ood_above_bound"] == -1
    else:
        # every GRU state from h_0 = 0 lies in [−1, 1]^n, so no prediction passes the bound
        ood = tasks.encode(run.ood_examples, extrap_sums.VOCAB)
        states = run.model.hidden_states(ood.X, ood.mask)
        assert np.abs(states).max() <= 1
        assert 0 <= out["max_abs_prediction"] <= out["bound"] + 1e-9
    if head == "nmu":       # a product of factors W h + 1 − W, each in [−1, 1] for W in [0, 1]
        assert out["max_abs_prediction"] <= 1


# ---- the ceiling, on hand-set heads --------------------------------------------------------------
def test_the_bound_holds_for_states_in_the_cube_and_is_attained_at_the_signs():
    run = SumsRun({**SMALL, "head": "regress"})
    rng = np.random.default_rng(7)
    w, b = rng.standard_normal((1, 8)), np.array([-0.7])
    run.model.params["Wo"][:], run.model.params["bo"][:] = w, b
    bound = 0.7 + sum(abs(x) for x in w[0])
    assert run.metrics()["bound"] == pytest.approx(bound, rel=1e-12)
    h = rng.uniform(-1, 1, (5000, 8))
    assert np.abs(h @ w[0] + b[0]).max() <= bound
    corner = np.sign(b[0]) * np.sign(w[0])          # y = b + w·h = −(0.7 + ‖w‖₁)
    assert abs(corner @ w[0] + b[0]) == pytest.approx(bound, rel=1e-12)


def test_an_nau_heads_bound_is_its_weights_l1_norm():
    run = SumsRun({**SMALL, "head": "nau"})
    W = np.linspace(-1, 1, 8)[None, :]
    run.model.params["W_nau"][:] = W
    assert run.metrics()["bound"] == pytest.approx(np.abs(W).sum())


def constant_head(run, c):
    run.model.params["Wo"][:] = 0.0
    run.model.params["bo"][:] = c
    return run.metrics()


def test_a_constant_head_gives_the_metrics_worked_out_by_hand():
    run = SumsRun({**SMALL, "head": "regress", "split": "value", "threshold": 30})
    iid, ood = vs(run.iid_examples), vs(run.ood_examples)
    out = constant_head(run, 45.3)
    assert out["bound"] == pytest.approx(45.3) and out["max_abs_prediction"] == pytest.approx(45.3)
    assert out["ood_above_bound"] == pytest.approx(np.mean(ood > 45.3))
    assert 0 < out["ood_above_bound"] < 1                       # the case tests both sides
    assert out["iid_mae"] == pytest.approx(np.mean(np.abs(45.3 - iid)))
    assert out["ood_mae"] == pytest.approx(np.mean(np.abs(45.3 - ood)))
    assert out["ood_exact"] == pytest.approx(np.mean(ood == 45)) and out["iid_exact"] == 0
    assert out["largest_value_reached"] == -1                     # the smallest value is below 44.8
    # a constant at the smallest test value reaches exactly it (the next value is >= 1 away)
    both = np.concatenate([iid, ood])
    out = constant_head(run, both.min() + 0.2)
    assert out["largest_value_reached"] == both.min()
    assert out["iid_mae"] == pytest.approx(np.mean(np.abs(both.min() + 0.2 - iid)))
    assert out["ood_above_bound"] == 1.0                           # every ood value is > 30 > bound
    # at an integer bound k taken by some ood value, "above" is strict; k + 0.6 rounds up to k + 1
    k = float(np.median(ood))
    assert np.mean(ood > k) < np.mean(ood >= k)                    # some ood value is k
    assert constant_head(run, k)["ood_above_bound"] == pytest.approx(np.mean(ood > k))
    out = constant_head(run, k + 0.6)
    assert out["ood_exact"] == pytest.approx(np.mean(ood == k + 1)) and out["ood_exact"] > 0


def test_an_overflowing_nalu_is_a_large_finite_error_not_inf():
    """All-zero GRU weights keep h_t = 0, so log(|h| + ε) = log 1e-7 in every unit; with W ≈ −1
    the NALU's m = exp(64 · 16.1) overflows to inf, and with g = ½ so does ŷ."""
    run = SumsRun({**SMALL, "head": "nalu", "n": 64})
    for k, v in run.model.params.items():
        v[:] = {"W_hat": -20.0, "M_hat": 20.0}.get(k, 0.0)
    out = run.metrics()
    cap = extrap_sums.MAX_PREDICTION
    assert out["max_abs_prediction"] == cap and out["iid_exact"] == 0 and out["ood_exact"] == 0
    assert out["iid_mae"] == pytest.approx(cap - np.mean(vs(run.iid_examples)))
    assert out["largest_value_reached"] == -1 and out["bound"] == -1


def test_a_constant_class_scores_its_share_by_hand():
    run = SumsRun({**SMALL, "head": "classify", "split": "depth", "threshold": 2})
    run.model.params["Wo"][:] = 0.0
    run.model.params["bo"][:] = np.eye(10)[4] * 5
    out = run.metrics()
    assert out["iid_accuracy"] == pytest.approx(np.mean(vs(run.iid_examples) % 10 == 4))
    assert out["ood_accuracy"] == pytest.approx(np.mean(vs(run.ood_examples) % 10 == 4))
    assert out["train_accuracy"] == -1                             # before any update


# ---- largest_value_reached -----------------------------------------------------------------------
@pytest.mark.parametrize("values, predictions, expected", [
    ([3, 1, 2, 5], [3.2, 1.1, 2.6, 5.0], 1.0),    # 2 is missed: 1 is the last reached
    ([3, 1, 2, 5], [3.2, 1.1, 2.4, 5.0], 5.0),    # all reached
    ([0, 1], [0.5, 1.0], -1.0),                   # |ŷ − v| = 0.5 is not < 0.5: none reached
    ([2, 2, 4], [2.0, 3.0, 4.0], -1.0),           # one of the two 2s is missed
    ([0, 1, 1], [0.0, np.inf, 1.0], 0.0),         # an inf prediction is a miss
    ([0, 7], [np.nan, 7.0], -1.0),
])
def test_largest_value_reached_by_hand(values, predictions, expected):
    assert largest_value_reached(values, predictions) == expected


def test_largest_value_reached_agrees_with_a_brute_force_count():
    rng = np.random.default_rng(0)
    for _ in range(200):
        v = rng.integers(0, 12, rng.integers(1, 15)).astype(float)
        y = v + rng.choice([0.0, 0.3, 0.7, -0.9], size=v.size, p=[0.6, 0.2, 0.1, 0.1])
        right = [abs(a - b) < 0.5 for a, b in zip(y, v)]
        reached = [u for u in v if all(r for r, x in zip(right, v) if x <= u)]
        assert largest_value_reached(v, y) == (max(reached) if reached else -1)


@pytest.mark.parametrize("args, word", [(([-1, 2], [0, 2]), "values"), (([1, 2], [1]), "predictions"),
                                        (([], []), "values"), (([1, np.nan], [1, 1]), "values"),
                                        (([1], [1], 0), "tolerance")])
def test_largest_value_reached_refuses_bad_input_by_name(args, word):
    with pytest.raises(ValueError, match=word):
        largest_value_reached(*args)


# ---- configs -----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad, word", [
    ({"head": "ranking"}, "head"), ({"split": "none"}, "split"), ({"cell": "rnn"}, "cell"),
    ({"threshold": "long"}, "threshold"),                          # the value split's: a number
    ({"split": "depth", "threshold": 2.5}, "threshold"),
    ({"threshold": 10 ** 6}, "threshold"),                         # nothing held out
    ({"threshold": -1}, "threshold"),                              # nothing left to train on
    ({"split": "composition", "threshold": [[3, 9]]}, "threshold"),  # depth 9 never in train
    ({"split": "composition", "threshold": 3}, "threshold"),
    ({"iid_fraction": 1.0}, "iid_fraction"), ({"arith_reg": 0.1}, "arith_reg"),
    ({"max_depth": 40}, "max_depth"), ({"max_operands": 1}, "max_operands"),
    ({"n_examples": 0}, "n_examples"), ({"p_nest": 2}, "p_nest"), ({"lr": 0}, "lr"),
    ({"n": 1024, "batch_size": 1024}, "batch_size"), ({"typo": 1}, "unknown"),
])
def test_bad_configs_are_refused_by_name(bad, word):
    with pytest.raises(ValueError, match=word):
        train_sums({**SMALL, **bad})


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.labs.extrapolation.sums:train_sums", "grid": {"head": ["classify", "nau"]},
            "fixed": {**SMALL, "epochs": 1}}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 2 and report.errors == 0
    for line in (tmp_path / "r.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["metrics"] == train_sums(r["config"])


def test_the_defaults_are_the_docstrings():
    d = extrap_sums.DEFAULTS
    assert (d["split"], d["threshold"], d["head"], d["cell"], d["n"]) == ("value", None, "regress", "gru_torch", 32)
    assert extrap_sums.THRESHOLDS == {"length": 30, "depth": 3, "composition": [[3, 2], [7, 1]], "value": 40}
    assert sorted(extrap_sums.VOCAB) == sorted("()+0123456789")


def test_the_prediction_curve_of_a_constant_head_is_flat_at_its_ceiling():
    """Wo = 0, bo = c: every prediction is c, the ceiling |b| + ‖w‖₁ is |c|, and the values are
    every distinct value of the iid and held-out texts (evaluated here with eval)."""
    run = extrap_sums.SumsRun({**SMALL, "head": "regress"})
    run.model.params["Wo"][:] = 0.0
    run.model.params["bo"][:] = -2.5
    curve = extrap_sums.prediction_curve(run)
    want = sorted({eval(e.text) for e in run.iid_examples + run.ood_examples})
    assert curve["values"] == [float(v) for v in want]
    assert curve["mean_prediction"] == [-2.5] * len(want) and curve["bound"] == 2.5
    assert curve["max_train_value"] == max(eval(e.text) for e in run.train_examples)
    with pytest.raises(ValueError, match="classify"):
        extrap_sums.prediction_curve(extrap_sums.SumsRun({**SMALL, "head": "classify", "split": "depth"}))


# ---- experiments 4–6 on the trained model ("analyse") -----------------------------------------
def test_analyse_adds_the_measures_and_leaves_the_run_as_it_was():
    """The analysis's seeds are spawned after the run's four: the data, the training and every
    other metric are those of the same config without it; its probes' selectivity is accuracy
    minus the control task's, and its fractions are fractions."""
    config = {**SMALL, "head": "classify", "n_examples": 400, "epochs": 3}
    plain = train_sums(config)
    measured = train_sums({**config, "analyse": True})
    assert {k: measured[k] for k in plain} == plain
    extra = set(measured) - set(plain)
    assert {"probe_partial_selectivity", "patch_4_output_moved", "swap_follows", "clamp_accuracy",
            "log10_sv_max_16", "growth_final"} <= extra
    for label in ("depth", "partial", "running", "scope"):
        k = f"probe_{label}"
        assert math.isclose(measured[f"{k}_selectivity"], measured[f"{k}_accuracy"] - measured[f"{k}_control_accuracy"],
                            abs_tol=1e-12)
    for k in extra:
        if k.startswith(("patch_", "swap_follows", "swap_unchanged", "clamp_acc", "clamp_changed")):
            assert 0.0 <= measured[k] <= 1.0 or measured[k] == -1.0, k
    with pytest.raises(ValueError, match="analyse"):
        train_sums({**SMALL, "head": "regress", "analyse": True})
    with pytest.raises(ValueError, match="analyse"):
        train_sums({**SMALL, "head": "classify", "analyse": 1})
