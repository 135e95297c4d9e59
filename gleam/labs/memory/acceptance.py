"""The memory lab's acceptance test: a trained cue–delay classifier as a temporal contract.

Every metric takes a many-to-one classify SeqModel and how it reads the task: `vocab` (the
characters in token-id order) for a model of token ids, or `amplitude` (the distractors'
feature amplitude, gleam.tasks.cue_delay) for a model of features, whose vocab is not read
(both inputs are d wide, so the caller says which). It draws its own probe sets from the
task's rules and reads the model's answers (the argmax class). A probe
set is n mirror pairs of gleam.tasks.cue_delay examples at one delay D (gleam.labs.memory.probe_sets:
the two sequences of a pair differ only in the cue), so it holds 2n sequences, balanced:
a model that answers without the cue scores exactly ½ on '?' queries. Accuracy = the fraction
of a set's sequences answered with their target. Lists of delays, counts and gaps are taken
sorted, each value once.

retention_curve(delays): per delay Δ, acc(Δ) on '?' queries with no superseding cue and
    R(Δ) = max(0, (acc(Δ) − ½) / ½)            the retained fraction above chance;
  horizons (`horizons`, over the tested Δ in increasing order, N = 2n):
    p50   the largest Δ up to which R stays >= 0.5 (R >= 0.5 at it and every smaller Δ tested)
    p95   likewise for 0.95
    max   the largest Δ with R(Δ) > z / √N, i.e. acc above ½ by more than z binomial standard
          errors √(¼ / N) of a chance answerer (z = 3 by default)
  each None where never reached (p50, p95: already below at the smallest Δ).
interference(counts, amplitudes): acc on '?' for every distractor count (the delay) and
  every amplitude of the distractors' features (a token model has only amplitudes=(None,)).
revision_latency(gaps): sets of delay D (default max(gaps)) in which the other cue is
  inserted with g distractors between it and the query (1 <= g <= D): per gap, the accuracy on
  the NEW cue (its '?' target) and the fraction answering the first cue; latency = the
  smallest gap tested with accuracy >= threshold (0.9), None if none. A perfect revising latch
  has latency 1 (one distractor after the new cue is the least the task allows); a model that
  never revises answers the first cue (accuracy 0 on the new one) and has latency None.
read_selectivity(delay): two sets that share cues and distractors (cue_delay with one seed),
  one with '?' queries and one with '!': the accuracy on each, the cue dependence of each
  = the fraction of pairs whose two answers differ (only the cue differs within a pair: a
  selective reader scores 1 on '?' and 0 on '!'), and the query dependence = the fraction of
  sequences whose answer changes when only the query is exchanged.
state_swap(delay): on a '?' set, the whole states of each pair exchanged
  (gleam.instruments.interventions.swap_states) after step D, the last distractor, just before the query:
    swapped    the fraction of pairs whose answers differed and were exchanged by the swap
    unchanged  the fraction of pairs whose two answers stayed as they were
  and the accuracy before and after. A model that stores the cue in its state: swapped = 1;
  one that ignores the cue: unchanged = 1, swapped = 0.
cue_erasure(delay): the accuracy on a '?' set with the cue's input zeroed
  (gleam.instruments.interventions.zero_input at step 0) and intact; drop = intact − erased, changed = the
  fraction of answers the erasure changed. The erased twins of a pair are one sequence, so the
  erased accuracy is exactly ½ for every model: the drop is what the cue was worth.
window_baseline (gleam.labs.memory.window): the current-window shortcut, a linear probe.
acceptance_report: all of the above in one JSON-able dict (plain floats, ints, None, lists).

Input policy as everywhere in gleam (gleam.checks): a ValueError naming the argument. Pure
NumPy; deterministic given an integer seed; at most MAX_PAIRS pairs per set and MAX_STEPS
sequence-steps per call (gleam.labs.memory.probe_sets).
"""
import math

import numpy as np

