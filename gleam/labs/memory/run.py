"""The sweep run for the memory lab: a small recurrent model trained on cue–delay, then put
through the acceptance test (gleam.labs.memory.acceptance).

train_cue_delay(config) trains a many-to-one classify SeqModel (cell: elman, gru_torch or lstm)
on gleam.tasks.cue_delay examples (delays drawn from `delay`, '?' queries with probability
p_needs_cue, a superseding cue with probability p_supersede) with gleam.seqmodel.Trainer and Adam,
(truncate: a backward horizon of k steps, gleam.seqmodel; None: full BPTT) at a width chosen to
match a parameter budget: n = gleam.costs.matching_width(cell,
params, d) (the cell's parameters; the readout adds 2n + 2), so cells are compared at matched
counts; `n` in the config overrides it. It reports, as plain numbers:
    n, n_params               the width used and the model's whole parameter count
    updates                   minibatch updates taken (epochs × ⌈n_train / batch_size⌉ at the end)
    train_accuracy            over the last epoch's updates (weights moving; -1 before any)
    test_accuracy             on fresh examples; test_needs_cue_accuracy on their '?' queries
                              (-1 if none): the part that needs the cue
    cue_grad, cue_grad_epoch_<e>  mean ‖∂L/∂x_0‖ over the test set (full backpropagation) now
                              and after each epoch e: how much of the loss's gradient reaches
                              the cue's step (the forget-gate bias experiment)
    retention_p50, _p95, _max the retention curve's horizons (gleam.labs.memory.acceptance.horizons) over
                              `probe_delays`; -1 where never reached (JSON lines hold numbers)
    retention_at_<Δ>          R(Δ) at each probe delay
    swap_swapped, erasure_drop, needs_cue_accuracy, no_memory_accuracy, revision_latency (-1:
                              none), each from the acceptance test at delay `probe_delay`
    window_needs_cue_accuracy, window_no_memory_accuracy  the current-window baseline (a linear
                              probe on the last WINDOW characters and the query, fitted on the
                              training examples) on the read-selectivity sets
CueDelayRun(config) is the same run taken a few updates at a time (a page's retrain, with
progress and a Stop that keeps the model): stepped to the end it is train_cue_delay's.
Seeding: SeedSequence(seed) spawns the examples, the initial weights, the shuffling order and
the acceptance test's probe sets, so a config fixes its metrics on every backend.

    {"run": "gleam.labs.memory.run:train_cue_delay",
     "grid": {"cell": ["elman", "gru_torch", "lstm"], "seed": [0, 1, 2, 3, 4]},
     "fixed": {"delay": [8, 24], "params": 600}}
"""
import math

import numpy as np

from gleam import checks, tasks
from gleam.labs.memory import acceptance
from gleam import costs as counting
from gleam.cells.names import CELL_NAMES
from gleam.labs.stepped import SteppedRun, adam_model, criterion_config, criterion_defaults
from gleam.sweep.config import child_seed, with_defaults
from gleam.tasks.delayed_cue import CUES, QUERIES, channels

__all__ = ["train_cue_delay", "CueDelayRun", "DEFAULTS", "normalized"]

DEFAULTS = {"cell": "gru_torch", "params": 600, "n": None, "delay": [4, 16], "p_needs_cue": 0.5,
            "p_supersede": 0.0, "n_train": 2000, "n_test": 400, "epochs": 10, "lr": 0.01,
            "batch_size": 32, "clip": 5.0, "forget_bias": 1.0, "truncate": None, "probe_delays": [1, 2, 4, 8, 16, 32],
            "probe_delay": 8, "probe_n": 100, "amplitude": None, "probe_amplitudes": [0.5, 1.0, 2.0, 4.0],
            **criterion_defaults(0.95), "seed": 0}
