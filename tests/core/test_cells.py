"""The cells: syllabus hand examples, gradient checks, Jacobians, batching, validation."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleam import cells
from gleam.cells import names as cell_names
from gleam.cells import CELLS, check_params, count_params, param_shapes

from .gradcheck import PRECISE, numerical_grad, random_params, rel_error

CELL_NAMES = ["elman", "gru_textbook", "gru_torch", "lstm"]
sizes = st.integers(1, 5)
batches = st.integers(0, 3)            # 0 = unbatched
seeds = st.integers(0, 2 ** 32 - 1)


def close_at_printed_digits(value, printed, decimals):
    """`value` rounds to `printed` at `decimals` places."""
    return np.all(np.abs(np.asarray(value) - np.asarray(printed)) <= 0.5 * 10.0 ** -decimals + 1e-12)


# ---------------------------------------------------------------- syllabus hand examples

def test_chapter1_elman_hand_example():
    p = {"Wx": np.array([[1.0, -0.5, 0.2], [0.0, 0.8, -0.3]]),
         "Wh": np.array([[0.5, -0.2], [0.1, 0.6]]), "b": np.array([0.1, -0.1])}
    expected = [[0.8005, -0.0997], [0.0202, 0.6171], [0.1845, -0.0277]]
    h = np.zeros(2)
    for column, want in zip(range(3), expected):        # input a, b, c (one-hot)
        x = np.eye(3)[column]
        h, cache = cells.elman_step(x, h, p)
        assert close_at_printed_digits(h, want, 4)
        # for one-hot input, W_x x is a column of W_x (an embedding lookup)
        assert np.array_equal(cache["Wx_x"], p["Wx"][:, column])


def chapter4_params():
    def only_column_b(values):                          # W[:, b] given, other columns unused
        W = np.zeros((2, 3))
        W[:, 1] = values
        return W
    return {"Wz": only_column_b([0.6, -0.4]), "Uz": np.array([[0.3, 0.1], [-0.2, 0.5]]),
            "bz": np.array([0.0, 0.1]),
            "Wr": only_column_b([-0.3, 0.7]), "Ur": np.array([[0.2, -0.4], [0.1, 0.3]]),
            "br": np.array([0.2, 0.0]),
            "Wh": only_column_b([0.5, 0.4]), "Uh": np.array([[0.7, 0.2], [-0.1, 0.9]]),
            "bh": np.array([0.0, 0.0])}


def test_chapter4_gru_textbook_hand_example():
    h, cache = cells.gru_textbook_step(np.array([0.0, 1.0, 0.0]), np.array([0.5, -0.2]),
                                       chapter4_params())
    assert close_at_printed_digits(cache["z"], [0.6748, 0.3775], 4)
    assert close_at_printed_digits(cache["r"], [0.5200, 0.6660], 4)
    assert close_at_printed_digits(cache["h_tilde"], [0.5753, 0.2488], 4)
    assert close_at_printed_digits(h, [0.5508, -0.0306], 4)
    assert h is cache["h"]


def test_parameter_counts_match_syllabus():
    # chapter 5: GRU 3(nd + n² + n) = 295,680 at d = 128, n = 256
    assert count_params("gru_textbook", 128, 256) == 295_680
    # chapter 8: two layers 689,664; with PyTorch's two biases 691,200
    assert count_params("gru_textbook", 128, 256) + count_params("gru_textbook", 256, 256) == 689_664
    assert count_params("gru_torch", 128, 256) + count_params("gru_torch", 256, 256) == 691_200
    # the torch-packed LSTM carries two biases: 4(nd + n² + 2n)
    assert count_params("lstm", 128, 256) == 4 * (128 * 256 + 256 ** 2 + 2 * 256)


# ---------------------------------------------------------------- gradient checks

def away_from_zero(rng, shape, low=0.2, high=1.0):
    """Random signs times U(low, high): random values that keep clear of 0.

    Near 0 some gradients become products of several small numbers (U_r's gradient scales with
    h², say), too small for a central difference to resolve to 1e-6 relative error.
    """
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(low, high, size=shape)


def make_step_problem(cell, d, n, batch, seed):
    """Random parameters, input, state and loss weights R: L = Σ R_h ⊙ h' (+ Σ R_c ⊙ c')."""
    rng = np.random.default_rng(seed)
    p = random_params(param_shapes(cell, d, n), rng)
    lead = () if batch == 0 else (batch,)
    x = away_from_zero(rng, lead + (d,), high=1.5)
    h = away_from_zero(rng, lead + (n,), high=0.9)
    R_h = away_from_zero(rng, lead + (n,))
    if cell == "lstm":
        c, R_c = away_from_zero(rng, lead + (n,), high=2.0), away_from_zero(rng, lead + (n,))
        return p, x, (h, c), (R_h, R_c)
    return p, x, h, R_h


def step_loss(cell, x, state, p, R):
    out, _ = CELLS[cell].step(x, state, p)
    if cell == "lstm":
        return np.sum(R[0] * out[0]) + np.sum(R[1] * out[1])
    return np.sum(R * out)


@pytest.mark.parametrize("cell", CELL_NAMES)
@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, batch=batches, seed=seeds)
def test_step_backward_matches_central_differences(cell, d, n, batch, seed):
    p, x, state, R = make_step_problem(cell, d, n, batch, seed)
    _, cache = CELLS[cell].step(x, state, p)
    dx, dstate, grads = CELLS[cell].step_backward(R, cache, p)

    def loss():
        return step_loss(cell, x, state, p, R)

    assert set(grads) == set(p)
    for name in p:
        assert grads[name].shape == p[name].shape
        assert rel_error(grads[name], numerical_grad(loss, p[name], **PRECISE)) < 1e-6, name
    assert rel_error(dx, numerical_grad(loss, x, **PRECISE)) < 1e-6
    if cell == "lstm":
        assert rel_error(dstate[0], numerical_grad(loss, state[0], **PRECISE)) < 1e-6
        assert rel_error(dstate[1], numerical_grad(loss, state[1], **PRECISE)) < 1e-6
    else:
        assert rel_error(dstate, numerical_grad(loss, state, **PRECISE)) < 1e-6


def numerical_jacobian(cell, x, state, p):
    """∂h'/∂h (or ∂(h', c')/∂(h, c)) by central differences, one output entry at a time."""
    if cell == "lstm":
        n = state[0].shape[-1]
        s = np.concatenate(state)

        def out(i):
            return np.concatenate(CELLS[cell].step(x, (s[:n], s[n:]), p)[0])[i]
    else:
        s = state

        def out(i):
            return CELLS[cell].step(x, s, p)[0][i]
    return np.stack([numerical_grad(lambda: out(i), s, **PRECISE) for i in range(s.size)])


