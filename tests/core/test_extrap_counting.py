"""gleam.labs.extrapolation.counting: the counting experiment (aⁿbⁿ, aⁿbⁿcⁿ): its test sets checked by counting
letters, largest_reached and the counter probe by hand, the probe through a hand-set Elman
model whose unit 0 counts, the run in steps and its refusals."""
import json
import re
from collections import Counter

import numpy as np
import pytest

from gleam.labs.extrapolation import automata
from gleam.labs.extrapolation import counting as ec
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.sweep import run_sweep

SMALL = {"n_train": 200, "n_test": 20, "epochs": 2, "max_train_n": 4, "max_test_n": 7, "n": 4}


# ---- largest_reached -------------------------------------------------------------------------
@pytest.mark.parametrize("ns, acc, threshold, want", [
    ([1, 2, 3, 4], [1.0, 0.96, 0.94, 1.0], 0.95, 2),       # 3 fails; 4 passes but comes after
    ([1, 2, 3], [1.0, 1.0, 1.0], 0.95, 3),                 # all reached
    ([1, 2, 3], [0.9, 1.0, 1.0], 0.95, 0),                 # n = 1 already fails
    ([1, 2], [0.95, 0.5], 0.95, 1),                        # >= : equal to the threshold counts
    ([3, 5, 9], [1.0, 1.0, 0.0], 0.5, 5),                  # ns need not start at 1
    ([1], [0.0], 0.0, 1),                                  # threshold 0: everything passes
])
def test_largest_reached_by_hand(ns, acc, threshold, want):
    assert ec.largest_reached(ns, acc, threshold) == want


@pytest.mark.parametrize("args, word", [(([2, 1], [1, 1], 0.5), "ns"), (([0, 1], [1, 1], 0.5), "ns"),
                                        (([1, 2], [1], 0.5), "accuracies"),
                                        (([1, 2], [1, 1.5], 0.5), "accuracies"),
                                        (([1.5, 2], [1, 1], 0.5), "ns"), (([1], [1], 2), "threshold")])
def test_largest_reached_refuses_by_name(args, word):
    with pytest.raises(ValueError, match=word):
        ec.largest_reached(*args)


# ---- the counter probe on given states ---------------------------------------------------------
def test_unit_correlations_are_pearsons_and_zero_for_a_constant_unit():
    r = np.random.default_rng(0)
    v = r.standard_normal(50)
    X = np.column_stack([np.full(50, 0.1), -3 * v + 0.01 * r.standard_normal(50),
                         r.standard_normal(50), 1e-310 * v])
    got = ec.unit_correlations(X, v)
    want = [0.0] + [abs(np.corrcoef(X[:, j], v)[0, 1]) for j in (1, 2)] + [1.0]
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert np.all(ec.unit_correlations(X, np.ones(50)) == 0)       # a constant label


def test_counter_probe_by_hand():
    """x = 0, 1, 2 (one row per word), y = 0, 1, 4; a constant unit 0 beside it. Leaving a word
    out, the other two fix a line: fold 0 y = 3x − 2 (ŷ = −2), fold 1 y = 2x (ŷ = 2), fold 2
    y = x (ŷ = 2): Σ(y − ŷ)² = 4 + 1 + 4 = 9, Σ(y − ȳ)² = 78/9. All three: y = 2x − 1/3, at
    x = 3, 4 (y = 9, 16): residuals 10/3, 25/3 over Σ(y − ȳ)² = 24.5. Pearson(x, y) = 4/√(2·78/9)."""
    X = np.array([[5.0, 0.0], [5.0, 1.0], [5.0, 2.0]])
    out = ec.counter_probe(X, [0.0, 1.0, 4.0], [7, 8, 9], [[5.0, 3.0], [5.0, 4.0]], [9.0, 16.0], l2=1e-10)
    assert out["best_unit"] == 1
    assert out["probe_r2_train"] == pytest.approx(1 - 9 / (78 / 9), abs=1e-6)
    assert out["probe_r2_beyond"] == pytest.approx(1 - ((10 / 3) ** 2 + (25 / 3) ** 2) / 24.5, abs=1e-6)
    assert out["best_unit_corr"] == pytest.approx(4 / np.sqrt(2 * 78 / 9), abs=1e-12)


