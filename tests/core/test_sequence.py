"""Sequences: chapter 2's BPTT example, full and truncated gradient checks, Jacobians along a run."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleam import sequence
from gleam.cells import CELLS, param_shapes

from .gradcheck import PRECISE, numerical_grad, random_params, rel_error
from .test_cells import away_from_zero, close_at_printed_digits

CELL_NAMES = ["elman", "gru_textbook", "gru_torch", "lstm"]
sizes = st.integers(1, 5)
batches = st.integers(0, 3)            # 0 = unbatched
lengths = st.integers(1, 6)
seeds = st.integers(0, 2 ** 32 - 1)


# ---------------------------------------------------------------- chapter 2, scalar Elman

def chapter2_run(truncate=None):
    """h_t = tanh(w x_t + u h_{t−1}), w = 0.8, u = 0.9, x = [1, 1, 1], h_0 = 0, L = ½(h_3 − y)²."""
    p = {"Wx": np.array([[0.8]]), "Wh": np.array([[0.9]]), "b": np.zeros(1)}
    hs, caches = sequence.forward("elman", np.ones((3, 1)), np.zeros(1), p)
    y = 0.5
    loss = 0.5 * (hs[-1, 0] - y) ** 2
    dhs = np.zeros_like(hs)
    dhs[-1] = hs[-1] - y               # ∂L/∂h_3; no loss at steps 1 and 2
    grads, dh0, contributions = sequence.backward("elman", dhs, caches, p, truncate=truncate)
    return hs, caches, loss, grads, contributions


def test_chapter2_states_loss_and_gradients():
    hs, caches, loss, grads, _ = chapter2_run()
    assert close_at_printed_digits(hs[:, 0], [0.6640, 0.8848, 0.9211], 4)
    assert close_at_printed_digits([1 - c["h"][0] ** 2 for c in caches], [0.559, 0.217, 0.152], 3)
    assert close_at_printed_digits(loss, 0.0887, 4)
    assert close_at_printed_digits(grads["Wx"][0, 0], 0.0826, 4)      # dL/dw
    assert close_at_printed_digits(grads["Wh"][0, 0], 0.0647, 4)      # dL/du


def test_chapter2_gradient_is_a_sum_over_steps():
    _, _, _, grads, contributions = chapter2_run()
    for name in grads:
        assert np.allclose(sum(c[name] for c in contributions), grads[name], atol=1e-15)
    # h_0 = 0, so the first step contributes nothing to dL/du
    assert contributions[0]["Wh"][0, 0] == 0.0
    assert all(c["Wx"][0, 0] > 0 for c in contributions)


def test_chapter2_truncation_to_the_last_two_steps():
    _, _, _, full, _ = chapter2_run()
    _, _, _, truncated, contributions = chapter2_run(truncate=2)
    assert close_at_printed_digits(truncated["Wx"][0, 0], 0.07628, 5)
    # 7.6 % below the full gradient
    assert close_at_printed_digits(100 * (1 - truncated["Wx"][0, 0] / full["Wx"][0, 0]), 7.6, 1)
    assert all(np.all(v == 0) for v in contributions[0].values())


def test_chapter1_hand_example_through_forward():
    p = {"Wx": np.array([[1.0, -0.5, 0.2], [0.0, 0.8, -0.3]]),
         "Wh": np.array([[0.5, -0.2], [0.1, 0.6]]), "b": np.array([0.1, -0.1])}
    hs, _ = sequence.forward("elman", np.eye(3), None, p)        # a, b, c one-hot; h_0 = 0
    assert close_at_printed_digits(hs, [[0.8005, -0.0997], [0.0202, 0.6171], [0.1845, -0.0277]], 4)


# ---------------------------------------------------------------- gradient checks

def make_sequence_problem(cell, d, n, batch, T, seed):
    """Random parameters, inputs xs, start state and loss weights R: L = Σ_t Σ R_t ⊙ h_t."""
    rng = np.random.default_rng(seed)
    p = random_params(param_shapes(cell, d, n), rng)
    lead = () if batch == 0 else (batch,)
    xs = away_from_zero(rng, (T,) + lead + (d,), high=1.5)
    h0 = away_from_zero(rng, lead + (n,), high=0.9)
    if cell == "lstm":
        h0 = (h0, away_from_zero(rng, lead + (n,), high=2.0))
    R = away_from_zero(rng, (T,) + lead + (n,))
    return p, xs, h0, R


def sequence_loss(cell, xs, h0, p, R):
    hs, _ = sequence.forward(cell, xs, h0, p)
    return np.sum(R * hs)


@pytest.mark.parametrize("cell", CELL_NAMES)
@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, batch=batches, T=lengths, seed=seeds)
def test_full_bptt_matches_central_differences(cell, d, n, batch, T, seed):
    p, xs, h0, R = make_sequence_problem(cell, d, n, batch, T, seed)
    hs, caches = sequence.forward(cell, xs, h0, p)
    grads, dh0, contributions = sequence.backward(cell, R, caches, p)

    def loss():
        return sequence_loss(cell, xs, h0, p, R)

    assert set(grads) == set(p) and len(contributions) == T
    for name in p:
        assert rel_error(grads[name], numerical_grad(loss, p[name], **PRECISE)) < 1e-6, name
        assert np.allclose(sum(c[name] for c in contributions), grads[name], rtol=1e-12, atol=1e-14)
    for got, start in zip(dh0, h0) if cell == "lstm" else [(dh0, h0)]:
        assert rel_error(got, numerical_grad(loss, start, **PRECISE)) < 1e-6


@pytest.mark.parametrize("cell", CELL_NAMES)
@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, batch=batches, T=lengths, k=st.integers(1, 7), seed=seeds)
def test_truncated_bptt_matches_central_differences_with_the_entering_state_fixed(
        cell, d, n, batch, T, k, seed):
    p, xs, h0, R = make_sequence_problem(cell, d, n, batch, T, seed)
    hs, caches = sequence.forward(cell, xs, h0, p)
    grads, dh0, contributions = sequence.backward(cell, R, caches, p, truncate=k)
    start = max(T - k, 0)                   # first step inside the window
    if start == 0:
        entering = h0
    elif cell == "lstm":                    # the state value crosses, held fixed (detached)
        entering = (hs[start - 1].copy(), caches[start - 1]["c"].copy())
    else:
        entering = hs[start - 1].copy()

    def window_loss():
        # only the losses inside the window, from the fixed entering state
        return sequence_loss(cell, xs[start:], entering, p, R[start:])

    for name in p:
        assert rel_error(grads[name], numerical_grad(window_loss, p[name], **PRECISE)) < 1e-6, name
        assert np.allclose(sum(c[name] for c in contributions), grads[name], rtol=1e-12, atol=1e-14)
    for t in range(start):                  # steps before the window contribute nothing
        assert all(np.all(v == 0) for v in contributions[t].values())
    for got, state in zip(dh0, h0) if cell == "lstm" else [(dh0, h0)]:
        if start > 0:                       # the gradient does not cross the window's edge
            assert np.all(got == 0)
        else:
            assert rel_error(got, numerical_grad(window_loss, state, **PRECISE)) < 1e-6


@pytest.mark.parametrize("cell", CELL_NAMES)
@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, T=lengths, seed=seeds)
def test_product_of_step_jacobians_is_the_end_to_end_jacobian(cell, d, n, T, seed):
    p, xs, h0, _ = make_sequence_problem(cell, d, n, 0, T, seed)
    _, caches = sequence.forward(cell, xs, h0, p)
    J = sequence.jacobians(cell, caches, p)
    width = 2 * n if cell == "lstm" else n
    assert J.shape == (T, width, width)
    for t in range(T):
        assert np.array_equal(J[t], CELLS[cell].jacobian(caches[t], p))
    # chain rule: ∂h_T/∂h_0 = J_T ⋯ J_2 J_1, checked against central differences
    product = np.eye(width)
    for J_t in J:
        product = J_t @ product
    s0 = np.concatenate(h0) if cell == "lstm" else h0

    def final_state(i):
        state = (s0[:n], s0[n:]) if cell == "lstm" else s0
        hs, caches_ = sequence.forward(cell, xs, state, p)
        return (np.concatenate([hs[-1], caches_[-1]["c"]]) if cell == "lstm" else hs[-1])[i]
    numerical = np.stack([numerical_grad(lambda: final_state(i), s0, **PRECISE) for i in range(width)])
    # entrywise with a floor: over T steps the product can vanish (chapter 3) below what a
    # finite difference resolves
    np.testing.assert_allclose(product, numerical, rtol=1e-6, atol=1e-11)


# ---------------------------------------------------------------- batching and defaults

@pytest.mark.parametrize("cell", CELL_NAMES)
def test_batched_sequence_is_a_stack_of_unbatched_sequences(cell):
    p, xs, h0, R = make_sequence_problem(cell, 3, 4, 2, 5, seed=21)
    hs, caches = sequence.forward(cell, xs, h0, p)
    grads, _, _ = sequence.backward(cell, R, caches, p, truncate=3)
    J = sequence.jacobians(cell, caches, p)
    for b in range(2):
        start = (h0[0][b], h0[1][b]) if cell == "lstm" else h0[b]
        hs_b, caches_b = sequence.forward(cell, xs[:, b], start, p)
        grads_b, _, _ = sequence.backward(cell, R[:, b], caches_b, p, truncate=3)
        assert np.allclose(hs[:, b], hs_b, atol=1e-14)
        assert np.allclose(J[:, b], sequence.jacobians(cell, caches_b, p), atol=1e-14)
        for name in p:
            grads[name] = grads[name] - grads_b[name]
    assert all(np.allclose(g, 0, atol=1e-13) for g in grads.values())


@pytest.mark.parametrize("cell", CELL_NAMES)
def test_h0_none_means_zeros(cell):
    p = CELLS[cell].init(2, 3, np.random.default_rng(0), scale=0.5)
    xs = np.random.default_rng(1).standard_normal((4, 2, 2))
    zeros = (np.zeros((2, 3)), np.zeros((2, 3))) if cell == "lstm" else np.zeros((2, 3))
    assert np.array_equal(sequence.forward(cell, xs, None, p)[0], sequence.forward(cell, xs, zeros, p)[0])


# ---------------------------------------------------------------- validation

def test_forward_and_backward_name_bad_input():
    p = CELLS["gru_torch"].init(3, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown cell 'gru'; known cells: "):
        sequence.forward("gru", np.zeros((4, 3)), None, p)
    with pytest.raises(ValueError, match=r"xs has shape \(4, 2\), expected \(T, d\) = \(T, 3\)"):
        sequence.forward("gru_torch", np.zeros((4, 2)), None, p)
    with pytest.raises(ValueError, match=r"xs has shape \(0, 3\)"):
        sequence.forward("gru_torch", np.zeros((0, 3)), None, p)
    with pytest.raises(ValueError, match=r"h has shape \(3,\), expected \(B, n\) = \(5, 2\)"):
        sequence.forward("gru_torch", np.zeros((4, 5, 3)), np.zeros(3), p)
    with pytest.raises(ValueError, match=r"W_hh has shape"):
        sequence.forward("gru_torch", np.zeros((4, 3)), None, {**p, "W_hh": np.zeros((6, 3))})
    with pytest.raises(ValueError, match="tuple"):
        sequence.forward("lstm", np.zeros((4, 3)), np.zeros(2), CELLS["lstm"].init(3, 2, 0))
    hs, caches = sequence.forward("gru_torch", np.zeros((4, 3)), None, p)
    with pytest.raises(ValueError, match=r"dhs has shape \(3, 2\), expected the shape of hs \(4, 2\)"):
        sequence.backward("gru_torch", np.zeros((3, 2)), caches, p)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="truncate must be None or an integer >= 1, got "):
            sequence.backward("gru_torch", np.zeros_like(hs), caches, p, truncate=bad)
    with pytest.raises(ValueError, match="empty"):
        sequence.jacobians("gru_torch", [], p)
