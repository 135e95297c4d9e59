"""gleam.labs.extrapolation.automata: the finite automata that pass for counters, checked by hand
on texts, and the hard sets checked by counting letters; then the automata scored through
CountingRun's own test sets: the task's near misses cannot tell mod-3 or mod-4 from a counter,
the hard sets can."""
import re
from collections import Counter

import numpy as np
import pytest

from gleam import tasks
from gleam.labs.extrapolation import automata as au
from gleam.labs.extrapolation import counting as ec


# ---- the automata by hand ----------------------------------------------------------------------
@pytest.mark.parametrize("automaton, accepted, rejected", [
    (au.mod_counter(2), ["ab", "aaab", "abbb", "aabb", "aaaaab"], ["aab", "abb", "ba", "abab", "", "aabbc", "a"]),
    (au.mod_counter(3), ["ab", "aaaab", "abbbb", "aaabbb"], ["aab", "aaab", "aaaaab", "ba", "bbb"]),
    (au.mod_counter(4), ["ab", "aaaaab", "abbbbb", "aaaaaaaaab"], ["aab", "aaab", "aaaab", "aabba"]),
    (au.mod_counter(1), ["ab", "aaaab", "abbbbbbbb"], ["a", "b", "ba", "aba"]),
    (au.length_parity(), ["ab", "aaab", "aabb", "abbb"], ["aab", "abb", "abab", "bbaa"]),
    (au.exact_counter(), ["ab", "aabb", "a" * 40 + "b" * 40], ["aaab", "abb", "abab", "", "aabbcc"]),
    (au.mod_counter(2, "anbncn"), ["abc", "aaabbbc", "aaabccc", "abbbc"], ["aabc", "abbc", "abcc", "ab", "acb"]),
    (au.mod_counter(4, "anbncn"), ["abc", "aaaaabbbbbc", "abbbbbccccc"], ["aaabbbc", "aabbcc" + "c", "ab"]),
    (au.length_parity("anbncn"), ["abc", "aabbbc", "aaaabc", "abbbbc"], ["aabc", "abbc", "aabbc", "ab", "cab"]),
    (au.exact_counter("anbncn"), ["abc", "aaabbbccc"], ["aabbc", "aabbcc" + "c", "ab", "abcabc"]),
])
def test_the_automata_by_hand(automaton, accepted, rejected):
    assert all(automaton(t) for t in accepted) and not any(automaton(t) for t in rejected)


def test_the_shortcuts_the_lab_reports():
    cuts = au.shortcuts("anbn")
    assert sorted(cuts) == ["mod2", "mod3", "mod4", "parity"]
    # for aⁿbⁿ the length's parity is #a − #b's: parity and mod2 are one automaton
    texts = ["a" * i + "b" * j for i in range(1, 9) for j in range(1, 9)]
    assert [cuts["parity"](t) for t in texts] == [cuts["mod2"](t) for t in texts]


def test_accuracy_counts_the_targets_given_and_refuses_by_name():
    ex = au.hard_counting(50, 3, "anbn", 5)
    want = np.mean([au.mod_counter(3)(e.text) == bool(e.target) for e in ex])
    assert au.accuracy(au.mod_counter(3), ex) == pytest.approx(want, abs=0)
    assert au.accuracy(lambda t: True, ex) == pytest.approx(np.mean([e.target for e in ex]), abs=0)
    with pytest.raises(ValueError, match="automaton"):
        au.accuracy("mod4", ex)
    with pytest.raises(ValueError, match="examples"):
        au.accuracy(au.mod_counter(2), [])
    with pytest.raises(ValueError, match="examples"):       # next-character targets are not 0/1
        au.accuracy(au.mod_counter(2), tasks.counting(3, 0, "anbn", "predict"))
    for bad, word in [((0,), "m"), ((2.5,), "m"), ((2, "abc"), "kind")]:
        with pytest.raises(ValueError, match=word):
            au.mod_counter(*bad)


