"""gleam.instruments.probes on constructed states whose answers are known.

Every expected number is computed independently: by loops, np.linalg.lstsq, finite
differences, np.linalg.eigh, PyTorch's L-BFGS, or by how the data were built. The probe
experiments run over several data seeds with thresholds far from what the seeds give (the
margins are stated at each test); no seed was picked to make one pass.
"""
import numpy as np
import pytest

from gleam.instruments import probes
from gleam.instruments import control as probes_control
from gleam.seqmodel.batching import pad_batch
from gleam.seqmodel import SeqModel, SeqModelConfig

from .gradcheck import PRECISE, numerical_grad, rel_error

SEEDS = [0, 1, 2]


# ---------------------------------------------------------------- flatten_states
def test_flatten_states_lists_the_valid_steps_t_major_with_their_index():
    rng = np.random.default_rng(0)
    T, B, n = 5, 3, 2
    states = rng.standard_normal((T, B, n))
    mask = np.arange(T)[:, None] < np.array([5, 2, 3])[None, :]
    X, index = probes.flatten_states(states, mask)
    rows = [(t, b) for t in range(T) for b in range(B) if mask[t, b]]       # by hand: t-major
    assert index.tolist() == [list(r) for r in rows]
    assert np.array_equal(X, np.array([states[t, b] for t, b in rows]))
    assert np.array_equal(X, states[mask])                                  # as documented
    X_all, index_all = probes.flatten_states(states)
    assert X_all.shape == (T * B, n) and index_all.tolist()[:4] == [[0, 0], [0, 1], [0, 2], [1, 0]]


def test_flatten_states_of_a_model_line_up_with_each_character():
    """Rows of a padded batch's states are each sequence's own states, run alone, and the
    index finds the character read at that step."""
    seqs = [[0, 1, 2, 3], [3, 3], [2, 0, 1]]
    model = SeqModel(SeqModelConfig("gru_textbook", 4, 3, 2, seed=1))
    X, mask, _ = pad_batch(seqs)
    rows, index = probes.flatten_states(model.hidden_states(X, mask), mask)
    assert len(rows) == sum(map(len, seqs))
    chars = np.array([seqs[b][t] for t, b in index])
    assert np.array_equal(chars, X[mask])
    for row, (t, b) in zip(rows, index):
        alone = model.hidden_states(np.array(seqs[b])[:, None])             # (T_b, 1, n)
        assert np.allclose(row, alone[t, 0], atol=1e-14)


# ---------------------------------------------------------------- probe experiments
def split(X, y, types, n_train):
    return (X[:n_train], y[:n_train], types[:n_train], X[n_train:], y[n_train:], types[n_train:])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_linearly_encoded_label_is_found_with_high_selectivity(seed):
    """label = argmax of 4 fixed projections of Gaussian states (so linearly decodable);
    300 types drawn independently of the states, so the control labels (random per type) are
    unpredictable from the states and a probe scores about their commonest label's share.
    Over 30 other seeds: accuracy >= 0.948, control <= 0.432, selectivity >= 0.548."""
    rng = np.random.default_rng(100 + seed)
    X = rng.standard_normal((1500, 16))
    y = np.argmax(X @ rng.standard_normal((16, 4)), axis=1)
    r = probes_control.probe_report(*split(X, y, rng.integers(0, 300, 1500), 1000), seed=seed)
    assert r.accuracy > 0.9 and r.control_accuracy < 0.5 and r.selectivity > 0.4
    p = probes.fit_probe(X[:1000], y[:1000])                         # the fit converged
    assert max(np.max(np.abs(g)) for g in p.objective(X[:1000], y[:1000])[1].values()) < 1e-6
    assert (r.n_train, r.n_test, r.kind) == (1000, 500, "classify")
    assert r.selectivity == r.accuracy - r.control_accuracy


