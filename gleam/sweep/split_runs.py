"""The sweep run for the research labs: train on one split of a rule-made task, test in and out
of distribution.

train_on_split(config) makes `n_examples` examples of a gleam.tasks family (its options from
config["options"]), splits them by one rule of gleam.tasks.splits (length, depth, composition or
value, with its threshold; "none" holds nothing out), keeps a random `iid_fraction` of the
train side aside as an in-distribution test, trains a many-to-one classify SeqModel with
gleam.seqmodel.Trainer and Adam on the rest, and reports accuracy on the three:
    train_accuracy   the last epoch's, as Trainer.fit_epoch reports it (weights moving)
    iid_accuracy     held-out examples of the train side's distribution
    ood_accuracy     the split's test side (what it holds out); absent when split = "none"
and n_train, n_iid, n_ood, steps, diverged_steps. Classes: 0 … the largest target of all the
examples (a value split's held-out classes exist in the head, they are only never trained).
Seeding: SeedSequence(seed) spawns the examples, the train/iid partition, the initial weights
and the shuffling order, so a config fixes its metrics on every backend.

    {"run": "gleam.sweep.split_runs:train_on_split",
     "grid": {"split": ["length", "depth"], "cell": ["gru_torch", "lstm"], "seed": [0, 1, 2]},
     "fixed": {"family": "nested_sums", "options": {"max_depth": 4}, "threshold": 3}}
"""
import numpy as np

from gleam import checks, tasks
from gleam.tasks import splits
from gleam.cells.names import CELL_NAMES
from gleam.optim import Adam
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.sweep.config import child_seed, with_defaults
from gleam.seqmodel import Trainer

__all__ = ["train_on_split", "DEFAULTS", "SPLITS"]

SPLITS = {"length": splits.length_split, "depth": splits.depth_split,
          "composition": splits.composition_split, "value": splits.value_split, "none": None}
DEFAULTS = {"family": "nested_sums", "options": {}, "n_examples": 2000, "split": "depth",
            "threshold": 2, "iid_fraction": 0.2, "cell": "gru_torch", "n": 32, "epochs": 10,
            "lr": 0.01, "batch_size": 32, "clip": 5.0, "seed": 0}
MAX_WIDTH, MAX_EPOCHS = 1024, 10 ** 4


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_on_split")
    if not isinstance(c["options"], dict):
        raise ValueError(f"config['options'] must be a dict of the family's options, got {c['options']!r:.80}")
    return dict(c, family=checks.one_of("config['family']", c["family"], tuple(tasks.FAMILIES)),
                split=checks.one_of("config['split']", c["split"], tuple(SPLITS)),
                n_examples=checks.integer("config['n_examples']", c["n_examples"], minimum=2),
                iid_fraction=checks.number("config['iid_fraction']", c["iid_fraction"], 0, 1,
                                           strict_min=True, strict_max=True),
                cell=checks.one_of("config['cell']", c["cell"], CELL_NAMES),
                n=checks.integer("config['n']", c["n"], minimum=1, maximum=MAX_WIDTH),
                epochs=checks.integer("config['epochs']", c["epochs"], minimum=1, maximum=MAX_EPOCHS),
                lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
                batch_size=checks.integer("config['batch_size']", c["batch_size"], minimum=1),
                clip=checks.number("config['clip']", c["clip"], minimum=0, strict_min=True, none_ok=True),
                seed=checks.integer("config['seed']", c["seed"], minimum=0))


def _target(example):
    if not isinstance(example.target, int):
        raise ValueError("train_on_split trains a classifier: the family's target must be a "
                         f"class per sequence, got {example.target!r:.40} (predict mode?)")
    return example.target


def train_on_split(config):
    """Train on one split of a rule-made task -> its metrics (see the module docstring)."""
    c = _config(config)
    data_ss, part_ss, weights_ss, order_ss = np.random.SeedSequence(c["seed"]).spawn(4)
    examples = tasks.FAMILIES[c["family"]](c["n_examples"], child_seed(data_ss), **c["options"])
    classes = max(_target(e) for e in examples) + 1
    if c["split"] == "none":
        train_side, ood = list({e.text: e for e in reversed(examples)}.values())[::-1], []
    else:
        split = SPLITS[c["split"]](examples, c["threshold"])
        train_side, ood = split.train, split.test
    order = np.random.default_rng(part_ss).permutation(len(train_side))
    n_iid = int(round(c["iid_fraction"] * len(train_side)))
    if n_iid < 1 or n_iid >= len(train_side):
        raise ValueError(f"config['iid_fraction'] = {c['iid_fraction']} of {len(train_side)} train-side "
                         "examples leaves no in-distribution test or nothing to train on")
    iid = [train_side[i] for i in order[:n_iid]]
    train = [train_side[i] for i in order[n_iid:]]
    vocab = tasks.vocabulary(examples)
    model = SeqModel(SeqModelConfig(c["cell"], d=len(vocab), n=c["n"], n_out=max(2, classes),
                                    seed=child_seed(weights_ss)))
    trainer = Trainer(model, Adam(c["lr"]), clip=c["clip"], batch_size=c["batch_size"],
                      seed=child_seed(order_ss))
    data = tasks.encode(train, vocab)
    diverged = 0
    for _ in range(c["epochs"]):
        stats = trainer.fit_epoch(data)
        diverged += stats.n_diverged

    def accuracy(part):
        return float(trainer.evaluate(tasks.encode(part, vocab))["accuracy"])

    out = {"train_accuracy": float(stats.metric), "iid_accuracy": accuracy(iid),
           "n_train": len(train), "n_iid": len(iid), "n_ood": len(ood),
           "steps": int(trainer.steps), "diverged_steps": int(diverged)}
    if ood:
        out["ood_accuracy"] = accuracy(ood)
    return out
