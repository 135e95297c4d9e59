"""gleam.sweep_memory.train_cue_delay: a cue–delay model at a matched parameter count, trained and
put through the acceptance test; widths and counts checked against gleam.counting by hand."""
import json

import pytest

from gleam import counting, sweep_memory
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
    spec = {"run": "gleam.sweep_memory:train_cue_delay", "grid": {"cell": ["elman", "lstm"]},
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