@pytest.mark.parametrize("seed", SEEDS)
def test_a_linearly_encoded_value_is_found_by_the_ridge_probe(seed):
    """y = v·x + 0.1 noise: the best R² is 1 − 0.01/(‖v‖² + 0.01), about 0.9994; control
    values random per type score R² about 0 (30 other seeds: R² >= 0.998, control <= 0.004)."""
    rng = np.random.default_rng(200 + seed)
    X = rng.standard_normal((1500, 16))
    y = X @ rng.standard_normal(16) + 0.1 * rng.standard_normal(1500)
    r = probes_control.probe_report(*split(X, y, rng.integers(0, 300, 1500), 1000), kind="regress")
    assert r.accuracy > 0.99 and r.control_accuracy < 0.1 and abs(r.majority) < 0.05


@pytest.mark.parametrize("seed", SEEDS)
def test_states_unrelated_to_the_labels_score_the_majority_baseline(seed):
    """Labels drawn with p = (0.6, 0.3, 0.1) independently of the states: no probe can do
    better than the commonest label on held-out rows (30 other seeds: within 0.012)."""
    rng = np.random.default_rng(300 + seed)
    X = rng.standard_normal((1500, 16))
    y = rng.choice(3, 1500, p=[0.6, 0.3, 0.1])
    r = probes_control.probe_report(*split(X, y, rng.integers(0, 300, 1500), 1000))
    assert abs(r.accuracy - r.majority) < 0.05
    assert abs(r.majority - np.mean(y[1000:] == 0)) < 1e-12   # class 0 is the commonest


@pytest.mark.parametrize("seed", SEEDS)
def test_a_memorising_mlp_probe_has_low_selectivity_where_a_linear_one_does_not(seed):
    """The classic case (Hewitt & Liang 2019). 150 types, each a tight cluster (embedding
    E_type ~ N(0, I_8) plus 0.05 noise); the task label is argmax of 4 projections of the state
    (linear); control labels are random per type. A linear probe has 9·4 parameters: it cannot
    give 150 clusters in 8 dimensions random labels (Cover: a linear dichotomy fits about
    2·9 points at random), so its control accuracy stays near chance. A 64-unit tanh MLP can
    carve every cluster out and learn the control task as well as the task. Over 30 other
    seeds: linear selectivity >= 0.467 (control <= 0.513); MLP control accuracy 1.0 every time
    and MLP selectivity <= −0.007."""
    rng = np.random.default_rng(400 + seed)
    E, V = rng.standard_normal((150, 8)), rng.standard_normal((8, 4))

    def draw(per_type):
        types = np.repeat(np.arange(150), per_type)
        X = E[types] + 0.05 * rng.standard_normal((len(types), 8))
        return X, np.argmax(X @ V, axis=1), types

    data = draw(4) + draw(2)
    linear = probes_control.probe_report(*data, seed=seed)
    mlp = probes_control.probe_report(*data, hidden=64, steps=300, lr=0.03, seed=seed)
    assert linear.accuracy > 0.9 and mlp.accuracy > 0.9
    assert linear.control_accuracy < 0.65 and linear.selectivity > 0.3
    assert mlp.control_accuracy > 0.9 and mlp.selectivity < 0.1


def test_control_labels_stay_with_their_type_from_train_to_test():
    """States = one-hot of the type: a linear probe can learn any per-type labelling, so it
    scores 1 on the control task only if each test type carries its training control label."""
    types = np.tile(np.arange(10), 30)
    X = np.eye(10)[types]
    r = probes_control.probe_report(*split(X, types % 2, types, 200), l2=1e-4)
    assert r.accuracy == 1.0 and r.control_accuracy == 1.0 and r.selectivity == 0.0