@pytest.mark.parametrize("cell", CELL_NAMES)
@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, seed=seeds)
def test_jacobian_matches_central_differences(cell, d, n, seed):
    p, x, state, _ = make_step_problem(cell, d, n, 0, seed)
    _, cache = CELLS[cell].step(x, state, p)
    J = CELLS[cell].jacobian(cache, p)
    width = 2 * n if cell == "lstm" else n
    assert J.shape == (width, width)
    assert rel_error(J, numerical_jacobian(cell, x, state, p)) < 1e-6


def test_elman_jacobian_is_D_times_Wh():
    # chapter 3: ∂h_t/∂h_{t−1} = diag(1 − h_t²) W_h
    rng = np.random.default_rng(3)
    p = random_params(param_shapes("elman", 3, 4), rng)
    h, cache = cells.elman_step(rng.standard_normal(3), rng.standard_normal(4), p)
    assert np.allclose(cells.elman_jacobian(cache, p), np.diag(1 - h ** 2) @ p["Wh"], atol=1e-15)


def test_lstm_cell_to_cell_block_is_the_forget_gate():
    rng = np.random.default_rng(4)
    p = random_params(param_shapes("lstm", 2, 3), rng)
    _, cache = cells.lstm_step(rng.standard_normal(2), (np.zeros(3), np.ones(3)), p)
    assert np.array_equal(cells.lstm_jacobian(cache, p)[3:, 3:], np.diag(cache["f"]))


