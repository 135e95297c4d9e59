"""gleam.tasks: each family's rule checked by an independent computation on its own output.

Nested sums against Python's own evaluation of the text; brackets against a rewriting checker
(erase "()" and "[]" until nothing changes) instead of a stack; counting against regular
expressions and a brute-force enumeration of the language's words; cue-delay against a scan
of the text. Then determinism, the Example record's checks and the encoding into SeqData,
which a Trainer step trains on.
"""
import itertools
import json
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gleam import tasks
from gleam.tasks import dyck as tasks_brackets
from gleam.tasks import anbn as tasks_counting
from gleam.tasks import sums as tasks_nested_sums
from gleam.optim import Adam
from gleam.seqmodel import SeqModel, SeqModelConfig, Trainer

PROPS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))
seeds = st.integers(0, 2 ** 32 - 1)


def prefix_depths(text):
    # an independent count: '(' minus ')' read so far
    return [text[: t + 1].count("(") - text[: t + 1].count(")") for t in range(len(text))]


def check_lengths(e):
    assert all(len(v) == len(e.text) for v in e.labels.values())
    json.dumps(e.facts)


# ------------------------------------------------------------------ nested sums
def innermost_sum(text, t):
    """The completed operands of the bracket open after text[t], evaluated by Python."""
    prefix, depth, start = text[: t + 1], 0, -1
    for i in range(len(prefix) - 1, -1, -1):        # back to the unmatched '('
        depth += {")": 1, "(": -1}.get(prefix[i], 0)
        if depth < 0:
            start = i
            break
    body = prefix[start + 1:].rstrip("+")
    return eval(body) if body else 0                # text checked by the caller


@PROPS
@given(seeds, st.integers(1, 4), st.integers(2, 4), st.floats(0, 1), st.data())
def test_nested_sums_agree_with_pythons_evaluation(seed, max_depth, max_operands, p, data):
    lo = data.draw(st.integers(1, max_depth))
    for e in tasks.nested_sums(6, seed, max_depth, max_operands, p, min_depth=lo):
        assert set(e.text) <= set("0123456789+()")
        value = eval(e.text)                        # characters checked above
        assert value == e.facts["value"] == sum(int(c) for c in e.text if c.isdigit())
        assert e.target == value % 10
        depths = prefix_depths(e.text)
        assert list(e.labels["depth"]) == depths
        assert max(depths) == e.facts["depth"] and lo <= e.facts["depth"] <= max_depth
        assert list(e.labels["scope"]) == [d if c == "+" else -1 for c, d in zip(e.text, depths)]
        assert list(e.labels["running"]) == [
            sum(int(c) for c in e.text[: t + 1] if c.isdigit()) % 10 for t in range(len(e.text))]
        assert list(e.labels["partial"]) == [innermost_sum(e.text, t) % 10
                                             for t in range(len(e.text))]
        pairs = {(int(c), d) for c, d in zip(e.text, depths) if c.isdigit()}
        assert {tuple(x) for x in e.facts["digit_depths"]} == pairs
        assert e.facts["n_operands"] == sum(c.isdigit() for c in e.text)
        assert e.facts["length"] == len(e.text)
        check_lengths(e)


def operand_patterns(text):
    """(depth, operands) of each bracket: its '+' at its own level, plus one."""
    out = set()
    for i, c in enumerate(text):
        if c == "(":
            level, plus, j = 0, 0, i
            while True:
                level += {"(": 1, ")": -1}.get(text[j], 0)
                plus += text[j] == "+" and level == 1
                if level == 0:
                    break
                j += 1
            out.add((text[: i + 1].count("(") - text[: i + 1].count(")"), plus + 1))
    return out


def test_nested_sums_operand_patterns_by_matching_brackets():
    for e in tasks.nested_sums(40, 3, max_depth=3, max_operands=4, p_nest=0.5):
        assert {tuple(x) for x in e.facts["operand_patterns"]} == operand_patterns(e.text)
        assert all(2 <= k <= 4 for _, k in operand_patterns(e.text))


