"""The current-window baseline: what the cue–delay task gives away to a model with no memory.

A linear classifier (gleam.instruments.probes.fit_probe: multinomial logistic regression with l2) reads
the window of the query and the k characters before it. An example's row is k + 1 one-hot
vectors over vocab side by side, slot j (j = 0 … k) the character j steps before the query
(slot 0 the query itself; all zeros where the text is shorter: no character). It is fitted to
the train examples' targets and scored on the test examples, separately on '?' queries (they
need the cue in force) and on '!' queries (they need x_D, one step before the query: inside
every window with k >= 1, and a linear function of its one-hot).

The cue stands D + 1 steps before the query, so a window with k <= D never sees it: on '?'
queries of delay D >= k with no superseding cue the baseline answers without the cue, at
chance (exactly ½ on a mirror-balanced set, whose twins share their windows). A superseding
cue, or a delay shorter than k, can fall inside the window: that is the shortcut to rule out.
"""
import numpy as np

from gleam import checks
from gleam.instruments.probes import fit_probe
from gleam.tasks import check_examples
from gleam.tasks.delayed_cue import QUERIES

__all__ = ["window_baseline", "MAX_WINDOW", "MAX_ROW_ENTRIES"]

MAX_WINDOW = 64
MAX_ROW_ENTRIES = 2 ** 20    # rows × row width per set, so the fit stays quick


def _queries(name, examples):
    examples = check_examples(examples, name)
    for i, e in enumerate(examples):
        if e.text[-1] not in QUERIES or e.target not in (0, 1) or isinstance(e.target, float):
            raise ValueError(f"{name}[{i}] must be a cue_delay example (a text ending in a "
                             f"query {QUERIES!r}, a class 0 or 1), got {e!r:.80}")
    return examples


def _rows(name, examples, index, k):
    V = len(index)
    checks.entries(name, f"{len(examples)} examples", (len(examples), (k + 1) * V),
                   limit=MAX_ROW_ENTRIES)
    X = np.zeros((len(examples), k + 1, V))                     # (N, k + 1, V)
    for b, e in enumerate(examples):
        for j, ch in enumerate(reversed(e.text[-(k + 1):])):  # j steps before the query
            if ch not in index:
                raise ValueError(f"vocab lacks the character {ch!r} of {name}[{b}].text")
            X[b, j, index[ch]] = 1.0
    return X.reshape(len(examples), -1)


def window_baseline(train_examples, test_examples, vocab, k, l2=1e-3, steps=1000):
    """Fit the window probe on train, score it on test -> {"k", "accuracy_needs_cue",
    "accuracy_no_memory" (None where the test set has no such query), "count_needs_cue",
    "count_no_memory", "accuracy_train"}. l2, steps: gleam.instruments.probes.fit_probe's."""
    train = _queries("train_examples", train_examples)
    test = _queries("test_examples", test_examples)
    if not (isinstance(vocab, str) and 1 <= len(vocab) <= 256 and len(set(vocab)) == len(vocab)):
        raise ValueError(f"vocab must be a str of 1 to 256 distinct characters, got {vocab!r:.80}")
    k = checks.integer("k", k, minimum=1, maximum=MAX_WINDOW)
    l2 = checks.number("l2", l2, minimum=0, maximum=1e6, strict_min=True)
    steps = checks.integer("steps", steps, minimum=1, maximum=10 ** 5)
    checks.entries("k", k, ((k + 1) * len(vocab) + 1,) * 2, limit=MAX_ROW_ENTRIES)
    index = {ch: i for i, ch in enumerate(vocab)}
    X_train, X_test = _rows("train_examples", train, index, k), _rows("test_examples", test,
                                                                         index, k)
    y_train = np.array([e.target for e in train])
    y_test = np.array([e.target for e in test])
    try:
        probe = fit_probe(X_train, y_train, "classify", l2=l2, steps=steps)
    except ValueError as e:                     # what fit_probe calls X and y
        raise ValueError(f"train_examples: {e}") from None
    right = probe.predict(X_test) == y_test
    query = np.array([e.text[-1] for e in test])
    out = {"k": k}
    for key, q in (("needs_cue", QUERIES[0]), ("no_memory", QUERIES[1])):
        where = query == q
        out[f"accuracy_{key}"] = float(np.mean(right[where])) if where.any() else None
        out[f"count_{key}"] = int(where.sum())
    out["accuracy_train"] = float(np.mean(probe.predict(X_train) == y_train))
    return out
