"""gleam.chargru: gradients, the reference implementation, training regimes, divergence, sampling.

Expected values come from SYLLABUS.md (ln 24 = 3.178, the unigram plateau ~2.6–2.9) or from an
independent computation here: central differences, the step-by-step reference in
benchmarks/reference_chargru.py, collections.Counter. (The EMA's tests are in test_smoothing.py.)
"""
import copy
import importlib.util
import math
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gleam.chargru import kernels as gm
from gleam.chargru import DEFAULT_CORPUS, CharGRU, ChunkStats, gradient_check

_spec = importlib.util.spec_from_file_location(
    "reference_chargru", Path(__file__).resolve().parents[2] / "benchmarks" / "reference_chargru.py")
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def window_means(losses, width=10):
    """Mean over `width` consecutive chunks (10 chunks of 25 = one pass over the default corpus)."""
    return np.convolve(losses, np.ones(width) / width, mode="valid")


def as_reference(params):
    """gleam's params dict -> the reference's (biases as column vectors)."""
    return {k: (v.reshape(-1, 1) if v.ndim == 1 else v).copy() for k, v in params.items()
            if k in ref.NAMES}


def snapshot(m):
    return (m._theta.copy(), m._memory.copy(), m.h, m.position, m.steps)


def assert_same_state(m, snap):
    theta, memory, h, pos, steps = snap
    np.testing.assert_array_equal(m._theta, theta)
    np.testing.assert_array_equal(m._memory, memory)
    np.testing.assert_array_equal(m.h, h)
    assert (m.position, m.steps) == (pos, steps)


# --- the default lab setting --------------------------------------------------------------------

def test_default_corpus_has_24_characters_and_the_syllabus_baselines():
    m = CharGRU()
    assert 250 <= len(DEFAULT_CORPUS) <= 300
    assert m.V == 24 and m.vocab == "".join(sorted(set(DEFAULT_CORPUS)))
    assert (m.H, m.K, m.lr) == (32, 25, 0.1)
    assert round(m.chance_loss, 3) == 3.178                         # ln 24, chapter 7
    counts = Counter(DEFAULT_CORPUS)
    entropy = -sum(c / len(DEFAULT_CORPUS) * math.log(c / len(DEFAULT_CORPUS)) for c in counts.values())
    assert m.unigram_loss == pytest.approx(entropy, rel=1e-12)
    assert 2.6 <= m.unigram_loss <= 2.9                              # the plateau, chapter 7


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lr_01_trains_from_chance_to_below_the_unigram_plateau(seed):
    # measured: the one-pass mean drops below the plateau after 10-12 steps (seeds 0-11)
    m = CharGRU(seed=seed)
    losses = m.step(60).loss
    assert losses[0] == pytest.approx(math.log(24), abs=0.02)
    below = np.flatnonzero(window_means(losses) < m.unigram_loss)
    assert below.size and below[0] + 9 <= 30
    assert losses[-10:].mean() < 0.5 * m.unigram_loss


def test_lr_0001_parks_near_the_unigram_plateau():
    # measured (seed 0): one-pass means 3.17 at the start, 3.05 at step 300, 2.90 at step 400
    m = CharGRU(lr=0.001)
    means = window_means(m.step(400).loss)
    assert np.all(means > m.unigram_loss)
    assert means[-1] < m.chance_loss


# --- gradients ----------------------------------------------------------------------------------

