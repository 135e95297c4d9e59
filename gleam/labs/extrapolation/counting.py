"""Experiment 2 of the extrapolation lab: does a small recurrent net learn to count?

train_counting(config) trains a SeqModel (cell: any of CELL_NAMES, width n) with
gleam.seqmodel.Trainer and Adam on aⁿbⁿ (kind "anbn") or aⁿbⁿcⁿ ("anbncn"), block (1, max_train_n),
in one of two modes (config "mode"):
    "accept"   many-to-one, accept or reject a text over the letters ("ab" or "abc"):
               gleam.tasks.counting(kind, "accept") examples, the word aᵏbᵏ(cᵏ) with probability ½
               (target 1), else one of the task's near misses of it (a block one letter longer or
               shorter, two letters swapped at a block boundary, or one letter moved across one)
    "predict"  many-to-many next-character prediction over NEXT = "abc." (4 inputs, 4 classes; the
               literature's setting): the words aᵏbᵏ(cᵏ), the loss on the deterministic steps only
               (gleam.tasks.encode(..., loss_on="deterministic"): after the first b every next
               character is fixed, the end "." included; while a's are read it is not)
The tested blocks k (tested_ns) are 1 … 2·max_train_n, then every test_stride-th up to
max_test_n, and max_test_n (defaults 8, 8, 80: k = 1 … 16, 24, 32, …, 80); a metric's name carries
its k. Metrics, as plain numbers (accuracy: the fraction of a set answered right):
    updates           minibatch updates taken
    train_accuracy    over the kept updates of the epoch under way, else the last finished one's
                      (weights moving; -1 before any update); predict: over the loss steps
    iid_accuracy      on n_test fresh examples drawn as the training ones (block (1, max_train_n));
                      predict: the fraction of deterministic steps predicted right, pooled
mode "accept":
    acc_<k>           on n_test fresh gleam.tasks.counting examples of block k exactly (the word
                      and the task's near misses); k > max_train_n is extrapolation
    largest_n         largest_reached(tested_ns, acc_k, threshold): the largest tested k with
                      acc_k' >= threshold for every tested k' <= k; 0 if acc_1 < threshold
    hard_<k>          on n_test examples of automata.hard_counting(block=k): the word with
                      probability ½, else a⁺b⁺(c⁺) with counts off by d = 1 … 12 ("near") or far
                      from the diagonal (gleam.labs.extrapolation.automata has the rule)
    hard_largest_n    largest_reached(tested_ns, hard_k, threshold)
    largest_n_censored, hard_largest_n_censored   1 if that value is max_test_n, the largest k
                      tested (the model may reach further: a censored value), else 0
    <a>_iid_accuracy, <a>_largest_n, <a>_hard_largest_n, <a>_hard_<k>   the same of the
                      automata a = mod2, mod3, mod4, parity (automata.shortcuts(kind)) on the same
                      sets: they do not depend on the model (scored once, in __init__); a value
                      of max_test_n is censored likewise
mode "predict":
    predict_<k>       1 if the word aᵏbᵏ(cᵏ) has every deterministic step predicted right, else 0
                      (one word per k)
    predict_largest_n largest_reached(tested_ns, predict_k, 1.0); predict_largest_n_censored as above
both modes: probe_r2_train, probe_r2_beyond, best_unit, best_unit_corr (the counter probe on the
    hidden states h), and probe_c_r2_train, probe_c_r2_beyond, best_unit_c, best_unit_c_corr (the
    same probe on an LSTM's cell states c; -1 for every other cell, which has no c). [h; c]
    together is not probed.
What the sets can show. The task's near misses change #a − #b (or #b − #c) by at most 2, so
finite automata answer them: automata.mod_counter(m) (a⁺b⁺ and #a − #b ≡ 0 mod m) scores 1.0
on every aⁿbⁿ set of the task's (the iid, validation and acc_k sets, at every k) for any m >= 3,
and on every aⁿbⁿcⁿ one for any m >= 2; automata.length_parity (a⁺b⁺(c⁺) and the number of
blocks divides the length) is wrong only on the "shift" near misses of k >= 2 (about a sixth of a
set). So iid_accuracy (and `learned`), acc_k and largest_n can be had without a counter. The hard
sets cannot: mod_counter(m) is wrong on about 1/(2m) of each (m = 2, 3, 4: accuracy about 0.75,
0.83, 0.87), length_parity on about a quarter, at every k >= 3 (n_test is 200 so that 0.87 lies
more than three standard errors below the threshold 0.95). A larger modulus is caught less:
mod_counter(m) is wrong on near texts only for m <= 12, and on the far texts of block k only for
m < 2k. A finite set never rules out every finite automaton: hard_k >= threshold rules out these
residues, and the probe looks for the counter itself. A hard set's negatives can be longer than
its word: a near one's blocks exceed k by up to 12 letters (more at small k, where its counts are
lifted to 1 and above), a far one's reach 2k, so hard_k reads blocks longer than max_train_n even
for some k <= max_train_n.
The counter probe. A linear ridge probe (gleam.instruments.probes.fit_probe, kind "regress", l2 = probe_l2)
reads the label "a_minus_b" (letters a read minus letters b read; for aⁿbⁿcⁿ also "b_minus_c",
R² then the mean over the two) from the state after each character of the words aᵏbᵏ(cᵏ):
k <= max_train_n ("train range") and max_train_n < k <= max_test_n ("beyond", every such k, not
only tested_ns). There is one word per k, so a probe is held out by word: probe_r2_train is the
pooled leave-one-word-out R² over the train range (for each k, a probe fitted on the other words'
states predicts word k's; R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² over all those predictions, per output).
probe_r2_beyond is the R² of the probe fitted on every train-range word, on the beyond words'
states (R² can be below 0: worse than the beyond set's mean). best_unit is the unit with the
largest |Pearson correlation| with a_minus_b over the train-range states (the first on a tie), and
best_unit_corr that |correlation| (unit_correlations: 0 for a constant unit).
The penalty is on the raw states (not standardised): a unit whose variance is far below l2
has its weight shrunk away. An LSTM's c is unbounded (|c_t| <= t), and where it counts it
carries the count linearly; h = o·tanh(c) squashes it.
The threshold (0.95) and probe_l2 (1e-3) are fixed a priori, not tuned on results.
Trained to a criterion (gleam.labs.stepped: n_val, check_every, criterion, stop_at): the
validation set is n_val examples drawn as the training ones; validation_score() is the accuracy
on it (predict: the deterministic steps' accuracy), heldin_score the iid_accuracy; run() then
adds learned, val_score, kept_updates and heldin_score. As said above, learned (iid_accuracy >=
criterion) in accept mode does not need a counter: mod_counter(4) scores 1.0 on aⁿbⁿ's iid set.
CountingRun(config) is the same run taken a few updates at a time (gleam.labs.stepped):
stepped to the end it is train_counting's. Seeding: SeedSequence(seed) spawns six children: the
training examples, the near-miss test sets (the iid set and each block k's set its own child of
1 + max_test_n, so acc_k depends neither on max_test_n nor on test_stride), the initial weights,
the shuffling order, the validation set and the hard sets (block k: child k − 1 of max_test_n).
Every seed is spawned in __init__; the test sets are drawn from theirs when first used (train_counting
draws them before it trains). The probe's words need no seed: aᵏbᵏ(cᵏ) is one word.

    {"run": "gleam.labs.extrapolation.counting:train_counting",
     "grid": {"kind": ["anbn", "anbncn"], "seed": [0, 1, 2, 3, 4]}}
"""
import functools
import math

