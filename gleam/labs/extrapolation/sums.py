"""The extrapolation lab's third experiment: nested sums under one split, a classify head, a scalar
regression head and its ceiling, and arithmetic heads as comparators.

train_sums(config) makes `n_examples` gleam.tasks.nested_sums examples (options max_depth,
max_operands, p_nest), splits them by one rule of gleam.tasks.splits, keeps a random `iid_fraction` of
the train side aside as an in-distribution test, trains a many-to-one SeqModel (cell, width n)
with gleam.seqmodel.Trainer and Adam on the rest, and tests it on both. The split (config "split",
with config "threshold"; None takes THRESHOLDS[split], chosen before any run):
    "length"       test: texts longer than threshold characters (default 30)
    "depth"        test: nesting deeper than threshold (default 3: depth 4 of max_depth 4)
    "composition"  test: facts["digit_depths"] holds a [digit, depth] pair of threshold (default
                   [[3, 2], [7, 1]]: digit 3 at depth 2, 7 at depth 1; each part seen in train)
    "value"        test: facts["value"] > threshold (default 40, about the top fifth of values)
The default split is "value": this experiment asks whether a head can reach values it never saw,
which is the question the regression ceiling answers; depth is experiment 1's question. The
default head is "regress" for the same reason. n_examples defaults to 1000 (not 2000) so the
default run takes about a second and a half on one CPython core.
The head (config "head"):
    "classify"     target value mod 10 (10 classes), softmax cross-entropy
    "regress"      target facts["value"], a scalar linear head y = w·h + b, ½ squared error
    "nau", "nmu", "nalu"  the same target through gleam.seqmodel.arith_heads's heads (½ squared error plus
                   arith_reg · R for NAU/NMU; Trainer projects their weights after every update)
Metrics, every head: updates (minibatch updates taken), n_train, n_iid, n_ood (examples trained
on, in the iid test, in the split's test side) and max_train_value (the largest value trained on).
"classify":
    train_accuracy   over the kept updates of the epoch under way, else the last finished one
                     (SteppedRun.train_accuracy: weights moving; -1 before any update)
    iid_accuracy     on the iid test; ood_accuracy on the split's test side
"regress", "nau", "nmu", "nalu" (ŷ: the prediction, v: facts["value"]; ŷ clipped to
±MAX_PREDICTION first, so a NALU's overflowed exp is a large finite error, never inf):
    train_mse        the same average of the batches' mean squared error (-1 before any update)
    iid_mae, ood_mae       mean |ŷ − v| on each test set
    iid_exact, ood_exact   fraction with round(ŷ) == v
    max_abs_prediction     max |ŷ| over both test sets
    largest_value_reached  the largest v in the test sets (both) such that every test example
                           with value <= v has |ŷ − v| < 0.5 (largest_value_reached(); -1: none)
    bound            |b| + ‖w‖₁ of the head as it is (gleam.seqmodel.heads.regression_bound): no state in
                     [−1, 1]^n gives |ŷ| > bound, and every state of gleam's cells from h_0 = 0
                     lies there (a GRU's h_t is a convex mix of h_{t−1} and a tanh). For "nau" it
                     is ‖W‖₁ (a linear head with b = 0); "nmu" and "nalu" are not linear: -1 (the
                     NMU's products of factors in [1 − 2W, 1] stay in [−1, 1] on such states; the
                     NALU's exp has no such ceiling)
    ood_above_bound  fraction of the test side's v with |v| > bound: unreachable by any state
                     (-1 where bound is -1)
"analyse": true (classify only) adds experiments 4–6's measures of the trained model, taken on
learned models rather than on a model trained apart (gleam.labs.extrapolation.analysis names them;
gleam.labs.extrapolation.measures defines them): probes fitted on the first ANALYSE_N training
examples' states and scored on the first ANALYSE_N of the iid test (in distribution: values up to
the threshold), the partial-sum patch, the state swap, the depth-unit clamp and the Jacobian
products on those ANALYSE_N iid examples.
Seeding: SeedSequence(seed) spawns the examples, the train/iid partition, the initial weights,
the shuffling order, the probes' control labels and the swap pairing, so a config fixes its metrics on every backend. SumsRun(config) is the
same run taken a few updates at a time (gleam.labs.stepped): stepped to the end it is train_sums's.

    {"run": "gleam.labs.extrapolation.sums:train_sums",
     "grid": {"head": ["classify", "regress", "nau"], "seed": [0, 1, 2, 3, 4]},
     "fixed": {"split": "value"}}
"""
import math
import statistics