def test_nested_sums_refuse_grammars_whose_longest_text_is_too_long():
    # m = 2: L = 5, 13, 29, ..., 2^(D+2) − 3; D = 10 gives 4093 <= 4096, D = 11 gives 8189
    assert tasks_nested_sums.longest_sum(10, 2) == 2 ** 12 - 3
    tasks.nested_sums(1, 0, max_depth=10, max_operands=2)
    with pytest.raises(ValueError, match="max_depth"):
        tasks.nested_sums(1, 0, max_depth=11, max_operands=2)
    assert tasks_nested_sums.longest_sum(2, 3) == 2 + 3 * 7 + 2


# ------------------------------------------------------------------ brackets
def reduce_brackets(text):
    """Erase adjacent matched pairs until none is left: a second algorithm, no stack."""
    while True:
        shorter = text.replace("()", "").replace("[]", "")
        if shorter == text:
            return text
        text = shorter


@PROPS
@given(seeds, st.sampled_from(tasks_brackets.KINDS), st.integers(1, 10),
       st.integers(0, 8), st.floats(0, 1))
def test_brackets_agree_with_a_rewriting_checker(seed, kind, half, extra, p):
    lo, hi = max(2, 2 * half - seed % 2), 2 * half + extra
    for e in tasks.brackets(6, seed, kind, (lo, hi), p):
        assert set(e.text) <= set("()" if kind == "dyck1" else "()[]")
        assert len(e.text) % 2 == 0 and lo <= len(e.text) <= hi
        wellformed = reduce_brackets(e.text) == ""
        assert e.target == int(wellformed) and e.facts["wellformed"] == wellformed
        for t in range(len(e.text)):
            rest = reduce_brackets(e.text[: t + 1])
            broken = any(c in ")]" for c in rest)
            assert e.labels["depth"][t] == (-1 if broken else len(rest))
            top = -1 if broken else (0 if not rest else "([".index(rest[-1]) + 1)
            assert e.labels["top"][t] == top
        assert e.facts["depth"] == max([0] + [d for d in e.labels["depth"]])
        assert (e.facts["corrupted_at"] is None) == wellformed
        check_lengths(e)


@pytest.mark.parametrize("kind", ["dyck1", "dyck2"])
def test_brackets_all_or_none_wellformed_at_the_ends_and_the_depth_cap_holds(kind):
    good = tasks.brackets(50, 1, kind, (2, 20), p_wellformed=1.0, max_depth=2)
    assert all(reduce_brackets(e.text) == "" for e in good)
    assert max(e.facts["depth"] for e in good) == 2
    bad = tasks.brackets(50, 1, kind, (2, 20), p_wellformed=0.0)
    assert all(reduce_brackets(e.text) != "" for e in bad)


# ------------------------------------------------------------------ counting
def accepted(text, kind):
    if kind == "anbn":
        m = re.fullmatch(r"(a+)(b+)", text)
        return bool(m) and len(m.group(1)) == len(m.group(2))
    runs = [(c, len(list(g))) for c, g in itertools.groupby(text)]
    return [c for c, _ in runs] == ["a", "b", "c"] and len({k for _, k in runs}) == 1


def brute_next(prefix, kind):
    """The characters that continue `prefix` in some word with n <= len(prefix) + 1."""
    words = ["".join(c * n for c in ("ab" if kind == "anbn" else "abc"))
             for n in range(1, len(prefix) + 2)]
    out = {w[len(prefix)] for w in words if w.startswith(prefix) and len(w) > len(prefix)}
    return out | ({"."} if prefix in words else set())


@PROPS
@given(seeds, st.sampled_from(["anbn", "anbncn"]), st.integers(1, 6), st.integers(0, 5),
       st.floats(0, 1))
