"""gleam.labs.memory.acceptance on hand-set models whose answers are known by hand.

Vocabulary "!?abcdef" (ids 0 … 7: '!', '?', cues a, b, distractors c, d (first half), e, f).
Every readout answers class 0 when the unit it reads is > 0 and class 1 when it is < 0
(logits ±h), so a unit holding +1 for cue a (class 0) and −1 for cue b answers the cue.

router (textbook GRU, 4 units; gates σ(±12) ≈ 1 − 6e-6 or 6e-6 open and close):
  u0  the cue latch: written only on a cue (z0 = σ(24 [cue] − 12)), h̃0 = tanh(±3)
  u1  the last distractor: written only on a distractor, h̃1 = −tanh(3) for c, d, +tanh(3) for
      e, f (first half -> class 1, the '!' rule)
  u2  the answer: written only on a query, h̃2 = tanh(3 (r0 u0 + r1 u1)), where the reset
      gate r0 opens on '?' only and r1 on '!' only: '?' copies the cue, '!' the distractor
  u3  "a cue was seen": written on a cue, h̃3 = tanh(3)
  store = reads u2; ignore = reads u1 (answers the last distractor whatever the query);
  stubborn = store with U_z[0, 3] = −48: once u3 is set, the latch's write gate stays shut.
elman_latch: u0 = tanh(2 u0 + 6 [a] − 6 [b]), read directly (tokens or features).
"""
import json
import math

import numpy as np
import pytest

from gleam.labs.memory import acceptance as acc
from gleam.labs.memory.probe_sets import mirror
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.tasks import cue_delay

V = "!?abcdef"
ID = {ch: i for i, ch in enumerate(V)}
CH = {ch: i for i, ch in enumerate("abcdef?!")}     # the features' channels
SIG12 = 1 / (1 + math.exp(-12))


def readout(n, unit, theta=0.0):
    """logit_0 − logit_1 = 2 (h[unit] − theta): class 0 iff h[unit] > theta."""
    Wo = np.zeros((2, n))
    Wo[0, unit], Wo[1, unit] = 1.0, -1.0
    return {"Wo": Wo, "bo": np.array([-theta, theta])}


def gru_zeros(n, d=8):
    shapes = {"Wz": (n, d), "Uz": (n, n), "bz": (n,), "Wr": (n, d), "Ur": (n, n), "br": (n,),
              "Wh": (n, d), "Uh": (n, n), "bh": (n,)}
    return {k: np.zeros(s) for k, s in shapes.items()}


def router(read=2, revise=True):
    p = gru_zeros(4)
    p["bz"][:] = p["br"][:] = -12.0
    for ch in "ab":
        p["Wz"][0, ID[ch]] = p["Wz"][3, ID[ch]] = 24.0
    for ch in "cdef":
        p["Wz"][1, ID[ch]] = 24.0
        p["Wh"][1, ID[ch]] = -3.0 if ch in "cd" else 3.0
    for ch in "?!":
        p["Wz"][2, ID[ch]] = 24.0
    p["Wh"][0, ID["a"]], p["Wh"][0, ID["b"]] = 3.0, -3.0
    p["Wr"][0, ID["?"]] = p["Wr"][1, ID["!"]] = 24.0
    p["Uh"][2, 0] = p["Uh"][2, 1] = 3.0
    p["bh"][3] = 3.0
    if not revise:
        p["Uz"][0, 3] = -48.0
    return SeqModel(SeqModelConfig("gru_textbook", 8, 4, 2), {**p, **readout(4, read)})


def store():
    return router(2)


def ignore():
    return router(1)


def stubborn():
    return router(2, revise=False)


def elman_latch(features=False, c_push=0.0):
    """u0 = tanh(2 u0 + 6 [a] − 6 [b] − c_push · x_c) (x_c: the amplitude on 'c' features)."""
    Wx = np.zeros((1, 8))
    idx = CH if features else ID
    Wx[0, idx["a"]], Wx[0, idx["b"]], Wx[0, idx["c"]] = 6.0, -6.0, -c_push
    return SeqModel(SeqModelConfig("elman", 8, 1, 2), {"Wx": Wx, "Wh": np.array([[2.0]]),
                                                        "b": np.zeros(1), **readout(1, 0)})


