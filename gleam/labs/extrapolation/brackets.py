"""Experiment 1 of the extrapolation lab: length against depth on bracket languages.

train_brackets(config) trains a many-to-one classify SeqModel (a cell of
gleam.cells.names.CELL_NAMES, width n) with gleam.seqmodel.Trainer and Adam on gleam.tasks.brackets
(kind "dyck1" or "dyck2"): is the string well-formed (1) or not (0)? Tokens are ids over
VOCABS[kind] ("()" or "()[]", gleam.tasks.encode). The training examples are drawn from the
task's own rule with length in (2, max_train_length) and max_depth = max_train_depth
(p_wellformed of them well-formed, in expectation); then the model is tested off that range.

Test sets (each of n_test examples, built once in __init__, so fixed by the config): every one
is `balanced_set`'s: ⌊n_test · p_wellformed + ½⌋ well-formed examples (brackets with
p_wellformed = 1) and the rest malformed (p_wellformed = 0), so a constant answer scores the
same on every set. Only the depth sets filter; drawing the classes apart keeps the filter
from tilting their balance.
    iid       length in (2, max_train_length), max_depth = max_train_depth: the train rule
    length L  for each L in test_lengths: length in (max(2, L − 9), L), max_depth =
              max_train_depth (L above max_train_length: length extrapolation at trained depth)
    depth D   for each D in test_depths: length in (length_lo, length_hi), generated with
              max_depth = D, kept only if facts["depth"] == D (the deepest stack height, read
              up to the first break); drawn in chunks until the class is full, at most
              ATTEMPTS draws per example wanted (and MAX_DRAWN characters), else ValueError
              naming test_depths (D > max_train_depth: depth extrapolation at trained lengths)
(lo, hi) ranges are inclusive; the task writes even lengths only. Config names and defaults:
DEFAULTS; a depth needs 2 D <= length_hi, each list increases, sizes are bounded (MAX_*).
Metrics (accuracy = the fraction of a set whose predicted class is its target):
    updates                   minibatch updates taken (epochs × ⌈n_train / batch_size⌉ at the end)
    train_accuracy            SteppedRun.train_accuracy(): over the kept updates of the epoch
                              under way, else the last finished one's (weights moving); -1 before any
    iid_accuracy              on the iid set
    length_<L>, depth_<D>     on each length set, each depth set
    growth_<L>                on each length set: the median over its first GROWTH_EXAMPLES
                              examples of log10 σ_max(∂h_T/∂h_1) (BracketsRun.growth): where a
                              perturbation of the early state grows or dies, against where the
                              accuracy falls
    length_reach, depth_reach reach(test_lengths, their accuracies, reach_threshold), likewise
                              for depths: the largest value tested whose accuracy, and that of
                              every smaller one tested, is >= reach_threshold; -1 if none
reach_threshold (default 0.9) is fixed a priori: well above a constant answer's 0.5, below
perfect so one slip in 200 does not cut a curve.
Seeding: SeedSequence(seed) spawns the training examples, the weights, the shuffling order, the
iid set, the length sets (one child each) and the depth sets (one child each).
BracketsRun(config) is the same run a few updates at a time (gleam.labs.stepped): stepped to
the end in any pieces, it is train_brackets's.

    {"run": "gleam.labs.extrapolation.brackets:train_brackets",
     "grid": {"cell": ["elman", "gru_torch", "lstm"], "seed": [0, 1, 2, 3, 4]},
     "fixed": {"kind": "dyck1"}}
"""
import functools
import itertools
import math

import numpy as np

from gleam import checks, tasks
from gleam.instruments import stability
from gleam.cells.names import CELL_NAMES
from gleam.labs.stepped import SteppedRun, adam_model, criterion_config, criterion_defaults
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.base import MAX_CHARS

__all__ = ["normalized", "train_brackets", "BracketsRun", "balanced_set", "reach", "DEFAULTS", "VOCABS"]

VOCABS = {"dyck1": "()", "dyck2": "()[]"}
# n_train 1000 (not 2000) keeps the default run under ~2 s: drawing the test sets takes ~0.7 s of it
DEFAULTS = {"kind": "dyck1", "cell": "gru_torch", "n": 16, "p_wellformed": 0.5,
            "max_train_length": 20, "max_train_depth": 4, "test_lengths": [20, 40, 60, 80],
            "test_depths": [2, 4, 6, 8], "length_lo": 16, "length_hi": 20, "n_train": 1000,
            "n_test": 200, "epochs": 10, "batch_size": 32, "lr": 0.01, "clip": 5.0,
            "reach_threshold": 0.9, **criterion_defaults(0.98), "seed": 0}