import numpy as np

from gleam import checks, costs, tasks
from gleam.tasks import splits
from gleam.cells.names import CELL_NAMES
from gleam.seqmodel.arith_heads import ARITH_HEADS
from gleam.labs.extrapolation import measures as parts
from gleam.labs.stepped import SteppedRun, adam_model, criterion_config, criterion_defaults
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.base import MAX_CHARS, MAX_EXAMPLES, MAX_LENGTH
from gleam.tasks.sums import longest_sum

__all__ = ["normalized", "prediction_curve", "train_sums", "SumsRun", "largest_value_reached", "DEFAULTS", "HEADS", "SPLITS",
           "THRESHOLDS", "VOCAB", "MAX_PREDICTION"]

HEADS = ("classify", "regress") + ARITH_HEADS
LINEAR = ("regress", "nau")                 # the heads with a bound |b| + ‖w‖₁
SPLITS = ("length", "depth", "composition", "value")
THRESHOLDS = {"length": 30, "depth": 3, "composition": [[3, 2], [7, 1]], "value": 40}
DEFAULTS = {"head": "regress", "split": "value", "threshold": None, "max_depth": 4,
            "max_operands": 3, "p_nest": 0.3, "n_examples": 1000, "iid_fraction": 0.2,
            "cell": "gru_torch", "n": 32, "epochs": 10, "lr": 0.01, "batch_size": 32, "clip": 5.0,
            "arith_reg": 0.0, "params": None, "analyse": False, **criterion_defaults(0.98), "seed": 0}
VOCAB = "".join(sorted("()+0123456789"))    # every character nested sums write
MAX_WIDTH, MAX_EPOCHS = 1024, 10 ** 4
MAX_PREDICTION = 1e12                       # |ŷ| is clipped here before the regression metrics
EVAL_BATCH = 256                            # sequences per forward pass when testing
ANALYSE_N = 200                             # examples the analysis reads (as analyse_sums's n_test)


def _threshold(split, t):
    if t is None:
        return THRESHOLDS[split]
    name = "config['threshold']"
    if split == "length":
        return checks.integer(name, t, minimum=1, maximum=MAX_LENGTH)
    if split == "depth":
        return checks.integer(name, t, minimum=0, maximum=MAX_LENGTH)
    if split == "value":
        return checks.number(name, t)
    if not isinstance(t, (list, tuple)):
        raise ValueError(f"{name} of the composition split must be a list of [digit, depth] "
                         f"pairs, got {t!r:.60}")
    return t


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_sums")

    def size(name, lo=1, hi=MAX_EXAMPLES):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi)

    out = dict(c, head=checks.one_of("config['head']", c["head"], HEADS),
               split=checks.one_of("config['split']", c["split"], SPLITS),
               max_depth=size("max_depth", hi=MAX_LENGTH), max_operands=size("max_operands", 2, MAX_LENGTH),
               p_nest=checks.number("config['p_nest']", c["p_nest"], 0, 1),
               n_examples=size("n_examples", 2),
               iid_fraction=checks.number("config['iid_fraction']", c["iid_fraction"], 0, 1,
                                          strict_min=True, strict_max=True),
               cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
               n=checks.integer("config['n']", c["n"], minimum=1, maximum=MAX_WIDTH, none_ok=True),
               params=checks.number("config['params']", c["params"], minimum=1, maximum=1e8, none_ok=True),
               epochs=size("epochs", hi=MAX_EPOCHS),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               batch_size=size("batch_size"),
               clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
               arith_reg=checks.number("config['arith_reg']", c["arith_reg"], minimum=0, maximum=1e6),
               analyse=checks.flag("config['analyse']", c["analyse"]),
               seed=checks.integer("config['seed']", c["seed"], minimum=0), **criterion_config(c))
    if (out["n"] is None) == (out["params"] is None):
        raise ValueError("give one of config['n'] (the width) and config['params'] (a parameter budget "
                         f"the cell's width is matched to), got n = {out['n']!r} and params = {out['params']!r}")
    if out["n"] is None:
        out["n"] = min(MAX_WIDTH, costs.matching_width(out["cell"], out["params"], len(VOCAB)))
    out["threshold"] = _threshold(out["split"], c["threshold"])
    if out["arith_reg"] != 0 and out["head"] not in ("nau", "nmu"):
        raise ValueError(f"config['arith_reg'] weighs the NAU/NMU penalty: it must be 0 for head "
                         f"{out['head']!r}, got {out['arith_reg']!r}")
    if out["analyse"] and out["head"] != "classify":
        raise ValueError(f"config['analyse'] measures a classify model (its probes and patches read value "
                         f"mod 10): head {out['head']!r} has none")
    longest = longest_sum(out["max_depth"], out["max_operands"])
    if longest > MAX_LENGTH:
        raise ValueError(f"config['max_depth'] = {out['max_depth']} with config['max_operands'] = "
                         f"{out['max_operands']} allows texts longer than {MAX_LENGTH} characters")
    checks.entries("config['n_examples']", out["n_examples"], (out["n_examples"], longest), limit=MAX_CHARS)
    return out


