"""Experiment 2 of the extrapolation lab: does a small recurrent net learn to count?

train_counting(config) trains a many-to-one classify SeqModel (cell: any of CELL_NAMES, width
n) with gleam.seqmodel.Trainer and Adam on gleam.tasks.counting(kind, mode="accept") examples with
block (1, max_train_n): the word aᵏbᵏ (aᵏbᵏcᵏ) with probability ½ (target 1), else one of the
task's near misses of it (a block one letter longer or shorter, or two letters swapped at a
block boundary; target 0). Inputs are token ids over the letters, "ab" or "abc". It reports,
as plain numbers (accuracy: the fraction of a set answered right):
    updates           minibatch updates taken (epochs × ⌈n_train / batch_size⌉ at the end)
    train_accuracy    over the kept updates of the epoch under way, else the last finished
                      one's (weights moving; -1 before any update)
    iid_accuracy      on n_test fresh examples drawn as the training ones (block (1, max_train_n))
    acc_<k>           k = 1 … max_test_n: on n_test fresh examples with block k exactly (words
                      and near misses as the task draws them); k > max_train_n is extrapolation
    largest_n         largest_reached(1 … max_test_n, acc_k, threshold): the largest k with
                      acc_k' >= threshold for every k' <= k; 0 if acc_1 < threshold
    probe_r2_train, probe_r2_beyond, best_unit, best_unit_corr   the counter (counter_probe)
                      in the hidden states of the words aᵏbᵏ(cᵏ): k <= max_train_n ("train
                      range") and max_train_n < k <= max_test_n ("beyond"), every character
The counter. A linear ridge probe (gleam.instruments.probes.fit_probe, kind "regress", l2 = probe_l2)
reads the label "a_minus_b" (letters a read minus letters b read; for aⁿbⁿcⁿ also "b_minus_c",
R² then the mean over the two) from the state after each character. There is one word per k,
so a probe is held out by word: probe_r2_train is the pooled leave-one-word-out R² over the
train range (for each k, a probe fitted on the other words' states predicts word k's;
R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² over all those predictions, per output). probe_r2_beyond is the
R² of the probe fitted on every train-range word, on the beyond words' states (R² can be
below 0: worse than the beyond set's mean). best_unit is the hidden unit with the largest
|Pearson correlation| with a_minus_b over the train-range states (the first on a tie), and
best_unit_corr that |correlation| (unit_correlations: 0 for a constant unit).
The penalty is on the raw states (not standardised): a unit whose variance is far below l2
has its weight shrunk away (the default runs' units vary far more: variances of 0.02 to 0.7).
The threshold (0.95) and probe_l2 (1e-3) are fixed a priori, not tuned on results.
What accuracy can show: the task's "count" and "order" near misses are caught without counting
(a finite automaton that accepts iff the text is a⁺b⁺(c⁺) and B divides its length rejects them
all); its "shift" near misses (one letter moved across a block boundary, the length kept) are
not, for k >= 2 — about a sixth of a set — so an accuracy above that automaton's needs a counter.
The probe is what looks for the counter itself.
CountingRun(config) is the same run taken a few updates at a time (gleam.labs.stepped):
stepped to the end it is train_counting's. Seeding: SeedSequence(seed) spawns the training
examples, the test sets (the iid set and each block k's set its own child, so acc_k does not
depend on max_test_n), the initial weights and the shuffling order; every test set is made in
__init__. The probe's words need no seed: aᵏbᵏ(cᵏ) is one word.

    {"run": "gleam.labs.extrapolation.counting:train_counting",
     "grid": {"kind": ["anbn", "anbncn"], "seed": [0, 1, 2, 3, 4]}}
"""
import math

import numpy as np

from gleam import checks, tasks
from gleam.cells.names import CELL_NAMES
from gleam.instruments.probes import r2_score, fit_probe
from gleam.instruments.states import flatten_states
from gleam.seqmodel import SeqModel
from gleam.labs.stepped import SteppedRun, adam_model
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.base import MAX_CHARS, MAX_EXAMPLES
from gleam.tasks.anbn import KINDS

__all__ = ["train_counting", "CountingRun", "DEFAULTS", "normalized", "largest_reached",
           "unit_correlations", "counter_probe", "counter_metrics", "LETTERS"]

