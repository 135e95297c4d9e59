"""Built-in run functions for gleam.sweep: each takes a config dict and returns its metrics.

train_task(config) trains a many-to-one SeqModel (gleam.seqmodel, a classify head over 2
classes) with gleam.seqmodel.Trainer and Adam on a task made from the config, then tests it on
fresh sequences of the same task. Config names, each with a default (DEFAULTS):
    task        a key of TASKS          cell        a name of gleam.cells.names.CELL_NAMES
    n           hidden width            epochs      passes over the training set
    lr          Adam's step size, (0, 1]            batch_size  sequences per update
    length      tokens per sequence     n_train, n_test   sequences to train and test on
    seed        everything random below comes from it
Seeding: SeedSequence(seed) spawns three children: the data (train, then test, from one
default_rng), the initial weights, and the shuffling order. So a config fixes its metrics,
whatever process or machine runs it (given the same NumPy).
Metrics: train_loss and train_accuracy of the last epoch as Trainer.fit_epoch reports them
(mean cross-entropy in nats, while the weights move); test_loss and test_accuracy from
Trainer.evaluate after training; steps (updates applied) and diverged_steps (refused).

Tasks (TASKS[name](rng, count, length) -> (X (length, count) token ids, y (count,), vocab)):
    parity          b_t ~ Bernoulli(½) i.i.d., tokens 0/1;  y = Σ_t b_t mod 2
    first_repeated  x_t uniform over VOCAB tokens; y ~ Bernoulli(½); the last token is set
                    to x_1 when y = 1, else to one of the other VOCAB − 1 tokens uniformly;
                    so y = [x_L = x_1] and P(y = 1) = ½ exactly (needs length >= 2)
A new task is one more function of that signature in TASKS.
"""
import numpy as np

from gleam import checks
from gleam.cells.names import CELL_NAMES
from gleam.optim import Adam
from gleam.seqmodel import SeqData, SeqModel, SeqModelConfig, Trainer
from gleam.sweep.config import child_seed, with_defaults

__all__ = ["train_task", "parity", "first_repeated", "TASKS", "DEFAULTS", "VOCAB"]

VOCAB = 4                 # first_repeated's tokens
MAX_WIDTH = 1024          # n
MAX_LENGTH = 1000         # tokens per sequence
MAX_SEQUENCES = 10 ** 5   # n_train, n_test, batch_size
MAX_EPOCHS = 10 ** 4

DEFAULTS = {"task": "parity", "cell": "gru_torch", "n": 16, "epochs": 5, "lr": 0.01,
            "batch_size": 32, "length": 8, "n_train": 256, "n_test": 256, "seed": 0}


def _sizes(rng, count, length, min_length):
    checks.generator("rng", rng)
    count = checks.integer("count", count, minimum=1, maximum=MAX_SEQUENCES)
    length = checks.integer("length", length, minimum=min_length, maximum=MAX_LENGTH)
    checks.entries("count", count, (length, count))
    return count, length


def parity(rng, count, length):
    """count bit strings: X (length, count) of 0/1, y = the parity of each column, vocab 2."""
    count, length = _sizes(rng, count, length, 1)
    X = rng.integers(0, 2, size=(length, count))
    return X, X.sum(axis=0) % 2, 2


def first_repeated(rng, count, length):
    """count sequences over VOCAB tokens: y = 1 where the last token repeats the first."""
    count, length = _sizes(rng, count, length, 2)
    X = rng.integers(0, VOCAB, size=(length, count))
    y = rng.integers(0, 2, size=count)
    other = (X[0] + rng.integers(1, VOCAB, size=count)) % VOCAB    # never X[0]
    X[-1] = np.where(y == 1, X[0], other)
    return X, y, VOCAB


TASKS = {"parity": parity, "first_repeated": first_repeated}



def _config(config):
    c = with_defaults(config, DEFAULTS, "train_task")

    def size(name, top):
        return checks.integer(f"config[{name!r}]", c[name], minimum=1, maximum=top)

    return dict(task=checks.one_of("config['task']", c["task"], tuple(TASKS)),
                cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
                n=size("n", MAX_WIDTH), epochs=size("epochs", MAX_EPOCHS),
                lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
                batch_size=size("batch_size", MAX_SEQUENCES), length=size("length", MAX_LENGTH),
                n_train=size("n_train", MAX_SEQUENCES), n_test=size("n_test", MAX_SEQUENCES),
                seed=checks.integer("config['seed']", c["seed"], minimum=0))



def train_task(config):
    """Train on config["task"] and test -> {train_loss, train_accuracy, test_loss,
    test_accuracy, steps, diverged_steps} (see the module docstring)."""
    c = _config(config)
    # the largest batch in one array: (length, B, 4n) gates, B up to evaluate's 256
    batch = min(max(c["batch_size"], 256), max(c["n_train"], c["n_test"]))
    checks.entries("config's length, batch_size and n", (c["length"], batch, c["n"]),
                   (c["length"], batch, 4 * c["n"]))
    data_ss, weights_ss, order_ss = np.random.SeedSequence(c["seed"]).spawn(3)
    rng = np.random.default_rng(data_ss)
    make = TASKS[c["task"]]
    X, y, vocab = make(rng, c["n_train"], c["length"])
    train = SeqData(X, None, y)
    X, y, _ = make(rng, c["n_test"], c["length"])
    test = SeqData(X, None, y)
    model = SeqModel(SeqModelConfig(c["cell"], d=vocab, n=c["n"], n_out=2,
                                    seed=child_seed(weights_ss)))
    trainer = Trainer(model, Adam(c["lr"]), batch_size=c["batch_size"], seed=child_seed(order_ss))
    diverged = 0
    for _ in range(c["epochs"]):
        stats = trainer.fit_epoch(train)
        diverged += stats.n_diverged
    if not np.isfinite(stats.loss):
        raise ValueError(f"config['lr'] = {c['lr']}: every step of the last epoch diverged "
                         "(non-finite gradients), so there is no loss to report")
    result = trainer.evaluate(test)
    return {"train_loss": float(stats.loss), "train_accuracy": float(stats.metric),
            "test_loss": float(result["loss"]), "test_accuracy": float(result["accuracy"]),
            "steps": int(trainer.steps), "diverged_steps": int(diverged)}