def test_counter_probe_averages_two_labels_and_refuses_by_name():
    r = np.random.default_rng(1)
    y = r.standard_normal((40, 2))
    X = np.column_stack([y, r.standard_normal(40)])                # both labels read exactly
    out = ec.counter_probe(X, y, np.arange(40) % 5, X[:7], y[:7], l2=1e-9)
    assert out["probe_r2_train"] > 1 - 1e-6 and out["probe_r2_beyond"] > 1 - 1e-6 and out["best_unit"] == 0
    with pytest.raises(ValueError, match="groups"):
        ec.counter_probe(X, y, np.zeros(40), X, y)                 # one word: nothing to hold out
    with pytest.raises(ValueError, match="y_beyond"):
        ec.counter_probe(X, y, np.arange(40) % 5, X, y[:, 0])      # two labels, then one
    with pytest.raises(ValueError, match="X_beyond"):
        ec.counter_probe(X, y, np.arange(40) % 5, X[:, :2], y)


def _counting_elman(eps0, eps1):
    """Elman over "ab", n = 3: unit j is h ← tanh(h + eps_j (x_a − x_b)); unit 2 stays 0."""
    z = np.zeros
    params = {"Wx": np.array([[eps0, -eps0], [eps1, -eps1], [0.0, 0.0]]), "Wh": np.diag([1.0, 1.0, 0.0]),
              "b": z(3), "Wo": z((2, 3)), "bo": z(2)}
    return SeqModel(SeqModelConfig("elman", d=2, n=3, n_out=2), params=params)


def _hand_states(eps, k):
    """The states of one unit h ← tanh(h ± eps) along aᵏbᵏ, and a_minus_b, by a plain loop."""
    h, hs, ys = 0.0, [], []
    for i, ch in enumerate("a" * k + "b" * k):
        h = np.tanh(h + (eps if ch == "a" else -eps))
        hs.append(h)
        ys.append(min(i + 1, 2 * k - i - 1))
    return hs, ys


def test_a_hand_set_counter_is_found_by_the_probe():
    """Unit 0 adds ±0.001 per letter (tanh nearly linear there: it is a_minus_b / 1000), unit 1
    ±2 (saturated: a sign more than a count), unit 2 is constant. The probe reads the count from
    unit 0 in and beyond the train range, and unit 0 is the best unit. (Unit 0's variance is
    ~1e-5, so the ridge penalty must be far smaller not to shrink its weight away.)"""
    out = ec.counter_metrics(_counting_elman(1e-3, 2.0), "anbn", 8, 24, l2=1e-10)
    assert out["best_unit"] == 0 and out["best_unit_corr"] > 1 - 1e-6
    assert out["probe_r2_train"] > 1 - 1e-4 and out["probe_r2_beyond"] > 1 - 1e-4
    # the correlation, recomputed from the states of a plain loop over the words k = 1 … 8
    hs, ys = map(np.concatenate, zip(*[_hand_states(1e-3, k) for k in range(1, 9)]))
    assert out["best_unit_corr"] == pytest.approx(abs(np.corrcoef(hs, ys)[0, 1]), abs=1e-12)


