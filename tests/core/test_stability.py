"""gleam.instruments.stability against independent computations: central differences of one cell step,
np.linalg.multi_dot, np.linalg.svd, a linear case known in closed form, and PyTorch."""
import math

import numpy as np
import pytest

from gleam.instruments import stability as st
from gleam.cells import get_cell
from gleam.seqmodel import SeqModel, SeqModelConfig

CELLS = ["elman", "gru_textbook", "gru_torch", "lstm"]
T, B, D, N = 7, 3, 3, 4


def case(cell, seed=0):
    """A model with random weights AND biases (so no gate sits at 0.5), features, a mask in
    which sequence 1 ends after step 3."""
    model = SeqModel(SeqModelConfig(cell, D, N, 2, seed=seed))
    rng = np.random.default_rng(seed + 10)
    params = {k: rng.standard_normal(v.shape) * 0.8 for k, v in model.params.items()}
    model = SeqModel(model.config, params)
    mask = np.ones((T, B), bool)
    mask[4:, 1] = False
    return model, rng.standard_normal((T, B, D)), mask


def path(model, F, mask, b):
    """h_t of sequence b (an LSTM's h and c side by side), (T, m)."""
    hs = model.hidden_states(F, mask)[:, b]
    if model.lstm:
        hs = np.hstack([hs, model.hidden_states(F, mask, cell_state=True)[:, b]])
    return hs


def one_step(model, x, state):
    """h' = cell(x, h) for one sequence, on the flat state."""
    step, n = get_cell(model.config.cell).step, model.config.n
    if model.lstm:
        (h, c), _ = step(x, (state[:n], state[n:]), model.params)
        return np.concatenate([h, c])
    return step(x, state, model.params)[0]


def central_jacobian(f, v, eps=1e-6):
    cols = []
    for j in range(v.size):
        e = np.zeros(v.size)
        e[j] = eps
        cols.append((f(v + e) - f(v - e)) / (2 * eps))
    return np.stack(cols, axis=1)


@pytest.mark.parametrize("b", [0, 1])
@pytest.mark.parametrize("cell", CELLS)
def test_state_jacobians_match_central_differences_of_one_step(cell, b):
    model, F, mask = case(cell)
    Js = st.state_jacobians(model, F, mask, b=b)
    m = 2 * N if cell == "lstm" else N
    assert Js.shape == (T - 1, m, m)
    hs = path(model, F, mask, b)
    for s in range(T - 1):
        if not mask[s + 1, b]:
            assert np.array_equal(Js[s], np.eye(m))       # padding carries the state
            continue
        fd = central_jacobian(lambda v, x=F[s + 1, b]: one_step(model, x, v), hs[s])
        assert np.max(np.abs(Js[s] - fd)) < 1e-8, (cell, s)
        assert np.max(np.abs(Js[s] - np.eye(m))) > 1e-2   # a real step, not the identity