from gleam import checks
from gleam.labs.memory.probe_sets import (MAX_DELAY, check_budget, check_inputs, check_model,
                                     check_pairs, check_seed, check_sizes, pair_fraction,
                                     mirror_pairs, run_pairs, supersede_all)
from gleam.labs.memory.window import MAX_WINDOW, window_baseline
from gleam.tasks.delayed_cue import channels

__all__ = ["horizons", "retention_curve", "interference", "revision_latency",
           "read_selectivity", "state_swap", "cue_erasure", "window_baseline",
           "acceptance_report", "MAX_AMPLITUDES"]

MAX_AMPLITUDES = 64


def _accuracy(pred, target):
    return float(np.mean(pred == target))


def _increasing(delays):
    if isinstance(delays, np.ndarray) and delays.ndim == 1:
        delays = delays.tolist()
    if not isinstance(delays, (list, tuple, range)) or len(delays) == 0:
        raise ValueError(f"delays must be a non-empty list of increasing integers >= 1, "
                         f"got {delays!r:.80}")
    checks.entries("delays", len(delays), (len(delays),), limit=MAX_DELAY)
    ds = [checks.integer("delays", d, minimum=1) for d in delays]
    if any(b <= a for a, b in zip(ds, ds[1:])):
        raise ValueError(f"delays must be increasing, got {delays!r:.80}")
    return ds


def horizons(delays, retention, count, z=3.0):
    """{"p50", "p95", "max", "margin"} of R (retention, one per delay) over increasing delays
    (the rule: this module's docstring); margin = z / √count, count = sequences per delay."""
    ds = _increasing(delays)
    R = checks.array("retention", retention, ndim=1)
    if R.shape != (len(ds),) or np.any((R < 0) | (R > 1)):
        raise ValueError(f"retention must hold {len(ds)} values in [0, 1] (one per delay), "
                         f"got {retention!r:.80}")
    count = checks.integer("count", count, minimum=1)
    z = checks.number("z", z, minimum=0)
    margin = z / math.sqrt(count)
    out = {"margin": margin}
    for key, level in (("p50", 0.5), ("p95", 0.95)):
        reached = None
        for d, r in zip(ds, R):
            if r < level:
                break
            reached = d
        out[key] = reached
    above = [d for d, r in zip(ds, R) if r > margin]
    out["max"] = above[-1] if above else None
    return out


def retention_curve(model, vocab, delays, n=200, seed=0, distractors="cdef", amplitude=None,
                    z=3.0):
    """Per delay: accuracy and R on '?' sets, and the horizons -> dict (module docstring)."""
    model = check_model(model)
    vocab, distractors, amplitude = check_inputs(model, vocab, distractors, amplitude)
    delays, n, seed = check_sizes("delays", delays), check_pairs(n), check_seed(seed)
    z = checks.number("z", z, minimum=0)
    check_budget("delays", delays, n, [d + 2 for d in delays])
    acc = [_accuracy(*run_pairs(model, mirror_pairs(n, seed, d, distractors, "?", amplitude), vocab,
                           amplitude)) for d in delays]
    R = [max(0.0, (a - 0.5) / 0.5) for a in acc]
    return {"delays": list(delays), "accuracy": acc, "retention": R,
            **horizons(delays, R, 2 * n, z), "n": 2 * n}


def _amplitudes(values):
    if not isinstance(values, (list, tuple)) or not values or len(values) > MAX_AMPLITUDES:
        raise ValueError(f"amplitudes must be a non-empty list of at most {MAX_AMPLITUDES} "
                         f"numbers > 0, or (None,) for a token model, got {values!r:.80}")
    if any(v is None for v in values):
        if len(values) != 1:
            raise ValueError(f"amplitudes must be (None,) for a token model or numbers > 0 "
                             f"for a feature model, not both, got {values!r:.80}")
        return [None]
    return [checks.number("amplitudes", v, minimum=0, strict_min=True) for v in values]