# ---------------------------------------------------------------- control_labels
def test_control_labels_give_each_type_one_label_from_the_empirical_distribution():
    rng = np.random.default_rng(5)
    types = rng.integers(0, 4000, 40000)
    labels = rng.choice(np.array([7, 9]), 40000, p=[0.7, 0.3])
    c = probes_control.control_labels(types, labels, seed=3)
    assert c.dtype == labels.dtype and set(np.unique(c)) <= {7, 9}
    per_type = {}
    for t, v in zip(types, c):
        assert per_type.setdefault(t, v) == v                              # one label a type
    share = np.mean(np.array(list(per_type.values())) == 7)
    assert abs(share - np.mean(labels == 7)) < 0.03                        # ~4000 draws: sd 0.007
    assert np.array_equal(c, probes_control.control_labels(types, labels, seed=3))
    assert not np.array_equal(c, probes_control.control_labels(types, labels, seed=4))


def test_control_labels_for_regression_are_rows_of_the_labels():
    types = np.array(["a", "b", "a", "c", "b"])
    labels = np.arange(10.0).reshape(5, 2)
    c = probes_control.control_labels(types, labels, seed=0)
    assert c.shape == (5, 2)
    assert all(any(np.array_equal(row, r) for r in labels) for row in c)
    assert np.array_equal(c[0], c[2]) and np.array_equal(c[1], c[4])


# ---------------------------------------------------------------- the fits themselves
@pytest.mark.parametrize("l2", [1e-4, 0.3, 10.0])
@pytest.mark.parametrize("k", [None, 2])
def test_ridge_equals_least_squares_on_the_augmented_system(l2, k):
    """min ½ mean‖y − XW − b‖² + ½ l2 ‖W‖²  ⇔  lstsq of [[X, 1], [√(N l2) I, 0]] θ = [y; 0]."""
    rng = np.random.default_rng(int(l2 * 100) + (k or 0))
    N, n = 60, 5
    X = rng.standard_normal((N, n)) + 3.0
    y = rng.standard_normal((N,) if k is None else (N, k))
    Y = y.reshape(N, -1)
    A = np.block([[X, np.ones((N, 1))], [np.sqrt(N * l2) * np.eye(n), np.zeros((n, 1))]])
    theta = np.linalg.lstsq(A, np.vstack([Y, np.zeros((n, Y.shape[1]))]), rcond=None)[0]
    p = probes.fit_probe(X, y, "regress", l2=l2)
    assert np.allclose(p.params["W"], theta[:n], atol=1e-10)
    assert np.allclose(p.params["b"], theta[n], atol=1e-10)
    assert p.predict(X).shape == y.shape
    assert np.allclose(p.predict(X), (A[:N] @ theta).reshape(y.shape), atol=1e-10)
    fit = A[:N] @ theta
    r2 = [1 - np.sum((Y[:, j] - fit[:, j]) ** 2) / np.sum((Y[:, j] - Y[:, j].mean()) ** 2)
          for j in range(Y.shape[1])]
    assert abs(p.score(X, y) - np.mean(r2)) < 1e-12


def _by_hand_loss(p, X, y, kind, l2):
    """The loss written out row by row (independent of gleam.instruments.probes._objective)."""
    total = 0.0
    for x, t in zip(X, y):
        if "W1" in p:
            z = np.tanh(x @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]
        else:
            z = x @ p["W"] + p["b"]
        if kind == "classify":
            total += np.log(np.sum(np.exp(z - z.max()))) + z.max() - z[t]
        else:
            total += 0.5 * np.sum((z - t) ** 2)
    return total / len(X) + 0.5 * l2 * sum(np.sum(v ** 2) for k, v in p.items() if k[0] == "W")