def test_span_product_matches_multi_dot():
    Js = np.random.default_rng(1).standard_normal((6, 4, 4))
    for s, e in [(0, 6), (1, 4), (2, 5), (3, 4), (2, 2)]:
        span = st.span_product(Js, s, e)
        if e - s == 0:
            expected = np.eye(4)
        elif e - s == 1:
            expected = Js[s]
        else:
            expected = np.linalg.multi_dot(Js[s:e][::-1])     # J_{e−1} … J_s
        assert np.allclose(span.value(), expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
        assert span.log10_norm == pytest.approx(math.log10(np.linalg.norm(expected, 2)), abs=1e-12)
        assert np.linalg.norm(span.matrix, 2) == pytest.approx(1.0, abs=1e-12)
        assert np.allclose(st.singular_values(span), np.linalg.svd(expected, compute_uv=False),
                           rtol=1e-10)
    whole = np.linalg.multi_dot(Js[::-1])
    assert np.allclose(st.singular_values(Js), np.linalg.svd(whole, compute_uv=False), rtol=1e-9)
    assert np.allclose(st.singular_values(Js[2]), np.linalg.svd(Js[2], compute_uv=False))


def test_long_spans_are_renormalised_not_under_or_overflowed():
    Q, _ = np.linalg.qr(np.random.default_rng(2).standard_normal((3, 3)))
    for scale, log10 in ((0.1, -400.0), (10.0, 400.0)):
        Js = np.broadcast_to(scale * Q, (400, 3, 3))
        span = st.span_product(Js)
        # (scale Q)^400 = scale^400 Q^400, Q^400 orthogonal: every singular value scale^400
        assert span.log10_norm == pytest.approx(log10, abs=1e-9)
        assert np.allclose(st.singular_values(span, log10=True), log10, atol=1e-9)
        assert np.allclose(st.singular_values(Js, log10=True), log10, atol=1e-9)
        assert np.allclose(span.matrix @ span.matrix.T, np.eye(3), atol=1e-12)
    with pytest.raises(ValueError, match="beyond the float range"):
        span.value()
    with pytest.raises(ValueError, match="log10=True"):
        st.singular_values(span)
    zero = st.span_product(np.stack([np.eye(2), np.zeros((2, 2)), np.eye(2)]))
    assert zero.log10_norm == -math.inf and not zero.matrix.any()
    assert np.all(st.singular_values(zero) == 0.0)


@pytest.mark.parametrize("cell", CELLS)
def test_perturbation_growth_matches_the_span_products(cell):
    model, F, mask = case(cell, seed=3)
    m = 2 * N if model.lstm else N
    for b, step, direction in ((1, 1, None), (0, 2, np.arange(1.0, m + 1))):
        Js = st.state_jacobians(model, F, mask, b=b)
        p = st.perturbation_growth(model, F, mask, b=b, step=step, direction=direction, eps=1e-5)
        assert p.steps.tolist() == list(range(step + 1, T))
        assert np.linalg.norm(p.direction) == pytest.approx(1.0)
        for k, t in enumerate(p.steps):
            Jv = st.span_product(Js, step, t).value() @ p.direction     # (∂h_t/∂h_step) v
            assert p.growth[k] == pytest.approx(np.linalg.norm(Jv), rel=1e-5)
            assert np.allclose(p.response[k], Jv, rtol=0, atol=1e-7)
        if b == 1:                                  # after its last step the state is carried
            assert np.all(p.growth[3 - step:] == p.growth[3 - step])


def linear_elman(rho, n=4):
    """h' = tanh(ρ Q h + Wx x): with x = 0 and h_0 = 0 the state stays exactly 0, where
    tanh' = 1, so J = ρ Q exactly and a perturbation grows as ρ^k (Q orthogonal)."""
    Q, _ = np.linalg.qr(np.random.default_rng(5).standard_normal((n, n)))
    params = {"Wx": np.ones((n, 2)), "Wh": rho * Q, "b": np.zeros(n),
              "Wo": np.ones((2, n)), "bo": np.zeros(2)}
    return SeqModel(SeqModelConfig("elman", 2, n, 2), params), rho * Q


@pytest.mark.parametrize("rho", [0.9, 1.0, 1.1])
def test_a_linear_elman_with_rho_times_orthogonal_grows_as_rho_to_the_k(rho):
    model, W = linear_elman(rho)
    F = np.zeros((30, 2, 2))
    Js = st.state_jacobians(model, F, b=1)
    assert np.array_equal(Js, np.broadcast_to(W, Js.shape))
    p = st.perturbation_growth(model, F, b=1, step=4, seed=0)
    k = p.steps - 4
    assert np.allclose(p.growth, rho ** k, rtol=1e-6)
    assert np.allclose(st.singular_values(st.span_product(Js, 4, 29)), rho ** 25, rtol=1e-12)
    prof = st.growth_profile(Js, start=4)
    assert prof.steps.tolist() == list(range(5, 30))
    assert np.allclose(prof.log10_gain, (prof.steps - 4) * math.log10(rho), atol=1e-12)
    assert prof.grows.tolist() == [rho > 1] * 25        # ρ = 1: neither, within tol
    assert prof.shrinks.tolist() == [rho < 1] * 25
    assert prof.step_grows.tolist() == [rho > 1] * 25


def test_growth_profile_by_hand():
    Js = np.array([np.diag([2.0, 0.5]), np.diag([0.25, 1.0]), np.diag([3.0, 1.0])])
    prof = st.growth_profile(Js)
    # spans from h_0: diag(2, .5) -> 2;  diag(.5, .5) -> .5;  diag(1.5, .5) -> 1.5
    assert np.allclose(10 ** prof.log10_gain, [2.0, 0.5, 1.5])
    assert prof.grows.tolist() == [True, False, True]
    assert prof.shrinks.tolist() == [False, True, False]
    assert np.allclose(10 ** prof.log10_step_gain, [2.0, 1.0, 3.0])
    assert prof.step_grows.tolist() == [True, False, True]       # σ = 1 exactly: no growth
    # from h_1: diag(.25, 1) -> 1;  diag(.75, 1) -> 1: the last step stretches one direction
    # threefold, yet no perturbation of h_1 has grown (the one it stretches had shrunk)
    later = st.growth_profile(Js, start=1)
    assert later.steps.tolist() == [2, 3] and np.allclose(10 ** later.log10_gain, [1.0, 1.0])
    assert later.grows.tolist() == [False, False] and later.shrinks.tolist() == [False, False]
    assert later.step_grows.tolist() == [False, True]


def test_a_one_step_sequence_has_no_jacobians():
    model, F, _ = case("gru_torch")
    Js = st.state_jacobians(model, F[:1])
    assert Js.shape == (0, N, N)
    assert np.array_equal(st.singular_values(Js), np.ones(N))
    assert st.growth_profile(Js).steps.size == 0
    assert st.perturbation_growth(model, F[:1]).growth.size == 0


def test_bad_arguments_are_refused_with_the_argument_named():
    model, F, mask = case("elman")
    cases = [
        (lambda: st.state_jacobians(model, F, mask, b=3), "b must be an integer in"),
        (lambda: st.state_jacobians("m", F), "model must be"),
        (lambda: st.span_product(np.zeros((3, 2, 3))), "jacobians have shape"),
        (lambda: st.span_product(np.zeros((3, 2, 2)), 2, 1), "e must be an integer"),
        (lambda: st.singular_values(np.zeros((2, 3))), "jacobians have shape"),
        (lambda: st.singular_values(np.eye(2), log10="yes"), "log10 must be True or False"),
        (lambda: st.perturbation_growth(model, F, eps=0.0), "eps must be"),
        (lambda: st.perturbation_growth(model, F, step=T), "step must be an integer in"),
        (lambda: st.perturbation_growth(model, F, direction=np.zeros(N)), "direction must be"),
        (lambda: st.perturbation_growth(model, F, direction=np.ones(N + 1)), "direction must"),
        (lambda: st.growth_profile(np.zeros((2, 2, 2)), tol=1.0), "tol must be"),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=message):
            make()


# ---------------------------------------------------------------- PyTorch
def torch_jacobians(cell_module, model, F, b):
    """∂h_{s+1}/∂h_s by autograd through torch's own cell, at gleam's states."""
    import torch
    hs = path(model, F, None, b)
    n, out = model.config.n, []
    for s in range(len(F) - 1):
        x = torch.from_numpy(F[s + 1, b][None])
        if model.lstm:
            def f(v, x=x):
                h, c = cell_module(x, (v[None, :n], v[None, n:]))
                return torch.cat([h[0], c[0]])
        else:
            def f(v, x=x):
                return cell_module(x, v[None])[0]
        out.append(torch.autograd.functional.jacobian(f, torch.from_numpy(hs[s])).numpy())
    return np.stack(out)


@pytest.mark.torch
@pytest.mark.parametrize("cell", ["gru_torch", "lstm"])
def test_state_jacobians_match_torch_autograd(cell):
    import torch
    model, F, _ = case(cell, seed=7)
    module = (torch.nn.GRUCell if cell == "gru_torch" else torch.nn.LSTMCell)(D, N).double()
    with torch.no_grad():               # gleam's gru_torch / lstm share torch's layout
        for ours, theirs in (("W_ih", "weight_ih"), ("W_hh", "weight_hh"),
                             ("b_ih", "bias_ih"), ("b_hh", "bias_hh")):
            getattr(module, theirs).copy_(torch.from_numpy(model.params[ours]))
    ours = st.state_jacobians(model, F, b=2)
    assert np.max(np.abs(ours - torch_jacobians(module, model, F, 2))) < 1e-12