# ---- the hard sets ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["anbn", "anbncn"])
@pytest.mark.parametrize("k", [1, 2, 3, 9, 40])
def test_a_hard_set_is_the_word_or_a_shape_right_text_off_the_diagonal(kind, k):
    letters = kind[0::2]
    B = len(letters)
    shape = re.compile("".join(f"{ch}+" for ch in letters))
    ex = au.hard_counting(400, k, kind, k)
    assert [e.text for e in ex] == [e.text for e in au.hard_counting(400, k, kind, k)]      # seeded
    seen = Counter()
    for e in ex:
        counts = [e.text.count(ch) for ch in letters]
        assert shape.fullmatch(e.text) and counts == e.facts["counts"] and e.facts["n"] == k
        assert len(e.text) <= au.hard_longest(kind, k)
        diffs = [x - y for x, y in zip(counts, counts[1:])]
        assert e.labels["a_minus_b"][-1] == diffs[0]
        seen[e.facts["negative"]] += 1
        if e.target == 1:
            assert e.facts["negative"] is None and e.text == "".join(ch * k for ch in letters)
            continue
        assert e.target == 0 and any(diffs) and min(counts) >= 1
        spread = max(counts) - min(counts)
        if e.facts["negative"] == "far":
            assert spread >= max(1, k // 2) and max(counts) <= 2 * k and len(set(counts)) == 2
        else:                                   # near: one difference of d, the others 0 or ±d, ±2d
            d = max(abs(x) for x in diffs) if B == 2 else min(abs(x) for x in diffs if x)
            assert 1 <= d <= au.NEAR_D and all(x % d == 0 for x in diffs)
            if B == 2 and min(counts) > 1:      # not lifted: #a + #b is 2k, or 2k ± 1 for odd d
                assert abs(sum(counts) - 2 * k) == d % 2
    assert 140 <= seen[None] <= 260 and seen["near"] > 60 and seen["far"] > 60      # ½, ¼, ¼ of 400


def test_hard_counting_refuses_by_name():
    for args, word in [((0, 0), "n"), ((5, -1), "seed"), ((5, 0, "anbm"), "kind"), ((5, 0, "anbn", 0), "block"),
                       ((5, 0, "anbn", 3, 1.5), "p_positive"), ((10 ** 5, 0, "anbn", 1000), "n")]:
        with pytest.raises(ValueError, match=word):
            au.hard_counting(*args)


# ---- the automata through CountingRun's own sets --------------------------------------------
@pytest.fixture(scope="module")
def default_run():
    return ec.CountingRun({})                   # the test sets are made in __init__: no training


@pytest.mark.parametrize("m", [2, 3, 4])
def test_mod_m_fails_the_hard_set_beyond_training_but_not_the_old_sets(default_run, m):
    """The reviewer's finding, kept as a test: on the task's near misses (differences of at most 2)
    mod-3 and mod-4 are right at every tested n (so largest_n is censored at max_test_n for
    them), mod-2 is not; on the hard sets every mod-m fails at the first n beyond training."""
    run, c = default_run, default_run.config
    first = c["max_train_n"] + 1
    accepts = au.mod_counter(m, c["kind"])
    hard = au.accuracy(accepts, run.hard_examples[first])
    assert hard < c["threshold"] and hard == run.automata_metrics[f"mod{m}_hard_{first}"]
    assert run.automata_metrics[f"mod{m}_hard_largest_n"] < first
    old = [au.accuracy(accepts, run.per_n_examples[k]) for k in run.tested_ns]
    if m == 2:
        assert min(old) < c["threshold"] and run.automata_metrics["mod2_largest_n"] < first
    else:
        assert old == [1.0] * len(old) and au.accuracy(accepts, run.iid_examples) == 1.0
        assert run.automata_metrics[f"mod{m}_largest_n"] == c["max_test_n"] == run.tested_ns[-1]


def test_mod_2_passes_every_old_set_of_anbncn_and_fails_its_hard_sets():
    run = ec.CountingRun({"kind": "anbncn", "n_test": 100, "max_test_n": 24})
    accepts = au.mod_counter(2, "anbncn")
    assert all(au.accuracy(accepts, run.per_n_examples[k]) == 1.0 for k in run.tested_ns)
    assert run.automata_metrics["mod2_largest_n"] == 24 and run.automata_metrics["mod2_hard_9"] < 0.95


@pytest.mark.parametrize("kind", ["anbn", "anbncn"])
def test_the_true_counter_scores_one_on_every_set(kind):
    run = ec.CountingRun({"kind": kind, "n_test": 100, "max_test_n": 40})
    exact = au.exact_counter(kind)
    sets = [run.iid_examples, *run.per_n_examples.values(), *run.hard_examples.values()]
    assert [au.accuracy(exact, s) for s in sets] == [1.0] * len(sets)


def test_the_automata_metrics_are_the_automata_on_the_runs_sets(default_run):
    run, c = default_run, default_run.config
    for name, accepts in au.shortcuts(c["kind"]).items():
        hard = [au.accuracy(accepts, run.hard_examples[k]) for k in run.tested_ns]
        old = [au.accuracy(accepts, run.per_n_examples[k]) for k in run.tested_ns]
        assert [run.automata_metrics[f"{name}_hard_{k}"] for k in run.tested_ns] == hard
        assert run.automata_metrics[f"{name}_hard_largest_n"] == ec.largest_reached(run.tested_ns, hard, c["threshold"])
        assert run.automata_metrics[f"{name}_largest_n"] == ec.largest_reached(run.tested_ns, old, c["threshold"])
        assert run.automata_metrics[f"{name}_iid_accuracy"] == au.accuracy(accepts, run.iid_examples)