@pytest.mark.parametrize("kind", ["classify", "regress"])
@pytest.mark.parametrize("hidden", [0, 4])
def test_loss_gradients_match_finite_differences(kind, hidden):
    rng = np.random.default_rng(hidden + len(kind))
    N, n, k = 7, 3, 3
    X = rng.standard_normal((N, n))
    if hidden:
        p = {"W1": rng.standard_normal((n, hidden)), "b1": rng.standard_normal(hidden),
             "W2": rng.standard_normal((hidden, k)), "b2": rng.standard_normal(k)}
    else:
        p = {"W": rng.standard_normal((n, k)), "b": rng.standard_normal(k)}
    y = rng.integers(0, k, N) if kind == "classify" else rng.standard_normal((N, k))
    probe = probes.Probe(kind, p, np.arange(k) if kind == "classify" else None, flat=False)
    L, grads = probe.objective(X, y, l2=0.3)
    assert abs(L - _by_hand_loss(probe.params, X, y, kind, 0.3)) < 1e-12
    for name, g in grads.items():
        numeric = numerical_grad(lambda: probe.objective(X, y, l2=0.3)[0], probe.params[name],
                                 **PRECISE)
        assert rel_error(g, numeric) < 1e-8, name


def test_separable_data_are_classified_perfectly_and_the_fit_converges():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((400, 6))
    w = rng.standard_normal(6)
    X = X[np.abs(X @ w) > 0.5]                                 # a margin around the plane
    y = (X @ w > 0).astype(int) + 5                            # labels 5 and 6
    p = probes.fit_probe(X[:200], y[:200])
    assert p.classes.tolist() == [5, 6]
    assert p.score(X[:200], y[:200]) == 1.0 and p.score(X[200:], y[200:]) == 1.0
    _, grads = p.objective(X[:200], y[:200], l2=1e-3)
    assert max(np.max(np.abs(g)) for g in grads.values()) < 1e-7      # it stopped converged
    assert np.allclose(p.direction.sum(axis=0), 0, atol=1e-6)         # row 1 = −row 0


def test_adding_a_class_direction_moves_the_prediction_to_that_class():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((300, 5))
    y = (X[:, 0] + 0.5 * rng.standard_normal(300) > 0).astype(int)
    p = probes.fit_probe(X, y)
    d = p.direction                                                    # (2, 5)
    assert d.shape == (2, 5) and np.array_equal(d, p.params["W"].T)
    for c in (0, 1):
        assert np.all(p.predict(X + 100 * d[c]) == c)