def _split(examples, split, threshold):
    """gleam.tasks.splits' split of the examples; a refusal is reported as config['threshold']'s."""
    try:
        if split == "value":
            held = {e.facts["value"] for e in examples if e.facts["value"] > threshold}
            if not held:
                raise ValueError("no example's value exceeds it, so the test set is empty")
            return splits.value_split(examples, held, key="value")
        if split == "composition":
            return splits.composition_split(examples, threshold, key="digit_depths")
        return (splits.length_split if split == "length" else splits.depth_split)(examples, threshold)
    except ValueError as e:
        raise ValueError(f"config['threshold'] = {threshold!r:.60} for the {split} split: {e}") from None


def largest_value_reached(values, predictions, tolerance=0.5):
    """The largest value v among `values` (>= 0) such that every example with value <= v is
    predicted within tolerance, |ŷ − value| < tolerance (a NaN or inf ŷ never is); -1.0 if the
    smallest value already fails. values, predictions: (N,), one per example."""
    v = checks.array("values", values, ndim=1, allow_empty=False)
    y = checks.array("predictions", predictions, ndim=1, finite=False)
    tol = checks.number("tolerance", tolerance, minimum=0, strict_min=True)
    if y.shape != v.shape:
        raise ValueError(f"predictions has shape {y.shape}, expected {v.shape} as values")
    if np.any(v < 0):
        raise ValueError("values must be >= 0 (-1 is the answer 'none'), got a negative one")
    with np.errstate(invalid="ignore"):
        right = np.abs(y - v) < tol
    if right.all():
        return float(v.max())
    below = v[v < v[~right].min()]      # every example below the smallest failing value is right
    return float(below.max()) if below.size else -1.0