import numpy as np

from gleam import checks, tasks
from gleam.cells.names import CELL_NAMES
from gleam.instruments.probes import r2_score, fit_probe
from gleam.instruments.states import flatten_states
from gleam.seqmodel import SeqModel
from gleam.labs.extrapolation import automata
from gleam.labs.stepped import SteppedRun, adam_model, criterion_config, criterion_defaults
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.base import MAX_CHARS, MAX_EXAMPLES
from gleam.tasks.anbn import KINDS, NEXT

__all__ = ["train_counting", "CountingRun", "DEFAULTS", "MODES", "normalized", "largest_reached",
           "unit_correlations", "counter_probe", "counter_metrics", "tested_ns", "LETTERS"]

DEFAULTS = {"cell": "gru_torch", "n": 8, "kind": "anbn", "mode": "accept", "max_train_n": 8,
            "max_test_n": 80, "test_stride": 8, "n_train": 2000, "n_test": 200, "epochs": 10,
            "batch_size": 32, "lr": 0.01, "clip": 5.0, "threshold": 0.95, "probe_l2": 1e-3,
            **criterion_defaults(0.98), "seed": 0}
MODES = ("accept", "predict")
LETTERS = {"anbn": "ab", "anbncn": "abc"}
MAX_WIDTH, MAX_EPOCHS, MAX_N = 512, 10 ** 4, 256
CHUNK = 256                 # test examples run through the model at once
NO_C = {"probe_c_r2_train": -1.0, "probe_c_r2_beyond": -1.0, "best_unit_c": -1, "best_unit_c_corr": -1.0}