@pytest.mark.torch
def test_logistic_probe_reaches_the_minimiser_torch_lbfgs_finds():
    import torch
    rng = np.random.default_rng(9)
    X = rng.standard_normal((200, 4))
    y = np.argmax(X @ rng.standard_normal((4, 3)) + rng.standard_normal((200, 3)), axis=1)
    l2 = 0.01
    W = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    opt = torch.optim.LBFGS([W, b], max_iter=500, tolerance_grad=1e-12, tolerance_change=1e-15,
                            line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(Xt @ W + b, yt) + 0.5 * l2 * (W ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    p = probes.fit_probe(X, y, l2=l2)
    # softmax's b is fixed only up to a common shift: gleam's has Σ_c b_c = 0
    assert np.max(np.abs(p.params["W"] - W.detach().numpy())) < 1e-6
    b_t = b.detach().numpy()
    assert abs(p.params["b"].sum()) < 1e-12
    assert np.max(np.abs(p.params["b"] - (b_t - b_t.mean()))) < 1e-6


def test_the_mlp_probe_is_deterministic_given_its_seed_and_has_no_direction():
    rng = np.random.default_rng(10)
    X, y = rng.standard_normal((40, 3)), rng.integers(0, 2, 40)
    a, b = (probes.fit_probe(X, y, hidden=5, steps=50, seed=3) for _ in range(2))
    c = probes.fit_probe(X, y, hidden=5, steps=50, seed=4)
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)
    assert not np.array_equal(a.params["W1"], c.params["W1"])
    with pytest.raises(ValueError, match="direction"):
        a.direction


# ---------------------------------------------------------------- PCA
def test_pca_recovers_the_axes_and_variances_of_a_rotated_scaled_gaussian():
    rng = np.random.default_rng(11)
    R, _ = np.linalg.qr(rng.standard_normal((5, 5)))                  # a random rotation
    s = np.array([4.0, 2.0, 1.0, 0.5, 0.25])
    X = (rng.standard_normal((20000, 5)) * s) @ R.T + np.array([1.0, -2, 3, 0, 5])
    p = probes.pca(X, 3)
    C = p.components
    assert C.shape == (3, 5)
    assert np.allclose(C @ C.T, np.eye(3), atol=1e-12)                # orthonormal
    assert np.all(np.abs(C @ R[:, :3]).diagonal() > 0.999)            # the true axes, ± sign
    assert np.allclose(p.explained_variance_ratio, s[:3] ** 2 / np.sum(s ** 2), atol=0.01)
    for row in C:                                                     # the sign rule
        assert row[np.argmax(np.abs(row))] > 0
    # against eigh of the sample covariance
    evals, evecs = np.linalg.eigh(np.cov(X.T))
    evals, evecs = evals[::-1], evecs[:, ::-1]
    assert np.allclose(p.explained_variance_ratio, evals[:3] / evals.sum(), rtol=1e-10)
    assert np.allclose(np.abs(C @ evecs[:, :3]).diagonal(), 1, atol=1e-10)
    assert np.allclose(p.mean, X.mean(axis=0), atol=1e-12)
    Z = p.transform(X[:10])
    assert np.allclose(Z, (X[:10] - X.mean(axis=0)) @ C.T, atol=1e-12)


def test_pca_signs_follow_the_rule_on_every_data_set():
    """eigh's eigenvectors, each signed by hand so its largest-|entry| is positive, are the
    components exactly (up to rounding), whatever signs the SVD happened to return."""
    rng = np.random.default_rng(12)
    for _ in range(20):
        X = rng.standard_normal((30, 6)) * np.arange(1, 7)
        evecs = np.linalg.eigh(np.cov(X.T))[1][:, ::-1].T              # rows, largest first
        signs = np.sign(evecs[np.arange(6), np.argmax(np.abs(evecs), axis=1)])
        assert np.allclose(probes.pca(X, 6).components, evecs * signs[:, None], atol=1e-8)


def test_pca_of_identical_rows_explains_nothing_and_stays_finite():
    p = probes.pca(np.ones((4, 3)), 2)
    assert p.explained_variance_ratio.tolist() == [0.0, 0.0]
    assert np.allclose(p.components @ p.components.T, np.eye(2))


# ---------------------------------------------------------------- the input policy
@pytest.mark.parametrize("call, message", [
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1, 1], l2=0), "l2 must be"),
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1, 1], l2=True), "l2 must be"),
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1, 1], hidden="3"), "hidden must be"),
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1], kind="classify"), "y has shape"),
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1, 0.5]), "y must hold integer"),
    (lambda: probes.fit_probe(np.zeros((3, 2)), [0, 1, 1], kind="rank"), "kind must be"),
    (lambda: probes.fit_probe(np.full((3, 2), 1e200), [0, 1, 1]), "X has entries beyond"),
    (lambda: probes.flatten_states(np.zeros((2, 2, 1)), np.zeros((2, 2))), "mask"),
    (lambda: probes.pca(np.zeros((3, 2)), 3), "k must be"),
    (lambda: probes.fit_probe(np.eye(3), [1.0, 2, 3], "regress").score(np.eye(3), np.eye(3)),
     "y has shape"),
    (lambda: probes_control.control_labels([1.5, 2.5], [0, 1]), "types must be"),
    (lambda: probes_control.probe_report(np.zeros((2, 2)), [0, 1], [0, 1], np.zeros((2, 3)), [0, 1],
                                 [0, 1]), "X_test has shape"),
])
def test_bad_input_is_refused_with_a_message_naming_it(call, message):
    with pytest.raises(ValueError, match=message):
        call()
