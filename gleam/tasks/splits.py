"""Train/test splits that hold out one property: longer, deeper, unseen combinations, values.

Each split takes a list of gleam.tasks.Example and a threshold and puts an example in test if
it has the held-out property, else in train:
    length_split       test: len(text) > max_train_length
    depth_split        test: facts["depth"] > max_train_depth
    composition_split  test: facts[key] (a list of combinations, e.g. nested sums'
                       [digit, depth] pairs) holds a combination in `held_out`
    value_split        test: the value (the target, or facts[key]) is in held_out_values
Every text appears once in a split: of examples with the same text only the first is kept
(the rules make text decide target, labels and facts, so no text could fall on both sides).
A split whose train or test set would be empty is refused (it would hold nothing out, or leave
nothing to learn from). composition_split also refuses a hold-out that leaves a component
unseen: every part of a held-out combination (its value at each position, e.g. digit 3 and
depth 2 of [3, 2]) must occur in some train combination at that position, or the test
would probe an unseen part rather than a new composition of seen parts.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.tasks.encoding import check_examples

__all__ = ["Split", "length_split", "depth_split", "composition_split", "value_split"]

MAX_HELD_OUT = 10_000


@dataclass(frozen=True)
class Split:
    name: str        # "length", "depth", "composition" or "value"
    holds_out: str   # a sentence: what the test set holds out
    train: list      # Examples without the held-out property
    test: list       # Examples with it, only


def _unique(examples):
    seen, out = set(), []
    for e in check_examples(examples):
        if e.text not in seen:
            seen.add(e.text)
            out.append(e)
    return out


def _split(name, holds_out, examples, is_test, threshold_name, threshold):
    train, test = [], []
    for e in _unique(examples):
        (test if is_test(e) else train).append(e)
    if not train or not test:
        side = "train" if not train else "test"
        raise ValueError(f"{threshold_name} = {threshold!r:.80} leaves the {side} set empty "
                         f"({len(train)} train, {len(test)} test examples)")
    return Split(name, holds_out, train, test)


def _number(v):
    return (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
            and math.isfinite(v))


def _fact(e, key):
    if key not in e.facts:
        raise ValueError(f"examples must record facts[{key!r}]; one has only "
                         f"{sorted(e.facts)}")
    return e.facts[key]


def length_split(examples, max_train_length):
    """Train: texts of at most max_train_length characters; test: the longer ones."""
    L = checks.integer("max_train_length", max_train_length, minimum=1)
    return _split("length", f"texts longer than {L} characters", examples,
                  lambda e: len(e.text) > L, "max_train_length", L)


def depth_split(examples, max_train_depth):
    """Train: facts["depth"] <= max_train_depth; test: deeper."""
    D = checks.integer("max_train_depth", max_train_depth, minimum=0)
    examples = check_examples(examples)
    for e in examples:
        checks.integer("facts['depth'] of examples", _fact(e, "depth"))
    return _split("depth", f"nesting deeper than {D}", examples,
                  lambda e: e.facts["depth"] > D, "max_train_depth", D)


def _combos(e, key, width):
    value = _fact(e, key)
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(c, (list, tuple)) and len(c) == width
        and all(isinstance(x, (int, float, str, type(None))) for x in c) for c in value)
    if not ok:
        raise ValueError(f"facts[{key!r}] of examples must be a list of combinations of "
                         f"{width} parts, like held_out's, got {value!r:.80}")
    return {tuple(c) for c in value}


def composition_split(examples, held_out, key="digit_depths"):
    """Train: no combination of facts[key] in held_out; test: at least one (held_out: a
    non-empty collection of equal-length tuples, e.g. {(3, 2), (7, 1)} of [digit, depth])."""
    if not isinstance(key, str):
        raise ValueError(f"key must be the name of a fact, got {key!r:.80}")
    try:
        held = None if isinstance(held_out, (str, bytes)) else {tuple(c) for c in held_out}
    except TypeError:                       # not iterable, or unhashable parts
        held = None
    widths = {len(c) for c in held} if held else set()
    if not held or len(held) > MAX_HELD_OUT or len(widths) != 1 or 0 in widths:
        raise ValueError(f"held_out must be a non-empty collection of at most {MAX_HELD_OUT:,} "
                         f"combinations of equal length >= 1, got {held_out!r:.80}")
    width = widths.pop()
    examples = check_examples(examples)
    combos = {id(e): _combos(e, key, width) for e in examples}
    split = _split("composition", f"examples whose {key} hold any of {sorted(held, key=repr)}",
                   examples, lambda e: bool(combos[id(e)] & held), "held_out", held_out)
    seen = [set() for _ in range(width)]
    for e in split.train:
        for c in combos[id(e)]:
            for i, part in enumerate(c):
                seen[i].add(part)
    unseen = sorted({(i, c[i]) for c in held for i in range(width) if c[i] not in seen[i]},
                    key=repr)
    if unseen:
        raise ValueError(f"held_out leaves parts unseen in train (position, part): {unseen}: "
                         "the test would probe those parts, not their composition")
    return split


def value_split(examples, held_out_values, key="target"):
    """Train: the value is not in held_out_values; test: it is. The value is the Example's
    target (key="target") or facts[key] (e.g. "value", nested sums' integer)."""
    if not isinstance(key, str):
        raise ValueError(f"key must be 'target' or the name of a fact, got {key!r:.80}")
    try:
        values = None if isinstance(held_out_values, (str, bytes)) else set(held_out_values)
    except TypeError:
        values = None
    if not values or len(values) > MAX_HELD_OUT or not all(_number(v) for v in values):
        raise ValueError(f"held_out_values must be a non-empty collection of at most "
                         f"{MAX_HELD_OUT:,} numbers, got {held_out_values!r:.80}")
    examples = check_examples(examples)

    def value(e):
        v = e.target if key == "target" else _fact(e, key)
        if not _number(v):
            raise ValueError(f"the {key} of examples must be a number, got {v!r:.80}")
        return v
    for e in examples:
        value(e)
    return _split("value", f"examples whose {key} is one of {sorted(values)}", examples,
                  lambda e: value(e) in values, "held_out_values", held_out_values)