MAX_WIDTH, MAX_EPOCHS, MAX_EXAMPLES = 512, 10 ** 4, 10 ** 5
DISTRACTORS = "cdef"        # cue_delay's default alphabet, which the acceptance test probes with
WINDOW = 2                  # the current-window baseline reads the last WINDOW characters and the query


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_cue_delay")

    def size(name, lo=1, hi=MAX_EXAMPLES, none_ok=False):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi, none_ok=none_ok)

    if not isinstance(c["delay"], (int, list, tuple)) or isinstance(c["delay"], bool):
        raise ValueError(f"config['delay'] must be an integer or a [lo, hi] pair, got {c['delay']!r:.60}")
    if not isinstance(c["probe_amplitudes"], (list, tuple)) or not c["probe_amplitudes"]:
        raise ValueError(f"config['probe_amplitudes'] must be a non-empty list of amplitudes, "
                         f"got {c['probe_amplitudes']!r:.60}")
    if not isinstance(c["probe_delays"], (list, tuple)) or not c["probe_delays"]:
        raise ValueError(f"config['probe_delays'] must be a non-empty list of delays, got {c['probe_delays']!r:.60}")
    return dict(c, cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
                params=checks.number("config['params']", c["params"], minimum=1),
                n=size("n", hi=MAX_WIDTH, none_ok=True),
                delay=tuple(c["delay"]) if isinstance(c["delay"], (list, tuple)) else c["delay"],
                p_needs_cue=checks.number("config['p_needs_cue']", c["p_needs_cue"], 0, 1),
                p_supersede=checks.number("config['p_supersede']", c["p_supersede"], 0, 1),
                n_train=size("n_train"), n_test=size("n_test"),
                epochs=size("epochs", hi=MAX_EPOCHS), batch_size=size("batch_size"),
                lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
                clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
                forget_bias=checks.number("config['forget_bias']", c["forget_bias"]),
                truncate=size("truncate", hi=10 ** 4, none_ok=True),
                probe_delay=size("probe_delay", hi=10 ** 4), probe_n=size("probe_n", hi=2048),
                amplitude=checks.number("config['amplitude']", c["amplitude"], minimum=0, maximum=1e6,
                                        strict_min=True, none_ok=True),
                probe_amplitudes=[checks.number("config['probe_amplitudes']", a, minimum=0, maximum=1e6,
                                                strict_min=True) for a in c["probe_amplitudes"]],
                seed=checks.integer("config['seed']", c["seed"], minimum=0), **criterion_config(c))


