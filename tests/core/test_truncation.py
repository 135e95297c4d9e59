"""Truncated backpropagation in the batched trainer (SeqModel.loss_and_grads(truncate=k)): each
sequence's gradient equals the full gradient of its last k steps run from the state before them,
taken as given — computed here sequence by sequence with the untruncated code on the suffix."""
import numpy as np
import pytest

from gleam.seqmodel.batching import pad_batch
from gleam.optim import SGD
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.seqmodel import Trainer

CELLS = ("elman", "gru_textbook", "gru_torch", "lstm")


def problem(cell, head, seed=0):
    rng = np.random.default_rng(seed)
    model = SeqModel(SeqModelConfig(cell, d=3, n=4, n_out=3 if head == "classify" else 1, head=head,
                                    seed=seed, init_scale=0.9))
    lengths = [7, 3, 5, 1]
    seqs = [rng.standard_normal((L, 3)) for L in lengths]
    X, mask, _ = pad_batch(seqs)
    y = rng.integers(0, 3, len(seqs)) if head == "classify" else rng.standard_normal(len(seqs))
    return model, seqs, X, mask, y


def state_after(model, seq, t):
    """The state after step t of one sequence (h, or an LSTM's (h, c))."""
    X = seq[:t + 1, None, :]
    h = model.hidden_states(X)[-1, 0]
    return (h, model.hidden_states(X, cell_state=True)[-1, 0]) if model.lstm else h


@pytest.mark.parametrize("head", ["classify", "regress"])
@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("k", [1, 2, 4])
def test_a_truncated_gradient_is_the_suffix_gradient_from_the_state_before_it(cell, head, k):
    model, seqs, X, mask, y = problem(cell, head)
    loss, grads, info = model.loss_and_grads(X, mask, y, truncate=k)
    want = {key: np.zeros_like(v) for key, v in model.params.items()}
    B = len(seqs)
    for b, seq in enumerate(seqs):
        start = max(0, len(seq) - k)
        h0 = None if start == 0 else state_after(model, seq, start - 1)
        if model.lstm and h0 is not None:
            h0 = (h0[0][None], h0[1][None])
        elif h0 is not None:
            h0 = h0[None]
        _, g, sub = model.loss_and_grads(seq[start:, None, :], None, y[b:b + 1], h0=h0)
        for key in want:
            want[key] += g[key] / B
        assert np.allclose(info["dX"][start:len(seq), b], sub["dX"][:, 0] / B, rtol=1e-12, atol=1e-14)
        assert not info["dX"][:start, b].any()            # before the horizon: no gradient
    for key in want:
        assert np.allclose(grads[key], want[key], rtol=1e-11, atol=1e-14), key
    assert loss == model.loss_and_grads(X, mask, y)[0]    # the loss itself is not truncated


@pytest.mark.parametrize("cell", CELLS)
def test_a_horizon_longer_than_every_sequence_is_full_backpropagation(cell):
    model, _, X, mask, y = problem(cell, "classify")
    _, full, info_full = model.loss_and_grads(X, mask, y)
    _, long, info_long = model.loss_and_grads(X, mask, y, truncate=X.shape[0] + 1)
    for key in full:
        assert np.array_equal(full[key], long[key]), key
    assert np.array_equal(info_full["dX"], info_long["dX"])


def test_the_trainer_trains_with_a_horizon_and_refuses_one_it_cannot_use():
    model, _, X, mask, y = problem("gru_torch", "classify")
    before = model.copy()
    tr = Trainer(model, SGD(0.1), truncate=2)
    tr.step((X, mask, y))
    _, g, _ = before.loss_and_grads(X, mask, y, truncate=2)
    for key in g:
        assert np.allclose(model.params[key], before.params[key] - 0.1 * g[key], rtol=0, atol=1e-15)
    m2m = SeqModel(SeqModelConfig("elman", 3, 4, 2, many_to_many=True))
    with pytest.raises(ValueError, match="truncate is for many-to-one models"):
        Trainer(m2m, SGD(0.1), truncate=3)
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="^truncate must be"):
            model.loss_and_grads(X, mask, y, truncate=bad)
