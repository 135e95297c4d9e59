"""Finite automata that pass for counters on aⁿbⁿ(cⁿ), and a test set that fails them.

A text of the right shape a⁺b⁺(c⁺) (B = 2 or 3 blocks) has block counts #a, #b (, #c); an
automaton here reads the shape and keeps a finite residue of those counts:
    mod_counter(m, kind)   accepts iff the shape holds and #a − #b ≡ 0 (mod m) (for aⁿbⁿcⁿ also
                           #b − #c ≡ 0): m states per difference, no counter
    length_parity(kind)    accepts iff the shape holds and B divides the length (for aⁿbⁿ it is
                           mod_counter(2): #a + #b and #a − #b have one parity)
    exact_counter(kind)    accepts iff the text is aᵏbᵏ(cᵏ) for some k >= 1: the language itself
                           (not finite-state: the reference every set scores 1.0)
    shortcuts(kind)        {"mod2", "mod3", "mod4", "parity"}: the automata the lab reports
    accuracy(automaton, examples)   the fraction of examples whose target (1: accept, 0: reject)
                           the automaton gives
Which sets reject which automaton. gleam.tasks.counting's own near misses of block k change a
difference by at most 2: "count" (one block ±1) changes #a − #b or #b − #c by 1, "shift" (a letter
moved across a boundary) by 2 (and the other difference of aⁿbⁿcⁿ by 1), "order" breaks the shape.
So mod_counter(m) answers every one of aⁿbⁿ's sets right for any m >= 3 (mod3, mod4), and every
one of aⁿbⁿcⁿ's for any m >= 2; length_parity accepts the "shift" near misses of k >= 2 (about a sixth of
a set) and nothing else wrongly. A set on which those automata score 1.0 cannot tell them from a
counter.
hard_counting(n, seed, kind, block) draws a set that can: block k, per example (draws from
np.random.default_rng(seed) in the order written):
    u ~ U[0, 1): the word aᵏbᵏ(cᵏ) if u < p_positive (target 1), else a text of the right shape
    whose counts are not all equal (target 0, facts["negative"] "near" or "far"): t ~ U{0, 1};
    t = 0, "near": d ~ U{1, …, NEAR_D}; s, e ~ U{0, 1}; p ~ U{0, …, B−1}; q ~ U{0, …, B−2};
          two ~ U{0, 1}. aⁿbⁿ: #a − #b = ±d (+ if s = 1) with #a + #b = 2k for even d, 2k ± 1
          (+ if e = 1) for odd d. aⁿbⁿcⁿ: one block (p) off by ±d (+ if s = 1) if two = 0, else
          block p gets k + d and block q (q-th of the others) k − d, the length kept.
    t = 1, "far": p ~ U{0, …, B−1}; then x, y ~ U{1, …, 2k}, drawn again (both) until
          |x − y| >= max(1, ⌊k/2⌋): grid points away from the diagonal. aⁿbⁿ: #a = x, #b = y;
          aⁿbⁿcⁿ: block p gets x letters, the other two y each.
    A count below 1 lifts every count by the same amount (the differences kept), so small k
    have near texts too. Every negative has a difference that is not 0, so the word is the set's
    only positive.
mod_counter(m) accepts a negative iff m divides every difference: a "near" one iff m | d,
1/m of them for m = 2, 3, 4 (NEAR_D = 12 = lcm(2, 3, 4)); a "far" one iff m | x − y, about 1/m of
them too. So mod_counter(m) scores about 1 − 1/(2m) on a hard set (0.875 for m = 4) for k beyond
a few (a far text's |x − y| is below 2k, so at small k mod_counter(m) accepts fewer of them: at
k = 1, where they are ab² and a²b (or a²bc, …), none for m > 1).
length_parity accepts aⁿbⁿ's negatives of even length (half the near ones and about half the far
ones), and aⁿbⁿcⁿ's with 3 | length: the near ones with 3 | d or two blocks moved, and the far
ones with 3 | x − y. A near text is at most NEAR_D letters longer than the word, or at most
B·(NEAR_D + 1) letters long where its counts were lifted; a far text has blocks of up to 2k
letters: hard_longest(kind, k) bounds every text's length.
"""
import re

import numpy as np

from gleam import checks
from gleam.tasks import Example, check_examples
from gleam.tasks.anbn import KINDS
from gleam.tasks.base import MAX_LENGTH, example_count, unit_probability

__all__ = ["NEAR_D", "MAX_MODULUS", "mod_counter", "length_parity", "exact_counter", "shortcuts", "accuracy",
           "hard_counting", "hard_longest"]

NEAR_D = 12                 # a near negative's differences are d in 1 … NEAR_D
MAX_MODULUS = 10 ** 6
_SHAPES = {"anbn": re.compile("(a+)(b+)"), "anbncn": re.compile("(a+)(b+)(c+)")}


def _blocks(text, kind):
    """The block counts (#a, #b(, #c)) of a text of kind's shape, else None."""
    match = _SHAPES[kind].fullmatch(text) if isinstance(text, str) else None
    return None if match is None else [len(g) for g in match.groups()]