class SumsRun(SteppedRun):
    """One configuration of train_sums, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is train_sums's run). The examples of each part are
    `train_examples`, `iid_examples`, `ood_examples`; metrics() tests the model as it is now."""

    def __init__(self, config):
        c = _config(config)
        # (spawn(6)'s first four children are spawn(4)'s: the analysis's seeds leave the rest as they were)
        data_ss, part_ss, self._weights_ss, self._order_ss, probe_ss, swap_ss = \
            np.random.SeedSequence(c["seed"]).spawn(6)
        self._probe_seed, self._swap_seed = child_seed(probe_ss), child_seed(swap_ss)
        examples = tasks.nested_sums(c["n_examples"], child_seed(data_ss), max_depth=c["max_depth"],
                                     max_operands=c["max_operands"], p_nest=c["p_nest"])
        split = _split(examples, c["split"], c["threshold"])
        order = np.random.default_rng(part_ss).permutation(len(split.train))
        n_iid, n_val = int(round(c["iid_fraction"] * len(split.train))), c["n_val"]
        if n_iid < 1 or n_iid + n_val >= len(split.train):
            raise ValueError(f"config['iid_fraction'] = {c['iid_fraction']} and config['n_val'] = {n_val} of "
                             f"{len(split.train)} train-side examples leave no in-distribution test or "
                             "nothing to train on")
        self.iid_examples = [split.train[i] for i in order[:n_iid]]
        # the validation set (early stopping) comes after the train examples in the permutation:
        # n_val = 0 leaves the train examples of a run without one as they were
        cut = len(split.train) - n_val
        self.train_examples = [split.train[i] for i in order[n_iid:cut]]
        self.val_examples = [split.train[i] for i in order[cut:]]
        self.ood_examples = split.test
        longest = max(len(e.text) for e in examples)
        checks.entries("config's batch_size and n", (c["batch_size"], c["n"]),
                       (longest, min(max(c["batch_size"], EVAL_BATCH), len(examples)), 4 * c["n"]))
        target = "target" if c["head"] == "classify" else "value"
        data, self._iid, self._ood = (tasks.encode(part, VOCAB, target=target) for part in
                                      (self.train_examples, self.iid_examples, self.ood_examples))
        self._val = tasks.encode(self.val_examples, VOCAB, target=target) if self.val_examples else None
        super().__init__(c, data, c["epochs"], c["batch_size"])

    def new_model(self):
        c = self.config
        return adam_model(c, len(VOCAB), c["n"], 10 if c["head"] == "classify" else 1, self._weights_ss,
                          self._order_ss, head=c["head"], arith_reg=c["arith_reg"])

    def predictions(self, data):
        """The model's predictions on a SeqData (class ids, or values), EVAL_BATCH at a time."""
        out = []
        for i in range(0, len(data), EVAL_BATCH):
            b = data.subset(np.arange(i, min(i + EVAL_BATCH, len(data))))
            with np.errstate(over="ignore", invalid="ignore"):
                out.append(self.model.predict(b.X, b.mask))
        return np.concatenate(out)

    def evaluate(self):
        """The metrics of train_sums (module docstring) for the model as it is now."""
        c = self.config
        fit = self.train_accuracy()
        fit = -1.0 if math.isnan(fit) else float(fit)
        counts = {"n_train": len(self.train_examples), "n_iid": len(self.iid_examples),
                  "n_ood": len(self.ood_examples),
                  "max_train_value": max(e.facts["value"] for e in self.train_examples)}
        if c["head"] == "classify":
            iid, ood = (float(np.mean(self.predictions(d) == d.targets)) for d in (self._iid, self._ood))
            return {"train_accuracy": fit, "iid_accuracy": iid, "ood_accuracy": ood, **counts,
                    **(self.analysis() if c["analyse"] else {})}
        (y_iid, v_iid), (y_ood, v_ood) = (
            (np.clip(np.nan_to_num(self.predictions(d), nan=MAX_PREDICTION, posinf=MAX_PREDICTION,
                                   neginf=-MAX_PREDICTION), -MAX_PREDICTION, MAX_PREDICTION),
             d.targets) for d in (self._iid, self._ood))
        bound = self.model.regression_bound() if c["head"] in LINEAR else -1.0
        above = float(np.mean(np.abs(v_ood) > bound)) if c["head"] in LINEAR else -1.0
        return {"train_mse": fit,
                "iid_mae": float(np.mean(np.abs(y_iid - v_iid))),
                "ood_mae": float(np.mean(np.abs(y_ood - v_ood))),
                "iid_exact": float(np.mean(np.rint(y_iid) == v_iid)),
                "ood_exact": float(np.mean(np.rint(y_ood) == v_ood)),
                "max_abs_prediction": float(max(np.abs(y_iid).max(), np.abs(y_ood).max())),
                "largest_value_reached": largest_value_reached(np.concatenate([v_iid, v_ood]),
                                                               np.concatenate([y_iid, y_ood])),
                "bound": float(bound), "ood_above_bound": above, **counts}

    def analysis(self):
        """Experiments 4–6's measures of the model as it is (module docstring, "analyse")."""
        model, examples = self.model, self.iid_examples[:ANALYSE_N]
        train = parts.state_rows(model, self.train_examples[:ANALYSE_N], VOCAB)
        test = parts.state_rows(model, examples, VOCAB)
        probe = parts.fit_partial_probe(train, self._probe_seed)
        return {**parts.probe_metrics(train, test, self._probe_seed),
                **parts.patch_metrics(model, probe, examples, VOCAB),
                **parts.swap_metrics(model, examples, VOCAB, self._swap_seed),
                **parts.clamp_metrics(model, train, examples, VOCAB),
                **parts.stability_metrics(model, examples, VOCAB)}

    def validation_score(self):
        """Accuracy (classify) or the fraction predicted exactly, round(ŷ) == v (value heads), on
        the validation set."""
        y = self.predictions(self._val)
        if self.config["head"] == "classify":
            return float(np.mean(y == self._val.targets))
        with np.errstate(invalid="ignore"):
            return float(np.mean(np.rint(y) == self._val.targets))

    def heldin_score(self, metrics):
        return metrics["iid_accuracy" if self.config["head"] == "classify" else "iid_exact"]

    def baseline_loss(self):
        """ln 10 for the classify head (the answer mod 10); for a value head, the variance of the
        training values (the squared error of always guessing their mean)."""
        if self.config["head"] == "classify":
            return math.log(10)
        values = [e.facts["value"] for e in self.train_examples]
        return statistics.pvariance(values)

    def table_rows(self):
        if self.config["head"] == "classify":
            return [("iid_accuracy", "in-distribution accuracy", "f3"), ("ood_accuracy", "held-out accuracy", "f3")]
        return [("iid_mae", "error on seen values (MAE)", "f2"), ("ood_mae", "error on held-out values (MAE)", "f2"),
                ("bound", "ceiling |b| + ‖w‖₁ (−1: none)", "f2"), ("max_abs_prediction", "largest |ŷ|", "f2"),
                ("ood_above_bound", "held-out values above the ceiling", "f2")]

    def figure(self):
        """A value head's mean prediction against the true value (prediction_curve); none for classify."""
        if self.config["head"] == "classify":
            return None
        return {"kind": "values", **prediction_curve(self)}