DEFAULTS = {"cell": "gru_torch", "n": 8, "kind": "anbn", "max_train_n": 8, "max_test_n": 24,
            "n_train": 2000, "n_test": 100, "epochs": 10, "batch_size": 32, "lr": 0.01,
            "clip": 5.0, "threshold": 0.95, "probe_l2": 1e-3, "seed": 0}
LETTERS = {"anbn": "ab", "anbncn": "abc"}
MAX_WIDTH, MAX_EPOCHS, MAX_N = 512, 10 ** 4, 256
CHUNK = 256                 # test examples run through the model at once


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_counting")

    def size(name, lo=1, hi=MAX_EXAMPLES):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi)

    kind = checks.one_of("config['kind']", c["kind"], KINDS)
    top = size("max_train_n", 2, MAX_N - 1)
    out = dict(c, cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES), kind=kind,
               n=size("n", hi=MAX_WIDTH), max_train_n=top, max_test_n=size("max_test_n", top + 1, MAX_N),
               n_train=size("n_train"), n_test=size("n_test"), epochs=size("epochs", hi=MAX_EPOCHS),
               batch_size=size("batch_size"),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
               threshold=checks.number("config['threshold']", c["threshold"], 0, 1),
               probe_l2=checks.number("config['probe_l2']", c["probe_l2"], 0, 1e6, strict_min=True),
               seed=checks.integer("config['seed']", c["seed"], minimum=0))
    B, last = len(LETTERS[kind]), out["max_test_n"]
    # characters made: the training examples, and the test sets of every block k <= max_test_n
    checks.entries("config['n_train']", out["n_train"], (out["n_train"], B * top + 1), MAX_CHARS)
    checks.entries("config['n_test']", out["n_test"], (out["n_test"], B * last * (last + 1) // 2 + last),
                   MAX_CHARS)
    # the largest array of one forward: (T, batch, 4n) gates
    batch = max(min(out["batch_size"], out["n_train"]), min(CHUNK, out["n_test"]), last)
    checks.entries("config's max_test_n, n_test and n", (last, out["n_test"], out["n"]),
                   (B * last + 1, batch, 4 * out["n"]))
    return out


def largest_reached(ns, accuracies, threshold):
    """The largest ns[i] with accuracies[j] >= threshold for every j <= i; 0 if the first fails.
    ns: increasing integers >= 1; accuracies: as many numbers in [0, 1]; threshold in [0, 1]."""
    ns = checks.numeric("ns", ns)
    acc = checks.array("accuracies", accuracies, ndim=1)
    threshold = checks.number("threshold", threshold, 0, 1)
    if ns.ndim != 1 or ns.dtype.kind not in "iu" or not 1 <= len(ns) <= MAX_EXAMPLES:
        raise ValueError(f"ns must be 1 to {MAX_EXAMPLES:,} integers, got shape {ns.shape} of {ns.dtype}")
    if ns.min() < 1 or ns.max() > 2 ** 62 or np.any(np.diff(ns.astype(np.int64)) <= 0):
        raise ValueError("ns must be increasing integers from 1 to 2**62")
    if acc.shape != ns.shape or np.any((acc < 0) | (acc > 1)):
        raise ValueError(f"accuracies must be {len(ns)} numbers in [0, 1] (one per entry of ns)")
    failed = np.flatnonzero(acc < threshold)
    if not failed.size:
        return int(ns[-1])
    return int(ns[failed[0] - 1]) if failed[0] > 0 else 0


def _bounded(name, a):
    if np.max(np.abs(a)) > 1e100:
        raise ValueError(f"{name} has entries beyond 1e100 in size; rescale it")
    return a


def _rows(name, X, n=None):
    X = checks.array(name, X, ndim=2)
    if 0 in X.shape or (n is not None and X.shape[1] != n):
        raise ValueError(f"{name} has shape {X.shape}, expected (N, {n or 'n'}) with N >= 1")
    return _bounded(name, X)


def _targets(name, y, N, k=None):
    y = checks.array(name, y, ndim=(1, 2))
    width = y.reshape(len(y), -1).shape[1] if len(y) else 0
    if len(y) != N or width == 0 or (k is not None and width != k):
        want = f"({N},) or ({N}, 1)" if k == 1 else f"({N}, {k})" if k else f"({N},) or ({N}, k)"
        raise ValueError(f"{name} has shape {y.shape}, expected {want}")
    return _bounded(name, y)


def unit_correlations(X, v):
    """|Pearson correlation| of each column of X (N, n) with v (N,) -> (n,) in [0, 1]; 0 for a
    constant column (or a constant v)."""
    X = _rows("X", X)
    v = _targets("v", v, len(X), 1).ravel()
    if np.ptp(v) == 0:
        return np.zeros(X.shape[1])
    # each column scaled by its largest |entry| (so squares neither overflow nor underflow)
    scale = np.max(np.abs(X), axis=0)
    Xs = X / np.where(scale > 0, scale, 1)
    vs = v / np.max(np.abs(v))
    Xc, vc = Xs - Xs.mean(axis=0), vs - vs.mean()
    # r = Σ x_c v_c / (‖x_c‖ ‖v_c‖)
    norms = np.sqrt(np.sum(Xc * Xc, axis=0)) * np.sqrt(np.sum(vc * vc))
    r = np.abs(Xc.T @ vc) / np.where(norms > 0, norms, 1)
    return np.where((np.ptp(X, axis=0) > 0) & (norms > 0), np.minimum(r, 1.0), 0.0)


def counter_probe(X, y, groups, X_beyond, y_beyond, l2=1e-3):
    """The counter probe (module docstring) on given states -> {probe_r2_train, probe_r2_beyond,
    best_unit, best_unit_corr}.

    X (N, n), y (N,) or (N, k): train-range states and their labels (column 0 is the one
    best_unit correlates with); groups (N,): the word of each row (2 to MAX_N words), held
    out one at a time; X_beyond (M, n), y_beyond: the beyond states, scored by the probe
    fitted on all of X; l2 in (0, 1e6]: the ridge penalty."""
    X = _rows("X", X)
    y = _targets("y", y, len(X))
    k = y.reshape(len(y), -1).shape[1]
    groups = checks.array("groups", groups, ndim=1)
    if groups.shape != (len(X),):
        raise ValueError(f"groups has shape {groups.shape}, expected ({len(X)},): a word per row of X")
    words = np.unique(groups)
    if not 2 <= len(words) <= MAX_N:
        raise ValueError(f"groups must name 2 to {MAX_N} words (a probe is held out one word at a "
                         f"time), got {len(words)}")
    X_beyond = _rows("X_beyond", X_beyond, X.shape[1])
    y_beyond = _targets("y_beyond", y_beyond, len(X_beyond), k)
    l2 = checks.number("l2", l2, minimum=0, maximum=1e6, strict_min=True)
    # leave one word out: each word's rows predicted by the probe fitted on the others'
    yhat = np.empty_like(y.reshape(len(y), -1))
    for w in words:
        held = groups == w
        yhat[held] = fit_probe(X[~held], y[~held], "regress", l2=l2).predict(X[held]).reshape(-1, k)
    beyond = fit_probe(X, y, "regress", l2=l2).predict(X_beyond)
    corr = unit_correlations(X, y.reshape(len(y), -1)[:, 0])
    best = int(np.argmax(corr))
    return {"probe_r2_train": r2_score(y, yhat), "probe_r2_beyond": r2_score(y_beyond, beyond),
            "best_unit": best, "best_unit_corr": float(corr[best])}


def _words(kind, ks):
    """The words aᵏbᵏ(cᵏ) for k in ks, encoded, with their labels -> (SeqData, labels (T, B, K))."""
    words = [tasks.counting(1, 0, kind, "accept", block=k, p_positive=1.0)[0] for k in ks]
    data = tasks.encode(words, LETTERS[kind])
    names = ("a_minus_b", "b_minus_c")[:len(LETTERS[kind]) - 1]
    labels = np.zeros(data.mask.shape + (len(names),))
    for b, w in enumerate(words):
        for j, name in enumerate(names):
            labels[:len(w.text), b, j] = w.labels[name]
    return data, labels


def _states(model, data, labels):
    """(rows (N, n), labels (N, K), word (N,)) of every character of the encoded words."""
    X, index = flatten_states(model.hidden_states(data.X, data.mask), data.mask)
    return X, labels[index[:, 0], index[:, 1]], index[:, 1]


def counter_metrics(model, kind, max_train_n, max_test_n, l2=1e-3):
    """counter_probe on the hidden states of `model` (a SeqModel over token ids LETTERS[kind])
    reading the words aᵏbᵏ(cᵏ), k = 1 … max_train_n (train range, each word a group) and
    max_train_n < k <= max_test_n (beyond); 2 <= max_train_n < max_test_n <= MAX_N."""
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    kind = checks.one_of("kind", kind, KINDS)
    if model.config.d != len(LETTERS[kind]):
        raise ValueError(f"model reads d = {model.config.d} inputs, but kind {kind!r} has "
                         f"{len(LETTERS[kind])} letters")
    top = checks.integer("max_train_n", max_train_n, minimum=2, maximum=MAX_N - 1)
    last = checks.integer("max_test_n", max_test_n, minimum=top + 1, maximum=MAX_N)
    checks.entries("model", "its width", (len(LETTERS[kind]) * last + 1, last, 4 * model.config.n))
    X, y, word = _states(model, *_words(kind, range(1, top + 1)))
    Xb, yb, _ = _states(model, *_words(kind, range(top + 1, last + 1)))
    return counter_probe(X, y, word, Xb, yb, l2)


class CountingRun(SteppedRun):
    """One configuration of train_counting, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is train_counting's run). The test sets are made once:
    iid_examples, and per_n_examples[k] for k = 1 … max_test_n (block k exactly)."""

    def __init__(self, config):
        c = _config(config)
        data_ss, test_ss, self._weights_ss, self._order_ss = np.random.SeedSequence(c["seed"]).spawn(4)
        self.vocab = LETTERS[c["kind"]]
        train = (1, c["max_train_n"])
        self.train_examples = tasks.counting(c["n_train"], child_seed(data_ss), c["kind"], "accept", block=train)
        iid_ss, *block_ss = test_ss.spawn(1 + c["max_test_n"])
        self.iid_examples = tasks.counting(c["n_test"], child_seed(iid_ss), c["kind"], "accept", block=train)
        self.per_n_examples = {k: tasks.counting(c["n_test"], child_seed(s), c["kind"], "accept", block=k)
                               for k, s in enumerate(block_ss, start=1)}
        self._iid = tasks.encode(self.iid_examples, self.vocab)
        self._per_n = {k: tasks.encode(e, self.vocab) for k, e in self.per_n_examples.items()}
        super().__init__(c, tasks.encode(self.train_examples, self.vocab), c["epochs"], c["batch_size"])

    def new_model(self):
        c = self.config
        return adam_model(c, len(self.vocab), c["n"], 2, self._weights_ss, self._order_ss)

    def _accuracy(self, data):
        right = 0
        for i in range(0, len(data), CHUNK):
            b = data.subset(np.arange(i, min(i + CHUNK, len(data))))
            right += int(np.sum(self.model.predict(b.X, b.mask) == b.targets))
        return right / len(data)

    def evaluate(self):
        """The metrics of train_counting (module docstring) for the model as it is now."""
        c = self.config
        train_accuracy = self.train_accuracy()
        acc = {k: self._accuracy(d) for k, d in self._per_n.items()}
        return {"train_accuracy": -1.0 if math.isnan(train_accuracy) else float(train_accuracy),
                "iid_accuracy": self._accuracy(self._iid),
                **{f"acc_{k}": a for k, a in acc.items()},
                "largest_n": largest_reached(list(acc), list(acc.values()), c["threshold"]),
                **counter_metrics(self.model, c["kind"], c["max_train_n"], c["max_test_n"], c["probe_l2"])}

    def baseline_loss(self):
        return math.log(2)                  # accept or reject

    def table_rows(self):
        c = self.config
        ns = sorted({c["max_train_n"], *range(4, c["max_test_n"] + 1, 4)})
        return ([("iid_accuracy", "in-distribution accuracy", "f3"), ("largest_n", "largest n", "horizon")]
                + [(f"acc_{n}", f"accuracy at n = {n}", "f3") for n in ns]
                + [("probe_r2_train", "counter probe R², trained n", "f2"),
                   ("probe_r2_beyond", "counter probe R², larger n", "f2"),
                   ("best_unit_corr", "best single unit |r|", "f2")])


def normalized(config):
    """The config with every default filled in and every value checked: two configs describe the
    same run exactly when their normalized forms are equal."""
    return _config(config)


def train_counting(config):
    """Train on aⁿbⁿ (or aⁿbⁿcⁿ) accept/reject, test per n and probe the counter -> metrics."""
    return CountingRun(config).run()
