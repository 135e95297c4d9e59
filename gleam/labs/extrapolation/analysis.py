"""The extrapolation lab's experiments 4–6: a GRU trained on nested sums, then three levels of
evidence about the model as it is (behaviour, information, mechanism) and its stability.

analyse_sums(config) trains a many-to-one classify SeqModel (cell, width n) with
gleam.seqmodel.Trainer and Adam on gleam.tasks.nested_sums examples (options max_depth,
max_operands, p_nest; target value mod 10, 10 classes; the model reads VOCAB), then tests it on
fresh draws from the same distribution (no split; short texts recur, so with the defaults about
a quarter of the test texts are also train texts). The measurements are
gleam.labs.extrapolation.measures's, whose docstring states each exactly; in brief:
    n_params, updates          the model's parameter count; minibatch updates taken
    train_accuracy             over the kept updates of the epoch under way, else the last
                               finished one's (gleam.labs.stepped; -1 before any update)
    test_accuracy              on the n_test fresh examples
  information (linear probes on h_t at every character: fitted on the first probe_examples
  train examples (all, if fewer), scored on the test examples; control tasks by bigram):
    probe_<L>_accuracy, probe_<L>_control_accuracy, probe_<L>_selectivity (their difference),
    probe_<L>_majority         for L in depth, partial, running, scope (scope: '+' rows only)
    pca_var_1, pca_var_2       explained variance ratios of the test states' first two PCs
  mechanism (on the test examples, at the state just before the final ')'):
    patch_<α>_probe_moved      fraction whose partial-probe reading becomes partial + 1 mod 10
                               after adding α d̂ (d̂ = the probe's w_{c+1} − w_c, normalised):
                               the edit is decodable
    patch_<α>_output_moved     fraction whose prediction becomes value + 1 mod 10: it is used
    swap_pairs, swap_follows, swap_unchanged   states exchanged between pairs of one length and
                               different values (-1 with no pair); since every text ends in ')',
                               follows = the fraction of pairs both answered right unswapped
    clamp_unit, clamp_corr, clamp_accuracy, clamp_changed   the unit most correlated with depth
                               (over the probes' train rows) clamped to its mean at every step
  stability (on the n_long longest test examples, J_s = ∂h_{s+1}/∂h_s):
    log10_sv_max_<s>, n_spans_<s>   median log10 σ_max of the products over spans of s steps
                               (-1 if no example is long enough), and how many spans
    growth_final               median log10 σ_max(∂h_{T−1}/∂h_0) (an exact 0 counts as −300)
"becomes" means: is the target after the edit and was not before it.
AnalysisRun(config) is the same run taken a few updates at a time (gleam.labs.stepped): stepped
to the end in any pieces it is analyse_sums's. Seeding: SeedSequence(seed) spawns the examples
(train, then test), the probes' control labels, the initial weights, the shuffling order and
the swap pairing, so a config fixes its metrics.

    {"run": "gleam.labs.extrapolation.analysis:analyse_sums",
     "grid": {"seed": [0, 1, 2, 3, 4]}, "fixed": {"epochs": 10}}
"""
import math

import numpy as np

from gleam import checks, tasks
from gleam.labs.extrapolation import measures as parts
from gleam.cells.names import CELL_NAMES
from gleam.instruments.states import pca
from gleam.labs.stepped import SteppedRun, adam_model, criterion_config, criterion_defaults
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.base import MAX_CHARS
from gleam.tasks.sums import longest_sum

__all__ = ["analyse_sums", "AnalysisRun", "normalized", "pca_by_depth", "DEFAULTS", "VOCAB"]

DEFAULTS = {"cell": "gru_torch", "n": 24, "max_depth": 3, "max_operands": 3, "p_nest": 0.3,
            "n_train": 1500, "n_test": 200, "probe_examples": 200, "epochs": 10, "lr": 0.01,
            "batch_size": 32, "clip": 5.0, "alphas": [0.5, 1, 2, 4], "spans": [1, 4, 16],
            "n_long": 4, **criterion_defaults(0.98), "seed": 0}
# n_test and probe_examples (the train examples the probes read: ~2,800 rows) are kept at 200 so
# that the default run, about 2 s of training, stays near 3 s in all
VOCAB = "()+0123456789"      # every character a nested sum can hold, in id order
MAX_WIDTH, MAX_EPOCHS, MAX_EXAMPLES, MAX_TEXT = 256, 10 ** 4, 10 ** 5, 512


def _config(config):
    c = with_defaults(config, DEFAULTS, "analyse_sums")

    def size(name, lo=1, hi=MAX_EXAMPLES):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi)

    out = dict(c, cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
               n=size("n", hi=MAX_WIDTH), max_depth=size("max_depth", hi=16),
               max_operands=size("max_operands", lo=2, hi=MAX_TEXT),
               p_nest=checks.number("config['p_nest']", c["p_nest"], 0, 1),
               n_train=size("n_train"), n_test=size("n_test"), probe_examples=size("probe_examples"),
               epochs=size("epochs", hi=MAX_EPOCHS), batch_size=size("batch_size"),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
               n_long=size("n_long", hi=64), seed=checks.integer("config['seed']", c["seed"], minimum=0),
               **criterion_config(c))
    longest = longest_sum(out["max_depth"], out["max_operands"])
    if longest > MAX_TEXT:
        raise ValueError(f"config['max_depth'] = {out['max_depth']} with config['max_operands'] = "
                         f"{out['max_operands']} allows texts longer than {MAX_TEXT} characters")
    for name in ("n_train", "n_test"):
        checks.entries(f"config[{name!r}]", out[name], (out[name], longest), limit=MAX_CHARS)
    batch = max(out["n_test"], min(max(out["batch_size"], out["probe_examples"]), out["n_train"]))
    checks.entries("config's n and the largest of n_test, batch_size and probe_examples", (out["n"], batch),
                   (longest, batch, 4 * out["n"]))
    for name, check in (("alphas", parts._alphas), ("spans", parts._spans)):
        try:
            out[name] = check(c[name])
        except ValueError as e:
            raise ValueError(f"config[{name!r}]: {e}") from None
    return out


