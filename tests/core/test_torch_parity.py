"""gleam against PyTorch (float64, CPU): same outputs, same gradients, to 1e-10.

Loss = Σ R ⊙ outputs with random R, so ∂L/∂h_t = R_t: torch's autograd on one side,
gleam's sequence.backward on the other. Also: the textbook GRU is NOT torch.nn.GRU.
"""
import numpy as np
import pytest
import torch

from gleam import sequence
from gleam.cells import param_shapes

from .gradcheck import random_params

pytestmark = pytest.mark.torch

TOL = 1e-10
T, D, N = 7, 3, 4

# gleam name -> torch parameter name
TORCH_NAMES = {
    "elman": {"Wx": "weight_ih_l0", "Wh": "weight_hh_l0", "b": "bias_ih_l0"},
    "gru_torch": {"W_ih": "weight_ih_l0", "W_hh": "weight_hh_l0",
                  "b_ih": "bias_ih_l0", "b_hh": "bias_hh_l0"},
    "lstm": {"W_ih": "weight_ih_l0", "W_hh": "weight_hh_l0",
             "b_ih": "bias_ih_l0", "b_hh": "bias_hh_l0"},
}


def torch_module(cell, p):
    """torch.nn.RNN / GRU / LSTM in float64 holding gleam's parameters p."""
    make = {"elman": lambda: torch.nn.RNN(D, N, nonlinearity="tanh"),
            "gru_torch": lambda: torch.nn.GRU(D, N), "lstm": lambda: torch.nn.LSTM(D, N)}[cell]
    module = make().double()
    with torch.no_grad():
        for gleam_name, torch_name in TORCH_NAMES[cell].items():
            getattr(module, torch_name).copy_(torch.from_numpy(p[gleam_name]))
        if cell == "elman":               # one bias in gleam: torch's second one is 0
            module.bias_hh_l0.zero_()
    return module


def torch_run(module, xs, h0, R):
    """Outputs, loss gradients wrt every parameter and wrt the start state (autograd)."""
    lstm = isinstance(h0, tuple)
    starts = [torch.tensor(s[None], requires_grad=True) for s in (h0 if lstm else (h0,))]
    out, _ = module(torch.from_numpy(xs), tuple(starts) if lstm else starts[0])
    (torch.from_numpy(R) * out).sum().backward()
    grads = {name: q.grad.numpy() for name, q in module.named_parameters()}
    return out.detach().numpy(), grads, [s.grad.numpy()[0] for s in starts]


def make_problem(cell, batch, seed):
    rng = np.random.default_rng(seed)
    p = random_params(param_shapes(cell, D, N), rng)
    lead = () if batch == 0 else (batch,)
    xs = rng.standard_normal((T,) + lead + (D,))
    h0 = 0.5 * rng.standard_normal(lead + (N,))
    if cell == "lstm":
        h0 = (h0, rng.standard_normal(lead + (N,)))
    return p, xs, h0, rng.standard_normal((T,) + lead + (N,))


@pytest.mark.parametrize("batch", [0, 3])
@pytest.mark.parametrize("cell", ["elman", "gru_torch", "lstm"])
def test_outputs_and_gradients_match_torch(cell, batch):
    p, xs, h0, R = make_problem(cell, batch, seed=batch + 17)
    out, torch_grads, torch_dh0 = torch_run(torch_module(cell, p), xs, h0, R)

    hs, caches = sequence.forward(cell, xs, h0, p)
    grads, dh0, _ = sequence.backward(cell, R, caches, p)

    assert np.max(np.abs(hs - out)) < TOL
    for gleam_name, torch_name in TORCH_NAMES[cell].items():
        assert np.max(np.abs(grads[gleam_name] - torch_grads[torch_name])) < TOL, gleam_name
    if cell == "elman":                   # torch's redundant second bias gets the same gradient
        assert np.max(np.abs(grads["b"] - torch_grads["bias_hh_l0"])) < TOL
    for ours, theirs in zip(dh0 if cell == "lstm" else (dh0,), torch_dh0):
        assert np.max(np.abs(ours - theirs)) < TOL


def test_lstm_final_cell_state_matches_torch():
    p, xs, h0, _ = make_problem("lstm", 2, seed=5)
    with torch.no_grad():
        _, (_, c_n) = torch_module("lstm", p)(torch.from_numpy(xs),
                                              tuple(torch.from_numpy(s[None]) for s in h0))
    _, caches = sequence.forward("lstm", xs, h0, p)
    assert np.max(np.abs(caches[-1]["c"] - c_n.numpy()[0])) < TOL


# ---------------------------------------------------------------- the two GRU conventions

