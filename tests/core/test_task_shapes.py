"""The batched trainer on every rule-made task's shapes: gleam.tasks.encode's data (padding,
per-character targets, skipped steps, features) through SeqModel.loss_and_grads, checked against
central differences of a loss written out independently, and against torch (float64)."""
import numpy as np
import pytest

from gleam import tasks
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.seqmodel import Trainer
from gleam.optim import Adam

from .test_train import fd, reference_loss, rel_err

# name -> (family, options, encode's keyword arguments, head)
CASES = {
    "nested sums, value mod 10": ("nested_sums", {"max_depth": 2}, {}, "classify"),
    "nested sums, the integer": ("nested_sums", {"max_depth": 2}, {"target": "value"}, "regress"),
    "nested sums, scope per character": ("nested_sums", {"max_depth": 2},
                                         {"target": "scope", "per_char": True, "skip": -1}, "classify"),
    "dyck-2, depth per character": ("brackets", {"kind": "dyck2", "length": (2, 8)},
                                    {"target": "depth", "per_char": True, "skip": -1}, "classify"),
    "aⁿbⁿ, next character": ("counting", {"mode": "predict", "block": (1, 4)},
                             {"per_char": True, "loss_on": "deterministic"}, "classify"),
    "cue–delay, features": ("cue_delay", {"delay": (2, 5), "amplitude": 0.5},
                            {"features": True}, "classify"),
}
CELLS = ("elman", "gru_textbook", "gru_torch", "lstm")


def problem(case, cell, seed=3, count=4, n=3):
    family, options, how, head = CASES[case]
    examples = tasks.FAMILIES[family](count, seed, **options)
    vocab = tasks.vocabulary(examples)
    data = tasks.encode(examples, vocab, **how)
    per_char = how.get("per_char", False)
    if head == "classify":
        n_out = max(2, int(np.max(np.where(data.mask if per_char else True, data.targets, 0))) + 1,
                    len(vocab) if family == "counting" else 0)
    else:
        n_out = 1
    d = data.X.shape[2] if data.X.ndim == 3 else len(vocab)
    model = SeqModel(SeqModelConfig(cell, d=d, n=n, n_out=n_out, head=head, many_to_many=per_char,
                                    seed=seed, init_scale=0.8))
    rng = np.random.default_rng(seed)
    for v in model.params.values():          # off the initial special values (zero biases)
        v += 0.3 * rng.standard_normal(v.shape)
    return model, data


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("case", CASES)
def test_gradients_on_the_tasks_shapes_match_central_differences(case, cell):
    model, data = problem(case, cell)
    tm = data.target_mask
    loss, grads, _ = model.loss_and_grads(data.X, data.mask, data.targets, target_mask=tm)
    f = lambda: reference_loss(model, data.X, data.mask, data.targets, None, tm)  # noqa: E731
    assert abs(loss - f()) <= 1e-12 * max(1.0, abs(loss))
    for k, p in model.params.items():
        assert rel_err(grads[k], fd(f, p)) < 1e-6, k


def torch_loss_and_grads(model, data):
    """The same model, masking rule, readout and loss in torch (float64)."""
    import torch
    c = model.config
    kind = {"gru_torch": torch.nn.GRUCell, "lstm": torch.nn.LSTMCell}[c.cell]
    module = kind(c.d, c.n).double()
    with torch.no_grad():
        for ours, theirs in (("W_ih", "weight_ih"), ("W_hh", "weight_hh"), ("b_ih", "bias_ih"), ("b_hh", "bias_hh")):
            getattr(module, theirs).copy_(torch.from_numpy(model.params[ours]))
    Wo, bo = (torch.tensor(model.params[k], requires_grad=True) for k in ("Wo", "bo"))
    X = data.X if data.X.ndim == 3 else np.eye(c.d)[data.X]
    mask = data.mask
    x = torch.from_numpy(np.where(mask[..., None], X, 0.0))
    B = mask.shape[1]
    state = (torch.zeros(B, c.n, dtype=torch.float64),) * (2 if c.cell == "lstm" else 1)
    hs = []
    for t in range(mask.shape[0]):
        new = module(x[t], state if c.cell == "lstm" else state[0])
        keep = torch.from_numpy(mask[t])[:, None]
        state = tuple(torch.where(keep, a, b) for a, b in zip(new if c.cell == "lstm" else (new,), state))
        hs.append(state[0])
    h = torch.stack(hs) if c.many_to_many else hs[-1]
    out = h @ Wo.T + bo
    if c.many_to_many:
        w = mask & (True if data.target_mask is None else data.target_mask)
    else:
        w = np.ones(B, bool)
    wt = torch.from_numpy(w.astype(np.float64))
    if c.head == "classify":
        y = torch.from_numpy(np.where(w, data.targets, 0).astype(np.int64))
        per = -torch.log_softmax(out, dim=-1).gather(-1, y[..., None])[..., 0]
    else:
        per = 0.5 * (out[..., 0] - torch.from_numpy(np.asarray(data.targets, np.float64))) ** 2
    loss = (per * wt).sum() / wt.sum()
    loss.backward()
    grads = {ours: getattr(module, theirs).grad.numpy() for ours, theirs in
             (("W_ih", "weight_ih"), ("W_hh", "weight_hh"), ("b_ih", "bias_ih"), ("b_hh", "bias_hh"))}
    grads.update(Wo=Wo.grad.numpy(), bo=bo.grad.numpy())
    return loss.item(), grads


@pytest.mark.torch
@pytest.mark.parametrize("cell", ["gru_torch", "lstm"])
@pytest.mark.parametrize("case", CASES)
def test_the_loss_and_every_gradient_on_the_tasks_shapes_match_torch(case, cell):
    model, data = problem(case, cell, count=6, n=4)
    loss, grads, _ = model.loss_and_grads(data.X, data.mask, data.targets, target_mask=data.target_mask)
    t_loss, t_grads = torch_loss_and_grads(model, data)
    assert abs(loss - t_loss) < 1e-10
    for k in grads:
        assert np.max(np.abs(grads[k] - t_grads[k])) < 1e-10, k


@pytest.mark.parametrize("case", CASES)
def test_a_trainer_epoch_runs_on_every_task(case):
    model, data = problem(case, "gru_torch", count=20)
    stats = Trainer(model, Adam(0.01), clip=5.0, batch_size=8, seed=0).fit_epoch(data)
    assert np.isfinite(stats.loss) and stats.n_diverged == 0
