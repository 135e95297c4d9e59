"""Nested sums: bracketed additions of digits such as "(3+(4+5))", and their value.

Grammar, per example (draws from np.random.default_rng(seed) in the order written):
    D ~ U{min_depth, ..., max_depth}     the example's nesting depth (its deepest bracket)
    bracket(d) = "(" operand_0 "+" … "+" operand_{k−1} ")", a bracket at depth d (the
                 outermost is depth 1), k ~ U{2, ..., max_operands}; a bracket on the spine (the
                 outermost, and operand j of a spine bracket) also draws j ~ U{0, ..., k − 1}
                 if d < D (off the spine, or at d = D, there is no j);
    operand_i, for i = 0 … k − 1 in order:
               = bracket(d + 1), on the spine, if i = j;
               = bracket(d + 1), off the spine, if d < D and u_i < p_nest (u_i ~ U[0, 1));
               = a digit ~ U{0, ..., 9} otherwise.
The text is bracket(1); its deepest bracket is at depth D exactly. Sizes: the longest text the
options allow (every bracket of max_operands operands, every operand nested down to
max_depth) must fit MAX_LENGTH characters.

Target: value mod 10 (a class); facts["value"] is the integer itself (regression: encode with
target="value"). + is associative, so the value is the sum of the digits: the brackets change
the structure a network may use, not the answer.
Labels per character, from a stack machine that holds one sum per open bracket (and one for the
whole text, at depth 0), updated by the character and then read:
    "depth"    open brackets after reading the character ('(' counts itself, ')' does not);
    "partial"  the innermost open bracket's sum of its operands read so far, mod 10 (0 right
               after '('; after a ')', the enclosing bracket's sum with the closed value added;
               after the last ')', the whole value mod 10);
    "running"  the sum of every digit read so far, mod 10 (the associative shortcut);
    "scope"    on a '+', the depth of the bracket it belongs to; -1 on every other character.
Facts: length, depth (D), value, n_operands (digits), n_brackets, digits (sorted distinct),
digit_depths (sorted distinct [digit, depth of its bracket] pairs) and operand_patterns (sorted
distinct [depth, k] pairs: a bracket at that depth with k operands), for composition splits.
"""
import numpy as np

from gleam import checks
from gleam.tasks.base import MAX_LENGTH, Example, example_count, unit_probability

__all__ = ["nested_sums", "longest_sum"]


def longest_sum(max_depth, max_operands):
    """The longest text the grammar can write: L_D = 2m + 1, L_d = 2 + m L_{d+1} + (m − 1),
    returned as L_1 (m = max_operands, D = max_depth), or MAX_LENGTH + 1 once it exceeds it."""
    D = checks.integer("max_depth", max_depth, minimum=1, maximum=MAX_LENGTH)
    m = checks.integer("max_operands", max_operands, minimum=2, maximum=MAX_LENGTH)
    L = 2 * m + 1
    for _ in range(D - 1):
        L = 2 + m * L + (m - 1)
        if L > MAX_LENGTH:
            break
    return min(L, MAX_LENGTH + 1)


def nested_sums(n, seed, max_depth=3, max_operands=3, p_nest=0.3, min_depth=1):
    """n nested-sum examples (the grammar and labels: this module's docstring)."""
    longest = longest_sum(max_depth, max_operands)
    if longest > MAX_LENGTH:
        raise ValueError(f"max_depth = {max_depth} with max_operands = {max_operands} allows "
                         f"texts longer than {MAX_LENGTH} characters")
    lo = checks.integer("min_depth", min_depth, minimum=1, maximum=max_depth)
    p = unit_probability("p_nest", p_nest)
    n = example_count(n, longest)
    rng = np.random.default_rng(checks.seed("seed", seed))
    out = []
    for _ in range(n):
        D = int(rng.integers(lo, max_depth + 1))
        text = _bracket(rng, 1, D, max_operands, p, spine=True)
        out.append(_example(text, D))
    return out


def _bracket(rng, d, D, m, p, spine):
    k = int(rng.integers(2, m + 1))
    j = int(rng.integers(k)) if spine and d < D else -1
    parts = []
    for i in range(k):
        if i == j:
            parts.append(_bracket(rng, d + 1, D, m, p, spine=True))
        elif d < D and rng.random() < p:
            parts.append(_bracket(rng, d + 1, D, m, p, spine=False))
        else:
            parts.append(str(int(rng.integers(10))))
    return "(" + "+".join(parts) + ")"


def _example(text, D):
    sums, running = [0], 0        # sums[i]: the open bracket at depth i (0: the whole text)
    counts = []                   # operands read so far in each open bracket (depth 1, 2, ...)
    depth, partial, run, scope = [], [], [], []
    digit_depths, patterns = set(), set()
    for ch in text:
        if ch == "(":
            sums.append(0)
            counts.append(0)
        elif ch == ")":
            v = sums.pop()
            patterns.add((len(sums), counts.pop() + 1))     # k = (operators seen) + 1
            sums[-1] += v
        elif ch == "+":
            counts[-1] += 1
        else:
            sums[-1] += int(ch)
            running += int(ch)
            digit_depths.add((int(ch), len(sums) - 1))
        depth.append(len(sums) - 1)
        partial.append(sums[-1] % 10)
        run.append(running % 10)
        scope.append(len(sums) - 1 if ch == "+" else -1)
    value = sums[0]
    facts = {"length": len(text), "depth": D, "value": value,
             "n_operands": sum(ch.isdigit() for ch in text), "n_brackets": text.count("("),
             "digits": sorted({d for d, _ in digit_depths}),
             "digit_depths": [list(x) for x in sorted(digit_depths)],
             "operand_patterns": [list(x) for x in sorted(patterns)]}
    labels = {"depth": tuple(depth), "partial": tuple(partial), "running": tuple(run),
              "scope": tuple(scope)}
    return Example(text, value % 10, labels, facts)