def delay_line(L=4):
    """Elman: u0 the latch, u_i = tanh(6 u_{i−1}) (i = 1 … L), read at u_L: the answer after
    step t is the sign of u0 after step t − L (0, a tie answered class 0, before the start)."""
    Wx, Wh = np.zeros((L + 1, 8)), np.zeros((L + 1, L + 1))
    Wx[0, ID["a"]], Wx[0, ID["b"]], Wh[0, 0] = 6.0, -6.0, 2.0
    for i in range(1, L + 1):
        Wh[i, i - 1] = 6.0
    return SeqModel(SeqModelConfig("elman", 8, L + 1, 2), {"Wx": Wx, "Wh": Wh,
                                                            "b": np.zeros(L + 1),
                                                            **readout(L + 1, L)})


def leaky(rho, theta):
    """Textbook GRU, one unit: z = σ(12) on a cue, else σ(b) = 1 − rho; h̃ = tanh(±3) on a
    cue, else 0: h = σ(12) tanh(3) after the cue, times rho per later step; class 0 iff
    h > theta."""
    p = gru_zeros(1)
    b = math.log((1 - rho) / rho)
    p["bz"][0] = b
    p["Wz"][0, ID["a"]] = p["Wz"][0, ID["b"]] = 12.0 - b
    p["Wh"][0, ID["a"]], p["Wh"][0, ID["b"]] = 3.0, -3.0
    return SeqModel(SeqModelConfig("gru_textbook", 8, 1, 2), {**p, **readout(1, 0, theta)})


DELAYS = [1, 2, 4, 8, 16]


# ---------------------------------------------------------------- the probe sets
def test_mirror_exchanges_the_cues_and_nothing_else():
    e = cue_delay(1, 5, delay=6, p_supersede=1.0, p_needs_cue=1.0, amplitude=0.5)[0]
    m = mirror(e)
    assert m.text == "".join({"a": "b", "b": "a"}.get(ch, ch) for ch in e.text)
    assert m.target == 1 - e.target and m.facts["cue"] == 1 - e.facts["cue"]
    assert m.facts["final_cue"] == 1 - e.facts["final_cue"]
    assert m.labels["cue_in_force"] == tuple(1 - v for v in e.labels["cue_in_force"])
    assert m.labels["steps_since_cue"] == e.labels["steps_since_cue"]
    assert np.array_equal(m.features[:, 0], e.features[:, 1])
    assert np.array_equal(m.features[:, 2:], e.features[:, 2:])
    free = cue_delay(1, 5, delay=6, p_needs_cue=0.0)[0]
    assert mirror(free).target == free.target                   # '!' needs no cue
    assert mirror(mirror(e)) == e
    with pytest.raises(ValueError, match="example"):
        mirror("a?")


# ---------------------------------------------------------------- the hand-set models
def test_the_hand_set_models_answer_as_designed():
    X = np.array([[ID[ch] for ch in t] for t in ["acd?", "bce?", "ace!", "bfc!", "adc?"]]).T
    assert store().predict(X).tolist() == [0, 1, 0, 1, 0]       # '?': the cue; '!': x_D
    assert ignore().predict(X).tolist() == [1, 0, 0, 1, 1]      # x_D whatever the query
    superseded = np.array([[ID[ch] for ch in t] for t in ["acbe?", "bcae?"]]).T
    assert store().predict(superseded).tolist() == [1, 0]       # the new cue
    assert stubborn().predict(superseded).tolist() == [0, 1]    # the first cue


@pytest.mark.parametrize("make", [store, elman_latch, stubborn])
def test_a_perfect_store_retains_the_cue_at_every_delay(make):
    r = acc.retention_curve(make(), V, DELAYS, n=40, seed=1)
    assert r["accuracy"] == [1.0] * 5 and r["retention"] == [1.0] * 5
    assert (r["p50"], r["p95"], r["max"]) == (16, 16, 16)
    assert r["margin"] == pytest.approx(3 / math.sqrt(80)) and r["n"] == 80


def test_a_perfect_store_reading_features_retains_the_cue_too():
    r = acc.retention_curve(elman_latch(features=True), None, DELAYS, n=20, amplitude=2.0)
    assert r["accuracy"] == [1.0] * 5 and r["max"] == 16


def test_a_model_ignoring_the_cue_is_exactly_at_chance():
    r = acc.retention_curve(ignore(), V, DELAYS, n=40, seed=1)
    assert r["accuracy"] == [0.5] * 5 and r["retention"] == [0.0] * 5
    assert (r["p50"], r["p95"], r["max"]) == (None, None, None)