class CueDelayRun(SteppedRun):
    """One configuration of train_cue_delay, trained a few updates at a time (gleam.labs.stepped:
    stepped to the end in any pieces, it is train_cue_delay's run). After each epoch the mean
    ‖∂L/∂x_0‖ over the test set is recorded (cue_grads). metrics() puts the model as it is now
    through the acceptance test; reset() starts the configuration again from its initial weights."""

    def __init__(self, config):
        c = _config(config)
        data_ss, self._weights_ss, self._order_ss, probe_ss, val_ss = np.random.SeedSequence(c["seed"]).spawn(5)
        data_seed, self._probe_seed = child_seed(data_ss), child_seed(probe_ss)
        options = {"delay": c["delay"], "p_needs_cue": c["p_needs_cue"], "p_supersede": c["p_supersede"],
                   "amplitude": c["amplitude"]}
        self.train_examples = tasks.cue_delay(c["n_train"], data_seed, **options)
        self.test_examples = tasks.cue_delay(c["n_test"], data_seed + 1, **options)
        features = c["amplitude"] is not None
        # token ids over every character the task can hold, or features over its channels
        self.vocab = channels(DISTRACTORS) if features else "".join(sorted(CUES + QUERIES + DISTRACTORS))
        d = len(self.vocab)
        self.n = c["n"] if c["n"] is not None else min(MAX_WIDTH, counting.matching_width(c["cell"], c["params"], d))
        data = tasks.encode(self.train_examples, None if features else self.vocab, features=features)
        self._held = tasks.encode(self.test_examples, None if features else self.vocab, features=features)
        self._needs_cue = np.array([e.text[-1] == QUERIES[0] for e in self.test_examples])
        # early stopping's validation set: drawn as the training examples are
        val = tasks.cue_delay(c["n_val"], child_seed(val_ss), **options) if c["n_val"] else []
        self._val = tasks.encode(val, None if features else self.vocab, features=features) if val else None
        self._val_needs_cue = np.array([e.text[-1] == QUERIES[0] for e in val])
        super().__init__(c, data, c["epochs"], c["batch_size"])

    def new_model(self):
        c = self.config
        return adam_model(c, len(self.vocab), self.n, 2, self._weights_ss, self._order_ss,
                          truncate=c["truncate"], forget_bias=c["forget_bias"])

    def after_reset(self):
        self.cue_grads = []            # after each finished epoch

    def end_epoch(self):
        self.cue_grads.append(self.cue_grad())

    def cue_grad(self):
        """Mean ‖∂L/∂x_0‖ over the test set, by full backpropagation: what would reach the cue."""
        _, _, info = self.model.loss_and_grads(self._held.X, self._held.mask, self._held.targets)
        return float(np.mean(np.linalg.norm(info["dX"][0], axis=-1)))

    def validation_score(self):
        """The smaller of the accuracy on the validation set's '?' queries (the ones that need the
        cue) and on all of them: a model that has solved '?' but not yet '!' has not learned."""
        right = np.asarray(self.model.predict(self._val.X, self._val.mask)) == np.asarray(self._val.targets)
        return min(float(right.mean()), float(right[self._val_needs_cue].mean()) if self._val_needs_cue.any() else 1.0)

    def heldin_score(self, metrics):
        cue = metrics["test_needs_cue_accuracy"]
        return min(metrics["test_accuracy"], 1.0 if cue < 0 else cue)

    def evaluate(self):
        """The metrics of train_cue_delay (module docstring) for the model as it is now."""
        c = self.config
        amp = c["amplitude"]
        report = acceptance.acceptance_report(
            self.model, None if amp is not None else self.vocab, delays=c["probe_delays"], n=c["probe_n"],
            seed=self._probe_seed, delay=c["probe_delay"], train_examples=self.train_examples, window=WINDOW,
            amplitude=amp, amplitudes=None if amp is None else c["probe_amplitudes"])
        ret, window, grid = report["retention"], report["window_baseline"], report["interference"]
        train_accuracy = self.train_accuracy()
        pred = self.model.predict(self._held.X, self._held.mask)
        right = np.asarray(pred) == np.asarray(self._held.targets)
        out = {"n": self.n, "n_params": self.model.n_params,
               "train_accuracy": -1.0 if math.isnan(train_accuracy) else float(train_accuracy),
               "test_accuracy": float(right.mean()),
               "test_needs_cue_accuracy": float(right[self._needs_cue].mean()) if self._needs_cue.any() else -1.0,
               "cue_grad": self.cue_grad(),
               **{f"cue_grad_epoch_{e + 1}": g for e, g in enumerate(self.cue_grads)},
               **{f"retention_{k}": -1 if ret[k] is None else ret[k] for k in ("p50", "p95", "max")},
               **{f"retention_at_{dl}": r for dl, r in zip(ret["delays"], ret["retention"])},
               "swap_swapped": report["state_swap"]["swapped"], "erasure_drop": report["cue_erasure"]["drop"],
               "needs_cue_accuracy": report["read_selectivity"]["accuracy_needs_cue"],
               "no_memory_accuracy": report["read_selectivity"]["accuracy_no_memory"],
               "window_needs_cue_accuracy": window["accuracy_needs_cue"],
               "window_no_memory_accuracy": window["accuracy_no_memory"],
               "revision_latency": -1 if report["revision"]["latency"] is None else report["revision"]["latency"]}
        for count, row in zip(grid["counts"], grid["accuracy"]):
            for a, acc in zip(grid["amplitudes"], row):
                out[f"interference_{count}" + ("" if a is None else f"_{a:g}")] = acc
        return out


def normalized(config):
    """The config with every default filled in and every value checked: two configs describe the
    same run exactly when their normalized forms are equal."""
    return _config(config)


def train_cue_delay(config):
    """Train on cue–delay at a matched parameter count and run the acceptance test -> metrics."""
    return CueDelayRun(config).run()
