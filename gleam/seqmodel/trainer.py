"""A batched trainer for small sequence models (`gleam.seqmodel.SeqModel`).

The trainer reports; the caller decides what to show. Each step returns the batch loss, the
pre-clip global gradient norm and its time. A diverging step (non-finite loss, gradient or
updated parameters) is reported and undone: the parameters and the optimiser's memory are
left as they were before it. After a kept step the model's `project()` runs (an NAU/NMU head's
weights clipped back into range; nothing for other heads), after the finiteness check, so a
clip never hides a divergence.

    from gleam.seqmodel import SeqModel, SeqModelConfig, SeqData, Trainer, pad_batch
    from gleam.optim import Adam
    model = SeqModel(SeqModelConfig("gru_textbook", d=5, n=16, n_out=2))
    data = SeqData.from_sequences(token_lists, labels)
    trainer = Trainer(model, Adam(0.01), clip=5.0, batch_size=32, seed=0)
    for epoch in range(20):
        stats = trainer.fit_epoch(data)
"""
import copy
import time
from dataclasses import dataclass

import numpy as np

from gleam import checks, optim
from gleam.seqmodel.batching import SeqData
from gleam.seqmodel.model import SeqModel


@dataclass
class BatchStats:
    """What one `Trainer.step(batch)` reports: one update on one batch."""
    loss: float        # mean loss of the batch before the update (non-finite if it diverged)
    grad_norm: float   # global L2 norm of the whole gradient, before clipping
    clipped: bool      # the gradient was rescaled to the clip norm
    diverged: bool     # the step was refused: parameters and optimiser memory unchanged
    metric: float      # accuracy (classify) or mean squared error (regress) on the batch
    count: int         # positions the loss averaged over
    seconds: float


@dataclass
class EpochStats:
    loss: float             # mean loss over the epoch's targets (finite steps only)
    metric: float           # accuracy or mean squared error over the same
    losses: np.ndarray      # (steps,) per-step losses, in order
    grad_norms: np.ndarray  # (steps,) pre-clip norms
    n_diverged: int         # steps refused as diverging
    steps: int
    seconds: float


def as_data(dataset):
    """A SeqData, or a tuple (X, mask, targets[, target_mask]) turned into one."""
    if isinstance(dataset, SeqData):
        return dataset
    if isinstance(dataset, (tuple, list)) and len(dataset) in (3, 4):
        return SeqData(*dataset)
    raise ValueError("a data set is a SeqData or a tuple (X, mask, targets[, target_mask])")


def _all_finite(arrays):
    return all(np.all(np.isfinite(a)) for a in arrays)