def tested_ns(max_train_n, max_test_n, stride):
    """The tested blocks: 1 … 2·max_train_n, then every stride-th k up to max_test_n, and
    max_test_n (2 <= max_train_n < max_test_n <= MAX_N, stride >= 1) -> increasing ints."""
    top = checks.integer("max_train_n", max_train_n, minimum=2, maximum=MAX_N - 1)
    last = checks.integer("max_test_n", max_test_n, minimum=top + 1, maximum=MAX_N)
    stride = checks.integer("stride", stride, minimum=1, maximum=MAX_N)
    dense = min(2 * top, last)
    return list(range(1, dense + 1)) + [k for k in range(dense + stride, last, stride)] + (
        [last] if last > dense else [])


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_counting")

    def size(name, lo=1, hi=MAX_EXAMPLES):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi)

    kind = checks.one_of("config['kind']", c["kind"], KINDS)
    top = size("max_train_n", 2, MAX_N - 1)
    out = dict(c, cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES), kind=kind,
               mode=checks.one_of("config['mode']", c["mode"], MODES),
               n=size("n", hi=MAX_WIDTH), max_train_n=top, max_test_n=size("max_test_n", top + 1, MAX_N),
               test_stride=size("test_stride", hi=MAX_N),
               n_train=size("n_train"), n_test=size("n_test"), epochs=size("epochs", hi=MAX_EPOCHS),
               batch_size=size("batch_size"),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
               threshold=checks.number("config['threshold']", c["threshold"], 0, 1),
               probe_l2=checks.number("config['probe_l2']", c["probe_l2"], 0, 1e6, strict_min=True),
               seed=checks.integer("config['seed']", c["seed"], minimum=0), **criterion_config(c))
    B, last = len(LETTERS[kind]), out["max_test_n"]
    ns = tested_ns(top, last, out["test_stride"])
    # characters made: the training and validation examples, and the test sets of every tested k
    # (accept: the task's, at most B·k + 1 characters, and the hard ones; predict: the iid set)
    for name in ("n_train", "n_val"):
        checks.entries(f"config[{name!r}]", out[name], (out[name], B * top + 1), MAX_CHARS)
    per_test = (sum(B * k + 1 + automata.hard_longest(kind, k) for k in ns) if out["mode"] == "accept"
                else B * top + 1)
    checks.entries("config['n_test']", out["n_test"], (out["n_test"], per_test), MAX_CHARS)
    # the largest array of one forward: (T, batch, 4n) gates
    longest = automata.hard_longest(kind, last) if out["mode"] == "accept" else B * last + 1
    batch = max(min(out["batch_size"], out["n_train"]), min(CHUNK, max(out["n_test"], out["n_val"])), last)
    checks.entries("config's max_test_n, n_test and n", (last, out["n_test"], out["n"]),
                   (longest, batch, 4 * out["n"]))
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