def prediction_curve(run):
    """A value head's mean prediction per true value over the run's iid and held-out examples,
    the model as it is -> {"values", "mean_prediction", "bound" (-1: none), "max_train_value"};
    the figure of the ceiling against the target as values grow. ValueError for a classifier."""
    if not isinstance(run, SumsRun):
        raise ValueError(f"run must be a SumsRun, got {type(run).__name__}")
    if run.config["head"] == "classify":
        raise ValueError("run has a classify head: prediction_curve draws a value head's predictions")
    y = np.concatenate([run.predictions(d) for d in (run._iid, run._ood)])
    y = np.clip(np.nan_to_num(y, nan=MAX_PREDICTION, posinf=MAX_PREDICTION, neginf=-MAX_PREDICTION),
                -MAX_PREDICTION, MAX_PREDICTION)
    v = np.concatenate([run._iid.targets, run._ood.targets])
    values = np.unique(v)
    return {"values": [float(x) for x in values],
            "mean_prediction": [float(y[v == x].mean()) for x in values],
            "bound": float(run.model.regression_bound()) if run.config["head"] in LINEAR else -1.0,
            "max_train_value": max(e.facts["value"] for e in run.train_examples)}


def normalized(config):
    """The config with every default filled in and checked: two configs name the same run exactly
    when their normalized forms are equal."""
    return _config(config)


def train_sums(config):
    """Train on one split of nested sums with the config's head -> metrics (module docstring)."""
    return SumsRun(config).run()