# ---------------------------------------------------------------- batching

@pytest.mark.parametrize("cell", CELL_NAMES)
def test_batched_step_is_a_stack_of_unbatched_steps(cell):
    p, x, state, R = make_step_problem(cell, 3, 4, 3, seed=11)
    out, cache = CELLS[cell].step(x, state, p)
    _, dstate, grads = CELLS[cell].step_backward(R, cache, p)
    J = CELLS[cell].jacobian(cache, p)
    summed = {name: 0.0 for name in p}
    for b in range(3):
        pick = (lambda s: (s[0][b], s[1][b])) if cell == "lstm" else (lambda s: s[b])
        out_b, cache_b = CELLS[cell].step(x[b], pick(state), p)
        _, dstate_b, grads_b = CELLS[cell].step_backward(pick(R), cache_b, p)
        assert np.allclose(np.concatenate(pick(out)) if cell == "lstm" else pick(out),
                           np.concatenate(out_b) if cell == "lstm" else out_b, atol=1e-14)
        assert np.allclose(np.concatenate(pick(dstate)) if cell == "lstm" else pick(dstate),
                           np.concatenate(dstate_b) if cell == "lstm" else dstate_b, atol=1e-14)
        assert np.allclose(J[b], CELLS[cell].jacobian(cache_b, p), atol=1e-14)
        for name in p:
            summed[name] = summed[name] + grads_b[name]
    for name in p:      # parameter gradients are summed over the batch
        assert np.allclose(grads[name], summed[name], atol=1e-13)


# ---------------------------------------------------------------- what the chapters claim

@settings(max_examples=25, deadline=None)
@given(d=sizes, n=sizes, seed=seeds, gain=st.floats(0.1, 5.0))
def test_gru_state_stays_in_the_unit_box(d, n, seed, gain):
    # chapter 4: h' is a convex blend of values in [−1, 1]
    rng = np.random.default_rng(seed)
    for cell in ("gru_textbook", "gru_torch"):
        p = random_params(param_shapes(cell, d, n), rng, scale=gain)
        h = np.zeros(n)
        for _ in range(10):
            h, _ = CELLS[cell].step(gain * rng.standard_normal(d), h, p)
            assert np.all(np.abs(h) <= 1.0)


def test_lstm_cell_state_leaves_the_unit_box_under_strong_drive():
    # chapter 5: c is unbounded; h = o ⊙ tanh(c) is not
    p = cells.init_lstm(1, 2, np.random.default_rng(0), forget_bias=3.0)
    p["W_ih"][:] = 3.0                      # every gate and the candidate driven hard
    state = (np.zeros(2), np.zeros(2))
    for _ in range(10):
        state, _ = cells.lstm_step(np.ones(1), state, p)
    assert np.all(state[1] > 1.0) and np.all(np.abs(state[0]) < 1.0)


# ---------------------------------------------------------------- init and validation

@pytest.mark.parametrize("cell", CELL_NAMES)
def test_init_shapes_scale_and_reproducibility(cell):
    p = CELLS[cell].init(3, 4, np.random.default_rng(5), scale=0.2)
    assert {k: v.shape for k, v in p.items()} == param_shapes(cell, 3, 4)
    assert check_params(cell, p) == (3, 4)
    for name, value in p.items():
        assert value.dtype == np.float64
        assert np.all(np.abs(value) <= (0.2 if value.ndim == 2 else 3.0))
    again = CELLS[cell].init(3, 4, 5, scale=0.2)       # a seed is turned into a Generator
    assert all(np.array_equal(p[k], again[k]) for k in p)