def _words(kind, ks, vocab):
    """The words aᵏbᵏ(cᵏ) for k in ks, encoded over vocab, with their labels -> (SeqData, labels (T, B, K))."""
    words = [tasks.counting(1, 0, kind, "accept", block=k, p_positive=1.0)[0] for k in ks]
    data = tasks.encode(words, vocab)
    names = ("a_minus_b", "b_minus_c")[:len(LETTERS[kind]) - 1]
    labels = np.zeros(data.mask.shape + (len(names),))
    for b, w in enumerate(words):
        for j, name in enumerate(names):
            labels[:len(w.text), b, j] = w.labels[name]
    return data, labels


def _states(model, data, labels, cell_state):
    """(rows (N, n), labels (N, K), word (N,)) of every character of the encoded words."""
    X, index = flatten_states(model.hidden_states(data.X, data.mask, cell_state=cell_state), data.mask)
    return X, labels[index[:, 0], index[:, 1]], index[:, 1]


def counter_metrics(model, kind, max_train_n, max_test_n, l2=1e-3, cell_state=False, vocab=None):
    """counter_probe on the states of `model` (a SeqModel over token ids of vocab, default
    LETTERS[kind]; any vocab holding the letters, as predict mode's NEXT) reading the words
    aᵏbᵏ(cᵏ), k = 1 … max_train_n (train range, each word a group) and max_train_n < k <=
    max_test_n (beyond); 2 <= max_train_n < max_test_n <= MAX_N. The states are h, or an LSTM's
    cell states c if cell_state (ValueError for another cell)."""
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    kind = checks.one_of("kind", kind, KINDS)
    vocab = LETTERS[kind] if vocab is None else vocab
    if not (isinstance(vocab, str) and set(LETTERS[kind]) <= set(vocab) and len(set(vocab)) == len(vocab)):
        raise ValueError(f"vocab must be a str of distinct characters holding {LETTERS[kind]!r}, got {vocab!r:.80}")
    if model.config.d != len(vocab):
        raise ValueError(f"model reads d = {model.config.d} inputs, but vocab {vocab!r} (kind {kind!r}) "
                         f"has {len(vocab)} characters")
    top = checks.integer("max_train_n", max_train_n, minimum=2, maximum=MAX_N - 1)
    last = checks.integer("max_test_n", max_test_n, minimum=top + 1, maximum=MAX_N)
    cell_state = checks.flag("cell_state", cell_state)
    checks.entries("model", "its width", (len(LETTERS[kind]) * last + 1, last, 4 * model.config.n))
    X, y, word = _states(model, *_words(kind, range(1, top + 1), vocab), cell_state)
    Xb, yb, _ = _states(model, *_words(kind, range(top + 1, last + 1), vocab), cell_state)
    return counter_probe(X, y, word, Xb, yb, l2)