def mod_counter(m, kind="anbn"):
    """The automaton (text -> bool) that accepts iff `text` has kind's shape a⁺b⁺(c⁺) and every
    difference of neighbouring block counts is ≡ 0 (mod m); m in 1 … MAX_MODULUS."""
    m = checks.integer("m", m, minimum=1, maximum=MAX_MODULUS)
    kind = checks.one_of("kind", kind, KINDS)

    def accepts(text):
        counts = _blocks(text, kind)
        return counts is not None and all((x - y) % m == 0 for x, y in zip(counts, counts[1:]))
    accepts.__name__ = f"mod{m}"
    return accepts


def length_parity(kind="anbn"):
    """The automaton (text -> bool) that accepts iff `text` has kind's shape and the number of
    blocks (2 or 3) divides its length."""
    kind = checks.one_of("kind", kind, KINDS)

    def accepts(text):
        counts = _blocks(text, kind)
        return counts is not None and sum(counts) % len(counts) == 0
    accepts.__name__ = "parity"
    return accepts


def exact_counter(kind="anbn"):
    """The reference (text -> bool): accepts iff `text` is aᵏbᵏ(cᵏ) for some k >= 1."""
    kind = checks.one_of("kind", kind, KINDS)

    def accepts(text):
        counts = _blocks(text, kind)
        return counts is not None and len(set(counts)) == 1
    accepts.__name__ = "exact"
    return accepts


def shortcuts(kind="anbn"):
    """{"mod2", "mod3", "mod4", "parity"} -> the automata the counting lab scores (module docstring)."""
    return {**{f"mod{m}": mod_counter(m, kind) for m in (2, 3, 4)}, "parity": length_parity(kind)}


def accuracy(automaton, examples):
    """The fraction of `examples` (gleam.tasks Examples with target 0 or 1) on which
    bool(automaton(text)) is target == 1."""
    if not callable(automaton):
        raise ValueError(f"automaton must be a function of a text, got {automaton!r:.80}")
    examples = check_examples(examples)
    if any(isinstance(e.target, str) or e.target not in (0, 1) for e in examples):
        raise ValueError("examples must be accept/reject examples: every target 0 or 1")
    return float(np.mean([bool(automaton(e.text)) == (e.target == 1) for e in examples]))


def hard_longest(kind, block):
    """The longest text hard_counting(..., kind, block) can make."""
    B = len(checks.one_of("kind", kind, KINDS)) // 2
    k = checks.integer("block", block, minimum=1, maximum=MAX_LENGTH)
    return B * max(2 * k, k + NEAR_D, NEAR_D + 2)


def hard_counting(n, seed, kind="anbn", block=8, p_positive=0.5):
    """n examples of the hard set of block k = `block` (the rule: module docstring); facts: n (k),
    kind, negative (None, "near" or "far"), counts, length."""
    kind = checks.one_of("kind", kind, KINDS)
    B, letters = len(kind) // 2, kind[0::2]
    k = checks.integer("block", block, minimum=1, maximum=MAX_LENGTH // (2 * B))
    p = unit_probability("p_positive", p_positive)
    n = example_count(n, hard_longest(kind, k))
    rng = np.random.default_rng(checks.seed("seed", seed))
    out = []
    for _ in range(n):
        counts, negative = [k] * B, None
        if float(rng.random()) >= p:
            negative = ("near", "far")[int(rng.integers(2))]
            counts = _near(rng, k, B) if negative == "near" else _far(rng, k, B)
            low = min(counts)
            counts = [x + max(0, 1 - low) for x in counts]
        out.append(_example("".join(ch * c for ch, c in zip(letters, counts)), kind, k, negative, counts))
    return out


def _near(rng, k, B):
    d, s, e = int(rng.integers(1, NEAR_D + 1)), int(rng.integers(2)), int(rng.integers(2))
    p, q, two = int(rng.integers(B)), int(rng.integers(B - 1)), int(rng.integers(2))
    sign = 1 if s else -1
    if B == 2:
        # #a − #b = sign·d, #a + #b = 2k (+ ±1 when d is odd)
        total = 2 * k + (d % 2) * (1 if e else -1)
        return [(total + sign * d) // 2, (total - sign * d) // 2]
    counts = [k] * B
    if not two:
        counts[p] += sign * d
    else:
        counts[p] += d
        counts[[i for i in range(B) if i != p][q]] -= d
    return counts


def _far(rng, k, B):
    p = int(rng.integers(B))
    while True:
        x, y = int(rng.integers(1, 2 * k + 1)), int(rng.integers(1, 2 * k + 1))
        if abs(x - y) >= max(1, k // 2):
            return [x, y] if B == 2 else [x if i == p else y for i in range(B)]


def _example(text, kind, k, negative, counts):
    a_b, b_c, na, nb, nc = [], [], 0, 0, 0
    for ch in text:
        na, nb, nc = na + (ch == "a"), nb + (ch == "b"), nc + (ch == "c")
        a_b.append(na - nb)
        b_c.append(nb - nc)
    labels = {"a_minus_b": tuple(a_b), **({"b_minus_c": tuple(b_c)} if kind == "anbncn" else {})}
    facts = {"n": k, "kind": kind, "negative": negative, "counts": list(counts), "length": len(text)}
    return Example(text, int(negative is None), labels, facts)
