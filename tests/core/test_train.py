"""The batched sequence trainer: gradients, padding, determinism, divergence, learning.

Expected values come from independent computations here: finite differences of a loss
written out in this file, hand-built unpadded runs, explicit readouts of chosen states.
"""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gleam.optim import SGD, Adagrad, Adam
from gleam.cells import names as cell_names
from gleam.seqmodel import (CELL_NAMES, BatchStats, SeqData, SeqModel, SeqModelConfig, Trainer,
                         pad_batch, pad_targets, regression_bound)

from .gradcheck import numerical_grad

CELLS = ("elman", "gru_textbook", "gru_torch", "lstm")
COMBOS = list(itertools.product(CELLS, ("classify", "regress"), (False, True)))


def make_model(cell="gru_textbook", head="classify", m2m=False, d=3, n=3, n_out=None, seed=0, **kw):
    n_out = n_out or (3 if head == "classify" else 1)
    return SeqModel(SeqModelConfig(cell, d=d, n=n, n_out=n_out, head=head, many_to_many=m2m,
                                   seed=seed, **kw))


def reference_loss(model, X, mask, targets, h0=None, target_mask=None):
    """The loss written out from the forward outputs (independent of gleam.seqmodel.heads)."""
    out, _, caches = model.forward(X, mask, h0)
    m = caches["mask"]
    c = model.config
    if c.many_to_many:
        w = m & (True if target_mask is None else target_mask)
    else:
        w = np.ones(out.shape[0], bool)
    if c.head == "classify":
        z = out - out.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        t = np.where(w, targets, 0)
        per = -np.take_along_axis(logp, t[..., None], -1)[..., 0]
    else:
        per = 0.5 * (out[..., 0] - np.where(w, targets, 0.0)) ** 2
    return np.sum(np.where(w, per, 0.0)) / w.sum()


def fd(f, a):
    """Fourth-order central differences of f() w.r.t. every entry of a (perturbed in place)."""
    return numerical_grad(f, a, eps=1e-4, order=4)


def rel_err(a, b):
    """‖a − b‖ / (‖a‖ + ‖b‖) as in gradcheck.rel_error, the denominator floored at 1e-4: a
    gradient that is exactly zero (W_h's after one step from h_0 = 0) meets rounding noise."""
    return np.linalg.norm(a - b) / max(np.linalg.norm(a) + np.linalg.norm(b), 1e-4)


@st.composite
def batches(draw, cell, head, m2m):
    B = draw(st.integers(1, 3))
    lengths = draw(st.lists(st.integers(1, 4), min_size=B, max_size=B))
    T = max(lengths) + draw(st.integers(0, 2))
    seed = draw(st.integers(0, 2**16))
    tokens = draw(st.booleans())
    use_h0 = draw(st.booleans())
    return dict(B=B, lengths=lengths, T=T, seed=seed, tokens=tokens, use_h0=use_h0)


def check_gradients(cell, head, m2m, spec):
    rng = np.random.default_rng(spec["seed"])
    d, n = 3, 2
    model = make_model(cell, head, m2m, d=d, n=n, seed=spec["seed"], init_scale=0.8)
    for v in model.params.values():  # move every parameter off its initial special values
        v += 0.3 * rng.standard_normal(v.shape)
    seqs = [rng.integers(0, d, L) if spec["tokens"] else rng.standard_normal((L, d))
            for L in spec["lengths"]]
    X, mask, _ = pad_batch(seqs, pad_to=spec["T"])
    T, B = mask.shape
    shape = (T, B) if m2m else (B,)
    y = rng.integers(0, 3, shape) if head == "classify" else rng.standard_normal(shape)
    tm = None
    if m2m:
        tm = rng.random((T, B)) < 0.7
        tm[np.asarray(spec["lengths"]) - 1, np.arange(B)] = True
    h0 = None
    if spec["use_h0"]:
        h0 = tuple(rng.uniform(-0.9, 0.9, (B, n)) for _ in range(2)) if cell == "lstm" \
            else rng.uniform(-0.9, 0.9, (B, n))
    loss, grads, info = model.loss_and_grads(X, mask, y, h0=h0, target_mask=tm)
    f = lambda: reference_loss(model, X, mask, y, h0, tm)  # noqa: E731
    assert abs(loss - f()) <= 1e-12 * max(1.0, abs(loss))
    assert set(grads) == set(model.params)
    for k, p in model.params.items():
        num = fd(f, p)
        assert rel_err(grads[k], num) < 1e-6, (k, rel_err(grads[k], num))
    if h0 is not None:
        pairs = zip(h0, info["dh0"]) if cell == "lstm" else [(h0, info["dh0"])]
        for a, da in pairs:
            assert rel_err(da, fd(f, a)) < 1e-6
    if not spec["tokens"]:
        num = fd(f, X)
        assert rel_err(info["dX"], num) < 1e-6
        assert np.all(info["dX"][~mask] == 0)  # padded steps: no gradient