def test_counting_acceptance_against_a_regex_and_the_words(seed, kind, lo, extra, p):
    for e in tasks.counting(8, seed, kind, "accept", (lo, lo + extra), p):
        assert e.target == int(accepted(e.text, kind)) == int(e.facts["accepted"])
        if e.facts["negative"] == "count":         # the blocks in order, one a letter off
            groups = [(c, len(list(g))) for c, g in itertools.groupby(e.text)]
            assert "".join(c for c, _ in groups) == kind[0::2]
            assert sum(abs(k - e.facts["n"]) for _, k in groups) == 1
        if e.facts["negative"] == "order":         # letters balanced, order wrong
            assert len({e.text.count(c) for c in set(e.text)}) == 1
        if e.facts["negative"] == "shift":         # the length of a word, one letter moved across a boundary
            k = e.facts["n"]
            assert len(e.text) == len(kind[0::2]) * k and not e.target
            counts = [e.text.count(c) for c in kind[0::2]]
            assert sorted(abs(c - k) for c in counts)[-2:] == [1, 1] and sum(counts) == len(e.text)
            assert e.text == "".join(sorted(e.text))   # the blocks stay in order
        for t in range(len(e.text)):
            valid = brute_next(e.text[: t + 1], kind)
            assert e.labels["next_valid"][t] == sum(1 << "abc.".index(c) for c in valid)
            assert e.labels["deterministic"][t] == int(len(valid) == 1)
            seen = e.text[: t + 1]
            assert e.labels["a_minus_b"][t] == seen.count("a") - seen.count("b")
            if kind == "anbncn":
                assert e.labels["b_minus_c"][t] == seen.count("b") - seen.count("c")
        check_lengths(e)


@PROPS
@given(seeds, st.sampled_from(["anbn", "anbncn"]), st.integers(1, 8))
def test_counting_next_character_targets(seed, kind, hi):
    for e in tasks.counting(8, seed, kind, "predict", (1, hi)):
        assert accepted(e.text, kind)
        assert e.target == e.text[1:] + "."
        for t, c in enumerate(e.target):
            assert c in brute_next(e.text[: t + 1], kind)   # the next char is always valid
        assert all(e.target[t] != "." or t == len(e.text) - 1 for t in range(len(e.text)))
    assert tasks_counting.next_valid("", kind) == 1


# ------------------------------------------------------------------ cue delay
@PROPS
@given(seeds, st.integers(1, 12), st.integers(0, 6), st.floats(0, 1), st.floats(0, 1),
       st.sampled_from(["cd", "cdefg", "xyz0"]))