MAX_WIDTH, MAX_EPOCHS, MAX_TRAIN, MAX_TEST, MAX_LENGTH = 512, 10 ** 4, 10 ** 5, 10 ** 4, 1000
MAX_VALUES = 32         # entries of test_lengths, test_depths
GROWTH_EXAMPLES = 8     # examples of a length set whose Jacobian product is measured
ATTEMPTS = 100          # a depth set's draws per example wanted, at most
CHUNK = 1024            # examples drawn per call of the generator, at most
MAX_DRAWN = 2 ** 21     # characters a depth set may draw per class (its longest length each), at most
EVAL_BATCH = 256        # sequences per forward pass when testing
MAX_HELD = 2 ** 21      # test characters held at once (every test set at its longest length), at most


def reach(values, accuracies, threshold):
    """The largest of `values` (distinct integers, any order) whose accuracy, and the accuracy
    at every smaller value, is >= threshold; -1 if the smallest already falls short (or none)."""
    if not isinstance(values, (list, tuple)) or not isinstance(accuracies, (list, tuple)):
        raise ValueError(f"values and accuracies must be lists, got {values!r:.60} and {accuracies!r:.60}")
    if len(values) != len(accuracies):
        raise ValueError(f"values and accuracies must have one entry each, got {len(values)} and "
                         f"{len(accuracies)}")
    vs = [checks.integer("values", v) for v in values]
    accs = [checks.number("accuracies", a) for a in accuracies]
    if len(set(vs)) != len(vs):
        raise ValueError(f"values must be distinct, got {values!r:.60}")
    threshold = checks.number("threshold", threshold)
    best = -1
    for v, a in sorted(zip(vs, accs)):
        if a < threshold:
            break
        best = v
    return best


