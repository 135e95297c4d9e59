"""Bracket languages: Dyck-1 "()" and Dyck-2 "()[]", well-formed or one character wrong.

The rule, per example (draws from np.random.default_rng(seed) in the order written):
    L = 2 K,  K ~ U{⌈lo/2⌉, ..., ⌊hi/2⌋}        an even length in `length` = (lo, hi)
    a random walk writes a well-formed string: at each step t, with h brackets open and
      r = L − t steps left, it closes if h = r or h = max_depth, opens if h = 0, and otherwise
      opens if u_t < 1/2 (u_t ~ U[0, 1), drawn at every step). An opening bracket's type
      (Dyck-2) is b_t ~ U{0, 1} ('(' or '['), drawn at every step; a closing one matches the
      innermost open bracket. (Every well-formed string can come out; not uniformly.)
    w ~ U[0, 1), i ~ U{0, ..., L − 1}, c ~ U{0, 1, 2}: if w >= p_wellformed, character i is
      replaced: Dyck-1 flips it ('(' <-> ')'); Dyck-2 puts the c-th of the other three
      characters of "()[]" in its place, in that order. One substitution always breaks the
      string: an open <-> close swap unbalances the count, a type change mismatches the pair.
Target: 1 if the text is well-formed, else 0.
Labels per character (after reading it), from the stack of open brackets:
    "depth"  the stack height; -1 from the first underflow (a close with nothing open) or
             mismatch (a close of the other type) on: the stack is broken and stays so;
    "top"    0 if nothing is open, 1 if '(' is innermost, 2 if '[' is; -1 once broken.
Facts: length, depth (the largest stack height reached), wellformed, kind, corrupted_at (i, or
None), broken_at (the first step with depth -1, or None).
"""
import numpy as np

from gleam import checks
from gleam.tasks.base import MAX_LENGTH, Example, example_count, int_range, unit_probability

__all__ = ["KINDS", "brackets"]

KINDS = ("dyck1", "dyck2")
OPEN, CLOSE = "([", ")]"


def brackets(n, seed, kind="dyck1", length=(2, 16), p_wellformed=0.5, max_depth=None):
    """n bracket strings of `kind` (the rule: this module's docstring)."""
    checks.one_of("kind", kind, KINDS)
    lo, hi = int_range("length", length, 2, MAX_LENGTH)
    if (lo + 1) // 2 > hi // 2:
        raise ValueError(f"length must allow an even length, got {length!r}")
    p = unit_probability("p_wellformed", p_wellformed)
    cap = checks.integer("max_depth", max_depth, minimum=1, none_ok=True)
    n = example_count(n, hi)
    rng = np.random.default_rng(checks.seed("seed", seed))
    out = []
    for _ in range(n):
        L = 2 * int(rng.integers((lo + 1) // 2, hi // 2 + 1))
        chars = _walk(rng, L, kind, cap)
        w, i, c = float(rng.random()), int(rng.integers(L)), int(rng.integers(3))
        corrupted = w >= p
        if corrupted:
            if kind == "dyck1":
                chars[i] = "(" if chars[i] == ")" else ")"
            else:
                chars[i] = [x for x in "()[]" if x != chars[i]][c]
        out.append(_example("".join(chars), kind, i if corrupted else None))
    return out


def _walk(rng, L, kind, cap):
    chars, stack = [], []
    for t in range(L):
        u, b = float(rng.random()), int(rng.integers(2))
        h, r = len(stack), L - t
        close = h > 0 and (h == r or h == cap or u >= 0.5)
        if close:
            chars.append(CLOSE[stack.pop()])
        else:
            k = b if kind == "dyck2" else 0
            stack.append(k)
            chars.append(OPEN[k])
    return chars


def _example(text, kind, corrupted_at):
    stack, broken_at = [], None
    depth, top = [], []
    for t, ch in enumerate(text):
        if broken_at is None:
            if ch in OPEN:
                stack.append(OPEN.index(ch))
            elif stack and stack[-1] == CLOSE.index(ch):
                stack.pop()
            else:
                broken_at = t
        broken = broken_at is not None
        depth.append(-1 if broken else len(stack))
        top.append(-1 if broken else (stack[-1] + 1 if stack else 0))
    wellformed = broken_at is None and not stack
    facts = {"length": len(text), "depth": max(0, max(depth)), "wellformed": wellformed,
             "kind": kind, "corrupted_at": corrupted_at, "broken_at": broken_at}
    return Example(text, int(wellformed), {"depth": tuple(depth), "top": tuple(top)}, facts)
