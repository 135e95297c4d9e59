"""gleam.labs.extrapolation.brackets: length against depth on bracket languages. The test sets are checked
against an independent stack count, the accuracies against an unpadded one-by-one prediction,
and reach against hand-made curves."""
import json
import math

import numpy as np
import pytest

from gleam.labs.extrapolation import brackets as xb
from gleam.sweep import run_sweep

SMALL = {"n_train": 120, "n_test": 30, "epochs": 2, "max_train_length": 10, "max_train_depth": 3,
         "test_lengths": [10, 20], "test_depths": [2, 4], "length_lo": 8, "length_hi": 10, "n": 6}
PAIRS = {")": "(", "]": "["}


def stack_depth(text):
    """(deepest stack height before the first break, well-formed?) by a plain stack."""
    stack, deepest = [], 0
    for ch in text:
        if ch in "([":
            stack.append(ch)
            deepest = max(deepest, len(stack))
        elif stack and stack[-1] == PAIRS[ch]:
            stack.pop()
        else:
            return deepest, False
    return deepest, not stack


# ---- reach, by hand --------------------------------------------------------------------------
@pytest.mark.parametrize("values, accs, expected", [
    ([20, 40, 60, 80], [0.95, 0.9, 0.85, 0.99], 40),    # 0.9 counts; 80's recovery does not
    ([20, 40, 60, 80], [1.0, 1.0, 1.0, 0.9], 80),
    ([20, 40, 60, 80], [0.89, 1.0, 1.0, 1.0], -1),
    ([60, 20, 40], [1.0, 1.0, 0.5], 20),                 # any order: sorted by value
    ([], [], -1),
])
def test_reach_on_hand_made_curves(values, accs, expected):
    assert xb.reach(values, accs, 0.9) == expected


def test_reach_refuses_mismatched_or_repeated_values():
    with pytest.raises(ValueError, match="values"):
        xb.reach([2, 4], [1.0], 0.9)
    with pytest.raises(ValueError, match="values"):
        xb.reach([2, 2], [1.0, 1.0], 0.9)
    with pytest.raises(ValueError, match="threshold"):
        xb.reach([2], [1.0], math.nan)


# ---- the test sets hold what they claim -----------------------------------------------------
@pytest.mark.parametrize("kind", ["dyck1", "dyck2"])
def test_the_sets_have_the_lengths_depths_and_balance_claimed(kind):
    run = xb.BracketsRun({**SMALL, "kind": kind})
    c, n = run.config, SMALL["n_test"]
    ranges = {"iid": (2, 10), "length_10": (2, 10), "length_20": (11, 20),
              "depth_2": (8, 10), "depth_4": (8, 10)}
    assert set(run.test_sets) == set(ranges)
    for name, examples in run.test_sets.items():
        lo, hi = ranges[name]
        assert len(examples) == n
        assert sum(e.target for e in examples) == n // 2             # 15 well-formed of 30
        for e in examples:
            deepest, wellformed = stack_depth(e.text)
            assert lo <= len(e.text) <= hi and len(e.text) % 2 == 0
            assert set(e.text) <= set("()[]" if kind == "dyck2" else "()")
            assert e.target == int(wellformed)
            if name.startswith("depth_"):
                assert deepest == int(name[6:])
            elif wellformed:                                           # the walk's cap
                assert deepest <= c["max_train_depth"]
    for e in run.train_examples:
        deepest, wellformed = stack_depth(e.text)
        assert 2 <= len(e.text) <= 10 and e.target == int(wellformed)
        assert deepest <= 3 or not wellformed


def test_balanced_set_classes_and_exact_depth():
    ex = xb.balanced_set(9, 3, "dyck2", (10, 14), 5, p_wellformed=1 / 3, exact_depth=True)
    assert [e.target for e in ex] == [1] * 3 + [0] * 6
    assert all(stack_depth(e.text)[0] == 5 for e in ex)
    assert [e.target for e in xb.balanced_set(5, 0, p_wellformed=0.0)] == [0] * 5
    assert [e.text for e in ex] == [e.text for e in xb.balanced_set(9, 3, "dyck2", (10, 14), 5, 1 / 3, True)]
    with pytest.raises(ValueError, match="max_depth"):
        xb.balanced_set(4, 0, length=(2, 8), max_depth=5, exact_depth=True)   # deeper than half 8
    with pytest.raises(ValueError, match="max_depth"):
        xb.balanced_set(4, 0, length=(2, 8), exact_depth=True)                # no depth to match


# ---- the metrics -----------------------------------------------------------------------------
def test_the_accuracies_match_a_one_by_one_prediction_and_reach_follows():
    run = xb.BracketsRun(SMALL)
    out = run.run()
    vocab = xb.VOCABS["dyck1"]
    for name, examples in run.test_sets.items():
        right = 0
        for e in examples:                         # one unpadded sequence at a time
            X = np.array([[vocab.index(ch)] for ch in e.text])
            right += int(run.model.predict(X)[0] == e.target)
        assert out["iid_accuracy" if name == "iid" else name] == right / len(examples)
    for what, values in (("length", [10, 20]), ("depth", [2, 4])):
        accs = [out[f"{what}_{v}"] for v in values]
        expected = -1 if accs[0] < 0.9 else (values[1] if accs[1] >= 0.9 else values[0])
        assert out[f"{what}_reach"] == expected


