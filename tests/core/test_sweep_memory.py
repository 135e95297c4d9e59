"""gleam.labs.memory.run.train_cue_delay: a cue–delay model at a matched parameter count, trained and
put through the acceptance test; widths and counts checked against gleam.costs by hand."""
import json

import pytest

from gleam import costs as counting
from gleam.labs.memory import run as sweep_memory
from gleam.sweep import run_sweep

SMALL = {"n_train": 200, "n_test": 60, "epochs": 2, "probe_n": 20, "probe_delays": [1, 4]}


@pytest.mark.parametrize("cell", ["elman", "gru_torch", "lstm"])
def test_the_width_matches_the_budget_and_the_count_is_the_models(cell):
    out = sweep_memory.train_cue_delay({**SMALL, "cell": cell, "params": 600})
    d = len("ab?!cdef")
    n = counting.matching_width(cell, 600, d)
    assert out["n"] == n
    # the cell's parameters (one bias per block; PyTorch's two for gru_torch and lstm) + readout
    double = cell != "elman"
    assert out["n_params"] == counting.param_count(cell, d, n, double_bias=double) + 2 * n + 2


def test_a_config_fixes_its_metrics_and_every_metric_is_a_number():
    config = {**SMALL, "cell": "lstm", "forget_bias": 3.0, "seed": 2}
    a = sweep_memory.train_cue_delay(config)
    assert a == sweep_memory.train_cue_delay(dict(config))
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in a.values())
    assert set(a) >= {"retention_p50", "retention_at_1", "retention_at_4", "swap_swapped",
                      "erasure_drop", "cue_grad", "revision_latency"}
    assert a["cue_grad"] >= 0 and 0 <= a["erasure_drop"] <= 0.5
    assert sweep_memory.train_cue_delay({**config, "seed": 3}) != a


def test_an_explicit_width_overrides_the_budget():
    assert sweep_memory.train_cue_delay({**SMALL, "n": 5})["n"] == 5


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.labs.memory.run:train_cue_delay", "grid": {"cell": ["elman", "lstm"]},
            "fixed": SMALL}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 2 and report.errors == 0
    for line in (tmp_path / "r.jsonl").read_text().splitlines():
        r = json.loads(line)
        assert r["metrics"] == sweep_memory.train_cue_delay(r["config"])


@pytest.mark.parametrize("bad, word", [({"cell": "transformer"}, "cell"), ({"delay": "long"}, "delay"),
                                       ({"probe_delays": []}, "probe_delays"), ({"typo": 1}, "unknown")])
def test_bad_configs_are_refused_by_name(bad, word):
    with pytest.raises(ValueError, match=word):
        sweep_memory.train_cue_delay({**SMALL, **bad})


def test_a_backward_horizon_reaches_the_trainer():
    """truncate = 1 keeps the cue (at step 0, at least 4 steps before the end) out of every
    update's gradient, so the run differs from full backpropagation's (and is as reproducible)."""
    full = sweep_memory.train_cue_delay(SMALL)
    short = sweep_memory.train_cue_delay({**SMALL, "truncate": 1})
    assert short != full and short == sweep_memory.train_cue_delay({**SMALL, "truncate": 1})
    with pytest.raises(ValueError, match="truncate"):
        sweep_memory.train_cue_delay({**SMALL, "truncate": 0})


# ---- CueDelayRun: the same run a few updates at a time ---------------------------------------
def test_a_run_stepped_in_pieces_is_train_cue_delays_run():
    config = {**SMALL, "cell": "gru_torch", "seed": 4, "batch_size": 16}
    run = sweep_memory.CueDelayRun(config)
    per_epoch = -(-SMALL["n_train"] // 16)
    assert (run.steps_per_epoch, run.total_steps) == (per_epoch, SMALL["epochs"] * per_epoch)
    taken = [run.step(k).n for k in (3, 7, 1, 10 ** 3)]            # across the epoch boundary, then past the end
    assert taken == [3, 7, 1, run.total_steps - 11] and run.finished and run.epoch == SMALL["epochs"]
    assert run.step(5).n == 0                                      # nothing left: nothing taken
    assert run.metrics() == sweep_memory.train_cue_delay(config)
    assert len(run.cue_grads) == SMALL["epochs"]
    assert [run.metrics()[f"cue_grad_epoch_{e + 1}"] for e in range(SMALL["epochs"])] == run.cue_grads


def test_a_reset_run_starts_again_and_a_stopped_one_keeps_its_model():
    run = sweep_memory.CueDelayRun(SMALL)
    before = run.metrics()
    assert before["updates"] == 0 and before["train_accuracy"] == -1 and "cue_grad_epoch_1" not in before
    stats = run.step(5)
    assert stats.n == 5 and stats.loss.shape == (5,) and not stats.diverged and not run.finished
    after_five = run.metrics()
    assert after_five["updates"] == 5 and 0 <= after_five["train_accuracy"] <= 1
    assert run.metrics() == after_five                              # testing does not change the model
    run.reset()
    assert run.steps == 0 and run.cue_grads == [] and run.metrics() == before
    run.step(5)
    assert run.metrics() == after_five


def test_the_window_baseline_and_the_cue_accuracy_are_reported():
    out = sweep_memory.train_cue_delay({**SMALL, "p_needs_cue": 1.0})
    # every test query needs the cue, so the '?' accuracy is the whole test accuracy
    assert out["test_needs_cue_accuracy"] == out["test_accuracy"]
    # a window of the last WINDOW characters never holds the cue at the probes' delay: a mirror
    # pair differs only in the cue, so the baseline answers both alike, exactly ½
    assert sweep_memory.WINDOW < sweep_memory.DEFAULTS["probe_delay"] and out["window_needs_cue_accuracy"] == 0.5
    none = sweep_memory.train_cue_delay({**SMALL, "p_needs_cue": 0.0})
    assert none["test_needs_cue_accuracy"] == -1                    # no '?' query in the test set


def test_normalized_configs_say_when_two_name_one_run():
    a = sweep_memory.normalized({"cell": "lstm"})
    assert a == sweep_memory.normalized({"cell": "lstm", "forget_bias": 1.0, "truncate": None})
    assert a != sweep_memory.normalized({"cell": "lstm", "forget_bias": 3.0})
    with pytest.raises(ValueError, match="unknown"):
        sweep_memory.normalized({"celll": "lstm"})