def balanced_set(n, seed, kind="dyck1", length=(2, 20), max_depth=None, p_wellformed=0.5,
                 exact_depth=False):
    """n bracket examples: ⌊n · p_wellformed + ½⌋ well-formed, then the rest malformed, each
    class drawn by gleam.tasks.brackets (p_wellformed 1, resp. 0) in chunks from
    SeedSequence(seed)'s two children; exact_depth keeps only examples with facts["depth"] ==
    max_depth, drawing at most ATTEMPTS per example wanted and MAX_DRAWN characters (counting
    each draw as long as the longest length) per class, else ValueError naming max_depth."""
    n = checks.integer("n", n, minimum=1, maximum=MAX_TEST)
    seed = checks.integer("seed", seed, minimum=0)
    checks.one_of("kind", kind, tuple(VOCABS))
    p = checks.number("p_wellformed", p_wellformed, minimum=0, maximum=1)
    exact = checks.flag("exact_depth", exact_depth)
    cap = checks.integer("max_depth", max_depth, minimum=1, none_ok=not exact)
    tasks.brackets(1, 0, kind, length, 1.0, cap)        # checks length (and the rest) once
    hi = length[1] if isinstance(length, (list, tuple)) else length
    if exact and 2 * cap > hi:
        raise ValueError(f"max_depth = {cap} with exact_depth needs an even length >= 2 max_depth, "
                         f"got length {length!r}")
    wanted = math.floor(n * p + 0.5)
    out = []
    for ss, count, p_class in zip(np.random.SeedSequence(seed).spawn(2), (wanted, n - wanted), (1.0, 0.0)):
        found, drawn, budget = [], 0, min(ATTEMPTS * count, MAX_DRAWN // hi)
        while len(found) < count and drawn < budget:
            # the examples still wanted, over the rate of finding them so far (+1: none yet), and a margin
            left = count - len(found)
            guess = math.ceil(1.25 * left * (drawn + 1) / (len(found) + 1)) if exact else left
            k = min(CHUNK, budget - drawn, max(16, guess) if exact else guess, MAX_CHARS // hi)
            batch = tasks.brackets(k, child_seed(ss.spawn(1)[0]), kind, length, p_class, cap)
            drawn += k
            found += [e for e in batch if not exact or e.facts["depth"] == cap]
        if len(found) < count:
            raise ValueError(f"max_depth = {cap} with exact_depth: only {len(found)} of {count} "
                             f"{'well-formed' if p_class else 'malformed'} examples of length in "
                             f"{tuple(length) if isinstance(length, (list, tuple)) else length} "
                             f"reached depth {cap} in {drawn} draws")
        out += found[:count]
    return out


def _values(c, name, lo, hi):
    v = c[name]
    ok = isinstance(v, (list, tuple)) and 1 <= len(v) <= MAX_VALUES
    if ok:
        v = [checks.integer(f"config[{name!r}]", x, minimum=lo, maximum=hi) for x in v]
    if not ok or any(a >= b for a, b in itertools.pairwise(v)):
        raise ValueError(f"config[{name!r}] must be a list of 1 to {MAX_VALUES} increasing integers "
                         f"in [{lo}, {hi}], got {c[name]!r:.60}")
    return v


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_brackets")

    def size(name, lo=1, hi=MAX_TRAIN):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi)

    out = dict(c, kind=checks.one_of("config['kind']", c["kind"], tuple(VOCABS)),
               cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
               n=size("n", hi=MAX_WIDTH),
               p_wellformed=checks.number("config['p_wellformed']", c["p_wellformed"], 0, 1),
               max_train_length=size("max_train_length", 2, MAX_LENGTH),
               max_train_depth=size("max_train_depth", hi=MAX_LENGTH),
               test_lengths=_values(c, "test_lengths", 2, MAX_LENGTH),
               length_lo=size("length_lo", 2, MAX_LENGTH), length_hi=size("length_hi", 2, MAX_LENGTH),
               n_train=size("n_train"), n_test=size("n_test", hi=MAX_TEST),
               epochs=size("epochs", hi=MAX_EPOCHS), batch_size=size("batch_size"),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
               reach_threshold=checks.number("config['reach_threshold']", c["reach_threshold"], 0, 1),
               seed=checks.integer("config['seed']", c["seed"], minimum=0), **criterion_config(c, MAX_TEST))
    lo, hi = out["length_lo"], out["length_hi"]
    longest_even = hi - hi % 2
    if longest_even < lo:
        raise ValueError(f"config['length_lo'] and config['length_hi'] must allow an even length "
                         f"(length_lo <= an even number <= length_hi), got {lo} and {hi}")
    out["test_depths"] = _values(c, "test_depths", 1, MAX_LENGTH)
    if 2 * out["test_depths"][-1] > longest_even:
        raise ValueError(f"config['test_depths'] holds {out['test_depths'][-1]}: a well-formed string "
                         f"of depth D has length >= 2 D, and the longest even length in "
                         f"(length_lo, length_hi) = ({lo}, {hi}) is {longest_even}")
    longest = max(out["max_train_length"], out["test_lengths"][-1], hi)
    checks.entries("config['n_train']", out["n_train"], (out["n_train"], out["max_train_length"]),
                   limit=MAX_CHARS)
    # every test set at its longest length, all held at once
    held = out["max_train_length"] + sum(out["test_lengths"]) + hi * len(out["test_depths"])
    checks.entries("config['n_test']", out["n_test"], (out["n_test"], held), limit=MAX_HELD)
    batch = min(max(out["batch_size"], EVAL_BATCH), max(out["n_train"], out["n_test"]))
    checks.entries("config's lengths, batch_size and n", (longest, batch, out["n"]),
                   (longest, batch, 4 * out["n"]))
    return out


class BracketsRun(SteppedRun):
    """One configuration of train_brackets, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is train_brackets's run). The test sets are built once
    here: `test_sets` maps "iid", "length_<L>" and "depth_<D>" to their Examples, drawn when first
    used (the deepest take a second: the page's retrain opens without them; train_brackets draws
    them before it trains, so that a depth too rare to draw is refused at once). metrics()
    tests the model as it is now; reset() starts the configuration again from its initial weights."""

    def __init__(self, config):
        c = _config(config)
        train_ss, self._weights_ss, self._order_ss, *self._test_ss, val_ss = (
            np.random.SeedSequence(c["seed"]).spawn(7))
        self.vocab = VOCABS[c["kind"]]
        kind, p, cap = c["kind"], c["p_wellformed"], c["max_train_depth"]
        train_range = (2, c["max_train_length"])
        self.train_examples = tasks.brackets(c["n_train"], child_seed(train_ss), kind, train_range, p, cap)
        # early stopping's validation set: drawn as the training examples are
        self._val = (tasks.encode(tasks.brackets(c["n_val"], child_seed(val_ss), kind, train_range, p, cap), self.vocab)
                     if c["n_val"] else None)
        super().__init__(c, tasks.encode(self.train_examples, self.vocab), c["epochs"], c["batch_size"])

    def new_model(self):
        c = self.config
        return adam_model(c, len(self.vocab), c["n"], 2, self._weights_ss, self._order_ss)

    @functools.cached_property
    def test_sets(self):
        c, (iid_ss, lengths_ss, depths_ss) = self.config, self._test_ss
        kind, p, cap, n = c["kind"], c["p_wellformed"], c["max_train_depth"], c["n_test"]
        train_range, depth_range = (2, c["max_train_length"]), (c["length_lo"], c["length_hi"])
        sets = {"iid": balanced_set(n, child_seed(iid_ss), kind, train_range, cap, p)}
        for L, ss in zip(c["test_lengths"], lengths_ss.spawn(len(c["test_lengths"]))):
            sets[f"length_{L}"] = balanced_set(n, child_seed(ss), kind, (max(2, L - 9), L), cap, p)
        for D, ss in zip(c["test_depths"], depths_ss.spawn(len(c["test_depths"]))):
            try:
                sets[f"depth_{D}"] = balanced_set(n, child_seed(ss), kind, depth_range, D, p, exact_depth=True)
            except ValueError as e:
                raise ValueError(f"config['test_depths'] holds {D}, too rare to draw: {e}") from None
        return sets

    @functools.cached_property
    def _held(self):
        return {name: tasks.encode(examples, self.vocab) for name, examples in self.test_sets.items()}

    def accuracy(self, name):
        """The fraction of test set `name` (a key of test_sets) the model as it is now answers right."""
        checks.one_of("name", name, tuple(self._held))
        return self._accuracy(self._held[name])

    def validation_score(self):
        """Accuracy on the validation set (drawn by the training rule)."""
        return self._accuracy(self._val)

    def heldin_score(self, metrics):
        return metrics["iid_accuracy"]

    def _accuracy(self, data):
        right = 0
        for i in range(0, len(data), EVAL_BATCH):
            b = data.subset(np.arange(i, min(i + EVAL_BATCH, len(data))))
            right += int(np.sum(self.model.predict(b.X, b.mask) == b.targets))
        return right / len(data)

    def evaluate(self):
        """The metrics of train_brackets (module docstring) for the model as it is now."""
        c = self.config
        train_accuracy = self.train_accuracy()
        out = {"train_accuracy": -1.0 if math.isnan(train_accuracy) else float(train_accuracy)}
        out.update({("iid_accuracy" if name == "iid" else name): self.accuracy(name) for name in self._held})
        for what, values in (("length", c["test_lengths"]), ("depth", c["test_depths"])):
            accs = [out[f"{what}_{v}"] for v in values]
            out[f"{what}_reach"] = reach(values, accs, c["reach_threshold"])
        for L in c["test_lengths"]:
            out[f"growth_{L}"] = self.growth(f"length_{L}")
        return out

    def growth(self, name, count=GROWTH_EXAMPLES):
        """Median over the first `count` examples of test set `name` of log10 σ_max(∂h_T/∂h_1),
        from the state after the first character to the last (gleam.instruments.stability): how much a
        perturbation of the early state has grown (> 0) or shrunk (< 0) by the time the model
        answers. An exact 0 product counts as −300."""
        checks.one_of("name", name, tuple(self._held))
        logs = []
        for e in self.test_sets[name][:count]:
            X = tasks.encode([e], self.vocab).X
            Js = stability.state_jacobians(self.model, X, b=0)
            top = stability.singular_values(stability.span_product(Js), log10=True)[0]
            logs.append(max(float(top), -300.0))
        return float(np.median(logs))

    def baseline_loss(self):
        return math.log(2)                  # accept or reject

    def table_rows(self):
        c = self.config
        return ([("iid_accuracy", "in-distribution accuracy", "f3")]
                + [(f"length_{L}", f"accuracy at length {L}", "f3") for L in c["test_lengths"]]
                + [(f"depth_{D}", f"accuracy at depth {D}", "f3") for D in c["test_depths"]]
                + [("length_reach", "length reach", "horizon"), ("depth_reach", "depth reach", "horizon")])


def normalized(config):
    """The config with every default filled in and checked: two configs name the same run exactly
    when their normalized forms are equal."""
    return _config(config)


def train_brackets(config):
    """Train on bracket strings of bounded length and depth, test longer and deeper -> metrics."""
    run = BracketsRun(config)
    run.test_sets                       # drawn first: a refusal comes before any training
    return run.run()
