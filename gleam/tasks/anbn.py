"""Counting languages aⁿbⁿ and aⁿbⁿcⁿ (n >= 1): accept or reject, or predict the next character.

The rule, per example (draws from np.random.default_rng(seed) in the order written, in both
modes): k ~ U{lo, ..., hi} (`block` = k or (lo, hi)); u ~ U[0, 1); m ~ U{0, 1, 2}; j ~ U{0, ..., B−1};
s ~ U{0, 1}; q ~ U{0, ..., B−2}, where B = 2 blocks (aⁿbⁿ) or 3 (aⁿbⁿcⁿ).
mode "accept": the word a^k b^k (c^k) if u < p_positive (target 1), else a near miss (target 0):
    m = 0, "count": block j gets k + 1 letters if s = 1 or k = 1, else k − 1 (aⁿbⁿ⁺¹, aⁿ⁻¹bⁿ, ...);
    m = 1, "order": the two letters either side of block boundary q swap places
           (aaabbb -> aababb): the letter counts stay equal, the order is wrong;
    m = 2, "shift": one letter moves across block boundary q: block q gets k + 1 letters and
           block q + 1 gets k − 1 if s = 1, or the other way round if s = 0 (aaaabb, aabbbb): the
           length stays B·k and the blocks stay in order, so only counting tells it from a word
           (for k = 1 a block empties: aa, bb, ... — still a near miss, caught without counting).
A "count" near miss changes the length by one, so its length is not a multiple of B: a reader
that checks the pattern a⁺b⁺(c⁺) and the length mod B rejects every "count" and "order" near
miss without counting; the "shift" near misses are the ones that need a counter.
mode "predict": the word a^k b^k (c^k) always; target = text[1:] + "." (the next character at
    each step, "." the terminator after the last letter): aaabbb -> "aabbb.".
While a's are read the next character is a or b: ambiguous, and the target string holds the one
the word has. So every example also carries, per character (after reading it):
    "next_valid"     a bitmask over NEXT = "abc." (a = 1, b = 2, c = 4, . = 8) of the characters
                     that can follow this prefix in some word of the language (any n >= 1;
                     "." if the prefix is a word); 0 once the prefix is in no word;
    "deterministic"  1 if exactly one character can follow, else 0 (where a next-character
                     prediction can be scored: gleam.tasks.encode(..., loss_on="deterministic"));
    "a_minus_b"      letters a read minus letters b read; for aⁿbⁿcⁿ also "b_minus_c".
Facts: n (k), kind, mode, accepted, negative (None, "count", "order" or "shift"), counts (letters of
each kind in the text, a then b (then c)), length.
"""
import numpy as np

from gleam import checks
from gleam.tasks.base import MAX_LENGTH, Example, example_count, int_range, unit_probability

__all__ = ["KINDS", "MODES", "NEXT", "counting", "next_valid"]

KINDS = ("anbn", "anbncn")
MODES = ("accept", "predict")
NEXT = "abc."


def counting(n, seed, kind="anbn", mode="accept", block=(1, 8), p_positive=0.5):
    """n examples of aⁿbⁿ or aⁿbⁿcⁿ (the rule: this module's docstring)."""
    checks.one_of("kind", kind, KINDS)
    checks.one_of("mode", mode, MODES)
    B = len(kind) // 2
    lo, hi = int_range("block", block, 1, MAX_LENGTH // B - 1)
    p = unit_probability("p_positive", p_positive)
    n = example_count(n, B * hi + 1)
    rng = np.random.default_rng(checks.seed("seed", seed))
    letters = kind[0::2]                                   # "ab" or "abc"
    out = []
    for _ in range(n):
        k, u = int(rng.integers(lo, hi + 1)), float(rng.random())
        m, j, s, q = (int(rng.integers(3)), int(rng.integers(B)), int(rng.integers(2)),
                      int(rng.integers(B - 1)))
        counts, negative = [k] * B, None
        if mode == "accept" and u >= p:
            negative = ("count", "order", "shift")[m]
            if negative == "count":
                counts[j] += 1 if (s == 1 or k == 1) else -1
            elif negative == "shift":
                more, less = (q, q + 1) if s == 1 else (q + 1, q)
                counts[more] += 1
                counts[less] -= 1
        chars = [x for x, c in zip(letters, counts) for _ in range(c)]
        if negative == "order":
            a = (q + 1) * k
            chars[a - 1], chars[a] = chars[a], chars[a - 1]
        text = "".join(chars)
        out.append(_example(text, kind, mode, k, negative))
    return out


def next_valid(prefix, kind):
    """The bitmask over NEXT of the characters that can follow `prefix` in a word of `kind`."""
    checks.one_of("kind", kind, KINDS)
    if not isinstance(prefix, str) or len(prefix) > MAX_LENGTH:
        raise ValueError(f"prefix must be a str of at most {MAX_LENGTH} characters, "
                         f"got {prefix!r:.80}")
    return _masks(prefix, kind)[-1] if prefix else 1


def _masks(text, kind):
    """next_valid after each character, reading a^i b^j c^l as long as the shape holds."""
    i = j = l = 0
    ok, out = True, []
    three = kind == "anbncn"
    for ch in text:
        if ch == "a":
            ok = ok and j == 0 and l == 0
            i += 1
        elif ch == "b":
            ok = ok and l == 0
            j += 1
        elif ch == "c" and three:
            ok = ok and j == i
            l += 1
        else:
            ok = False
        ok = ok and j <= i and l <= i
        out.append(_mask(i, j, l, three) if ok else 0)
    return out


def _mask(i, j, l, three):
    a, b, c, end = 1, 2, 4, 8
    if j == 0:
        return a | b                                    # i >= 1 here
    if l == 0 and j < i:
        return b
    if not three:
        return end                                      # j == i
    if l == 0:
        return c                                        # j == i
    return c if l < i else end


def _example(text, kind, mode, k, negative):
    masks = _masks(text, kind)
    accepted = bool(masks[-1] & 8) if masks else False
    labels = {"next_valid": tuple(masks),
              "deterministic": tuple(int(x in (1, 2, 4, 8)) for x in masks)}
    na = nb = nc = 0
    a_b, b_c = [], []
    for ch in text:
        na, nb, nc = na + (ch == "a"), nb + (ch == "b"), nc + (ch == "c")
        a_b.append(na - nb)
        b_c.append(nb - nc)
    labels["a_minus_b"] = tuple(a_b)
    counts = [na, nb]
    if kind == "anbncn":
        labels["b_minus_c"] = tuple(b_c)
        counts.append(nc)
    target = text[1:] + "." if mode == "predict" else int(accepted)
    facts = {"n": k, "kind": kind, "mode": mode, "accepted": accepted, "negative": negative,
             "counts": counts, "length": len(text)}
    return Example(text, target, labels, facts)