def textbook_names_for(p):
    """torch.nn.GRU's weights (blocks r, z, n) under textbook names, mapped honestly.

    torch's z KEEPS (h' = (1 − z) n + z h); the textbook z WRITES (h' = (1 − z) h + z h̃).
    Since 1 − σ(a) = σ(−a), the textbook write gate is torch's gate with every sign flipped.
    The two biases of each block add up (b_hn must be 0: torch keeps it inside r ⊙ (·)).
    """
    r, z, c = slice(0, N), slice(N, 2 * N), slice(2 * N, 3 * N)
    Wi, Wh, bi, bh = p["W_ih"], p["W_hh"], p["b_ih"], p["b_hh"]
    assert np.all(bh[c] == 0)
    return {"Wz": -Wi[z], "Uz": -Wh[z], "bz": -(bi[z] + bh[z]),
            "Wr": Wi[r], "Ur": Wh[r], "br": bi[r] + bh[r],
            "Wh": Wi[c], "Uh": Wh[c], "bh": bi[c]}


def gru_problem(reset_bias):
    p, xs, h0, _ = make_problem("gru_torch", 0, seed=3)
    p["b_hh"][2 * N:] = 0.0               # b_hn = 0
    p["b_ih"][:N] += reset_bias
    with torch.no_grad():
        out, _ = torch_module("gru_torch", p)(torch.from_numpy(xs), torch.from_numpy(h0[None]))
    textbook, _ = sequence.forward("gru_textbook", xs, h0, textbook_names_for(p))
    return out.numpy(), textbook


def test_textbook_gru_is_not_torch_gru():
    # reset before U_h (textbook) vs after the hidden matmul (torch): different numbers
    torch_out, textbook_out = gru_problem(reset_bias=0.0)
    assert np.max(np.abs(torch_out - textbook_out)) > 1e-3


def test_textbook_gru_equals_torch_gru_when_the_reset_gate_is_open():
    # with r = 1 where r acts cannot matter: this shows the mapping above is the honest one
    torch_out, textbook_out = gru_problem(reset_bias=50.0)
    assert np.max(np.abs(torch_out - textbook_out)) < TOL


# ---------------------------------------------------------------- chapter 7's batched update

def test_one_batched_chargru_update_matches_torch():
    """CharGRU(batch=3): the textbook GRU written out in torch over 3 streams at once, autograd's
    gradient of the loss summed over all B·K characters, torch's own value clipping and Adagrad;
    three updates in a row (the carried states cross from one to the next)."""
    from gleam.chargru import batch as gb
    from gleam.chargru import kernels as gm
    from gleam.chargru import CharGRU

    m = CharGRU(hidden=8, batch=3, seed=11, lr=0.3, clip=0.05)     # a small clip that bites
    V, H = m.V, m.H
    names = ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")
    theta = {n: torch.tensor(m.params[n].copy(), requires_grad=True) for n in names}
    opt = torch.optim.Adagrad(list(theta.values()), lr=0.3, eps=1e-8)
    h = None
    for update in range(3):
        inputs, targets, h0 = m.next_chunk()
        if h is not None:                                   # torch carries its own states
            assert np.max(np.abs(h.numpy() - h0)) < 1e-12
        h = torch.from_numpy(h0)
        x = torch.nn.functional.one_hot(torch.from_numpy(inputs), V).double()   # (B, K, V)
        loss = torch.zeros((), dtype=torch.float64)
        for t in range(m.K):
            p = theta
            z = torch.sigmoid(x[:, t] @ p["Wz"].T + h @ p["Uz"].T + p["bz"])
            r = torch.sigmoid(x[:, t] @ p["Wr"].T + h @ p["Ur"].T + p["br"])
            c = torch.tanh(x[:, t] @ p["Wh"].T + (r * h) @ p["Uh"].T + p["bh"])
            h = (1 - z) * h + z * c
            y = h @ p["Wy"].T + p["by"]
            loss = loss + torch.nn.functional.cross_entropy(y, torch.from_numpy(targets[:, t]), reduction="sum")
        opt.zero_grad()
        loss.backward()
        h = h.detach()
        # gleam's summed gradient on the same parameters and chunks, before clipping
        ours = np.zeros_like(m._theta)
        _, cache = gb.forward_batch(m._p, inputs, targets, h0)
        gb.backward_batch(m._p, cache, gm.views(ours, V, H))
        ours = gm.views(ours, V, H)
        for n in names:
            assert np.max(np.abs(ours[n] - theta[n].grad.numpy())) < TOL, n
        torch.nn.utils.clip_grad_value_(list(theta.values()), 0.05)
        opt.step()
        stats = m.step(1)
        assert stats.loss[0] == pytest.approx(loss.item() / (3 * m.K), rel=1e-12)
        for n in names:
            assert np.max(np.abs(m.grads[n] - theta[n].grad.numpy())) < 1e-12, n      # clipped g
            assert np.max(np.abs(m.params[n] - theta[n].detach().numpy())) < 1e-12, n
            assert np.max(np.abs(m.memory[n] - opt.state[theta[n]]["sum"].numpy())) < 1e-12, n
    assert np.mean([np.mean(np.abs(m.grads[n]) == 0.05) for n in ("Wy", "Uh")]) > 0.05   # clipping acted
