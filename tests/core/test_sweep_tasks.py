"""gleam.sweep.split_runs.train_on_split: one split of a rule-made task, trained and tested in and out
of distribution; its counts checked against the split recomputed from the same seed by hand."""
import numpy as np
import pytest

from gleam import tasks
from gleam.sweep import split_runs as sweep_tasks
from gleam.sweep import run_sweep

SMALL = {"n_examples": 300, "n": 8, "epochs": 2, "batch_size": 32}


def examples_of(config):
    """The examples train_on_split makes, by the seeding its docstring states."""
    data_ss = np.random.SeedSequence(config.get("seed", 0)).spawn(4)[0]
    family = tasks.FAMILIES[config.get("family", "nested_sums")]
    return family(config["n_examples"], int(data_ss.generate_state(1)[0]), **config.get("options", {}))


@pytest.mark.parametrize("split, threshold, held_out", [
    ("depth", 2, lambda e: e.facts["depth"] > 2),
    ("length", 11, lambda e: len(e.text) > 11),
    ("value", [3, 7], lambda e: e.target in (3, 7)),
])
def test_the_counts_are_the_split_recomputed_by_hand(split, threshold, held_out):
    config = {**SMALL, "split": split, "threshold": threshold, "options": {"max_depth": 3}, "seed": 4}
    out = sweep_tasks.train_on_split(config)
    unique = {e.text: e for e in examples_of(config)}.values()
    n_ood = sum(1 for e in unique if held_out(e))
    assert out["n_ood"] == n_ood and out["n_train"] + out["n_iid"] == len(unique) - n_ood
    assert out["n_iid"] == round(0.2 * (len(unique) - n_ood))
    for k in ("train_accuracy", "iid_accuracy", "ood_accuracy"):
        assert 0.0 <= out[k] <= 1.0
    assert out["steps"] == 2 * -(-out["n_train"] // 32) and out["diverged_steps"] == 0


def test_a_config_fixes_its_metrics_and_the_seed_moves_them():
    config = {**SMALL, "family": "brackets", "options": {"kind": "dyck1"}, "split": "length",
              "threshold": 10, "cell": "lstm"}
    a, b = sweep_tasks.train_on_split(config), sweep_tasks.train_on_split(dict(config))
    assert a == b
    assert sweep_tasks.train_on_split({**config, "seed": 1}) != a


def test_no_split_has_no_ood_accuracy():
    out = sweep_tasks.train_on_split({**SMALL, "family": "counting", "split": "none"})
    assert "ood_accuracy" not in out and out["n_ood"] == 0


def test_it_learns_the_cue_delay_task_beyond_chance_in_distribution():
    """A smoke check of the whole path (bound set before running: 0.7 against 0.5 chance)."""
    out = sweep_tasks.train_on_split({"family": "cue_delay", "split": "length", "threshold": 14,
                                      "n_examples": 800, "n": 16, "epochs": 10, "seed": 0})
    assert out["n_iid"] >= 50 and out["iid_accuracy"] >= 0.7, out


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.sweep.split_runs:train_on_split",
            "grid": {"cell": ["elman", "gru_torch"], "seed": [0, 1]},
            "fixed": {**SMALL, "split": "depth", "threshold": 2}}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 4 and report.errors == 0
    import json
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    for r in records:
        assert r["metrics"] == sweep_tasks.train_on_split(r["config"])


def test_a_predict_mode_family_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="must be a class per sequence"):
        sweep_tasks.train_on_split({**SMALL, "family": "counting", "options": {"mode": "predict"},
                                    "split": "none"})