def interference(model, vocab, counts, amplitudes=(None,), n=200, seed=0, distractors="cdef"):
    """Accuracy on '?' sets per distractor count (rows) and amplitude (columns) -> dict."""
    model = check_model(model)
    amplitudes = _amplitudes(amplitudes)
    for a in amplitudes:
        vocab, distractors, _ = check_inputs(model, vocab, distractors, a, "amplitudes")
    counts, n, seed = check_sizes("counts", counts), check_pairs(n), check_seed(seed)
    check_budget("counts", counts, n, [(c + 2) * len(amplitudes) for c in counts])
    grid = [[_accuracy(*run_pairs(model, mirror_pairs(n, seed, c, distractors, "?", a), vocab, a))
             for a in amplitudes] for c in counts]
    return {"counts": list(counts), "amplitudes": amplitudes, "accuracy": grid, "n": 2 * n}


def revision_latency(model, vocab, gaps, delay=None, n=200, seed=0, distractors="cdef",
                     amplitude=None, threshold=0.9):
    """Per gap: accuracy on the superseding cue and the first-cue fraction; the latency."""
    model = check_model(model)
    vocab, distractors, amplitude = check_inputs(model, vocab, distractors, amplitude)
    gaps, n, seed = check_sizes("gaps", gaps), check_pairs(n), check_seed(seed)
    D = gaps[-1] if delay is None else checks.integer("delay", delay, minimum=1,
                                                      maximum=MAX_DELAY)
    if gaps[-1] > D:
        raise ValueError(f"gaps must be at most delay = {D} (the distractors after the first "
                         f"cue), got {gaps[-1]}")
    threshold = checks.number("threshold", threshold, minimum=0, maximum=1, strict_min=True)
    check_budget("gaps", gaps, n, [D + 3] * len(gaps))
    base = mirror_pairs(n, seed, D, distractors, "?", amplitude)
    acc, first = [], []
    for g in gaps:
        pred, target = run_pairs(model, supersede_all(base, g), vocab, amplitude)
        acc.append(_accuracy(pred, target))
        first.append(_accuracy(pred, 1 - target))
    latency = next((g for g, a in zip(gaps, acc) if a >= threshold), None)
    return {"delay": D, "gaps": list(gaps), "accuracy": acc, "first_cue": first,
            "threshold": threshold, "latency": latency, "n": 2 * n}


def _single(model, vocab, delay, n, seed, distractors, amplitude, sets):
    model = check_model(model)
    vocab, distractors, amplitude = check_inputs(model, vocab, distractors, amplitude)
    delay = checks.integer("delay", delay, minimum=1, maximum=MAX_DELAY)
    n, seed = check_pairs(n), check_seed(seed)
    check_budget("delay", delay, n, [sets * (delay + 2)])
    return model, vocab, delay, n, seed, distractors, amplitude


def read_selectivity(model, vocab, delay=8, n=200, seed=0, distractors="cdef", amplitude=None):
    """Accuracy and cue dependence on '?' and on '!' sets that share everything else."""
    model, vocab, delay, n, seed, distractors, amplitude = _single(
        model, vocab, delay, n, seed, distractors, amplitude, 2)
    (pq, tq), (pf, tf) = (run_pairs(model, mirror_pairs(n, seed, delay, distractors, q, amplitude), vocab,
                               amplitude) for q in "?!")
    return {"delay": delay, "accuracy_needs_cue": _accuracy(pq, tq),
            "accuracy_no_memory": _accuracy(pf, tf),
            "cue_dependence_needs_cue": float(np.mean(pq[0::2] != pq[1::2])),
            "cue_dependence_no_memory": float(np.mean(pf[0::2] != pf[1::2])),
            "query_dependence": float(np.mean(pq != pf)), "n": 2 * n}


