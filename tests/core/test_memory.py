"""The carry challenge against a per-trial loop and its own definitions."""
import math

import numpy as np
import pytest

from gleam.labs.memory import carry as memory


def test_simulate_matches_a_per_trial_loop():
    rng = np.random.default_rng(0)
    cues, noise = rng.choice([-1.0, 1.0], 7), rng.standard_normal((5, 7)) * 0.4
    elman = memory.simulate("elman", cues, noise, 0.8, 0.3)
    gated = memory.simulate("gru", cues, noise, 0.95, 0.05)
    for i in range(7):
        h = g = math.tanh(cues[i])
        for t in range(5):
            h = math.tanh(0.8 * h + 0.3 * noise[t, i])
            g = 0.95 * g + 0.05 * math.tanh(noise[t, i])
        assert elman[i] == pytest.approx(h) and gated[i] == pytest.approx(g)


def test_gated_gradient_is_carry_to_the_delay_times_the_write():
    # h_T = carry^T tanh(cue) + noise terms, so ∂h_T/∂cue = carry^T (1 − tanh²(cue))
    rows = memory.carry_challenge(10, 0.3, 0.9, 0.1, 0.9, 0.1, trials=50, seed=1)
    gated = {r["architecture"]: r for r in rows}["lstm"]
    assert gated["median_abs_grad"] == pytest.approx(0.9 ** 10 * (1 - math.tanh(1.0) ** 2), rel=1e-6)
    assert gated["half_life"] == pytest.approx(math.log(0.5) / math.log(0.9))


def test_no_delay_reads_the_write_back():
    for row in memory.carry_challenge(0, 0.3, 0.9, 0.1, 0.9, 0.1, trials=20):
        assert row["accuracy"] == 1.0 and row["mean_margin"] == pytest.approx(math.tanh(1.0))


def test_same_seed_same_rows_and_the_gated_paths_agree():
    assert memory.ARCHITECTURES == ("elman", "lstm", "gru")
    for name in memory.PRESETS:
        rows = memory.run_preset(name, trials=300)
        assert rows == memory.run_preset(name, trials=300)
        assert [r["architecture"] for r in rows] == list(memory.ARCHITECTURES)
        lstm, gru = rows[1], rows[2]
        assert {k: v for k, v in lstm.items() if k != "architecture"} == \
               {k: v for k, v in gru.items() if k != "architecture"}


@pytest.mark.parametrize("call", [
    lambda: memory.simulate("transformer", np.ones(2), np.zeros((1, 2)), 0.9, 0.1),
    lambda: memory.simulate("rnn", np.ones(2), np.zeros((1, 2)), 0.9, 0.1),
    lambda: memory.simulate("elman", np.ones(2), np.zeros((1, 3)), 0.9, 0.1),
    lambda: memory.carry_challenge(-1, 0.3, 0.9, 0.1, 0.9, 0.1),
    lambda: memory.carry_challenge(5, -0.3, 0.9, 0.1, 0.9, 0.1),
    lambda: memory.carry_challenge(5, 0.3, 1.2, 0.1, 0.9, 0.1),
    lambda: memory.carry_challenge(5, 0.3, 0.9, 0.1, 0.9, 0.1, trials=0),
    lambda: memory.carry_challenge(True, 0.3, 0.9, 0.1, 0.9, 0.1),
    lambda: memory.run_preset("nonsense"),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_presets_name_the_plain_rnn_by_its_kind():
    p = memory.PRESETS["long noisy delay"]
    assert (p.elman_carry, p.elman_admission) == (0.90, 0.12)
    rows = memory.carry_challenge(5, 0.3, 0.9, 0.1, elman_carry=0.8, elman_admission=0.2, trials=10)
    assert (rows[0]["architecture"], rows[0]["carry"], rows[0]["admission"]) == ("elman", 0.8, 0.2)


def test_messages_name_the_argument_and_the_requirement():
    with pytest.raises(ValueError, match="delay must be an integer >= 0, got -1"):
        memory.carry_challenge(-1, 0.3, 0.9, 0.1, 0.9, 0.1)
    with pytest.raises(ValueError, match=r"carry must be a finite number in \[0, 1\], got 1.2"):
        memory.carry_challenge(5, 0.3, 1.2, 0.1, 0.9, 0.1)
    with pytest.raises(ValueError, match="arch must be one of 'elman', 'lstm', 'gru', got 'rnn'"):
        memory.simulate("rnn", np.ones(2), np.zeros((1, 2)), 0.9, 0.1)
    with pytest.raises(ValueError, match="preset must be one of"):
        memory.run_preset("nonsense")


def test_the_seed_is_an_integer_random_random_can_take():
    """random.Random(seed) would take None (the clock) and refuse a NumPy integer: gleam says
    which seeds it takes, and a NumPy integer draws as the same Python integer does."""
    with pytest.raises(ValueError, match="^seed must be an integer >= 0"):
        memory.carry_challenge(4, 0.1, 0.9, 0.1, 0.9, 0.1, trials=5, seed=None)
    assert memory.carry_challenge(4, 0.1, 0.9, 0.1, 0.9, 0.1, trials=50, seed=np.int64(7)) == \
        memory.carry_challenge(4, 0.1, 0.9, 0.1, 0.9, 0.1, trials=50, seed=7)