class CountingRun(SteppedRun):
    """One configuration of train_counting, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is train_counting's run). The test sets are drawn once,
    when first asked for (the in-page retrain opens without them; train_counting draws them before
    it trains): iid_examples, and for k in tested_ns: accept mode, per_n_examples[k] (the task's,
    block k exactly) and hard_examples[k] (automata.hard_counting); predict mode, per_n_examples[k]
    the word. val_examples: the validation set (empty when n_val is 0). automata_metrics: the
    automata's scores on these sets (accept mode; {} in predict mode)."""

    def __init__(self, config):
        c = _config(config)
        data_ss, test_ss, self._weights_ss, self._order_ss, val_ss, hard_ss = \
            np.random.SeedSequence(c["seed"]).spawn(6)
        kind, mode = c["kind"], c["mode"]
        self.vocab, self._mode = (LETTERS[kind] if mode == "accept" else NEXT), mode
        self.tested_ns = tested_ns(c["max_train_n"], c["max_test_n"], c["test_stride"])
        self.train_examples = self._draw(c, c["n_train"], data_ss)
        self.val_examples = self._draw(c, c["n_val"], val_ss) if c["n_val"] else []
        # each test set's seed is spawned now, as when they were drawn here: the same sets, later
        self._iid_ss, *self._block_ss = test_ss.spawn(1 + c["max_test_n"])
        self._hard_block_ss = hard_ss.spawn(c["max_test_n"]) if mode == "accept" else None
        self._val = self._encode(self.val_examples or None)
        super().__init__(c, self._encode(self.train_examples), c["epochs"], c["batch_size"])

    @staticmethod
    def _draw(c, count, ss, block=None):
        """count examples of c's task from seed sequence ss, of block k (default: the training
        range 1 … max_train_n)."""
        block = (1, c["max_train_n"]) if block is None else block
        return tasks.counting(count, child_seed(ss), c["kind"], c["mode"], block=block)

    @functools.cached_property
    def iid_examples(self):
        return self._draw(self.config, self.config["n_test"], self._iid_ss)

    @functools.cached_property
    def per_n_examples(self):
        c = self.config
        if self._mode == "accept":
            return {k: self._draw(c, c["n_test"], self._block_ss[k - 1], k) for k in self.tested_ns}
        return {k: tasks.counting(1, 0, c["kind"], self._mode, block=k) for k in self.tested_ns}

    @functools.cached_property
    def hard_examples(self):
        c = self.config
        if self._mode != "accept":
            return {}
        return {k: automata.hard_counting(c["n_test"], child_seed(self._hard_block_ss[k - 1]), c["kind"], k)
                for k in self.tested_ns}

    @functools.cached_property
    def automata_metrics(self):
        return self._automata_metrics(self.config) if self._mode == "accept" else {}

    @functools.cached_property
    def _iid(self):
        return self._encode(self.iid_examples)

    @functools.cached_property
    def _per_n(self):
        return {k: self._encode(e) for k, e in self.per_n_examples.items()}

    @functools.cached_property
    def _hard(self):
        return {k: self._encode(e) for k, e in self.hard_examples.items()}

    def _encode(self, examples):
        if examples is None:
            return None
        if self._mode == "accept":
            return tasks.encode(examples, self.vocab)
        return tasks.encode(examples, self.vocab, per_char=True, loss_on="deterministic")

    def _automata_metrics(self, c):
        out = {}
        for name, accepts in automata.shortcuts(c["kind"]).items():
            acc = [automata.accuracy(accepts, self.per_n_examples[k]) for k in self.tested_ns]
            hard = [automata.accuracy(accepts, self.hard_examples[k]) for k in self.tested_ns]
            out.update({f"{name}_iid_accuracy": automata.accuracy(accepts, self.iid_examples),
                        f"{name}_largest_n": largest_reached(self.tested_ns, acc, c["threshold"]),
                        f"{name}_hard_largest_n": largest_reached(self.tested_ns, hard, c["threshold"]),
                        **{f"{name}_hard_{k}": a for k, a in zip(self.tested_ns, hard)}})
        return out

    def new_model(self):
        c = self.config
        d = len(self.vocab)
        if c["mode"] == "accept":
            return adam_model(c, d, c["n"], 2, self._weights_ss, self._order_ss)
        return adam_model(c, d, c["n"], d, self._weights_ss, self._order_ss, many_to_many=True)

    def _right(self, data):
        """(answers right, answers, words) on a SeqData: accept, an answer per example; predict, one
        per loss step, and words (N,): the examples with every loss step right (None in accept mode)."""
        right = total = 0
        words = []
        for i in range(0, len(data), CHUNK):
            b = data.subset(np.arange(i, min(i + CHUNK, len(data))))
            pred = self.model.predict(b.X, b.mask)
            if self.config["mode"] == "accept":
                right, total = right + int(np.sum(pred == b.targets)), total + len(pred)
                continue
            keep = b.target_mask
            ok = (pred == b.targets) | ~keep
            right, total = right + int(np.sum((pred == b.targets) & keep)), total + int(keep.sum())
            words.append(ok.all(axis=0))
        return right, total, (np.concatenate(words) if words else None)

    def _accuracy(self, data):
        right, total, _ = self._right(data)
        return right / total

    def evaluate(self):
        """The metrics of train_counting (module docstring) for the model as it is now."""
        c, ns = self.config, self.tested_ns
        fit = self.train_accuracy()
        out = {"train_accuracy": -1.0 if math.isnan(fit) else float(fit), "iid_accuracy": self._accuracy(self._iid)}

        def horizon(name, values, threshold):
            reached = largest_reached(ns, values, threshold)
            out.update({f"{name}_{k}": v for k, v in zip(ns, values)})
            return reached, int(reached == ns[-1])

        if c["mode"] == "accept":
            reached, censored = horizon("acc", [self._accuracy(self._per_n[k]) for k in ns], c["threshold"])
            hard, hard_censored = horizon("hard", [self._accuracy(self._hard[k]) for k in ns], c["threshold"])
            out.update(largest_n=reached, largest_n_censored=censored, hard_largest_n=hard,
                       hard_largest_n_censored=hard_censored, **self.automata_metrics)
        else:
            right = [int(self._right(self._per_n[k])[2][0]) for k in ns]
            reached, censored = horizon("predict", right, 1.0)
            out.update(predict_largest_n=reached, predict_largest_n_censored=censored)
        probe = (c["kind"], c["max_train_n"], c["max_test_n"], c["probe_l2"])
        out.update(counter_metrics(self.model, *probe, vocab=self.vocab))
        if c["cell"] == "lstm":
            out.update({k.replace("probe_", "probe_c_").replace("best_unit", "best_unit_c"): v for k, v in
                        counter_metrics(self.model, *probe, cell_state=True, vocab=self.vocab).items()})
        else:
            out.update(NO_C)
        return out

    def validation_score(self):
        """Accuracy on the validation set (predict: over its deterministic steps)."""
        return self._accuracy(self._val)

    def heldin_score(self, metrics):
        return metrics["iid_accuracy"]

    def baseline_loss(self):
        """The loss of a uniform guess: ln 2 (accept or reject), ln 4 (predict: one of "abc.")."""
        return math.log(2 if self.config["mode"] == "accept" else len(NEXT))

    def table_rows(self):
        c, top = self.config, self.config["max_train_n"]
        shown = [k for k in self.tested_ns if k in (top, top + 1, 2 * top, c["max_test_n"])]
        if c["mode"] == "accept":
            rows = [("iid_accuracy", "in-distribution accuracy", "f3"),
                    ("largest_n", "largest n, task's near misses", "horizon"),
                    ("hard_largest_n", "largest n, hard set", "horizon"),
                    ("mod4_iid_accuracy", "mod-4 automaton, in-distribution accuracy", "f3"),
                    ("mod4_largest_n", "mod-4 automaton, largest n, near misses", "horizon"),
                    ("mod4_hard_largest_n", "mod-4 automaton, largest n, hard set", "horizon")]
            rows += [(f"acc_{k}", f"accuracy at n = {k}", "f3") for k in shown]
            rows += [(f"hard_{k}", f"hard-set accuracy at n = {k}", "f3") for k in shown]
        else:
            rows = [("iid_accuracy", "in-distribution next-character accuracy", "f3"),
                    ("predict_largest_n", "largest n predicted right", "horizon")]
            rows += [(f"predict_{k}", f"word right at n = {k}", "f2") for k in shown]
        rows += [("probe_r2_train", "counter probe R² on h, trained n", "f2"),
                 ("probe_r2_beyond", "counter probe R² on h, larger n", "f2"),
                 ("best_unit_corr", "best single unit of h, |r|", "f2")]
        if c["cell"] == "lstm":
            rows += [("probe_c_r2_train", "counter probe R² on c, trained n", "f2"),
                     ("probe_c_r2_beyond", "counter probe R² on c, larger n", "f2"),
                     ("best_unit_c_corr", "best single unit of c, |r|", "f2")]
        return rows


def normalized(config):
    """The config with every default filled in and every value checked: two configs describe the
    same run exactly when their normalized forms are equal."""
    return _config(config)


def train_counting(config):
    """Train on aⁿbⁿ (or aⁿbⁿcⁿ), accept/reject or next-character prediction, test per n and
    probe the counter -> metrics (module docstring)."""
    run = CountingRun(config)
    run.automata_metrics, run._per_n, run._hard, run._iid   # drawn first: a refusal before any training
    return run.run()