@pytest.mark.parametrize("cell,head,m2m", COMBOS)
def test_gradients_match_finite_differences(cell, head, m2m):
    @settings(max_examples=15, deadline=None)
    @given(spec=batches(cell, head, m2m))
    def run(spec):
        check_gradients(cell, head, m2m, spec)
    run()


# ---- padding ------------------------------------------------------------------------------
def test_pad_batch_tokens_features_and_one_hot():
    X, mask, lengths = pad_batch([[1, 2, 0], [2]], pad_to=4)
    assert X.shape == (4, 2) and X.dtype == np.int64
    np.testing.assert_array_equal(X[:, 0], [1, 2, 0, 0])
    np.testing.assert_array_equal(mask.T, [[1, 1, 1, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(lengths, [3, 1])
    H, _, _ = pad_batch([[1, 2, 0], [2]], vocab_size=3)
    assert H.shape == (3, 2, 3)
    np.testing.assert_array_equal(H[:, 1], [[0, 0, 1], [0, 0, 0], [0, 0, 0]])
    F, m, L = pad_batch([np.ones((2, 5)), np.ones((4, 5))])
    assert F.shape == (4, 2, 5) and F[2:, 0].sum() == 0 and list(L) == [2, 4]
    Y = pad_targets([[1, 2], [0, 1, 1]])
    assert Y.shape == (3, 2) and Y[2, 0] == 0
    with pytest.raises(ValueError, match="empty"):
        pad_batch([[1], []])
    with pytest.raises(ValueError, match="shorter"):
        pad_batch([[1, 2, 3]], pad_to=2)
    with pytest.raises(ValueError, match="token ids"):
        pad_batch([[0.5, 1.0]])
    with pytest.raises(ValueError, match="widths"):
        pad_batch([np.ones((2, 3)), np.ones((2, 4))])


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("m2m", [False, True])
def test_padding_changes_nothing(cell, m2m):
    rng = np.random.default_rng(3)
    model = make_model(cell, "classify", m2m, d=4, n=5, seed=2)
    seqs = [rng.integers(0, 4, L) for L in (5, 2, 4)]
    y_seq = [rng.integers(0, 3, L) for L in (5, 2, 4)]
    results = []
    for pad_to in (5, 6, 9):
        X, mask, _ = pad_batch(seqs, pad_to=pad_to)
        y = pad_targets(y_seq, pad_to=pad_to) if m2m else np.array([0, 2, 1])
        if pad_to == 9:  # garbage in the padding must not matter either
            X = np.where(mask, X, 3)
            if m2m:
                y = np.where(mask, y, 2)
        results.append(model.loss_and_grads(X, mask, y))
    for loss, grads, info in results[1:]:
        np.testing.assert_allclose(loss, results[0][0], rtol=1e-13)
        for k in grads:
            np.testing.assert_allclose(grads[k], results[0][1][k], rtol=1e-12, atol=1e-15)
    # each sequence alone, unpadded, gives the same states as inside the padded batch
    X, mask, lengths = pad_batch(seqs, pad_to=7)
    hs = model.hidden_states(X, mask)
    for b, s in enumerate(seqs):
        alone = model.hidden_states(np.asarray(s)[:, None])[:, 0]
        np.testing.assert_allclose(hs[: len(s), b], alone, rtol=1e-13, atol=1e-15)
        # padded steps leave the state unchanged
        assert np.all(hs[len(s):, b] == hs[len(s) - 1, b])


@pytest.mark.parametrize("cell", CELLS)
def test_many_to_one_reads_the_last_valid_step(cell):
    rng = np.random.default_rng(4)
    model = make_model(cell, "classify", False, d=3, n=4, seed=5)
    X, mask, lengths = pad_batch([rng.standard_normal((L, 3)) for L in (1, 4, 2)], pad_to=5)
    out, hs, _ = model.forward(X, mask)
    p = model.params
    for b, L in enumerate(lengths):
        np.testing.assert_allclose(out[b], p["Wo"] @ hs[L - 1, b] + p["bo"], rtol=1e-13)


def test_padded_feature_values_are_ignored_and_dx_is_zero_there():
    rng = np.random.default_rng(6)
    model = make_model("lstm", "regress", True, d=2, n=3, seed=1)
    X, mask, _ = pad_batch([rng.standard_normal((L, 2)) for L in (3, 1)])
    y = rng.standard_normal(mask.shape)
    loss, grads, info = model.loss_and_grads(X, mask, y)
    X2 = np.where(mask[..., None], X, np.nan)
    y2 = np.where(mask, y, np.inf)
    loss2, grads2, info2 = model.loss_and_grads(X2, mask, y2)
    assert loss2 == loss and all(np.array_equal(grads[k], grads2[k]) for k in grads)
    assert np.all(info2["dX"][~mask] == 0)


# ---- heads --------------------------------------------------------------------------------
def test_regression_bound_holds_and_is_attained():
    rng = np.random.default_rng(7)
    w, b = rng.standard_normal(6), np.array([-0.4])
    bound = regression_bound(w, b)
    assert bound == pytest.approx(0.4 + np.abs(w).sum())
    H = rng.uniform(-1, 1, (1000, 6))
    assert np.all(np.abs(H @ w + b) <= bound)
    assert abs(-np.sign(w) @ w + b[0]) == pytest.approx(bound)  # h = −sign(w) attains it
    # a trained-free model driven hard for 200 steps never leaves the bound
    for cell in CELLS:
        model = make_model(cell, "regress", True, d=2, n=5, seed=3, init_scale=2.0)
        y = model.predict(10 * rng.standard_normal((200, 4, 2)))
        assert np.all(np.abs(y) <= model.regression_bound() + 1e-12)


def test_regression_loss_is_half_mean_squared_error():
    model = make_model("elman", "regress", False, d=2, n=2)
    X = np.zeros((1, 2, 2))
    out = model.forward(X)[0][:, 0]
    loss, _, info = model.loss_and_grads(X, None, np.array([1.0, -2.0]))
    expected = np.mean((out - [1.0, -2.0]) ** 2)
    assert loss == pytest.approx(0.5 * expected) and info["mse"] == pytest.approx(expected)


# ---- state access and interventions -------------------------------------------------------
@pytest.mark.parametrize("cell", CELLS)
def test_h0_and_interventions(cell):
    rng = np.random.default_rng(8)
    model = make_model(cell, "classify", True, d=3, n=4, seed=9)
    X = rng.integers(0, 3, (6, 2))
    full = model.hidden_states(X)
    same = model.hidden_states(X, intervene={2: lambda s: s})
    np.testing.assert_array_equal(full, same)
    # running from the state after step 2 reproduces the rest of the run
    state = (full[2], model.hidden_states(X, cell_state=True)[2]) if cell == "lstm" else full[2]
    np.testing.assert_allclose(model.hidden_states(X[3:], h0=state), full[3:], rtol=1e-13)
    # clamping the state to zero at step 2 == starting the suffix from zeros
    zero = (lambda s: (0 * s[0], 0 * s[1])) if cell == "lstm" else (lambda s: 0 * s)
    np.testing.assert_allclose(model.hidden_states(X, intervene={2: zero})[3:],
                               model.hidden_states(X[3:]), rtol=1e-13)
    # swapping two sequences' states before a shared suffix swaps the answers
    X[3:, 1] = X[3:, 0]
    swap = (lambda s: (s[0][::-1], s[1][::-1])) if cell == "lstm" else (lambda s: s[::-1])
    out = model.forward(X)[0]
    swapped = model.forward(X, intervene={2: swap})[0]
    np.testing.assert_allclose(swapped[3:, 0], out[3:, 1], rtol=1e-12)
    np.testing.assert_allclose(swapped[3:, 1], out[3:, 0], rtol=1e-12)


# ---- training -----------------------------------------------------------------------------
def parity_data(n_seq, seed):
    """Tokens from {0, 1, 2, 3}; the class is the parity of the first token, which is followed
    by 3-10 more tokens from the same alphabet (so the state must hold it across them)."""
    rng = np.random.default_rng(seed)
    seqs = [rng.integers(0, 4, 1 + rng.integers(3, 11)) for _ in range(n_seq)]
    return SeqData.from_sequences(seqs, np.array([s[0] % 2 for s in seqs]))


def test_determinism_from_seeds():
    def run(model_seed, trainer_seed):
        model = make_model("gru_torch", "classify", False, d=4, n=6, n_out=2, seed=model_seed)
        tr = Trainer(model, Adam(0.01), clip=1.0, batch_size=16, seed=trainer_seed)
        stats = [tr.fit_epoch(parity_data(64, 0)) for _ in range(2)]
        return model.params, np.concatenate([s.losses for s in stats])

    p1, l1 = run(1, 2)
    p2, l2 = run(1, 2)
    assert all(np.array_equal(p1[k], p2[k]) for k in p1) and np.array_equal(l1, l2)
    p3, l3 = run(1, 3)  # another shuffling order
    assert not np.array_equal(l1, l3)
    p4, _ = run(4, 2)  # another initialisation
    assert not np.array_equal(p1["W_hh"], p4["W_hh"])


def test_clipping_reports_the_pre_clip_norm_and_updates_with_the_clipped_gradient():
    data = parity_data(8, 1)
    model = make_model("elman", "classify", False, d=4, n=5, n_out=2, seed=1)
    before = {k: v.copy() for k, v in model.params.items()}
    _, grads, _ = model.loss_and_grads(data.X, data.mask, data.targets)
    norm = np.sqrt(sum(np.sum(g ** 2) for g in grads.values()))
    clip = norm / 4
    stats = Trainer(model, SGD(0.1), clip=clip).step(data)
    assert isinstance(stats, BatchStats)
    assert stats.grad_norm == pytest.approx(norm, rel=1e-12)
    assert stats.clipped and not stats.diverged
    for k in before:
        expected = before[k] - 0.1 * grads[k] * clip / norm
        np.testing.assert_allclose(model.params[k], expected, atol=1e-14)


class Exploding:
    """An optimiser that counts its steps and blows the parameters up."""

    def __init__(self):
        self.lr, self.count, self.memory = 1.0, 0, {}

    def step(self, params, grads):
        self.count += 1
        for k in params:
            self.memory[k] = grads[k].copy()
            params[k] += np.inf


def test_a_diverging_step_leaves_the_model_unchanged():
    rng = np.random.default_rng(2)
    model = make_model("gru_textbook", "regress", False, d=2, n=3, seed=0)
    X, mask, _ = pad_batch([rng.standard_normal((3, 2)) for _ in range(4)])
    y = rng.standard_normal(4)
    tr = Trainer(model, Adagrad(0.1), batch_size=4)
    assert not tr.step((X, mask, y)).diverged
    before = {k: v.copy() for k, v in model.params.items()}
    bad = X.copy()
    bad[0, 0, 0] = np.nan  # a real step that is not a number
    s = tr.step((bad, mask, y))
    assert s.diverged and not np.isfinite(s.loss)
    assert all(np.array_equal(model.params[k], before[k]) for k in before)
    # an update that overflows the parameters is undone, optimiser memory included
    for opt in (SGD(1e308), Exploding()):
        s = Trainer(model, opt, batch_size=4).step((X, mask, y * 1e5))
        assert s.diverged and np.isfinite(s.loss) and np.isfinite(s.grad_norm)
        assert all(np.array_equal(model.params[k], before[k]) for k in before)
    assert opt.count == 0 and opt.memory == {}
    s = tr.step((X, mask, y))  # and training goes on
    assert not s.diverged and tr.steps == 2


def test_gru_learns_the_parity_of_the_first_token_across_a_delay():
    train, test = parity_data(256, 10), parity_data(200, 100)
    model = make_model("gru_textbook", "classify", False, d=4, n=8, n_out=2, seed=0)
    tr = Trainer(model, Adam(0.05), clip=5.0, batch_size=32, seed=0)
    start = tr.evaluate(test)["accuracy"]
    for _ in range(30):
        if tr.fit_epoch(train).metric > 0.99:
            break
    assert start < 0.7
    assert tr.evaluate(test)["accuracy"] >= 0.95


def test_elman_regression_learns_a_sum():
    def data(n_seq, seed):
        rng = np.random.default_rng(seed)
        seqs = [rng.uniform(-0.5, 0.5, (rng.integers(1, 5), 1)) for _ in range(n_seq)]
        return SeqData.from_sequences(seqs, np.array([s.sum() for s in seqs]))

    train, test = data(256, 20), data(200, 21)
    variance = np.var(test.targets)
    model = make_model("elman", "regress", False, d=1, n=8, seed=0)
    tr = Trainer(model, Adam(0.02), batch_size=32, seed=0)
    for _ in range(15):
        tr.fit_epoch(train)
    assert tr.evaluate(test)["mse"] < 0.05 * variance  # from ~1.1 x variance at the start


def test_lstm_many_to_many_learns_to_echo_the_previous_token():
    rng = np.random.default_rng(30)
    seqs = [rng.integers(0, 3, rng.integers(2, 7)) for _ in range(192)]
    targets = [np.concatenate([[0], s[:-1]]) for s in seqs]
    train = SeqData.from_sequences(seqs, targets)
    model = make_model("lstm", "classify", True, d=3, n=8, n_out=3, seed=0)
    tr = Trainer(model, Adam(0.05), batch_size=32, seed=0)
    for _ in range(30):
        if tr.fit_epoch(train).metric > 0.99:
            break
    assert tr.evaluate(train)["accuracy"] > 0.97


def test_forward_only_loss_and_data_helpers():
    rng = np.random.default_rng(40)
    seqs = [rng.integers(0, 3, L) for L in (4, 2, 3)]
    per_step = SeqData.from_sequences(seqs, [s[::-1] for s in seqs])
    assert per_step.targets.shape == (4, 3) and per_step.per_step
    one_each = SeqData.from_sequences(seqs, [1, 0, 2], vocab_size=3)
    assert one_each.targets.shape == (3,) and one_each.X.shape == (4, 3, 3)
    model = make_model("gru_torch", "classify", True, d=3, n=4, seed=1)
    tm = np.ones((4, 3), bool)
    tm[0] = False
    full, _, info = model.loss_and_grads(per_step.X, per_step.mask, per_step.targets,
                                         target_mask=tm)
    loss, info2 = model.loss(per_step.X, per_step.mask, per_step.targets, target_mask=tm)
    assert loss == full and info2["count"] == info["count"] == 9 - 3
    # a trainer takes a plain tuple too, and evaluate agrees with the model
    tr = Trainer(model, SGD(0.0))
    ev = tr.evaluate((per_step.X, per_step.mask, per_step.targets, tm))
    assert ev["loss"] == pytest.approx(loss, rel=1e-12) and ev["count"] == 6
    assert tr.fit_epoch((per_step.X, per_step.mask, per_step.targets)).steps == 1


# ---- errors -------------------------------------------------------------------------------
def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="unknown cell 'transformer'; known cells: "):
        SeqModelConfig("transformer", d=2, n=2, n_out=2)
    with pytest.raises(ValueError, match="head must be one of 'classify', 'regress', got 'ranking'"):
        SeqModelConfig("elman", d=2, n=2, n_out=2, head="ranking")
    with pytest.raises(ValueError, match="n_out >= 2"):
        SeqModelConfig("elman", d=2, n=2, n_out=1)
    with pytest.raises(ValueError, match="n must be an integer >= 1, got 0"):
        SeqModelConfig("elman", d=2, n=0, n_out=2)
    with pytest.raises(ValueError, match="init_scale must be None or a finite number > 0, got 0"):
        SeqModelConfig("elman", d=2, n=2, n_out=2, init_scale=0)
    model = make_model("elman", "classify", False, d=3, n=2)
    with pytest.raises(ValueError, match=r"X has shape \(4, 2, 5\)"):
        model.forward(np.zeros((4, 2, 5)))
    with pytest.raises(ValueError, match="mask has shape"):
        model.forward(np.zeros((4, 2, 3)), np.ones((4, 3)))
    with pytest.raises(ValueError, match="no valid step"):
        model.forward(np.zeros((4, 2, 3)), np.array([[1, 0]] * 4))
    with pytest.raises(ValueError, match="token ids"):
        model.forward(np.array([[0, 5]]))
    with pytest.raises(ValueError, match="targets have shape"):
        model.loss_and_grads(np.zeros((4, 2), int), None, np.zeros(3, int))
    with pytest.raises(ValueError, match="target_mask is for many-to-many"):
        model.loss_and_grads(np.zeros((4, 2), int), None, np.zeros(2, int),
                             target_mask=np.ones((4, 2)))
    with pytest.raises(ValueError, match="class targets"):
        model.loss_and_grads(np.zeros((4, 2), int), None, np.array([0, 3]))
    with pytest.raises(ValueError, match="h0 has shape"):
        model.forward(np.zeros((4, 2), int), h0=np.zeros(3))
    with pytest.raises(ValueError, match="intervene"):
        model.forward(np.zeros((4, 2), int), intervene={4: lambda s: s})
    with pytest.raises(ValueError, match="params"):
        SeqModel(model.config, params={"Wx": np.zeros((2, 3))})
    tr = Trainer(model, SGD(0.1))
    for bad in (float("nan"), -1.0, float("inf"), "fast"):
        with pytest.raises(ValueError, match="lr must be a finite number >= 0, got "):
            tr.lr = bad
    with pytest.raises(ValueError):
        SGD(float("nan"))
    with pytest.raises(ValueError, match="clip must be None or a finite number > 0, got -1.0"):
        Trainer(model, SGD(0.1), clip=-1.0)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1, got 0"):
        Trainer(model, SGD(0.1), batch_size=0)


def test_every_contract_cell_is_available():
    assert set(CELLS) <= set(CELL_NAMES)
    assert CELL_NAMES is cell_names.CELL_NAMES


def test_two_intervene_keys_for_one_step_are_refused():
    """-1 and T − 1 name the same step: one function would silently replace the other."""
    model = make_model("elman", d=2, n=2)
    X = np.zeros((3, 1, 2))
    with pytest.raises(ValueError, match="^intervene names step 2 twice"):
        model.forward(X, intervene={-1: lambda s: s, 2: lambda s: s})
    model.forward(X, intervene={-1: lambda s: s, 1: lambda s: s})      # two steps: fine