def test_cue_delay_answers_from_the_last_cue_or_the_window(seed, lo, extra, p_sup, p_cue, alph):
    for e in tasks.cue_delay(8, seed, (lo, lo + extra), alph, p_sup, p_cue):
        assert e.text[0] in "ab" and e.text[-1] in "?!"
        body = e.text[1:-1]
        assert lo <= sum(c in alph for c in body) == e.facts["delay"] <= lo + extra
        last_cue = max(e.text.rfind("a"), e.text.rfind("b"))
        if e.text[-1] == "?":
            assert e.target == "ab".index(e.text[last_cue])
        else:                                       # the window: the character before '!'
            assert e.target == int(e.text[-2] in alph[: len(alph) // 2])
        cues = [t for t, c in enumerate(e.text) if c in "ab"]
        assert e.facts["superseded_at"] == (cues[1] if len(cues) == 2 else None)
        assert len(cues) <= 2 and len({e.text[t] for t in cues}) == len(cues)
        for t in range(len(e.text)):
            last = max(e.text.rfind("a", 0, t + 1), e.text.rfind("b", 0, t + 1))
            assert e.labels["cue_in_force"][t] == "ab".index(e.text[last])
            assert e.labels["steps_since_cue"][t] == t - last
        check_lengths(e)


def test_cue_delay_probabilities_at_the_ends_and_a_shared_stream():
    plain = tasks.cue_delay(30, 5, (2, 9), p_supersede=0.0, p_needs_cue=1.0)
    moved = tasks.cue_delay(30, 5, (2, 9), p_supersede=1.0, p_needs_cue=0.0)
    for a, b in zip(plain, moved):
        assert a.text[-1] == "?" and b.text[-1] == "!"
        assert a.facts["superseded_at"] is None
        s = b.facts["superseded_at"]
        # same seed: the same cue and distractors, and the other cue inserted at step s
        assert b.text[:s] + b.text[s + 1:-1] == a.text[:-1]
        assert b.text[s] == "ab"[1 - "ab".index(a.text[0])]
        assert b.target == int(b.text[-2] in "cd")


def test_cue_delay_features_are_the_scaled_one_hot():
    for e in tasks.cue_delay(10, 2, 5, "cdef", 0.5, 0.5, amplitude=0.25):
        order = "ab" + "cdef" + "?!"
        assert e.features.shape == (len(e.text), 8)
        for t, c in enumerate(e.text):
            expected = np.zeros(8)
            expected[order.index(c)] = 0.25 if c in "cdef" else 1.0
            assert np.array_equal(e.features[t], expected)
    assert tasks.cue_delay(1, 2)[0].features is None


def test_cue_delay_features_of_a_text_of_ones_own_are_an_examples_own():
    """gleam.tasks.delayed_cue.features gives a text the features its example carries (the model
    inspector encodes a typed text with it), and refuses a character outside the channels."""
    from gleam.tasks.delayed_cue import features
    for e in tasks.cue_delay(12, 3, (2, 6), "wxyz", 0.5, 0.5, amplitude=3.0):
        assert np.array_equal(features(e.text, "wxyz", 3.0), e.features)
    assert np.array_equal(features("a?"), [[1.0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 1.0, 0]])
    with pytest.raises(ValueError, match="'z', outside the channels 'abcdef\\?!'"):
        features("acz?")
    with pytest.raises(ValueError, match="amplitude"):
        features("a?", amplitude=0)


# ------------------------------------------------------------------ determinism
CALLS = {"cue_delay": {"p_supersede": 0.3, "amplitude": 0.5}, "nested_sums": {},
         "brackets": {"kind": "dyck2"}, "counting": {"kind": "anbncn"}}


@pytest.mark.parametrize("family", sorted(tasks.FAMILIES))
def test_same_seed_same_examples_other_seed_other_examples(family):
    f, kw = tasks.FAMILIES[family], CALLS[family]
    a, b, c = f(20, 7, **kw), f(20, 7, **kw), f(20, 8, **kw)
    assert a == b
    assert all((x.features is None and y.features is None) or np.array_equal(x.features, y.features)
               for x, y in zip(a, b))
    assert [x.text for x in a] != [x.text for x in c]
    g = f(20, np.random.default_rng(7), **kw)       # a Generator seeds the same way
    assert g == a


# ------------------------------------------------------------------ the Example record
def test_example_refuses_what_does_not_fit_its_text():
    ok = tasks.Example("ab", 1, {"x": (0, 1)}, {"n": 2})
    assert ok.features is None
    for bad in [dict(text=""), dict(labels={"x": (0,)}), dict(labels={"x": (0, True)}),
                dict(target="a"), dict(target=True), dict(target=float("nan")),
                dict(facts={"f": {1, 2}}), dict(facts={"f": float("inf")}),
                dict(features=np.zeros((3, 2)))]:
        kw = dict(text="ab", target=1, labels={"x": (0, 1)}, facts={"n": 2}) | bad
        with pytest.raises(ValueError):
            tasks.Example(**kw)
    e = tasks.Example("ab", 0, {}, {}, features=np.ones((2, 3)))
    with pytest.raises(ValueError):
        e.features[0, 0] = 2.0                      # read-only


# ------------------------------------------------------------------ encoding
@pytest.mark.parametrize("family", sorted(tasks.FAMILIES))
def test_encode_round_trips_and_has_the_shapes_of_its_examples(family):
    examples = tasks.FAMILIES[family](12, 3, **CALLS[family])
    vocab = tasks.vocabulary(examples)
    assert vocab == "".join(sorted(set("".join(e.text for e in examples))))
    data = tasks.encode(examples, vocab)
    T = max(len(e.text) for e in examples)
    assert data.X.shape == (T, 12) and data.targets.shape == (12,)
    for b, e in enumerate(examples):
        L = int(data.mask[:, b].sum())
        assert L == len(e.text) and not data.mask[L:, b].any()
        assert tasks.decode(data.X[:L, b], vocab) == e.text
        assert data.targets[b] == e.target
    name = sorted(examples[0].labels)[0]
    per = tasks.encode(examples, vocab, target=name, per_char=True)
    assert per.targets.shape == (T, 12) and per.per_step
    for b, e in enumerate(examples):
        assert list(per.targets[: len(e.text), b]) == list(e.labels[name])
    last = tasks.encode(examples, vocab, target=name)
    assert list(last.targets) == [e.labels[name][-1] for e in examples]


def test_encode_next_characters_skip_loss_on_and_features():
    examples = tasks.counting(10, 0, "anbn", "predict", (1, 5))
    vocab = tasks.vocabulary(examples)
    assert vocab == ".ab"
    data = tasks.encode(examples, vocab, per_char=True, loss_on="deterministic")
    for b, e in enumerate(examples):
        L = len(e.text)
        assert tasks.decode(data.targets[:L, b], vocab) == e.target
        assert list(data.target_mask[:L, b]) == [bool(x) for x in e.labels["deterministic"]]
        assert not data.target_mask[L:, b].any()
    sums = tasks.nested_sums(10, 0)
    skip = tasks.encode(sums, target="scope", per_char=True, skip=-1)
    plus = tasks.vocabulary(sums).index("+")
    assert np.array_equal(skip.target_mask, skip.mask & (skip.X == plus))
    value = tasks.encode(sums, target="value")
    assert value.targets.dtype == np.float64
    assert all(set(e.text) <= set("0123456789+()") for e in sums)
    assert list(value.targets) == [eval(e.text) for e in sums]
    cues = tasks.cue_delay(6, 0, 4, amplitude=0.5)
    feats = tasks.encode(cues, features=True)
    assert feats.X.shape == (max(len(e.text) for e in cues), 6, 8)
    with pytest.raises(ValueError, match="per_char"):
        tasks.encode(examples, vocab)               # a next-character target is per step
    with pytest.raises(ValueError, match="vocab"):
        tasks.encode(examples, "ab", per_char=True)  # '.' is missing


def test_a_trainer_steps_on_encoded_tasks():
    sums = tasks.nested_sums(16, 1, max_depth=2)
    vocab = tasks.vocabulary(sums)
    setups = [(tasks.encode(sums, vocab), "classify", 10, False),
              (tasks.encode(sums, vocab, target="value"), "regress", 1, False),
              (tasks.encode(sums, vocab, target="scope", per_char=True, skip=-1),
               "classify", 3, True)]
    for data, head, n_out, m2m in setups:
        model = SeqModel(SeqModelConfig("gru_textbook", d=len(vocab), n=8, n_out=n_out,
                                        head=head, many_to_many=m2m))
        before = {k: v.copy() for k, v in model.params.items()}
        stats = Trainer(model, Adam(0.01), clip=5.0, batch_size=8).step(data)
        assert np.isfinite(stats.loss) and not stats.diverged
        assert any(not np.array_equal(before[k], model.params[k]) for k in before)
    cues = tasks.cue_delay(16, 0, 3, amplitude=0.5)
    model = SeqModel(SeqModelConfig("lstm", d=8, n=4, n_out=2))
    stats = Trainer(model, Adam(0.01)).step(tasks.encode(cues, features=True))
    assert np.isfinite(stats.loss) and not stats.diverged