def test_the_leaky_latch_forgets_at_the_delay_computed_by_hand():
    rho, theta = 0.8, 0.1
    h0 = SIG12 * math.tanh(3)               # after the cue; then rho per distractor and query
    # cue a is answered while h0 rho^(D + 1) > theta; cue b always (h < 0 < theta)
    last = math.ceil(math.log(theta / h0) / math.log(rho)) - 2
    assert last == 9                        # log(0.1 / 0.99504) / log(0.8) = 10.30
    delays = [1, 3, 5, 8, 9, 10, 12, 20]
    r = acc.retention_curve(leaky(rho, theta), V, delays, n=30, seed=2)
    assert r["accuracy"] == [1.0 if d <= last else 0.5 for d in delays]
    assert (r["p50"], r["p95"], r["max"]) == (9, 9, 9)


def test_a_delay_line_misses_short_delays_so_p50_is_none_but_max_is_reached():
    # the answer after the query (step D + 1) is u0 after step D + 1 − 4: the cue iff D >= 3
    r = acc.retention_curve(delay_line(4), V, [1, 2, 3, 4, 8], n=30, seed=3)
    assert r["accuracy"] == [0.5, 0.5, 1.0, 1.0, 1.0]
    assert (r["p50"], r["p95"], r["max"]) == (None, None, 8)


def test_horizons_by_hand():
    R = [1.0, 0.96, 0.7, 0.4, 0.6, 0.05, 0.2]
    h = acc.horizons([1, 2, 3, 5, 8, 13, 21], R, count=100, z=3.0)
    assert h == {"margin": 0.3, "p50": 3, "p95": 2, "max": 8}
    assert acc.horizons([1, 2], [0.31, 0.3], 100)["max"] == 1      # strictly above 3 / √100
    assert acc.horizons([4], [0.94], 100) == {"margin": 0.3, "p50": 4, "p95": None, "max": 4}
    with pytest.raises(ValueError, match="delays"):
        acc.horizons([2, 1], [0.5, 0.5], 10)
    with pytest.raises(ValueError, match="retention"):
        acc.horizons([1, 2], [0.5, 1.5], 10)


def test_state_swap_exchanges_the_answers_of_a_store_and_none_of_an_ignorer():
    for make in (store, elman_latch):
        s = acc.state_swap(make(), V, delay=6, n=30, seed=4)
        assert (s["swapped"], s["unchanged"], s["step"]) == (1.0, 0.0, 6)
        assert (s["accuracy"], s["accuracy_swapped"]) == (1.0, 0.0)
    s = acc.state_swap(ignore(), V, delay=6, n=30, seed=4)
    assert (s["swapped"], s["unchanged"], s["accuracy"]) == (0.0, 1.0, 0.5)


def test_erasing_the_cue_drops_a_store_to_chance_and_leaves_an_ignorer_alone():
    for make in (store, elman_latch):
        e = acc.cue_erasure(make(), V, delay=5, n=30, seed=5)
        assert (e["accuracy"], e["accuracy_erased"], e["drop"]) == (1.0, 0.5, 0.5)
        assert e["changed"] == 0.5          # one twin of each pair changes its answer
    e = acc.cue_erasure(ignore(), V, delay=5, n=30, seed=5)
    assert (e["accuracy"], e["accuracy_erased"], e["changed"]) == (0.5, 0.5, 0.0)


def test_a_latch_overwritten_by_the_new_cue_revises_at_once():
    for make in (store, elman_latch):
        r = acc.revision_latency(make(), V, [1, 2, 5, 8], n=30, seed=6)
        assert r["delay"] == 8 and r["accuracy"] == [1.0] * 4 and r["first_cue"] == [0.0] * 4
        assert r["latency"] == 1
        # "accuracy >= threshold": a perfect reviser meets threshold 1 at the first gap
        assert acc.revision_latency(make(), V, [1, 2], n=10, threshold=1.0)["latency"] == 1


def test_a_features_latch_revises_on_the_inserted_cue_row():
    r = acc.revision_latency(elman_latch(features=True), None, [1, 3], n=10, amplitude=0.7)
    assert r["accuracy"] == [1.0, 1.0] and r["latency"] == 1


def test_a_latch_set_by_the_first_cue_only_never_revises():
    r = acc.revision_latency(stubborn(), V, [1, 2, 5, 8], n=30, seed=6)
    assert r["accuracy"] == [0.0] * 4 and r["first_cue"] == [1.0] * 4 and r["latency"] is None
    r = acc.revision_latency(ignore(), V, [1, 4], delay=6, n=30, seed=6)
    assert r["accuracy"] == [0.5, 0.5] and r["latency"] is None