class Trainer:
    """Minibatch training of a SeqModel with any optimiser from gleam.optim.

    optimiser: an object with `.step(params, grads)` (SGD, Adagrad, Adam).
    clip: None, or a global-norm threshold (`gleam.optim.clip_global_norm`), applied after
      the backward pass and before the optimiser step.
    batch_size: sequences per step; seed: the shuffling order, np.random.default_rng(seed).
    truncate: None, or the backward horizon k of a many-to-one model (SeqModel.loss_and_grads).
    """

    def __init__(self, model, optimiser, clip=None, batch_size=32, seed=0, truncate=None):
        if not isinstance(model, SeqModel):
            raise ValueError(f"model must be a SeqModel, got {type(model).__name__}")
        if not callable(getattr(optimiser, "step", None)):
            raise ValueError("optimiser must have a .step(params, grads) method (see gleam.optim)")
        checks.number("clip", clip, minimum=0, strict_min=True, none_ok=True)
        self.model = model
        self.optimiser = optimiser
        self.clip = clip
        self.batch_size = checks.integer("batch_size", batch_size, minimum=1)
        self.rng = np.random.default_rng(checks.seed("seed", seed))
        self.steps = 0  # updates applied (refused steps not counted)
        self.truncate = checks.integer("truncate", truncate, minimum=1, none_ok=True)
        if self.truncate is not None and model.config.many_to_many:
            raise ValueError("truncate is for many-to-one models (one loss per sequence, at its end)")

    @property
    def lr(self):
        return self.optimiser.lr

    @lr.setter
    def lr(self, value):
        self.optimiser.lr = checks.number("lr", value, minimum=0)

    def step(self, batch):
        """One update on one batch (SeqData or tuple) -> BatchStats."""
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported, not warned
            return self._step(as_data(batch), time.perf_counter())

    def _step(self, b, t0):
        loss, grads, info = self.model.loss_and_grads(b.X, b.mask, b.targets,
                                                      target_mask=b.target_mask, truncate=self.truncate)
        metric = info["accuracy"] if "accuracy" in info else info["mse"]
        norm = optim.global_norm(grads)
        clipped = False

        def stats(diverged):
            return BatchStats(loss, norm, clipped, diverged, metric, info["count"],
                             time.perf_counter() - t0)

        if not (np.isfinite(loss) and np.isfinite(norm)):
            return stats(True)
        if self.clip is not None:
            grads, norm = optim.clip_global_norm(grads, self.clip)
            clipped = bool(norm > self.clip)
        params = self.model.params
        saved = {k: v.copy() for k, v in params.items()}
        saved_opt = copy.deepcopy(vars(self.optimiser))
        try:
            self.optimiser.step(params, grads)
        except optim.Diverged:          # refused before changing anything
            return stats(True)
        if not _all_finite(params.values()):
            for k, v in saved.items():  # undo in place: callers may hold these arrays
                np.copyto(params[k], v)
            vars(self.optimiser).clear()
            vars(self.optimiser).update(saved_opt)
            return stats(True)
        self.model.project()            # NAU/NMU weights back into range (a no-op otherwise)
        self.steps += 1
        return stats(False)

    def batches(self, dataset, shuffle=True):
        """Yield minibatches of `batch_size` sequences (shuffled by the trainer's rng)."""
        data = as_data(dataset)
        checks.flag("shuffle", shuffle)
        N = len(data)
        order = self.rng.permutation(N) if shuffle else np.arange(N)
        for i in range(0, N, self.batch_size):
            yield data.subset(order[i:i + self.batch_size])

    def fit_epoch(self, dataset, shuffle=True):
        """One pass over the data in minibatches -> EpochStats (a refused step does not stop it)."""
        t0 = time.perf_counter()
        losses, norms, tot, tot_metric, count, bad = [], [], 0.0, 0.0, 0, 0
        for batch in self.batches(dataset, shuffle):
            s = self.step(batch)
            losses.append(s.loss)
            norms.append(s.grad_norm)
            if s.diverged:
                bad += 1
                continue
            tot += s.loss * s.count
            tot_metric += s.metric * s.count
            count += s.count
        mean = tot / count if count else float("nan")
        return EpochStats(mean, tot_metric / count if count else float("nan"), np.array(losses),
                          np.array(norms), bad, len(losses), time.perf_counter() - t0)

    def evaluate(self, dataset, batch_size=None):
        """Loss and accuracy / mse over a data set, without updating -> dict."""
        data = as_data(dataset)
        bs = checks.integer("batch_size", batch_size, minimum=1, none_ok=True) or max(
            self.batch_size, 256)
        if len(data) == 0:
            raise ValueError("dataset holds no sequences: nothing to evaluate")
        tot, tot_metric, count = 0.0, 0.0, 0
        for i in range(0, len(data), bs):
            b = data.subset(np.arange(i, min(i + bs, len(data))))
            loss, info = self.model.loss(b.X, b.mask, b.targets, target_mask=b.target_mask)
            k = info["count"]
            tot += loss * k
            tot_metric += (info["accuracy"] if "accuracy" in info else info["mse"]) * k
            count += k
        key = "accuracy" if self.model.config.head == "classify" else "mse"
        return {"loss": tot / count, key: tot_metric / count, "count": count}

    def predict(self, X, mask=None, h0=None, intervene=None):
        return self.model.predict(X, mask, h0, intervene)

    def hidden_states(self, X, mask=None, h0=None, intervene=None, cell_state=False):
        return self.model.hidden_states(X, mask, h0, intervene, cell_state)
