"""A training run of fixed length, taken a few updates at a time: the research labs' retrain.

A run is one config of a sweep's run function: its data, its model and gleam.seqmodel.Trainer,
a number of epochs, then its metrics. SteppedRun does the stepping once for every such run:

    step(n)     the next n minibatch updates, never past the last epoch -> RunStats; the epochs are
                Trainer.fit_epoch's, batch for batch (one permutation per epoch from the trainer's
                rng), so a run stepped to the end in any pieces is the run function's run
    finished    every update taken; epoch: epochs finished; steps: updates taken (refused ones
                included, as fit_epoch takes them)
    reset()     the same config again from its initial weights (a new model and trainer)
    metrics()   the run function's metrics of the model as it is now, finished or not
    train_accuracy()  over the kept updates of the epoch under way, else the last finished one's
                (NaN before any)

A subclass sets, in `__init__` before calling `super().__init__(config, data, epochs,
batch_size)`, whatever `new_model()` needs, and defines
    new_model() -> (SeqModel, Trainer)   seeded from the config alone
    evaluate() -> dict of numbers        the metrics (metrics() adds "updates")
and may define end_epoch() (called after each epoch's last update, e.g. to record a gradient).
The stepping is what app.widgets.live_loop.LiveLoop trains (`step`, `reset`, `steps`, `finished`).

Trained to a criterion (run(): the research labs' records). A run whose config has
check_every > 0 is validated every check_every updates (and at the cap) on a validation set drawn
from its training distribution, apart from every test set: validation_score() in [0, 1]. It
stops at the first check with a score >= config["stop_at"] (if the config has none: the
criterion; a stop above the criterion leaves a margin, so that a run stopped there is not
decided by the held-in test's sampling noise); a run that reaches its cap (the last epoch)
without one keeps the weights of its best check (the first, on a tie): early stopping. The
criterion is fixed before any run and the held-in test decides whether the run learned:
learned = 1 when heldin_score(metrics) — the same statistic on the held-in test set — is >= the
criterion, else 0. A config with lr_drop_at set multiplies the learning rate by lr_drop once, at
the first check whose score is >= lr_drop_at (a step decay after the rise: a run whose validation
score swings between checks at its constant rate may settle at a smaller one); lr_drop_at None
(the default) keeps the rate constant. run() adds to the metrics
    learned, val_score (the kept check's), kept_updates (the updates of the kept weights),
    heldin_score (and with lr_drop_at set: lr_dropped_at, the updates at the drop, -1 if none)
and returns, beside them, "curve" (every check as [updates, validation score]) and "weights"
(the kept model's parameters as nested lists): gleam.sweep.run_one moves both out of the
metrics into the record. check_every = 0 trains every update of every epoch and validates
nothing (the in-page retrain, a demonstration at a short budget).
"""
import time
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.optim import Adam
from gleam.seqmodel.model import SeqModel, SeqModelConfig
from gleam.seqmodel.trainer import Trainer
from gleam.sweep.config import child_seed

__all__ = ["RunStats", "SteppedRun", "adam_model", "criterion_defaults", "criterion_config"]


def criterion_defaults(criterion):
    """The config keys of training to a criterion (module docstring) and their defaults: a run
    function's DEFAULTS take them from here (check_every 0: trained to the end, no validation)."""
    return {"n_val": 0, "check_every": 0, "criterion": criterion, "stop_at": None, "lr_drop_at": None,
            "lr_drop": 0.1}


def criterion_config(c, max_val=10 ** 5):
    """Those keys of config c (defaults filled in) checked -> a dict of the six; ValueError by
    name for a bad one, or for check_every > 0 without a validation set (n_val <= max_val)."""
    out = {"n_val": checks.integer("config['n_val']", c["n_val"], minimum=0, maximum=max_val),
           "check_every": checks.integer("config['check_every']", c["check_every"], minimum=0, maximum=10 ** 5),
           "criterion": checks.number("config['criterion']", c["criterion"], 0, 1),
           "stop_at": checks.number("config['stop_at']", c["stop_at"], 0, 1, none_ok=True),
           "lr_drop_at": checks.number("config['lr_drop_at']", c["lr_drop_at"], 0, 1, none_ok=True),
           "lr_drop": checks.number("config['lr_drop']", c["lr_drop"], 0, 1, strict_min=True)}
    if out["check_every"] and not out["n_val"]:
        raise ValueError("config['check_every'] > 0 validates on config['n_val'] examples: give n_val >= 1")
    return out


def adam_model(c, d, n, n_out, weights_ss, order_ss, truncate=None, **model):
    """(SeqModel, Trainer) as every research run makes them: config c's cell, d inputs, width n,
    n_out outputs (and `model`'s other SeqModelConfig fields), its initial weights seeded from
    weights_ss; trained by Adam(c["lr"]) with c's clip and batch size, shuffled from order_ss."""
    m = SeqModel(SeqModelConfig(c["cell"], d=d, n=n, n_out=n_out, seed=child_seed(weights_ss), **model))
    return m, Trainer(m, Adam(c["lr"]), clip=c["clip"], batch_size=c["batch_size"], seed=child_seed(order_ss),
                      truncate=truncate)