def test_a_saturating_counter_does_not_reach_beyond():
    """With ±1 per letter alone, aʲ's state is tanh's fixed point h = tanh(h + 1) (to 1e-6) for
    every j >= 9, so in the beyond words (k = 9 … 24) every such prefix has one state, and the
    state after aᵏbⁱ depends on i alone. A probe gives rows of one state one prediction, so its
    R² is at most 1 − (the labels' spread within those groups) / (their spread overall)."""
    hs = [_hand_states(1.0, k)[0][k - 1] for k in range(9, 25)]
    assert np.ptp(hs) < 1e-6
    groups, ys = {}, []
    for k in range(9, 25):
        for j in range(1, k + 1):                                   # aʲ: a_minus_b = j
            groups.setdefault(("a", min(j, 9)), []).append(j)
        for i in range(1, k + 1):                                   # aᵏbⁱ: a_minus_b = k − i
            groups.setdefault(("b", i), []).append(k - i)
        ys += list(range(1, k + 1)) + [k - i for i in range(1, k + 1)]
    spread = sum(np.sum((np.array(g) - np.mean(g)) ** 2) for g in groups.values())
    bound = 1 - spread / np.sum((np.array(ys) - np.mean(ys)) ** 2)
    assert bound < 0.7
    out = ec.counter_metrics(_counting_elman(1.0, 0.0), "anbn", 8, 24)
    assert out["best_unit"] == 0 and out["probe_r2_beyond"] <= bound + 1e-3


def test_counter_metrics_refuses_by_name():
    model = _counting_elman(1e-3, 0.0)
    for args, word in [((model, "anbncn", 4, 8), "model"), ((model, "abc", 4, 8), "kind"),
                       ((model, "anbn", 1, 8), "max_train_n"), ((model, "anbn", 4, 4), "max_test_n"),
                       (("model", "anbn", 4, 8), "model")]:
        with pytest.raises(ValueError, match=word):
            ec.counter_metrics(*args)


# ---- the test sets ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["anbn", "anbncn"])
def test_each_per_n_set_holds_block_n_exactly(kind):
    run = ec.CountingRun({**SMALL, "kind": kind, "n_test": 60})
    letters = "ab" if kind == "anbn" else "abc"
    assert sorted(run.per_n_examples) == list(range(1, 8))
    for k, examples in run.per_n_examples.items():
        assert len(examples) == 60
        positives = 0
        for e in examples:
            word = "".join(ch * k for ch in letters)
            counts = [Counter(e.text)[ch] for ch in letters]
            off = [c - k for c in counts]
            assert set(e.text) <= set(letters)
            if e.target == 1:                                      # the word itself
                assert e.text == word
                positives += 1
            elif off == [0] * len(letters):                        # an "order" near miss: one swap
                i = next(i for i in range(len(word)) if e.text[i] != word[i])
                assert e.text != word and e.text[i:i + 2] == word[i + 1] + word[i] and e.text[i + 2:] == word[i + 2:]
            elif len(e.text) == len(word):                         # a "shift" near miss: a letter moved
                assert e.text == "".join(sorted(e.text)) and sorted(off)[0] == -1 and sorted(off)[-1] == 1
                assert sorted(abs(o) for o in off) == [0] * (len(letters) - 2) + [1, 1]
            else:                                                  # a "count" near miss: one block ±1
                assert sorted(abs(o) for o in off) == [0] * (len(letters) - 1) + [1]
        assert 15 <= positives <= 45                               # p_positive ½: 60 ± 4σ
    for e in run.iid_examples:                                     # blocks 1 … max_train_n
        assert max(Counter(e.text).values()) <= SMALL["max_train_n"] + 1


@pytest.mark.parametrize("kind", ["anbn", "anbncn"])
def test_length_parity_misses_only_the_shifted_near_misses(kind):
    """automata.length_parity (shape a⁺b⁺(c⁺) and length a multiple of the blocks) decides every
    example of the task's sets but the "shift" near misses of blocks k >= 2, which it accepts;
    those it misses are caught by mod_counter(4) (for aⁿbⁿcⁿ already by mod_counter(2)), no counter."""
    run = ec.CountingRun({**SMALL, "kind": kind, "n_test": 60, "max_test_n": 12})
    B = len(run.vocab)
    shape = re.compile("a+b+" + ("c+" if B == 3 else "") + "$")
    parity, mod = automata.length_parity(kind), automata.mod_counter(4 if B == 2 else 2, kind)
    wrong = 0
    for examples in [run.iid_examples, *run.per_n_examples.values()]:
        for e in examples:
            automaton = bool(shape.match(e.text)) and len(e.text) % B == 0
            assert automaton == parity(e.text)
            shifted = e.facts["negative"] == "shift" and e.facts["n"] >= 2
            assert (automaton == (e.target == 1)) == (not shifted), e.text
            assert mod(e.text) == (e.target == 1), e.text
            wrong += shifted
    assert wrong > 0


