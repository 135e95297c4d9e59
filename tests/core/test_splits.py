"""gleam.tasks.splits: each split holds out exactly what it says, and no text lies on both sides.

The held-out property is recomputed from the text where it can be (length by len, depth by
counting brackets, [digit, depth] pairs by a prefix count, values by Python's evaluation), not
read back from the facts the split used. Hand-made examples give known answers.
"""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleam import tasks
from gleam.tasks import splits

PROPS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))
seeds = st.integers(0, 2 ** 32 - 1)


def evaluate(text):
    """Python's value of a nested sum, after checking it holds only digits, + and brackets."""
    assert set(text) <= set("0123456789+()")
    return eval(text)


def depth_of(text):
    d = [text[: t + 1].count("(") - text[: t + 1].count(")") for t in range(len(text))]
    return max(d)


def pairs_of(text):
    return {(int(c), text[: t + 1].count("(") - text[: t + 1].count(")"))
            for t, c in enumerate(text) if c.isdigit()}


def check_sides(split, examples):
    train, test = [e.text for e in split.train], [e.text for e in split.test]
    assert len(set(train)) == len(train) and len(set(test)) == len(test)   # each text once
    assert not set(train) & set(test)
    assert set(train) | set(test) == {e.text for e in examples}            # nothing lost
    assert split.train and split.test and isinstance(split.holds_out, str)


def sums(seed, n=60):
    return tasks.nested_sums(n, seed, max_depth=4, max_operands=3, p_nest=0.2)


@PROPS
@given(seeds, st.integers(1, 40))
def test_length_split_tests_only_the_longer_texts(seed, L):
    examples = tasks.brackets(60, seed, "dyck2", (2, 30)) + tasks.counting(20, seed)
    try:
        split = splits.length_split(examples, L)
    except ValueError as e:                         # one side empty: check that it is
        assert all(len(x.text) <= L for x in examples) or all(len(x.text) > L for x in examples)
        assert "empty" in str(e)
        return
    assert all(len(e.text) <= L for e in split.train)
    assert all(len(e.text) > L for e in split.test)
    check_sides(split, examples)


@PROPS
@given(seeds, st.integers(1, 3))
def test_depth_split_tests_only_the_deeper_sums(seed, D):
    examples = sums(seed)
    try:
        split = splits.depth_split(examples, D)
    except ValueError:
        assert all(depth_of(x.text) <= D for x in examples) or all(
            depth_of(x.text) > D for x in examples)
        return
    assert all(depth_of(e.text) <= D for e in split.train)
    assert all(depth_of(e.text) > D for e in split.test)
    check_sides(split, examples)


@PROPS
@given(seeds, st.data())
def test_composition_split_holds_out_pairs_and_train_sees_their_parts(seed, data):
    examples = sums(seed)
    present = sorted(set().union(*(pairs_of(e.text) for e in examples)))
    held = set(data.draw(st.lists(st.sampled_from(present), min_size=1, max_size=4)))
    would_train = [e for e in examples if not pairs_of(e.text) & held]
    seen_digits = {d for e in would_train for d, _ in pairs_of(e.text)}
    seen_depths = {k for e in would_train for _, k in pairs_of(e.text)}
    complete = all(d in seen_digits and k in seen_depths for d, k in held)
    try:
        split = splits.composition_split(examples, held)
    except ValueError as e:
        assert not would_train or len(would_train) == len(examples) or not complete, str(e)
        return
    assert complete and would_train
    assert all(not pairs_of(e.text) & held for e in split.train)
    assert all(pairs_of(e.text) & held for e in split.test)
    check_sides(split, examples)


@PROPS
@given(seeds, st.data())
def test_value_split_holds_out_values(seed, data):
    examples = sums(seed)
    values = sorted({evaluate(e.text) for e in examples})
    held = set(data.draw(st.lists(st.sampled_from(values), min_size=1, max_size=5)))
    split = splits.value_split(examples, held, key="value")
    assert all(evaluate(e.text) not in held for e in split.train)
    assert all(evaluate(e.text) in held for e in split.test)
    check_sides(split, examples)
    by_class = splits.value_split(examples, {3, 7})
    assert all(evaluate(e.text) % 10 in (3, 7) for e in by_class.test)
    assert all(evaluate(e.text) % 10 not in (3, 7) for e in by_class.train)


def hand(text, depth, pairs, value=None):
    facts = {"depth": depth, "digit_depths": pairs}
    if value is not None:
        facts["value"] = value
    return tasks.Example(text, 0, {}, facts)


def test_known_answers_on_hand_made_examples():
    a = hand("(1+2)", 1, [[1, 1], [2, 1]], 3)
    b = hand("(1+(2+3))", 2, [[1, 1], [2, 2], [3, 2]], 6)
    c = hand("((1+2)+3)", 2, [[1, 2], [2, 2], [3, 1]], 6)
    d = hand("(3+1)", 1, [[1, 1], [3, 1]], 4)
    examples = [a, b, c, d, a]                      # a twice: kept once
    s = splits.length_split(examples, 5)
    assert [e.text for e in s.train] == ["(1+2)", "(3+1)"] and s.test == [b, c]
    s = splits.depth_split(examples, 1)
    assert s.train == [a, d] and s.test == [b, c]
    s = splits.composition_split(examples, {(3, 2)})
    assert s.train == [a, c, d] and s.test == [b]   # 3 seen at depth 1, depth 2 with 1 and 2
    s = splits.composition_split(examples, {(1, 1)})
    assert s.train == [c] and s.test == [a, b, d]   # c still has a 1 (at depth 2) and depth 1
    s = splits.value_split(examples, {6}, key="value")
    assert s.train == [a, d] and s.test == [b, c]
    with pytest.raises(ValueError, match="empty"):
        splits.value_split(examples, {99}, key="value")
    with pytest.raises(ValueError, match="max_train_length"):
        splits.length_split(examples, 100)


def test_composition_split_refuses_a_part_train_never_sees():
    a = hand("(1+2)", 1, [[1, 1], [2, 1]])
    b = hand("(1+(2+3))", 2, [[1, 1], [2, 2], [3, 2]])
    c = hand("(4+5)", 1, [[4, 1], [5, 1]])
    # hold out (3, 2): the only 3 goes, so digit 3 is unseen in train
    with pytest.raises(ValueError, match=r"\(0, 3\)"):
        splits.composition_split([a, b, c], {(3, 2)})
    # hold out (2, 2): digit 2 stays (in a), depth 2 goes with b: unseen too
    with pytest.raises(ValueError, match=r"\(1, 2\)"):
        splits.composition_split([a, b, c], {(2, 2)})


def test_splits_read_facts_other_families_record():
    cues = tasks.cue_delay(40, 0, (1, 9))
    s = splits.value_split(cues, {1})
    assert all(e.target == 1 for e in s.test) and all(e.target == 0 for e in s.train)
    with pytest.raises(ValueError, match="depth"):
        splits.depth_split(cues, 3)                 # cue_delay records no depth
    s = splits.depth_split(tasks.brackets(40, 0, "dyck1", (2, 12), 1.0), 2)
    assert all(e.facts["depth"] <= 2 for e in s.train)