class AnalysisRun(SteppedRun):
    """One configuration of analyse_sums, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is analyse_sums's run). metrics() measures the model as
    it is now; reset() starts the configuration again from its initial weights."""

    def __init__(self, config):
        c = _config(config)
        seeds = np.random.SeedSequence(c["seed"]).spawn(6)
        data_ss, probe_ss, self._weights_ss, self._order_ss, swap_ss, val_ss = seeds
        train_seed, test_seed = (int(s) for s in data_ss.generate_state(2))
        self._probe_seed, self._swap_seed = child_seed(probe_ss), child_seed(swap_ss)
        options = {"max_depth": c["max_depth"], "max_operands": c["max_operands"], "p_nest": c["p_nest"]}
        self.train_examples = tasks.nested_sums(c["n_train"], train_seed, **options)
        self.test_examples = tasks.nested_sums(c["n_test"], test_seed, **options)
        self._test = tasks.encode(self.test_examples, VOCAB)
        # early stopping's validation set: drawn as the training examples are
        self._val = (tasks.encode(tasks.nested_sums(c["n_val"], child_seed(val_ss), **options), VOCAB)
                     if c["n_val"] else None)
        super().__init__(c, tasks.encode(self.train_examples, VOCAB), c["epochs"], c["batch_size"])

    def new_model(self):
        c = self.config
        return adam_model(c, len(VOCAB), c["n"], 10, self._weights_ss, self._order_ss)

    def validation_score(self):
        """Accuracy (value mod 10) on the validation set (drawn as the training examples are)."""
        return float(np.mean(self.model.predict(self._val.X, self._val.mask) == self._val.targets))

    def heldin_score(self, metrics):
        return metrics["test_accuracy"]

    def evaluate(self):
        """The metrics of analyse_sums (module docstring) for the model as it is now."""
        c, model = self.config, self.model
        train = parts.state_rows(model, self.train_examples[:c["probe_examples"]], VOCAB)
        test = parts.state_rows(model, self.test_examples, VOCAB)
        probe = parts.fit_partial_probe(train, self._probe_seed)
        train_accuracy = self.train_accuracy()
        return {"n_params": model.n_params,
                "train_accuracy": -1.0 if math.isnan(train_accuracy) else float(train_accuracy),
                "test_accuracy": float(np.mean(test.predictions == self._test.targets)),
                **parts.probe_metrics(train, test, self._probe_seed),
                **parts.patch_metrics(model, probe, self.test_examples, VOCAB, c["alphas"]),
                **parts.swap_metrics(model, self.test_examples, VOCAB, self._swap_seed),
                **parts.clamp_metrics(model, train, self.test_examples, VOCAB),
                **parts.stability_metrics(model, self.test_examples, VOCAB, c["spans"], c["n_long"])}

    def baseline_loss(self):
        return math.log(10)                 # the answer's last digit

    def table_rows(self):
        c = self.config
        top, span = max(c["alphas"]), max(c["spans"])
        return [("test_accuracy", "test accuracy (mod 10)", "f3"),
                ("probe_depth_accuracy", "depth probe accuracy", "f2"),
                ("probe_depth_selectivity", "its selectivity", "f2"),
                ("probe_partial_accuracy", "partial-sum probe accuracy", "f2"),
                ("probe_partial_selectivity", "its selectivity", "f2"),
                (f"patch_{top:g}_probe_moved", f"patch α = {top:g}: probe reading moved", "f2"),
                (f"patch_{top:g}_output_moved", f"patch α = {top:g}: prediction moved", "f2"),
                ("clamp_accuracy", "accuracy with the depth unit clamped", "f3"),
                (f"log10_sv_max_{span}", f"median log10 σ_max over {span} steps", "f2")]

    def figure(self):
        """The test states on their first two principal components, by bracket depth (pca_by_depth)."""
        return {"kind": "states_by_depth", **pca_by_depth(self)}


def pca_by_depth(run, limit=600):
    """The first two principal components of the run's test states (the model as it is), at
    most `limit` rows in order, with the bracket depth after each character ->
    {"x", "y", "depth", "explained"}: the figure of the states coloured by depth."""
    if not isinstance(run, AnalysisRun):
        raise ValueError(f"run must be an AnalysisRun, got {type(run).__name__}")
    limit = checks.integer("limit", limit, minimum=2, maximum=10 ** 5)
    rows = parts.state_rows(run.model, run.test_examples, VOCAB)
    X, depth = rows.X[:limit], rows.labels["depth"][:limit]
    p = pca(X, 2)
    Z = (X - p.mean) @ p.components.T
    return {"x": [float(a) for a in Z[:, 0]], "y": [float(b) for b in Z[:, 1]],
            "depth": [int(d) for d in depth], "explained": [float(e) for e in p.explained_variance_ratio]}


def normalized(config):
    """The config with every default filled in and checked: two configs name the same run exactly
    when their normalized forms are equal."""
    return _config(config)


def analyse_sums(config):
    """Train on nested sums and measure the model at three levels, and its stability -> metrics."""
    return AnalysisRun(config).run()