def test_a_block_keeps_its_test_sets_whatever_max_test_n_stride_and_n_val():
    runs = [ec.CountingRun({**SMALL, **c}) for c in
            ({"max_test_n": 6}, {"max_test_n": 9}, {"max_test_n": 30, "test_stride": 3, "n_val": 40})]
    for sets in ("per_n_examples", "hard_examples"):
        a, *others = [getattr(r, sets) for r in runs]
        assert all([e.text for e in a[k]] == [e.text for e in b[k]] for b in others for k in a)
        assert [e.text for e in a[5]] != [e.text for e in a[6]]
    assert [e.text for e in runs[0].train_examples] == [e.text for e in runs[2].train_examples]
    assert [e.text for e in runs[0].iid_examples] == [e.text for e in runs[2].iid_examples]


@pytest.mark.parametrize("top, last, stride, want", [
    (8, 80, 8, list(range(1, 17)) + list(range(24, 81, 8))),      # the defaults
    (4, 7, 8, list(range(1, 8))),                                 # all within 2·max_train_n
    (4, 30, 7, list(range(1, 9)) + [15, 22, 29, 30]),             # max_test_n always tested
    (3, 10, 1, list(range(1, 11))),
])
def test_the_tested_blocks_by_hand(top, last, stride, want):
    assert ec.tested_ns(top, last, stride) == want
    run = ec.CountingRun({**SMALL, "max_train_n": top, "max_test_n": last, "test_stride": stride, "n_test": 2,
                          "n_train": 2})
    assert run.tested_ns == want and sorted(run.per_n_examples) == sorted(run.hard_examples) == want


def test_the_validation_set_is_drawn_as_the_training_set_apart_from_the_tests():
    run = ec.CountingRun({**SMALL, "n_val": 300})
    assert len(run.val_examples) == 300 and len(run.val_examples) == len(run._val.targets)
    assert max(e.facts["n"] for e in run.val_examples) <= SMALL["max_train_n"]
    assert {e.facts["negative"] for e in run.val_examples} == {None, "count", "order", "shift"}
    texts = [e.text for e in run.val_examples]
    assert texts != [e.text for e in run.iid_examples[:300]] and texts != [e.text for e in run.train_examples[:300]]
    assert ec.CountingRun({**SMALL}).val_examples == [] and ec.CountingRun({**SMALL})._val is None


# ---- the run ---------------------------------------------------------------------------------
PROBE = {"probe_r2_train", "probe_r2_beyond", "best_unit", "best_unit_corr", "probe_c_r2_train",
         "probe_c_r2_beyond", "best_unit_c", "best_unit_c_corr"}


def _keys(ns, mode="accept"):
    if mode == "predict":
        return ({"updates", "train_accuracy", "iid_accuracy", "predict_largest_n", "predict_largest_n_censored"}
                | PROBE | {f"predict_{k}" for k in ns})
    per_automaton = {"iid_accuracy", "largest_n", "hard_largest_n"} | {f"hard_{k}" for k in ns}
    return ({"updates", "train_accuracy", "iid_accuracy", "largest_n", "largest_n_censored", "hard_largest_n",
             "hard_largest_n_censored"} | PROBE | {f"acc_{k}" for k in ns} | {f"hard_{k}" for k in ns}
            | {f"{a}_{key}" for a in ("mod2", "mod3", "mod4", "parity") for key in per_automaton})