def state_swap(model, vocab, delay=8, n=200, seed=0, distractors="cdef", amplitude=None):
    """Pairs' whole states exchanged after the last distractor: swapped / unchanged fractions."""
    model, vocab, delay, n, seed, distractors, amplitude = _single(
        model, vocab, delay, n, seed, distractors, amplitude, 2)
    probes = mirror_pairs(n, seed, delay, distractors, "?", amplitude)
    before, target = run_pairs(model, probes, vocab, amplitude)
    after, _ = run_pairs(model, probes, vocab, amplitude, swap_at=delay)
    partner = before.reshape(-1, 2)[:, ::-1].reshape(-1)       # b ↔ b ^ 1
    moved = pair_fraction((after == partner) & (before != partner))
    return {"delay": delay, "step": delay, "swapped": moved,
            "unchanged": pair_fraction(after == before), "accuracy": _accuracy(before, target),
            "accuracy_swapped": _accuracy(after, target), "n": 2 * n}


def cue_erasure(model, vocab, delay=8, n=200, seed=0, distractors="cdef", amplitude=None):
    """Accuracy on a '?' set with the cue's input zeroed and intact, the drop, the changes."""
    model, vocab, delay, n, seed, distractors, amplitude = _single(
        model, vocab, delay, n, seed, distractors, amplitude, 2)
    probes = mirror_pairs(n, seed, delay, distractors, "?", amplitude)
    intact, target = run_pairs(model, probes, vocab, amplitude)
    erased, _ = run_pairs(model, probes, vocab, amplitude, erase=True)
    a, e = _accuracy(intact, target), _accuracy(erased, target)
    return {"delay": delay, "accuracy": a, "accuracy_erased": e, "drop": a - e,
            "changed": float(np.mean(intact != erased)), "n": 2 * n}


def acceptance_report(model, vocab, delays=(1, 2, 4, 8, 16, 32), n=200, seed=0,
                      distractors="cdef", amplitude=None, delay=8, gaps=(1, 2, 4, 8),
                      threshold=0.9, z=3.0, amplitudes=None, train_examples=None, window=2):
    """Every metric above in one JSON-able dict. interference runs over `delays` and
    `amplitudes` (default: (amplitude,)); revision over `gaps` at delay max(gaps, delay);
    window_baseline (if train_examples are given) tests on the two read_selectivity sets."""
    model = check_model(model)
    vocab, distractors, amplitude = check_inputs(model, vocab, distractors, amplitude)
    n, seed = check_pairs(n), check_seed(seed)
    delays, gaps = check_sizes("delays", delays), check_sizes("gaps", gaps)
    delay = checks.integer("delay", delay, minimum=1, maximum=MAX_DELAY)
    amplitudes = _amplitudes([amplitude] if amplitudes is None else amplitudes)
    check_budget("amplitudes", amplitudes, n, [(d + 2) * len(amplitudes) for d in delays])
    if train_examples is not None:
        window = checks.integer("window", window, minimum=1, maximum=MAX_WINDOW)
    common = {"n": n, "seed": seed, "distractors": distractors}
    report = {
        "retention": retention_curve(model, vocab, delays, amplitude=amplitude, z=z, **common),
        "interference": interference(model, vocab, delays, amplitudes, **common),
        "revision": revision_latency(model, vocab, gaps, max(gaps[-1], delay),
                                     amplitude=amplitude, threshold=threshold, **common),
    }
    for name, fn in (("read_selectivity", read_selectivity), ("state_swap", state_swap),
                     ("cue_erasure", cue_erasure)):
        report[name] = fn(model, vocab, delay, amplitude=amplitude, **common)
    report["window_baseline"] = None
    if train_examples is not None:
        test = [e for q in "?!" for e in mirror_pairs(n, seed, delay, distractors, q, None)]
        chars = vocab if amplitude is None else channels(distractors)
        report["window_baseline"] = window_baseline(train_examples, test, chars, window)
    report["settings"] = {"delay": delay, "amplitude": amplitude, **common}
    return report