@dataclass
class RunStats:
    """What SteppedRun.step(n) reports (the shape app.widgets.live_loop reads)."""
    loss: np.ndarray    # the batch loss of each update taken, in order
    n: int              # updates taken (0: the run had finished)
    seconds: float
    diverged: bool      # an update was refused (gleam.seqmodel.Trainer), as fit_epoch counts it


class SteppedRun:
    """The stepping of a run (module docstring); subclasses give the model and the metrics."""

    def __init__(self, config, data, epochs, batch_size):
        self.config = config
        self._data = data
        self.steps_per_epoch = -(-len(data) // batch_size)
        self.total_steps = epochs * self.steps_per_epoch
        self.reset()

    def new_model(self):
        raise NotImplementedError

    def evaluate(self):
        raise NotImplementedError

    def end_epoch(self):
        """After each epoch's last update (nothing by default)."""

    def reset(self):
        self.model, self.trainer = self.new_model()
        self.steps = 0
        self.epoch = 0
        self._batches = None
        self._epoch = [0.0, 0]         # this epoch's kept updates: sum of metric·count, count
        self._last_epoch = float("nan")
        self.after_reset()

    def after_reset(self):
        """After a reset's new model (nothing by default): clear what end_epoch records."""

    @property
    def finished(self):
        return self.steps >= self.total_steps

    def step(self, n=1):
        """The next n updates (fewer if the run ends first) -> RunStats."""
        n = checks.integer("n", n, minimum=1, maximum=10 ** 6)
        t0, losses, diverged = time.perf_counter(), [], False
        while len(losses) < n and not self.finished:
            if self._batches is None:
                self._batches = self.trainer.batches(self._data)
            s = self.trainer.step(next(self._batches))
            self.steps += 1
            losses.append(s.loss)
            diverged |= s.diverged
            if not s.diverged:
                self._epoch[0] += s.metric * s.count
                self._epoch[1] += s.count
            if self.steps % self.steps_per_epoch == 0:
                self._batches = None
                total, count = self._epoch
                self._last_epoch = total / count if count else float("nan")
                self._epoch = [0.0, 0]
                self.epoch += 1
                self.end_epoch()
        return RunStats(np.array(losses, dtype=float), len(losses), time.perf_counter() - t0, diverged)

    def train_accuracy(self):
        total, count = self._epoch
        return total / count if count else self._last_epoch

    def metrics(self):
        return {"updates": self.steps, **self.evaluate()}

    # ------------------------------------------------------------ trained to a criterion
    def validation_score(self):
        """The model's score in [0, 1] on the validation set (drawn from the training
        distribution, apart from the test sets); the criterion is on this scale."""
        raise NotImplementedError

    def heldin_score(self, metrics):
        """The statistic validation_score measures, on the held-in test set, from metrics()."""
        raise NotImplementedError

    def run(self):
        """Train to the criterion (module docstring), or every update left when check_every is
        0, then the metrics (what the run function returns)."""
        every = self.config.get("check_every", 0)
        if not every:
            self.step(self.total_steps)
            return self.metrics()
        criterion = self.config["criterion"]
        stop = criterion if self.config.get("stop_at") is None else self.config["stop_at"]
        curve, best = [], (-1.0, 0, None)       # (score, updates, weights) of the best check so far
        drop_at, dropped = self.config.get("lr_drop_at"), -1
        while True:
            self.step(every)
            score = float(self.validation_score())
            curve.append([self.steps, score])
            if drop_at is not None and dropped < 0 and score >= drop_at:
                self.trainer.lr = self.trainer.lr * self.config["lr_drop"]
                dropped = self.steps
            if score > best[0]:
                best = (score, self.steps, {k: v.copy() for k, v in self.model.params.items()})
            if score >= stop or self.finished:
                break
        if best[1] != self.steps:       # stopped at the cap, past its best check: that check's weights
            for k, v in best[2].items():
                np.copyto(self.model.params[k], v)
        out = self.metrics()
        heldin = float(self.heldin_score(out))
        out.update(learned=int(heldin >= criterion), val_score=best[0], kept_updates=best[1], heldin_score=heldin)
        if drop_at is not None:
            out["lr_dropped_at"] = dropped
        out["curve"] = curve
        out["weights"] = {k: v.tolist() for k, v in self.model.params.items()}
        return out

    # ------------------------------------------------------------ what a page shows of it
    def baseline_loss(self):
        """The training loss of a guess that ignores the input: the loss curve's reference line."""
        raise NotImplementedError

    def table_rows(self):
        """What is measured of this run, in the order a table shows it: (metric, label, format)
        with format "f2", "f3", "horizon" (-1 is "none") or "sci"."""
        raise NotImplementedError

    def figure(self):
        """What this run's figure draws, as plain data ({"kind": ..., ...}), or None: no figure."""
        return None