def test_a_config_fixes_its_metrics_and_another_seed_changes_them():
    config = {**SMALL, "kind": "anbncn", "cell": "lstm", "seed": 2}
    a = ec.train_counting(config)
    assert a == ec.train_counting(dict(config))
    b = ec.train_counting({**config, "seed": 3})
    assert b != a and set(a) == set(b) == _keys(range(1, 8))
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) for v in a.values())
    for m in (a, b):
        # largest_n and hard_largest_n from the curves, by a plain loop
        for curve, reached in (("acc", "largest_n"), ("hard", "hard_largest_n")):
            k = 0
            while k < 7 and m[f"{curve}_{k + 1}"] >= 0.95:
                k += 1
            assert m[reached] == k and m[f"{reached}_censored"] == int(k == 7)
        assert 0 <= m["best_unit"] < 4 and 0 <= m["best_unit_corr"] <= 1
        assert 0 <= m["best_unit_c"] < 4 and 0 <= m["best_unit_c_corr"] <= 1       # an LSTM: c probed


def test_a_value_at_the_largest_tested_n_is_marked_censored():
    m = ec.train_counting({**SMALL, "threshold": 0.0})              # every set passes
    assert m["largest_n"] == m["hard_largest_n"] == 7 and m["largest_n_censored"] == m["hard_largest_n_censored"] == 1
    assert m["mod4_hard_largest_n"] == 7