def test_a_delay_line_revises_after_the_gap_computed_by_hand():
    # D = 8, gap g: the new cue stands at step 9 − g, the answer (after step 10) is u0 after
    # step 6: the new cue iff 9 − g <= 6, i.e. g >= 3
    r = acc.revision_latency(delay_line(4), V, [1, 2, 3, 4, 6], delay=8, n=20, seed=7)
    assert r["accuracy"] == [0.0, 0.0, 1.0, 1.0, 1.0]
    assert r["first_cue"] == [1.0, 1.0, 0.0, 0.0, 0.0] and r["latency"] == 3
    assert acc.revision_latency(delay_line(4), V, [1, 2], delay=8, n=20)["latency"] is None


def test_read_selectivity_of_the_store_and_of_the_ignorer():
    s = acc.read_selectivity(store(), V, delay=5, n=40, seed=8)
    assert (s["accuracy_needs_cue"], s["accuracy_no_memory"]) == (1.0, 1.0)
    assert (s["cue_dependence_needs_cue"], s["cue_dependence_no_memory"]) == (1.0, 0.0)
    # a pair's '?' answers are c and 1 − c, its '!' answers both the distractor's: one differs
    assert s["query_dependence"] == 0.5
    s = acc.read_selectivity(ignore(), V, delay=5, n=40, seed=8)
    assert (s["accuracy_needs_cue"], s["accuracy_no_memory"]) == (0.5, 1.0)
    assert (s["cue_dependence_needs_cue"], s["cue_dependence_no_memory"]) == (0.0, 0.0)
    assert s["query_dependence"] == 0.0


def test_a_store_that_reads_the_latch_for_every_query_is_not_selective():
    s = acc.read_selectivity(elman_latch(), V, delay=5, n=40, seed=8)
    assert (s["cue_dependence_needs_cue"], s["cue_dependence_no_memory"]) == (1.0, 1.0)
    assert s["accuracy_no_memory"] == 0.5   # one twin of each '!' pair is right


def _scalar_latch(text, push, amp):
    """The features latch one step at a time in plain floats (independent of SeqModel)."""
    u = 0.0
    for ch in text:
        x = {"a": 6.0, "b": -6.0, "c": -push * amp}.get(ch, 0.0)
        u = math.tanh(2.0 * u + x)
    return 0 if u > 0 else 1


def test_interference_by_amplitude_matches_the_latch_stepped_by_hand():
    counts, amps, n, seed = [1, 3, 6], [0.5, 1.5, 4.0], 40, 9
    g = acc.interference(elman_latch(features=True, c_push=1.0), None, counts, amps, n=n,
                         seed=seed)
    assert g["counts"] == counts and g["amplitudes"] == amps and g["n"] == 2 * n
    for i, D in enumerate(counts):
        texts = [e.text for e in cue_delay(n, seed, delay=D)]
        texts += [t.translate(str.maketrans("ab", "ba")) for t in texts]
        for j, A in enumerate(amps):
            want = np.mean([_scalar_latch(t, 1.0, A) == "ab".index(t[0]) for t in texts])
            assert g["accuracy"][i][j] == pytest.approx(want, abs=1e-12)
        assert g["accuracy"][i][0] == 1.0   # tanh(2u − 0.5) has a fixed point > 0: no flip
        # at amplitude 4 one 'c' flips the a-latch (tanh(2 · 0.96 − 4) < 0), never the b-latch
        no_c = sum("c" not in t for t in texts[:n])
        assert g["accuracy"][i][2] == pytest.approx((n + no_c) / (2 * n), abs=1e-12)
    assert g["accuracy"][2][2] < 1.0        # the test can fail: some draw holds a 'c'


def test_a_token_store_sees_no_interference_and_token_models_take_no_amplitude():
    g = acc.interference(store(), V, [1, 4, 12], n=20)
    assert g["accuracy"] == [[1.0], [1.0], [1.0]] and g["amplitudes"] == [None]
    with pytest.raises(ValueError, match="amplitudes"):
        acc.interference(store(), V, [1], amplitudes=(None, 1.0))