def test_a_config_fixes_its_metrics_and_another_seed_changes_them():
    a = xb.train_brackets(SMALL)
    assert a == xb.train_brackets(dict(SMALL))
    assert set(a) == {"updates", "train_accuracy", "iid_accuracy", "length_10", "length_20",
                      "depth_2", "depth_4", "length_reach", "depth_reach", "growth_10", "growth_20"}
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in a.values())
    assert a["updates"] == 2 * math.ceil(120 / 32)
    b = xb.train_brackets({**SMALL, "seed": 1})
    assert set(b) == set(a) and b != a
    other, same = xb.BracketsRun({**SMALL, "seed": 1}), xb.BracketsRun(SMALL)
    assert other.test_sets["depth_4"] != same.test_sets["depth_4"]


def test_a_run_stepped_in_pieces_is_train_brackets_run():
    config = {**SMALL, "cell": "lstm", "batch_size": 16, "seed": 3}
    run = xb.BracketsRun(config)
    before = run.metrics()
    assert before["updates"] == 0 and before["train_accuracy"] == -1
    per_epoch = math.ceil(120 / 16)
    assert run.total_steps == 2 * per_epoch
    taken = [run.step(k).n for k in (3, 6, 1, 10 ** 3)]               # across the epoch boundary
    assert taken == [3, 6, 1, run.total_steps - 10] and run.finished
    assert run.metrics() == xb.train_brackets(config)
    run.reset()
    assert run.metrics() == before


def test_the_default_config_names_the_briefs_keys():
    c = xb.DEFAULTS
    assert (c["kind"], c["cell"], c["n"], c["max_train_length"], c["max_train_depth"]) == (
        "dyck1", "gru_torch", 16, 20, 4)
    assert (c["test_lengths"], c["test_depths"], c["length_lo"], c["length_hi"]) == (
        [20, 40, 60, 80], [2, 4, 6, 8], 16, 20)
    assert (c["n_test"], c["p_wellformed"], c["reach_threshold"], c["epochs"]) == (200, 0.5, 0.9, 10)


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.labs.extrapolation.brackets:train_brackets", "grid": {"cell": ["elman"]}, "fixed": SMALL}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 1 and report.errors == 0
    r = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert r["metrics"] == xb.train_brackets(r["config"])


@pytest.mark.parametrize("bad, word", [
    ({"cell": "transformer"}, "cell"), ({"kind": "dyck3"}, "kind"), ({"typo": 1}, "unknown"),
    ({"test_depths": [2, 6]}, "test_depths"),                  # 2 · 6 > 10, the longest length
    ({"test_depths": [10], "length_lo": 16, "length_hi": 20}, "test_depths"),  # 10 in 16..20: too rare
    ({"test_lengths": [20, 10]}, "test_lengths"), ({"test_lengths": []}, "test_lengths"),
    ({"length_lo": 11}, "length_lo"), ({"n_test": 0}, "n_test"),
    ({"reach_threshold": 1.5}, "reach_threshold"), ({"lr": 0}, "lr"),
    ({"max_train_length": 1}, "max_train_length"),
    ({"n_train": 10 ** 5, "max_train_length": 1000}, "n_train"),    # 10^8 characters
    ({"n_test": 10 ** 4, "test_lengths": [1000]}, "n_test"),
])
def test_bad_configs_are_refused_by_name(bad, word):
    with pytest.raises(ValueError, match=word):
        xb.BracketsRun({**SMALL, **bad}).test_sets       # (a too rare depth: when its sets are drawn)
    with pytest.raises(ValueError, match=word):
        xb.train_brackets({**SMALL, **bad})


def test_the_test_sets_are_drawn_when_first_used_and_before_a_sweep_run_trains(monkeypatch):
    drawn = []
    real = xb.balanced_set
    monkeypatch.setattr(xb, "balanced_set", lambda *a, **k: drawn.append(a) or real(*a, **k))
    run = xb.BracketsRun(SMALL)
    assert drawn == []
    sets = run.test_sets
    assert len(drawn) == 1 + len(run.config["test_lengths"]) + len(run.config["test_depths"]) > 2
    assert run.test_sets is sets and run.metrics() and len(drawn) == len(sets)      # drawn once
    monkeypatch.setattr(xb.BracketsRun, "step", lambda self, n=1: pytest.fail("trained before drawing"))
    with pytest.raises(ValueError, match="too rare"):
        xb.train_brackets({**SMALL, "test_depths": [10], "length_lo": 16, "length_hi": 20})


def test_the_growth_is_the_jacobian_products_largest_singular_value():
    """growth(name): the median, over the set's first examples, of log10 σ_max of
    J_{T−2} ⋯ J_0 multiplied out here with numpy, each J from the model's cell."""
    from gleam import tasks
    from gleam.instruments import stability
    run = xb.BracketsRun({**SMALL, "seed": 1})
    run.step(7)
    name, logs = "length_20", []
    for e in run.test_sets[name][:xb.GROWTH_EXAMPLES]:
        Js = stability.state_jacobians(run.model, tasks.encode([e], run.vocab).X)
        P = np.linalg.multi_dot(list(Js[::-1])) if len(Js) > 1 else Js[0]
        logs.append(np.log10(np.linalg.svd(P, compute_uv=False)[0]))
    assert run.growth(name) == pytest.approx(float(np.median(logs)), abs=1e-9)
    assert run.metrics()["growth_20"] == run.growth(name)