def test_a_run_stepped_in_pieces_is_train_countings_run():
    config = {**SMALL, "cell": "gru_textbook", "seed": 4, "batch_size": 16}
    run = ec.CountingRun(config)
    per_epoch = -(-SMALL["n_train"] // 16)
    assert (run.steps_per_epoch, run.total_steps) == (per_epoch, SMALL["epochs"] * per_epoch)
    before = run.metrics()
    assert before["updates"] == 0 and before["train_accuracy"] == -1
    taken = [run.step(k).n for k in (3, 11, 1, 10 ** 3)]           # across the epoch boundary, then past the end
    assert taken == [3, 11, 1, run.total_steps - 15] and run.finished and run.step(2).n == 0
    assert run.metrics() == ec.train_counting(config)
    run.reset()
    assert run.steps == 0 and run.metrics() == before


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.labs.extrapolation.counting:train_counting", "grid": {"kind": ["anbn", "anbncn"]},
            "fixed": {**SMALL, "epochs": 1}}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 2 and report.errors == 0
    for line in (tmp_path / "r.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["metrics"] == ec.train_counting(r["config"])


@pytest.mark.parametrize("bad, word", [
    ({"cell": "transformer"}, "cell"), ({"kind": "anbm"}, "kind"), ({"max_train_n": 1}, "max_train_n"),
    ({"max_test_n": 4}, "max_test_n"), ({"threshold": 1.5}, "threshold"), ({"probe_l2": 0}, "probe_l2"),
    ({"n": 0}, "'n'"), ({"lr": 0}, "lr"), ({"clip": -1.0}, "clip"), ({"seed": -1}, "seed"),
    ({"n_test": 10 ** 5, "max_test_n": 200}, "n_test"), ({"typo": 1}, "unknown"), ({"mode": "generate"}, "mode"),
    ({"test_stride": 0}, "test_stride"), ({"check_every": 5}, "n_val"), ({"n_val": -1}, "n_val"),
    ({"criterion": 1.5}, "criterion"), ({"stop_at": 2}, "stop_at"), ({"max_test_n": 257}, "max_test_n"),
    ({"lr_drop_at": 1.5}, "lr_drop_at"), ({"lr_drop": 0}, "lr_drop"), ({"lr_drop": 2}, "lr_drop")])
def test_bad_configs_are_refused_by_name(bad, word):
    with pytest.raises(ValueError, match=word):
        ec.train_counting({**SMALL, **bad})
    with pytest.raises(ValueError, match="config"):
        ec.train_counting([("n", 4)])


def test_normalized_configs_say_when_two_name_one_run():
    a = ec.normalized({"kind": "anbncn"})
    assert a == ec.normalized({"kind": "anbncn", "threshold": 0.95, "clip": 5.0})
    assert a != ec.normalized({"kind": "anbncn", "seed": 1})


# ---- trained to a criterion ------------------------------------------------------------------
def test_a_run_to_a_criterion_reports_what_stepped_run_adds():
    config = {**SMALL, "cell": "lstm", "n_val": 100, "check_every": 5, "criterion": 0.98, "epochs": 3}
    run = ec.CountingRun(config)
    out = run.run()
    curve = out.pop("curve")
    out.pop("weights")
    assert [u for u, _ in curve] == [5 * (i + 1) for i in range(len(curve) - 1)] + [curve[-1][0]]
    assert out["heldin_score"] == out["iid_accuracy"] and out["learned"] == int(out["iid_accuracy"] >= 0.98)
    assert out["val_score"] == pytest.approx(run.validation_score(), abs=0)      # the kept weights' score
    assert out["val_score"] == max(s for _, s in curve) or out["val_score"] >= 0.98
    assert set(out) == _keys(range(1, 8)) | {"learned", "val_score", "kept_updates", "heldin_score"}
    # a criterion of 0 stops at the first check
    first = ec.train_counting({**config, "criterion": 0.0})
    assert first["updates"] == first["kept_updates"] == 5 and first["learned"] == 1


def test_a_learning_rate_drop_comes_once_at_the_first_check_that_reaches_it():
    config = {**SMALL, "cell": "lstm", "n_val": 100, "check_every": 5, "criterion": 1.0, "epochs": 3, "lr": 0.01}
    plain = ec.CountingRun(config)
    kept = plain.run()
    assert "lr_dropped_at" not in kept and plain.trainer.lr == 0.01
    run = ec.CountingRun({**config, "lr_drop_at": 0.0, "lr_drop": 0.25})   # every score reaches 0
    out = run.run()
    assert out["lr_dropped_at"] == 5 and run.trainer.lr == 0.01 * 0.25    # once, not at every check
    assert out["curve"][0] == kept["curve"][0]           # the same run up to the drop, another after it
    assert [s for _, s in out["curve"]] != [s for _, s in kept["curve"]]
    never = ec.CountingRun({**config, "lr_drop_at": 1.0})                  # a score never reached
    assert never.run()["lr_dropped_at"] == -1 and never.trainer.lr == 0.01


# ---- next-character prediction ---------------------------------------------------------------
def _deterministic_right(model, examples):
    """(steps right, steps, [word all right]) by a plain loop over the examples, one at a time."""
    right = total = 0
    words = []
    for e in examples:
        ids = np.array(["abc.".index(ch) for ch in e.text])[:, None]
        pred = model.predict(ids)[:, 0]
        want = np.array(["abc.".index(ch) for ch in e.target])
        keep = np.array(e.labels["deterministic"], bool)
        right, total = right + int(np.sum((pred == want) & keep)), total + int(keep.sum())
        words.append(bool(np.all((pred == want)[keep])))
    return right, total, words


@pytest.mark.parametrize("kind, cell", [("anbn", "gru_torch"), ("anbncn", "lstm")])
def test_predict_mode_scores_the_deterministic_steps(kind, cell):
    config = {**SMALL, "mode": "predict", "kind": kind, "cell": cell, "epochs": 3, "max_test_n": 12}
    run = ec.CountingRun(config)
    assert run.vocab == "abc." and run.model.config.many_to_many and run.model.config.n_out == 4
    assert run.baseline_loss() == pytest.approx(np.log(4), rel=1e-15)
    m = run.run()
    assert set(m) == _keys(run.tested_ns, "predict")
    right, total, _ = _deterministic_right(run.model, run.iid_examples)
    assert m["iid_accuracy"] == pytest.approx(right / total, abs=1e-15)
    words = _deterministic_right(run.model, [run.per_n_examples[k][0] for k in run.tested_ns])[2]
    assert [m[f"predict_{k}"] for k in run.tested_ns] == [int(w) for w in words]
    k = 0
    while k < len(words) and words[k]:
        k += 1
    assert m["predict_largest_n"] == (run.tested_ns[k - 1] if k else 0)
    assert m["predict_largest_n_censored"] == int(k == len(words))
    assert (m["probe_c_r2_train"] == -1) == (cell != "lstm")
    assert all(e.text == "".join(ch * e.facts["n"] for ch in kind[0::2]) for e in run.train_examples)


def test_predict_mode_stepped_in_pieces_is_its_run():
    config = {**SMALL, "mode": "predict", "seed": 5, "n_val": 30}
    run = ec.CountingRun(config)
    for k in (7, 1, 10 ** 3):
        run.step(k)
    assert run.metrics() == ec.train_counting(config)
    assert 0 <= run.validation_score() <= 1


# ---- the probe on an LSTM's cell state -------------------------------------------------------
def _counting_lstm():
    """LSTM over "ab", n = 2: unit 0's input and forget gates are open (σ(30)), its candidate is
    tanh(±3) = ±0.995, so c_0 = 0.995 (a − b read): a counter in c; h_0 = σ(0)·tanh(c_0) saturates
    beyond a count of 2 or 3. Unit 1 is shut (its gates σ(−30))."""
    n, z = 2, np.zeros
    W_ih, b = z((4 * n, 2)), z(4 * n)
    b[[0, 2]] = 30.0                             # i_0, f_0 open
    b[[1, 3]] = -30.0                            # i_1, f_1 shut
    W_ih[4] = [3.0, -3.0]                        # g_0 = tanh(3 x_a − 3 x_b)
    params = {"W_ih": W_ih, "W_hh": z((4 * n, n)), "b_ih": b, "b_hh": z(4 * n), "Wo": z((2, n)), "bo": z(2)}
    return SeqModel(SeqModelConfig("lstm", d=2, n=n, n_out=2), params=params)


def test_an_lstm_counting_in_its_cell_state_is_found_there_and_not_in_h():
    model = _counting_lstm()
    c = ec.counter_metrics(model, "anbn", 8, 24, cell_state=True)
    h = ec.counter_metrics(model, "anbn", 8, 24)
    assert c["best_unit"] == 0 and c["best_unit_corr"] > 1 - 1e-9
    assert c["probe_r2_train"] > 1 - 1e-4 and c["probe_r2_beyond"] > 1 - 1e-4
    assert h["probe_r2_beyond"] < 0.9 < c["probe_r2_beyond"]
    # the same model over predict mode's vocabulary "abc.": the ids of a and b are unchanged
    wide = SeqModel(SeqModelConfig("lstm", d=4, n=2, n_out=2),
                    params={**model.params, "W_ih": np.pad(model.params["W_ih"], ((0, 0), (0, 2)))})
    assert ec.counter_metrics(wide, "anbn", 8, 24, cell_state=True, vocab="abc.") == c
    with pytest.raises(ValueError, match="cell_state"):
        ec.counter_metrics(_counting_elman(1e-3, 0.0), "anbn", 8, 24, cell_state=True)
    with pytest.raises(ValueError, match="vocab"):
        ec.counter_metrics(wide, "anbn", 8, 24, vocab="xyz.")
    with pytest.raises(ValueError, match="vocab"):
        ec.counter_metrics(model, "anbn", 8, 24, vocab="abc.")       # d = 2, vocab of 4


def test_the_c_probe_of_a_run_is_counter_metrics_on_c_and_minus_one_without_c():
    run = ec.CountingRun({**SMALL, "cell": "lstm", "seed": 1})
    run.step(20)
    m = run.metrics()
    want = ec.counter_metrics(run.model, "anbn", 4, 7, cell_state=True)
    assert [m["probe_c_r2_train"], m["probe_c_r2_beyond"], m["best_unit_c"], m["best_unit_c_corr"]] == \
        [want["probe_r2_train"], want["probe_r2_beyond"], want["best_unit"], want["best_unit_corr"]]
    gru = ec.train_counting({**SMALL, "epochs": 1})
    assert [gru[k] for k in ("probe_c_r2_train", "probe_c_r2_beyond", "best_unit_c", "best_unit_c_corr")] == [-1] * 4