# ---------------------------------------------------------------- the window baseline
def test_the_window_baseline_is_at_chance_on_cue_queries_beyond_its_window():
    train = cue_delay(1000, 1, delay=(4, 8))
    balanced = [e for x in cue_delay(300, 2, delay=8) for e in (x, mirror(x))]
    for k in (1, 2, 4):
        w = acc.window_baseline(train, balanced, V, k)
        # mirror twins share their windows: one answer, one of the two right
        assert w["accuracy_needs_cue"] == 0.5 and w["count_needs_cue"] > 200
        assert w["accuracy_no_memory"] >= 0.99     # x_D is in the window
    plain = cue_delay(600, 3, delay=(4, 8), p_needs_cue=1.0)
    w = acc.window_baseline(train, plain, V, 3)
    assert abs(w["accuracy_needs_cue"] - 0.5) <= 3 * math.sqrt(0.25 / 600)
    assert w["accuracy_no_memory"] is None and w["count_no_memory"] == 0


def test_a_window_that_reaches_the_cue_beats_chance():
    # the cue stands D + 1 <= 9 steps before the query: a window of k = 9 sees it
    train = cue_delay(1000, 1, delay=(4, 8), p_needs_cue=1.0)
    w = acc.window_baseline(train, cue_delay(400, 2, delay=(4, 8), p_needs_cue=1.0), V, 9)
    assert w["accuracy_needs_cue"] > 0.9


# ---------------------------------------------------------------- the report
def test_the_report_gathers_every_metric_as_json():
    train = cue_delay(300, 1, delay=(2, 6))
    kw = {"n": 20, "seed": 3}
    r = acc.acceptance_report(store(), V, delays=(1, 4, 9), delay=5, gaps=(1, 3),
                              train_examples=train, window=2, **kw)
    assert json.loads(json.dumps(r)) == r
    assert r["retention"] == acc.retention_curve(store(), V, (1, 4, 9), **kw)
    assert r["interference"]["accuracy"] == [[1.0], [1.0], [1.0]]
    assert r["revision"] == acc.revision_latency(store(), V, (1, 3), delay=5, **kw)
    assert r["state_swap"] == acc.state_swap(store(), V, 5, **kw)
    assert r["cue_erasure"] == acc.cue_erasure(store(), V, 5, **kw)
    assert r["read_selectivity"] == acc.read_selectivity(store(), V, 5, **kw)
    assert r["window_baseline"]["accuracy_needs_cue"] == 0.5 and r["window_baseline"]["k"] == 2
    assert r["settings"] == {"delay": 5, "amplitude": None, "n": 20, "seed": 3,
                             "distractors": "cdef"}
    assert acc.acceptance_report(ignore(), V, delays=(2,), gaps=(1,), **kw)[
        "window_baseline"] is None


def test_one_seed_gives_one_answer_and_a_generator_seed_is_drawn_once():
    a = acc.retention_curve(leaky(0.8, 0.5), V, [1, 2, 3], n=10, seed=11)
    assert a == acc.retention_curve(leaky(0.8, 0.5), V, [3, 1, 2], n=10, seed=11)
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    assert (acc.state_swap(store(), V, 3, n=5, seed=g1)
            == acc.state_swap(store(), V, 3, n=5, seed=g2))


@pytest.mark.parametrize("call, name", [
    (lambda: acc.retention_curve(store(), "!?abcde", [1]), "vocab"),
    (lambda: acc.retention_curve(store(), V, [0]), "delays"),
    (lambda: acc.retention_curve(store(), V, [1], n=0), "n"),
    (lambda: acc.retention_curve(store(), V, [1], n=True), "n"),
    (lambda: acc.retention_curve(store(), V, [4000], n=2048), "delays"),
    (lambda: acc.retention_curve(store(), V, [1], amplitude=1.0, distractors="cd"), "amplitude"),
    (lambda: acc.retention_curve(store(), V, [1], distractors="ab"), "distractors"),
    (lambda: acc.revision_latency(store(), V, [5], delay=3), "gaps"),
    (lambda: acc.revision_latency(store(), V, [1], threshold=0.0), "threshold"),
    (lambda: acc.state_swap("model", V), "model"),
    (lambda: acc.cue_erasure(SeqModel(SeqModelConfig("elman", 8, 2, 2, many_to_many=True)),
                             V), "model"),
    (lambda: acc.window_baseline(cue_delay(5, 0), cue_delay(5, 0), V, 0), "k"),
    (lambda: acc.window_baseline(cue_delay(5, 0), cue_delay(5, 0), "abc", 2), "vocab"),
])
def test_bad_input_is_a_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()