def test_init_lstm_forget_bias_goes_into_b_ih_f_block():
    p = cells.init_lstm(2, 3, np.random.default_rng(0), forget_bias=1.5)
    assert np.array_equal(p["b_ih"], [0, 0, 0, 1.5, 1.5, 1.5, 0, 0, 0, 0, 0, 0])
    assert np.array_equal(p["b_hh"], np.zeros(12))


@pytest.mark.parametrize("cell", CELL_NAMES)
@pytest.mark.parametrize("d, n", [(0, 2), (2, 0), (-1, 2), (2.5, 2), (True, 2)])
def test_init_rejects_bad_sizes(cell, d, n):
    with pytest.raises(ValueError, match=r"^[dn] must be an integer >= 1, got "):
        CELLS[cell].init(d, n, np.random.default_rng(0))


def test_steps_name_the_misshapen_array():
    p = cells.init_elman(3, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has shape \(4,\), expected \(d,\) = \(3,\)"):
        cells.elman_step(np.zeros(4), np.zeros(2), p)
    with pytest.raises(ValueError, match=r"h has shape \(3,\), expected \(n,\) = \(2,\)"):
        cells.elman_step(np.zeros(3), np.zeros(3), p)
    with pytest.raises(ValueError, match=r"h has shape \(2,\), expected \(B, n\) = \(5, 2\)"):
        cells.elman_step(np.zeros((5, 3)), np.zeros(2), p)
    q = cells.init_lstm(3, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"c has shape \(3,\)"):
        cells.lstm_step(np.zeros(3), (np.zeros(2), np.zeros(3)), q)
    with pytest.raises(ValueError, match="tuple"):
        cells.lstm_step(np.zeros(3), np.zeros(2), q)
    g = cells.init_gru_torch(3, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has shape \(2, 2\)"):
        cells.gru_torch_step(np.zeros((2, 2)), np.zeros((2, 2)), g)


def test_check_params_names_the_problem():
    p = cells.init_gru_textbook(3, 2, np.random.default_rng(0))
    p["Ur"] = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"Ur has shape \(2, 3\), expected \(2, 2\)"):
        check_params("gru_textbook", p)
    del p["Ur"]
    with pytest.raises(ValueError, match="lack 'Ur'"):
        check_params("gru_textbook", p)
    with pytest.raises(ValueError, match=r"W_hh has shape \(8, 2\), expected \(12, 3\)"):
        check_params("lstm", cells.init_lstm(3, 2, 0), d=3, n=3)
    with pytest.raises(ValueError, match=r"W_ih has shape \(8, 3\), expected \(8, 4\)"):
        check_params("lstm", cells.init_lstm(3, 2, 0), d=4)
    with pytest.raises(ValueError, match="unknown cell 'rnn'; known cells: elman, gru_textbook, "
                                         "gru_torch, lstm"):
        check_params("rnn", {})
    q = cells.init_elman(3, 2, 0)
    q["Wy"] = np.zeros((5, 2))                        # extra keys (a readout) are allowed
    assert check_params("elman", q) == (3, 2)


def test_the_registry_is_keyed_by_the_cell_names():
    assert tuple(CELLS) == cell_names.CELL_NAMES == tuple(CELL_NAMES)
    assert cells.get_cell("gru_torch") is CELLS["gru_torch"]
    for bad in ("gru", "rnn", None, ["elman"]):
        with pytest.raises(ValueError, match="unknown cell"):
            cells.get_cell(bad)
    with pytest.raises(ValueError, match=r"scale must be a finite number >= 0, got -1"):
        cells.init_elman(2, 2, 0, scale=-1)
    with pytest.raises(ValueError, match="forget_bias must be a finite number, got inf"):
        cells.init_lstm(2, 2, 0, forget_bias=float("inf"))
