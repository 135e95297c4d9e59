"""The sweep run for the memory lab: a small recurrent model trained on cue–delay, then put
through the acceptance test (gleam.acceptance).

train_cue_delay(config) trains a many-to-one classify SeqModel (cell: elman, gru_torch or lstm)
on gleam.tasks.cue_delay examples (delays drawn from `delay`, '?' queries with probability
p_needs_cue, a superseding cue with probability p_supersede) with gleam.train.Trainer and Adam,
(truncate: a backward horizon of k steps, gleam.train; None: full BPTT) at a width chosen to
match a parameter budget: n = gleam.counting.matching_width(cell,
params, d) (the cell's parameters; the readout adds 2n + 2), so cells are compared at matched
counts; `n` in the config overrides it. It reports, as plain numbers:
    n, n_params               the width used and the model's whole parameter count
    train_accuracy            the last epoch's (weights moving), test_accuracy on fresh examples
    cue_grad_first, cue_grad  mean ‖∂L/∂x_0‖ over the test set (full backpropagation) after the
                              first epoch and after the last: how much of the loss's gradient
                              reaches the cue's step (the forget-gate bias experiment)
    retention_p50, _p95, _max the retention curve's horizons (gleam.acceptance.horizons) over
                              `probe_delays`; -1 where never reached (JSON lines hold numbers)
    retention_at_<Δ>          R(Δ) at each probe delay
    swap_swapped, erasure_drop, needs_cue_accuracy, no_memory_accuracy, revision_latency (-1:
                              none), each from the acceptance test at delay `probe_delay`
Seeding: SeedSequence(seed) spawns the examples, the initial weights, the shuffling order and
the acceptance test's probe sets, so a config fixes its metrics on every backend.

    {"run": "gleam.sweep_memory:train_cue_delay",
     "grid": {"cell": ["elman", "gru_torch", "lstm"], "seed": [0, 1, 2, 3, 4]},
     "fixed": {"delay": [8, 24], "params": 600}}
"""
import numpy as np

from gleam import acceptance, checks, counting, tasks
from gleam.cell_names import CELL_NAMES
from gleam.optim import Adam
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.sweep_runs import _seed, _with_defaults
from gleam.tasks_cue_delay import CUES, QUERIES
from gleam.train import Trainer

__all__ = ["train_cue_delay", "DEFAULTS"]

DEFAULTS = {"cell": "gru_torch", "params": 600, "n": None, "delay": [4, 16], "p_needs_cue": 0.5,
            "p_supersede": 0.0, "n_train": 2000, "n_test": 400, "epochs": 10, "lr": 0.01,
            "batch_size": 32, "clip": 5.0, "forget_bias": 1.0, "truncate": None, "probe_delays": [1, 2, 4, 8, 16, 32],
            "probe_delay": 8, "probe_n": 100, "seed": 0}
MAX_WIDTH, MAX_EPOCHS, MAX_EXAMPLES = 512, 10 ** 4, 10 ** 5
DISTRACTORS = "cdef"        # cue_delay's default alphabet, which the acceptance test probes with


def _config(config):
    c = _with_defaults(config, DEFAULTS, "train_cue_delay")

    def size(name, lo=1, hi=MAX_EXAMPLES, none_ok=False):
        return checks.integer(f"config[{name!r}]", c[name], minimum=lo, maximum=hi, none_ok=none_ok)

    if not isinstance(c["delay"], (int, list, tuple)) or isinstance(c["delay"], bool):
        raise ValueError(f"config['delay'] must be an integer or a [lo, hi] pair, got {c['delay']!r:.60}")
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
                seed=checks.integer("config['seed']", c["seed"], minimum=0))


def train_cue_delay(config):
    """Train on cue–delay at a matched parameter count and run the acceptance test -> metrics."""
    c = _config(config)
    data_ss, weights_ss, order_ss, probe_ss = np.random.SeedSequence(c["seed"]).spawn(4)
    data_seed = _seed(data_ss)
    options = {"delay": c["delay"], "p_needs_cue": c["p_needs_cue"], "p_supersede": c["p_supersede"]}
    train = tasks.cue_delay(c["n_train"], data_seed, **options)
    test = tasks.cue_delay(c["n_test"], data_seed + 1, **options)
    vocab = "".join(sorted(CUES + QUERIES + DISTRACTORS))   # every character the task can hold
    d = len(vocab)
    n = c["n"] if c["n"] is not None else min(MAX_WIDTH, counting.matching_width(c["cell"], c["params"], d))
    model = SeqModel(SeqModelConfig(c["cell"], d=d, n=n, n_out=2, forget_bias=c["forget_bias"],
                                    seed=_seed(weights_ss)))
    trainer = Trainer(model, Adam(c["lr"]), clip=c["clip"], batch_size=c["batch_size"],
                      seed=_seed(order_ss), truncate=c["truncate"])
    data, held = tasks.encode(train, vocab), tasks.encode(test, vocab)

    def cue_grad():            # full backpropagation: what would reach the cue's step
        _, _, info = model.loss_and_grads(held.X, held.mask, held.targets)
        return float(np.mean(np.linalg.norm(info["dX"][0], axis=-1)))
    for epoch in range(c["epochs"]):
        stats = trainer.fit_epoch(data)
        if epoch == 0:
            first_grad = cue_grad()
    report = acceptance.acceptance_report(model, vocab, delays=c["probe_delays"], n=c["probe_n"],
                                          seed=_seed(probe_ss), delay=c["probe_delay"])
    ret = report["retention"]
    out = {"n": n, "n_params": model.n_params, "train_accuracy": float(stats.metric),
           "test_accuracy": float(trainer.evaluate(held)["accuracy"]), "cue_grad_first": first_grad,
           "cue_grad": cue_grad(),
           **{f"retention_{k}": -1 if ret[k] is None else ret[k] for k in ("p50", "p95", "max")},
           **{f"retention_at_{dl}": r for dl, r in zip(ret["delays"], ret["retention"])},
           "swap_swapped": report["state_swap"]["swapped"], "erasure_drop": report["cue_erasure"]["drop"],
           "needs_cue_accuracy": report["read_selectivity"]["accuracy_needs_cue"],
           "no_memory_accuracy": report["read_selectivity"]["accuracy_no_memory"],
           "revision_latency": -1 if report["revision"]["latency"] is None else report["revision"]["latency"]}
    return out