@st.composite
def gradient_cases(draw):
    H = draw(st.integers(1, 6))
    V = draw(st.integers(2, 6))
    K = draw(st.integers(1, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    alphabet = "abcdef"[:V]
    extra = draw(st.text(alphabet=alphabet, min_size=2 * K + 2, max_size=2 * K + 12))
    corpus = alphabet + extra                                       # all V characters occur
    return H, V, K, seed, corpus


@settings(max_examples=40, deadline=None, derandomize=True)
@given(gradient_cases())
def test_gradient_matches_central_differences(case):
    H, V, K, seed, corpus = case
    m = CharGRU(corpus, hidden=H, seq_len=K, seed=seed)
    assert m.V == V
    rng = np.random.default_rng(seed)
    for v in m.params.values():                                     # weights beyond the init scale
        v += 0.5 * rng.standard_normal(v.shape)
    x1, t1, h0 = m.next_chunk()
    assert not h0.any()
    check_gradient(gradient_check(m), m.params, x1, t1, h0)        # from h = 0
    # the same with a state carried in from a previous chunk
    m.step(1)
    x2, t2, h1 = m.next_chunk()
    if not h1.any():                                                # the pointer wrapped: make one
        _, _, h1 = ref.loss_fun(list(x1), list(t1), np.zeros((H, 1)), as_reference(m.params))
        h1 = h1.ravel()
    assert np.abs(h1).max() > 1e-3
    check_gradient(gradient_check(m.params, x2, t2, h1), m.params, x2, t2, h1)


def check_gradient(errors, params, inputs, targets, h0):
    """Relative error < 1e-6 over the whole gradient and for every parameter whose gradient is not
    practically zero (there, the differences' ~1e-11 rounding noise dominates any ratio)."""
    assert errors["all"] < 1e-6, errors
    _, p = gm.pack(params)
    grads = gm.views(np.empty(gm.n_params(*params["Wy"].shape)), *params["Wy"].shape)
    gm.backward(p, gm.forward(p, inputs, targets, h0)[1], grads)
    for name in ref.NAMES:
        if np.abs(grads[name]).sum() > 1e-4:
            assert errors[name] < 1e-6, (name, errors)


def test_same_loss_and_gradients_as_the_step_by_step_reference():
    m = CharGRU(hidden=12, seed=3)
    rng = np.random.default_rng(7)
    for v in m.params.values():
        v += 0.3 * rng.standard_normal(v.shape)
    h0 = np.tanh(rng.standard_normal(12))                           # a carried, non-zero state
    inputs, targets, _ = m.next_chunk()
    loss, want, h_last = ref.loss_fun(list(inputs), list(targets), h0.reshape(-1, 1),
                                      as_reference(m.params))
    _, p = gm.pack(m.params)
    losses, cache = gm.forward(p, inputs, targets, h0)
    grads = gm.views(np.empty_like(m._theta), m.V, m.H)
    dh0 = gm.backward(p, cache, grads)
    assert losses.sum() == pytest.approx(loss, abs=1e-10)
    np.testing.assert_allclose(cache["hs"][-1], h_last.ravel(), rtol=0, atol=1e-12)
    for name in ref.NAMES:
        np.testing.assert_allclose(grads[name], want[name].reshape(grads[name].shape),
                                   rtol=0, atol=1e-10, err_msg=name)
    # backward also returns ∂L/∂h_0, the gradient that truncation drops at the chunk boundary
    eps, numeric = 1e-6, np.empty(12)
    for i in range(12):
        e = np.zeros(12)
        e[i] = eps
        plus = ref.loss_fun(list(inputs), list(targets), (h0 + e).reshape(-1, 1), as_reference(m.params))[0]
        minus = ref.loss_fun(list(inputs), list(targets), (h0 - e).reshape(-1, 1), as_reference(m.params))[0]
        numeric[i] = (plus - minus) / (2 * eps)
    np.testing.assert_allclose(dh0, numeric, rtol=1e-6, atol=1e-8)


def test_same_init_and_same_training_run_as_the_reference():
    m = CharGRU(seed=5)
    r = ref.ReferenceCharGRU(DEFAULT_CORPUS, hidden=32, seq_len=25, lr=0.1, seed=5)
    for name in ref.NAMES:
        np.testing.assert_array_equal(m.params[name], r.p[name].reshape(m.params[name].shape))
    stats = m.step(25)                                              # across a wrap of the data
    for k in range(25):
        loss, norm = r.step()
        assert stats.loss[k] == pytest.approx(loss, abs=1e-9)
        assert stats.grad_norm[k] == pytest.approx(norm, rel=1e-9)
    for name in ref.NAMES:
        np.testing.assert_allclose(m.params[name], r.p[name].reshape(m.params[name].shape),
                                   rtol=0, atol=1e-9, err_msg=name)


# --- truncated BPTT bookkeeping ------------------------------------------------------------------

def test_state_is_carried_across_chunks_and_reset_when_the_data_wraps():
    m = CharGRU(seed=1)
    data = [m.vocab.index(c) for c in DEFAULT_CORPUS]
    p0 = as_reference(m.params)
    loss0, _, h1 = ref.loss_fun(data[0:25], data[1:26], np.zeros((32, 1)), p0)
    m.step(1)
    assert m.position == 25
    np.testing.assert_allclose(m.h, h1.ravel(), atol=1e-12)        # the state crosses the boundary
    p1 = as_reference(m.params)
    with_state, _, _ = ref.loss_fun(data[25:50], data[26:51], h1, p1)
    from_zero, _, _ = ref.loss_fun(data[25:50], data[26:51], np.zeros((32, 1)), p1)
    assert abs(with_state - from_zero) > 1e-6
    assert m.step(1).loss[0] == pytest.approx(with_state / 25, abs=1e-12)
    m.step(8)                                                       # 10 chunks: 0, 25, ..., 225
    assert m.position == 250 and np.abs(m.h).max() > 0.01
    inputs, targets, h0 = m.next_chunk()                           # 250 + 26 > 274: wrap
    assert list(inputs) == data[0:25] and list(targets) == data[1:26] and not h0.any()
    p10 = as_reference(m.params)
    fresh, _, h_fresh = ref.loss_fun(data[0:25], data[1:26], np.zeros((32, 1)), p10)
    assert m.step(1).loss[0] == pytest.approx(fresh / 25, abs=1e-12)
    assert m.position == 25
    np.testing.assert_allclose(m.h, h_fresh.ravel(), atol=1e-12)


def test_params_are_named_views_of_one_flat_buffer():
    m = CharGRU(hidden=5)
    shapes = {"Wz": (5, 24), "Uz": (5, 5), "bz": (5,), "Wr": (5, 24), "Ur": (5, 5), "br": (5,),
              "Wh": (5, 24), "Uh": (5, 5), "bh": (5,), "Wy": (24, 5), "by": (24,)}
    for d in (m.params, m.grads, m.memory):
        assert {k: v.shape for k, v in d.items()} == shapes
    assert sum(v.size for v in m.params.values()) == m._theta.size == 3 * (5 * 24 + 25 + 5) + 24 * 6
    m.params["Uh"][2, 3] = 7.0
    assert np.count_nonzero(m._theta == 7.0) == 1


def test_lr_can_change_between_steps_without_a_reset():
    a, b = CharGRU(seed=4), CharGRU(seed=4)
    a.step(5)
    b.step(5)
    before = snapshot(a)
    a.lr = 0.05
    assert_same_state(a, before)
    a.step(1)
    b.lr = 0.05
    b.step(1)
    np.testing.assert_array_equal(a._theta, b._theta)
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        a.lr = float("nan")
    assert a.lr == 0.05


def test_determinism_from_a_seed():
    a, b, c = CharGRU(seed=9), CharGRU(seed=9), CharGRU(seed=10)
    np.testing.assert_array_equal(a.step(15).loss, b.step(15).loss)
    np.testing.assert_array_equal(a._theta, b._theta)
    assert not np.array_equal(a._theta, c._theta)
    a.reset()
    b.reset(9)
    np.testing.assert_array_equal(a._theta, CharGRU(seed=9)._theta)
    np.testing.assert_array_equal(a.step(3).loss, b.step(3).loss)


def test_step_reports_gates_as_units_by_steps():
    m = CharGRU(DEFAULT_CORPUS, hidden=7, seq_len=5)
    stats = m.step(3)
    assert isinstance(stats, ChunkStats) and stats.n == 3 and stats.steps == 3
    assert stats.loss.shape == stats.grad_norm.shape == (3,)
    assert stats.z.shape == stats.r.shape == (7, 5)
    for gate in (stats.z, stats.r):
        assert np.all((gate > 0) & (gate < 1))
    assert stats.seconds >= 0 and not stats.diverged
    idle = CharGRU(hidden=4, seq_len=6).step(0)                      # gates exist before training
    assert idle.n == 0 and idle.z.shape == (4, 6) and np.isfinite(idle.z).all()


# --- divergence -----------------------------------------------------------------------------------

def test_lr_5_diverges_without_raising_and_keeps_the_last_good_parameters(capfd):
    m = CharGRU(lr=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                              # any numpy warning would raise
        for _ in range(50):
            before = snapshot(m)
            stats = m.step(1)
            if stats.diverged:
                break
        assert stats.diverged and m.diverged and stats.n == 1
        bad = stats.loss[-1]
        assert not np.isfinite(bad) or bad > m.divergence_loss > 3 * m.chance_loss
        assert_same_state(m, before)
        refused = m.step(10)
        assert refused.n == 0 and refused.diverged and refused.z.shape == (32, 25)
        assert_same_state(m, before)
        assert len(m.sample(20, rng=0)) == 20                       # the page can still sample
    assert capfd.readouterr() == ("", "")
    m.reset()
    assert not m.diverged and m.steps == 0
    assert m.step(1).n == 1


def test_a_long_call_stops_at_the_diverged_step():
    m = CharGRU(lr=5)
    stats = m.step(200)
    assert stats.diverged and 1 <= stats.n < 200
    assert m.steps == stats.n - 1 == stats.steps
    assert np.all(stats.loss[:-1] <= m.divergence_loss)


def test_a_nan_parameter_is_reported_as_divergence_and_left_alone():
    m = CharGRU()
    m.step(10)                                                      # the next chunk wraps around
    assert m.position == 250
    m.params["Wy"][0, 0] = np.nan
    before = snapshot(m)
    stats = m.step(5)
    assert stats.diverged and stats.n == 1 and np.isnan(stats.loss[0])
    theta, memory, h, pos, steps = before
    np.testing.assert_array_equal(m._theta, theta)                  # NaN stays where it was put
    np.testing.assert_array_equal(m._memory, memory)
    np.testing.assert_array_equal(m.h, h)                           # the wrap was not committed
    assert (m.position, m.steps) == (250, 10)


# --- validation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(corpus=""), "empty"),
    (dict(corpus="aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), "one distinct"),
    (dict(corpus="abcabcabc"), "seq_len"),
    (dict(corpus="ab" * 12 + "a"), "need at least seq_len \\+ 1 = 26"),
    (dict(corpus=b"bytes not text"), "str"),
    (dict(seq_len=0), "seq_len must be an integer >= 1"),
    (dict(seq_len=-3), "seq_len must be an integer >= 1"),
    (dict(seq_len=2.5), "seq_len must be an integer >= 1"),
    (dict(hidden=0), "hidden must be an integer >= 1, got 0"),
    (dict(hidden=True), "hidden must be an integer >= 1, got True"),
    (dict(lr=float("nan")), "lr must be a finite number > 0, got nan"),
    (dict(lr=float("inf")), "lr must be a finite number > 0, got inf"),
    (dict(lr=0.0), "lr must be a finite number > 0, got 0.0"),
    (dict(lr=-0.1), "lr must be a finite number > 0"),
    (dict(lr="fast"), "lr must be a finite number > 0, got 'fast'"),
    (dict(lr="0.1"), "lr must be a finite number > 0"),
    (dict(clip=0.0), "clip must be a number > 0, got 0.0"),
])
def test_bad_settings_raise_value_error(kwargs, message):
    args = dict(corpus=DEFAULT_CORPUS)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        CharGRU(**args)


def test_a_corpus_of_exactly_k_plus_1_characters_trains_on_one_chunk_from_zero_each_time():
    m = CharGRU("ab" * 13, seq_len=25)
    stats = m.step(3)
    assert stats.n == 3 and m.position == 25
    inputs, _, h0 = m.next_chunk()
    assert not h0.any() and list(inputs) == [0, 1] * 12 + [0]


@pytest.mark.parametrize("temperature", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_temperature_raises(temperature):
    with pytest.raises(ValueError, match="temperature must be a finite number > 0"):
        CharGRU().sample(10, temperature=temperature)


def test_other_bad_arguments_raise():
    m = CharGRU()
    with pytest.raises(ValueError, match=r"n must be an integer in \[0, 10000\], got -1"):
        m.step(-1)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        m.reset(-1)
    with pytest.raises(ValueError, match="prefix"):
        m.sample(5, prefix="")
    with pytest.raises(ValueError, match="not in the vocabulary"):
        m.sample(5, prefix="THE")
    with pytest.raises(ValueError, match="h0"):
        gradient_check(m.params, [0, 1], [1, 2], np.zeros(3))


# --- sampling -------------------------------------------------------------------------------------

def greedy(params, vocab, prefix, n):
    """Most likely next character each time, computed the reference's way."""
    p = as_reference(params)
    V, H = params["Wy"].shape

    def read(ch, h):
        x = np.zeros((V, 1))
        x[vocab.index(ch), 0] = 1.0
        z = ref.sigmoid(p["Wz"] @ x + p["Uz"] @ h + p["bz"])
        r = ref.sigmoid(p["Wr"] @ x + p["Ur"] @ h + p["br"])
        return (1 - z) * h + z * np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])

    h = np.zeros((H, 1))
    for ch in prefix[:-1]:
        h = read(ch, h)
    ch, out = prefix[-1], ""
    for _ in range(n):
        h = read(ch, h)
        ch = vocab[int(np.argmax(p["Wy"] @ h + p["by"]))]
        out += ch
    return out


def test_sampling_is_deterministic_given_a_seed_and_leaves_training_alone():
    a, b = CharGRU(seed=2), CharGRU(seed=2)
    a.step(40)
    b.step(40)
    text = a.sample(80, temperature=0.8, rng=123)
    assert len(text) == 80 and set(text) <= set(a.vocab)
    assert a.sample(80, temperature=0.8, rng=np.random.default_rng(123)) == text
    assert a.sample(80, temperature=0.8, rng=124) != text
    assert a.sample(0) == ""
    np.testing.assert_array_equal(a.step(3).loss, b.step(3).loss)   # sampling changed nothing


def test_low_temperature_samples_the_most_likely_character():
    m = CharGRU(seed=0)
    m.step(150)
    want = greedy(m.params, m.vocab, "t", 60)
    assert m.sample(60, temperature=1e-3, rng=0, prefix="t") == want
    assert m.sample(60, temperature=1e-3, rng=99, prefix="t") == want


def test_temperature_reshapes_the_next_character_distribution():
    m = CharGRU(seed=0)
    m.step(30)
    p = as_reference(m.params)
    _, _, h = ref.loss_fun([m.vocab.index("t"), m.vocab.index("h")], [0, 0], np.zeros((32, 1)), p)
    y = (p["Wy"] @ h + p["by"]).ravel()
    rng = np.random.default_rng(11)
    for T in (0.5, 2.0):
        want = np.exp(y / T - (y / T).max())
        want /= want.sum()
        draws = Counter(m.sample(1, temperature=T, rng=rng, prefix="th") for _ in range(3000))
        got = np.array([draws[c] for c in m.vocab]) / 3000
        assert 0.5 * np.abs(got - want).sum() < 0.05, T              # total variation


# --- what the live lab shows (chapter 7) ------------------------------------------------------------

def test_last_loss_is_the_last_chunk_computed_a_refused_one_included():
    m = CharGRU()
    assert math.isnan(m.last_loss)
    stats = m.step(7)
    assert m.last_loss == stats.loss[-1]
    m.reset()
    assert math.isnan(m.last_loss)
    hot = CharGRU(lr=5.0)
    stats = hot.step(100)
    assert stats.diverged and hot.last_loss == stats.loss[-1] and not hot.last_loss <= hot.divergence_loss


def test_sample_preview_depends_on_the_model_and_its_step_only():
    a, b, c = CharGRU(seed=3), CharGRU(seed=3), CharGRU(seed=3)
    for m in (a, b, c):
        m.step(20)
    b.sample(50)                                                    # b's own generator moved on
    assert a.sample_preview(100) == b.sample_preview(100) == a.sample_preview(100)
    assert a.sample(40) == c.sample(40)                             # a's own generator untouched
    text = a.sample_preview(100)
    a.step(1)
    assert a.sample_preview(100) != text
    assert CharGRU(seed=4).sample_preview(100) != CharGRU(seed=3).sample_preview(100)


# ---------------------------------------------------------------- checks that cannot pass on NaN
@pytest.mark.parametrize("poison", [np.nan, np.inf])
def test_a_gradient_check_on_a_non_finite_gradient_fails(poison):
    m = CharGRU(hidden=4, seq_len=5)

    def poisoned(p, cache, grads):
        gm.backward(p, cache, grads)
        grads["Uz"][0, 0] = poison
    errors = gm.gradient_check(m.params, *m.next_chunk(), backward_fn=poisoned)
    assert errors["Uz"] == math.inf and errors["all"] == math.inf
    assert errors["Wy"] < 1e-6                      # the rest is still checked


def test_a_deliberately_broken_backward_fails_the_gradient_check():
    m = CharGRU(hidden=4, seq_len=5)

    def forgets_the_bias(p, cache, grads):
        gm.backward(p, cache, grads)
        grads["bh"][:] = 0.0
    errors = gm.gradient_check(m.params, *m.next_chunk(), backward_fn=forgets_the_bias)
    assert errors["bh"] > 0.5 and errors["Wh"] < 1e-6


@pytest.mark.parametrize("eps", [0, 0.0, -1e-5, math.nan, math.inf, "1e-5", True])
def test_a_gradient_check_needs_a_finite_positive_eps(eps):
    m = CharGRU(hidden=4, seq_len=5)
    with pytest.raises(ValueError, match="eps"):
        gradient_check(m, eps=eps)


def test_one_step_call_is_bounded():
    from gleam.chargru import MAX_STEPS_PER_CALL
    m = CharGRU(hidden=4, seq_len=5)
    with pytest.raises(ValueError, match="n must be"):
        m.step(10**7)
    assert m.steps == 0 and m.step(0).n == 0 and MAX_STEPS_PER_CALL >= 1000


def test_sampling_at_a_tiny_temperature_is_the_most_likely_character():
    m = CharGRU(hidden=8, seq_len=5)
    m.step(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        text = m.sample(30, temperature=1e-320, rng=np.random.default_rng(0))
    assert len(text) == 30 and set(text) <= set(m.vocab)
    assert text == m.sample(30, temperature=1e-300, rng=np.random.default_rng(1))   # argmax both times


# --- found by fuzzing (tests/core/test_fuzz.py): each of these failed before its fix -------------

def _n_params(V, H):
    """The parameter count by hand: Wz, Wr, Wh (H, V); Uz, Ur, Uh (H, H); bz, br, bh (H,); Wy; by."""
    return 3 * H * V + 3 * H * H + 3 * H + V * H + V


def test_a_model_too_large_to_allocate_is_refused_naming_the_size():
    # was numpy's "array is too big" (unnamed) or a MemoryError
    count = _n_params(24, 10 ** 9)
    with pytest.raises(ValueError, match=rf"^hidden = 1000000000 asks for an array of shape \({count},\) "
                                         rf"\({count:,} entries\); gleam allocates at most 16,777,216$"):
        CharGRU(hidden=10 ** 9)
    # a step's gate inputs are (K, B, 3H): 150,000 · 1 · 192 entries
    with pytest.raises(ValueError, match=r"^seq_len = 150000 asks for an array of shape \(150000, 1, 192\) "
                                         r"\(28,800,000 entries\)"):
        CharGRU("ab" * 100_000, seq_len=150_000, hidden=64)
    assert gm.n_params(24, 32) == _n_params(24, 32) == 6264
    with pytest.raises(ValueError, match="^V must be an integer >= 1, got 'ab'$"):
        gm.n_params("ab", 2)            # was a TypeError (a str times an int is a str)


def test_sampling_is_bounded_and_its_generator_checked():
    from gleam.chargru import MAX_SAMPLE_CHARS
    m = CharGRU(hidden=4, seq_len=5)
    assert MAX_SAMPLE_CHARS >= 240                                   # what chapter 7 shows
    with pytest.raises(ValueError, match=rf"^n_chars must be an integer in \[0, {MAX_SAMPLE_CHARS}\], got 1000000000$"):
        m.sample(10 ** 9)                                            # was a run of 10⁹ steps
    for bad in (-1, "abc", 1.5, True):                               # were numpy's TypeError / ValueError
        with pytest.raises(ValueError, match="^rng must be None or an integer >= 0, got"):
            m.sample(5, rng=bad)
    with pytest.raises(ValueError, match="^prefix must be None or a str, got int$"):
        m.sample(5, prefix=3)
    with pytest.raises(ValueError, match=f"^prefix must have 1 to {MAX_SAMPLE_CHARS:,} characters, got"):
        m.sample(5, prefix="t" * (MAX_SAMPLE_CHARS + 1))
    assert m.sample(20, rng=7) == m.sample(20, rng=np.random.default_rng(7))


def test_a_gradient_check_refuses_indices_it_used_to_truncate():
    m = CharGRU(hidden=4, seq_len=5)
    with pytest.raises(ValueError, match=r"^inputs must be a non-empty \(K,\) or \(B, K\) array of character "
                                         r"indices \(integers\), got float64 \(2,\)$"):
        gradient_check(m.params, [0.5, 1.0], [1, 0])                 # was silently [0, 1]
    with pytest.raises(ValueError, match=r"^targets must hold character indices in \[0, 24\), got 1 to 99$"):
        gradient_check(m.params, [0, 1], [1, 99])
    with pytest.raises(ValueError, match="^model_or_params must be a CharGRU or a params dict, got NoneType$"):
        gradient_check(None, [0], [1])                               # was a TypeError
    with pytest.raises(ValueError, match="^backward_fn must be None or a function"):
        gm.gradient_check(m.params, [0], [1], backward_fn=3)


def test_the_buffer_views_and_pack_check_what_they_are_given():
    n = _n_params(3, 2)
    for buffer in (np.zeros(n), np.zeros(2 * n)[::2]):
        p = gm.views(buffer, 3, 2)
        p["W"][...] = 1.0
        assert buffer.sum() == 3 * 2 * 3            # W is (3H, V): the names are views
    with pytest.raises(ValueError, match=r"^buffer must be a 1-D float64 array, got float64 \(45, 1\)$"):
        gm.views(np.zeros((n, 1)), 3, 2)            # a column, not a flat buffer
    with pytest.raises(ValueError, match="^V must be an integer >= 1, got 0$"):
        gm.views(np.zeros(4), 0, -1)                # was numpy's "cannot reshape", unnamed
    with pytest.raises(ValueError, match="^buffer must be a 1-D float64 array, got float$"):
        gm.views(1.5, 3, 2)                         # was a TypeError
    m = CharGRU(hidden=2, seq_len=3)
    with pytest.raises(ValueError, match="^params must be a dict"):
        gm.pack(None)                               # was a TypeError
    with pytest.raises(ValueError, match="^Wz must be a 2-D array of numbers"):
        gm.pack({**m.params, "Wz": m.params["Wz"] + 1j})      # was a warning, the imaginary part dropped
    # every shape is checked before the buffer is allocated: H = 10⁵ from Wy alone asks for 3·10¹⁰
    with pytest.raises(ValueError, match=r"^Wz has shape \(2, 24\), expected \(100000, 1\)"):
        gm.pack({**m.params, "Wy": np.zeros((1, 10 ** 5)), "by": np.zeros(1)})
    with pytest.raises(ValueError, match="^rng must be a numpy.random.Generator, got NoneType$"):
        gm.init_params(np.zeros(n), 3, 2, None)     # was an AttributeError
    with pytest.raises(ValueError, match=r"^scale must be a finite number in \[0, 1e\+100\], got 1e\+308$"):
        gm.init_params(np.zeros(n), 3, 2, np.random.default_rng(0), scale=1e308)   # N(0,1)·1e308: inf


def test_the_chunk_kernels_refuse_what_they_used_to_misread():
    m = CharGRU(hidden=4, seq_len=5)
    inputs, targets, h0 = m.next_chunk()
    with pytest.raises(ValueError, match=r"^inputs must hold character indices in \[0, 24\), got -1 to 4$"):
        gm.forward(m._p, np.array([-1, 1, 2, 3, 4]), targets, h0)    # was column −1 of W: the last one
    with pytest.raises(ValueError, match=r"^h0 has shape \(1,\), expected \(4,\) \(H = 4\)$"):
        gm.forward(m._p, inputs, targets, np.zeros(1))                # was broadcast to (4,)
    with pytest.raises(ValueError, match="^p must be the dict of views chargru_math.views makes: it has no array W, U, b$"):
        gm.forward(m.params, inputs, targets, h0)                     # was a KeyError
    losses, cache = gm.forward(m._p, inputs, targets, h0)
    with pytest.raises(ValueError, match="^cache must be the dict the forward returned: it has no array probs$"):
        gm.backward(m._p, {k: v for k, v in cache.items() if k != "probs"}, m._g)
    other = gm.views(np.zeros(_n_params(m.V + 1, m.H)), m.V + 1, m.H)
    with pytest.raises(ValueError, match=r"^grads\['W'\] must be a writable contiguous float64 array of shape \(12, 24\)"):
        gm.backward(m._p, cache, other)                               # was numpy's broadcast error
    # check=False (the trainer's path) skips the checks and changes nothing else
    unchecked, cache_u = gm.forward(m._p, inputs, targets, h0, check=False)
    np.testing.assert_array_equal(unchecked, losses)
    grads = [gm.views(np.zeros(_n_params(m.V, m.H)), m.V, m.H) for _ in range(2)]
    dh = [gm.backward(m._p, c, g, check=check) for c, g, check in ((cache, grads[0], True), (cache_u, grads[1], False))]
    np.testing.assert_array_equal(dh[0], dh[1])
    np.testing.assert_array_equal(grads[0]["W"], grads[1]["W"])



def test_a_reused_workspace_gives_what_fresh_arrays_give_chunk_after_chunk():
    """A model's steps run forward and backward through one Workspace (gleam.chargru.workspace),
    each chunk rewriting what the last left there. Chunks that differ in inputs, carried state
    (zero, then not) and weights, run in turn through one workspace, give bit for bit what each
    gives through fresh arrays: losses, the cache, the gradient and ∂L/∂h_0."""
    m = CharGRU(seed=4)
    work, rng, size = gm.Workspace(m.K, m.H), np.random.default_rng(0), _n_params(m.V, m.H)
    for i in range(4):
        inputs, targets = rng.integers(0, m.V, m.K), rng.integers(0, m.V, m.K)
        h0 = rng.standard_normal(m.H) * (i % 2)
        p = gm.views(m._theta + 0.1 * i * rng.standard_normal(size), m.V, m.H)
        fresh, reused = np.zeros(size), np.full(size, np.nan)
        losses, cache = gm.forward(p, inputs, targets, h0)
        dh0 = gm.backward(p, cache, gm.views(fresh, m.V, m.H))
        losses_w, cache_w = gm.forward(p, inputs, targets, h0, work=work)
        dh0_w = gm.backward(p, cache_w, gm.views(reused, m.V, m.H), work=work)
        np.testing.assert_array_equal(losses_w, losses)
        for key in ("hs", "zr", "h_tilde", "rh", "dh", "probs"):
            np.testing.assert_array_equal(cache_w[key], cache[key], err_msg=f"chunk {i}: {key}")
        np.testing.assert_array_equal(reused, fresh)
        np.testing.assert_array_equal(dh0_w, dh0)
    assert cache_w["zr"] is work.zr and cache["zr"] is not work.zr     # the cache is the workspace's
    with pytest.raises(ValueError, match=r"^work must be a Workspace\(K=25, H=32\) for this chunk, got Workspace\(K=24"):
        gm.forward(m._p, inputs, targets, h0, work=gm.Workspace(m.K - 1, m.H))
    with pytest.raises(ValueError, match=r"^work must be a Workspace\(K=25, H=32\)"):
        gm.backward(m._p, cache, m._g, work="scratch")

def test_a_diverged_model_whose_last_chunk_overflowed_copies_saves_and_loads():
    # lr = 1e308: the first update makes weights of ~1e308, the next chunk overflows to NaN gates
    m = CharGRU("abcab ca\nbb éa", hidden=4, seq_len=4, lr=1e308, seed=1)
    stats = m.step(3)
    assert stats.diverged and m.steps == 1 and np.isnan(stats.z).any()
    for twin in (copy.deepcopy(m), CharGRU.from_bytes(m.to_bytes())):     # were "gates ... not finite"
        assert twin.diverged and twin.steps == 1 and twin.step(5).n == 0
        np.testing.assert_array_equal(twin._theta, m._theta)
        np.testing.assert_array_equal(twin.step(0).z, stats.z)            # NaN where NaN
    state = CharGRU(hidden=4, seq_len=4).state_dict()                    # a model that did not diverge
    state["gates"] = np.full_like(state["gates"], np.nan)
    with pytest.raises(ValueError, match="^gates has values that are not finite$"):
        CharGRU.from_state(state)
