"""Counts against parameters enumerated block by block (independent of the closed forms)."""
import numpy as np
import pytest

from gleam import costs as counting

BLOCKS = {"elman": 1, "gru": 3, "lstm": 4}


def enumerated_params(cell, d, n, double_bias=False):
    # one input matrix, one recurrent matrix, one (or two) biases per block
    shapes = []
    for _ in range(BLOCKS[cell]):
        shapes += [(n, d), (n, n), (n,)] + ([(n,)] if double_bias else [])
    return sum(int(np.prod(s)) for s in shapes)


@pytest.mark.parametrize("cell", ["elman", "gru", "lstm"])
@pytest.mark.parametrize("d,n", [(1, 1), (3, 2), (128, 256), (7, 300)])
def test_param_count_matches_enumeration(cell, d, n):
    assert counting.param_count(cell, d, n) == enumerated_params(cell, d, n)
    assert counting.param_count(cell, d, n, double_bias=True) == enumerated_params(cell, d, n, True)
    assert counting.macs_per_step(cell, d, n) == BLOCKS[cell] * (n * d + n * n)


def test_stacks_feed_n_or_2n_upwards():
    assert counting.layer_input_widths(10, 4, 3) == [10, 4, 4]
    assert counting.layer_input_widths(10, 4, 3, bidirectional=True) == [10, 8, 8]
    got = counting.stacked_param_counts("lstm", 10, 4, 3, bidirectional=True)
    assert got == [2 * enumerated_params("lstm", 10, 4), 2 * enumerated_params("lstm", 8, 4),
                   2 * enumerated_params("lstm", 8, 4)]
    assert counting.stacked_macs("gru", 10, 4, 2) == 3 * (4 * 10 + 16) + 3 * (4 * 4 + 16)


def test_matching_width_is_the_closest_count():
    budget = counting.param_count("lstm", 64, 100)
    n = counting.matching_width("gru", budget, 64)
    gaps = {m: abs(counting.param_count("gru", 64, m) - budget) for m in range(1, 400)}
    assert gaps[n] == min(gaps.values())
    assert counting.matching_width("gru", counting.param_count("gru", 5, 17), 5) == 17


def test_memory_at_decode():
    assert counting.state_bytes("gru", 100, layers=3) == 1200
    assert counting.state_bytes("lstm", 100, bytes_per_float=2) == 400       # h and c
    assert counting.kv_cache_bytes_per_token(64, layers=2) == 2 * 2 * 64 * 4
    assert counting.kv_cache_bytes(64, 2, 0) == 0


def test_readout_and_chunk():
    assert counting.readout_params(8, 10) == 90 and counting.readout_macs(8, 10) == 80
    assert counting.train_chunk_macs("elman", 2, 3, 5) == 3 * 5 * (6 + 9)


@pytest.mark.parametrize("cell, kind", [("elman", "elman"), ("gru_textbook", "gru"),
                                        ("gru_torch", "gru"), ("lstm", "lstm")])
def test_cell_names_count_as_their_kind(cell, kind):
    assert counting.param_count(cell, 5, 7) == counting.param_count(kind, 5, 7)
    assert counting.macs_per_step(cell, 5, 7) == counting.macs_per_step(kind, 5, 7)
    assert counting.state_floats(cell, 7, 2) == counting.state_floats(kind, 7, 2)


def test_whole_floats_still_count_as_sizes():
    assert counting.param_count("gru", 2.0, 4.0) == counting.param_count("gru", 2, 4)


def test_messages_name_the_argument_and_the_requirement():
    with pytest.raises(ValueError, match="unknown cell 'rnn'; known: elman, gru, lstm, "
                                         "gru_textbook, gru_torch"):
        counting.param_count("rnn", 1, 1)
    with pytest.raises(ValueError, match="d must be an integer >= 1, got 0"):
        counting.param_count("gru", 0, 4)
    with pytest.raises(ValueError, match="tokens must be an integer >= 0, got -1"):
        counting.kv_cache_bytes(8, 1, -1)
    with pytest.raises(ValueError, match="budget must be a finite number > 0, got -5"):
        counting.matching_width("gru", -5, 4)


@pytest.mark.parametrize("call", [
    lambda: counting.param_count("transformer", 1, 1),
    lambda: counting.param_count("rnn", 1, 1),
    lambda: counting.param_count("gru", True, 4),
    lambda: counting.param_count("gru", float("inf"), 4),
    lambda: counting.param_count("gru", 0, 4),
    lambda: counting.param_count("gru", 2.5, 4),
    lambda: counting.stacked_param_count("gru", 4, 4, layers=0),
    lambda: counting.matching_width("gru", -5, 4),
    lambda: counting.kv_cache_bytes(8, 1, -1),
])
def test_bad_input_raises_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_embedding_params_and_widths_are_checked_first():
    assert counting.embedding_params(30_000, 128) == 30_000 * 128
    for bad in (None, 0, -1, 2.5, "8"):
        with pytest.raises(ValueError, match="must be an integer"):
            counting.layer_input_widths(8, bad, 2)
        with pytest.raises(ValueError, match="must be an integer"):
            counting.embedding_params(bad, 8)
