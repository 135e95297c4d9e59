"""Cue, delay, query: hold one of two cues across distractors, or answer from the last step.

The rule, per example (all draws from np.random.default_rng(seed), in this order):
    c ~ U{0, 1}                    the cue, written at step 0 as CUES[c] ('a' = 0, 'b' = 1)
    D ~ U{lo, ..., hi}             the delay: D distractors follow (`delay` = D or (lo, hi))
    x_1 … x_D ~ U(distractors)     i.i.d. from the distractor alphabet
    u ~ U[0, 1), s ~ U{1, ..., D}  if u < p_supersede, the *other* cue CUES[1 − c] is inserted
                                   before x_s (at step s): it supersedes the first; D distractors
                                   remain and x_D still stands just before the query
    v ~ U[0, 1)                    the query: '?' if v < p_needs_cue, else '!'
so text = CUES[c] x_1 … x_D '?' (length D + 2), or with the superseding cue, length D + 3.
Every example draws all of these whatever the probabilities, so two calls with one seed and
different p_supersede or p_needs_cue share their cues, delays and distractors.

Target (a class):
    '?'  needs the cue: the cue in force at the query (the superseding cue if there is one);
    '!'  needs no memory: 1 if x_D (the character just before the query) lies in the first
         half of the distractor alphabet, distractors[:len(distractors) // 2], else 0.
Labels per character (after reading it): "cue_in_force" (the class of the last cue read; the
cue is at step 0, so always defined) and "steps_since_cue" (t minus the step of that cue).
Facts: length, delay, needs_cue, superseded_at (s, or None), cue (the first cue's class),
final_cue (the cue in force at the query), query, last_distractor.

Features (only if `amplitude` is given): text has no amplitude, so each example also carries
(T, d) floats: a one-hot of its character over channels CUES + distractors + QUERIES
(d = len(distractors) + 4), the hot entry `amplitude` on a distractor's channel and 1 on a cue
or a query. Encode with gleam.tasks.encode(..., features=True).
"""
import numpy as np

from gleam import checks
from gleam.tasks.base import MAX_LENGTH, Example, example_count, int_range, unit_probability

__all__ = ["CUES", "QUERIES", "cue_delay", "channels", "features"]

CUES = "ab"
QUERIES = "?!"
MAX_ALPHABET = 64


def _distractors(value):
    ok = (isinstance(value, str) and 2 <= len(value) <= MAX_ALPHABET
          and len(set(value)) == len(value) and not set(value) & set(CUES + QUERIES))
    if not ok:
        raise ValueError(f"distractors must be a str of 2 to {MAX_ALPHABET} distinct characters "
                         f"other than {CUES + QUERIES!r}, got {value!r:.80}")
    return value


def channels(distractors="cdef"):
    """The features' channel order: CUES + distractors + QUERIES."""
    return CUES + _distractors(distractors) + QUERIES


def cue_delay(n, seed, delay=(4, 16), distractors="cdef", p_supersede=0.0, p_needs_cue=0.5,
              amplitude=None):
    """n examples of the cue-delay-query task (the rule: this module's docstring)."""
    lo, hi = int_range("delay", delay, 1, MAX_LENGTH - 3)
    distractors = _distractors(distractors)
    p_sup = unit_probability("p_supersede", p_supersede)
    p_cue = unit_probability("p_needs_cue", p_needs_cue)
    amp = checks.number("amplitude", amplitude, minimum=0, strict_min=True, none_ok=True)
    n = example_count(n, hi + 3)
    if amp is not None:
        checks.entries("n", n, (n, hi + 3, len(distractors) + 4))
    rng = np.random.default_rng(checks.seed("seed", seed))
    first_half = set(distractors[: len(distractors) // 2])
    return [_example(rng, lo, hi, distractors, first_half, p_sup, p_cue, amp) for _ in range(n)]


def _example(rng, lo, hi, distractors, first_half, p_sup, p_cue, amp):
    c = int(rng.integers(2))
    D = int(rng.integers(lo, hi + 1))
    xs = [distractors[i] for i in rng.integers(len(distractors), size=D)]
    u, s, v = float(rng.random()), int(rng.integers(1, D + 1)), float(rng.random())
    superseded = u < p_sup
    needs_cue = v < p_cue
    body = xs[: s - 1] + [CUES[1 - c]] + xs[s - 1:] if superseded else xs
    query = QUERIES[0] if needs_cue else QUERIES[1]
    text = CUES[c] + "".join(body) + query
    final = 1 - c if superseded else c
    target = final if needs_cue else int(xs[-1] in first_half)
    in_force, since, last = [], [], 0
    for t, ch in enumerate(text):
        if ch in CUES:
            last = t
        in_force.append(CUES.index(text[last]))
        since.append(t - last)
    facts = {"length": len(text), "delay": D, "needs_cue": needs_cue,
             "superseded_at": s if superseded else None, "cue": c, "final_cue": final,
             "query": query, "last_distractor": xs[-1]}
    labels = {"cue_in_force": tuple(in_force), "steps_since_cue": tuple(since)}
    return Example(text, target, labels, facts, None if amp is None else _features(
        text, distractors, amp))


def features(text, distractors="cdef", amplitude=1.0):
    """The (T, d) features of any text over channels(distractors) (this module's docstring): what
    an example of cue_delay(..., distractors=distractors, amplitude=amplitude) carries, for a text
    of one's own. ValueError for a text that is empty, longer than MAX_LENGTH or has a character
    outside the channels, or an amplitude that is not a number > 0."""
    order = channels(distractors)
    amp = checks.number("amplitude", amplitude, minimum=0, strict_min=True)
    if not isinstance(text, str) or not 1 <= len(text) <= MAX_LENGTH:
        raise ValueError(f"text must be a str of 1 to {MAX_LENGTH} characters, got {text!r:.60}")
    unknown = sorted(set(text) - set(order))
    if unknown:
        raise ValueError(f"text has {', '.join(map(repr, unknown))}, outside the channels {order!r}")
    return _features(text, distractors, amp)


def _features(text, distractors, amp):
    order = CUES + distractors + QUERIES
    F = np.zeros((len(text), len(order)))     # (T, d)
    for t, ch in enumerate(text):
        F[t, order.index(ch)] = amp if ch in distractors else 1.0
    return F
