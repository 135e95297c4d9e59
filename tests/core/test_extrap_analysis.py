"""gleam.labs.extrapolation.analysis (the run) and gleam.labs.extrapolation.measures (its measurements), the
measurements checked on hand-set models whose answers are known by construction, or against
independent computations (per-character modes, np.linalg products and SVDs)."""
import json
import math

import numpy as np
import pytest

from gleam.labs.extrapolation import analysis as ea
from gleam.labs.extrapolation import measures as parts
from gleam import tasks
from gleam.instruments.probes import Probe
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.sweep import run_sweep

SMALL = {"n_train": 120, "n_test": 40, "probe_examples": 40, "epochs": 2, "n": 8}
VOCAB = ea.VOCAB
UNIT = {ch: i for i, ch in enumerate(VOCAB)}            # the hand-set models: one unit per character
DIGITS = [UNIT[str(k)] for k in range(10)]
T20 = math.tanh(20.0)


# ---------------------------------------------------------------- hand-set models
def last_digit_gru(readout="digits"):
    """gru_torch, n = 13: on ')' the keep gate is exactly 1 (h kept); on any other character
    z = σ(−50) ≈ 2e-22 and h ≈ tanh(20) e_char. On "(0+d)" the state before the final ')' is
    tanh(20) e_d, and the final ')' keeps it. readout "digits": class k reads unit of digit k;
    "none": Wo = 0 and bo = e_3 (always answers 3); "depth": "digits" plus weight 10 from the
    units of '(', '+' and '0' to class 0."""
    n = d = len(VOCAB)
    model = SeqModel(SeqModelConfig("gru_torch", d=d, n=n, n_out=10))
    W_ih = np.zeros((3 * n, d))
    W_ih[n:2 * n] = -50.0
    W_ih[n:2 * n, UNIT[")"]] = 50.0                       # z block: keep on ')' only
    W_ih[2 * n:] = 20.0 * np.eye(n)                       # n block: tanh(20 e_char)
    Wo, bo = np.zeros((10, n)), np.zeros(10)
    if readout in ("digits", "depth"):
        Wo[np.arange(10), DIGITS] = 1.0
    if readout == "depth":
        Wo[0, [UNIT["("], UNIT["+"], UNIT["0"]]] = 10.0
    if readout == "none":
        bo[3] = 1.0
    return SeqModel(model.config, {"W_ih": W_ih, "W_hh": np.zeros((3 * n, n)), "b_ih": np.zeros(3 * n),
                                   "b_hh": np.zeros(3 * n), "Wo": Wo, "bo": bo})


def digit_probe(n_classes=10):
    """The linear classify probe reading class k from the unit of digit k (b = 0)."""
    W = np.zeros((len(VOCAB), n_classes))
    W[DIGITS[:n_classes], np.arange(n_classes)] = 1.0
    return Probe("classify", {"W": W, "b": np.zeros(n_classes)}, np.arange(n_classes))


def elman(Wx, Wh, b=None):
    n, d = Wh.shape[0], Wx.shape[1]
    model = SeqModel(SeqModelConfig("elman", d=d, n=n, n_out=10))
    return SeqModel(model.config, {"Wx": Wx, "Wh": Wh, "b": np.zeros(n) if b is None else b,
                                   "Wo": np.zeros((10, n)), "bo": np.zeros(10)})


def zero_then_digit(count=400):
    """Every "(0+d)", d = 1..9, among nested sums of depth 1 with two operands."""
    out = [e for e in tasks.nested_sums(count, 5, max_depth=1, max_operands=2)
           if e.text[1] == "0" and e.text[3] != "0"]
    assert len({e.text for e in out}) == 9
    return out


# ---------------------------------------------------------------- the run
def test_a_run_stepped_in_pieces_is_analyse_sums_run():
    config = {**SMALL, "seed": 3, "batch_size": 16}
    run = ea.AnalysisRun(config)
    assert (run.steps_per_epoch, run.total_steps) == (8, 16)
    assert [run.step(k).n for k in (3, 6, 1, 10 ** 3)] == [3, 6, 1, 6] and run.finished
    assert run.metrics() == ea.analyse_sums(config)


def test_before_any_update_and_after_a_reset():
    run = ea.AnalysisRun(SMALL)
    before = run.metrics()
    assert before["updates"] == 0 and before["train_accuracy"] == -1
    run.step(4)
    after = run.metrics()
    assert after["updates"] == 4 and 0 <= after["train_accuracy"] <= 1 and after != before
    run.reset()
    assert run.metrics() == before


def test_a_config_fixes_its_metrics_and_the_keys():
    a = ea.analyse_sums(SMALL)
    assert a == ea.analyse_sums(dict(SMALL))
    b = ea.analyse_sums({**SMALL, "seed": 1})
    assert b != a and set(b) == set(a)
    assert all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in a.values())
    keys = {"updates", "n_params", "train_accuracy", "test_accuracy", "pca_var_1", "pca_var_2",
            "swap_pairs", "swap_follows", "swap_unchanged", "clamp_unit", "clamp_corr",
            "clamp_accuracy", "clamp_changed", "growth_final"}
    keys |= {f"probe_{L}_{k}" for L in ("depth", "partial", "running", "scope")
             for k in ("accuracy", "control_accuracy", "selectivity", "majority")}
    keys |= {f"patch_{a}_{k}" for a in ("0.5", "1", "2", "4") for k in ("probe_moved", "output_moved")}
    keys |= {f"{k}_{s}" for s in (1, 4, 16) for k in ("log10_sv_max", "n_spans")}
    assert set(a) == keys
    # a gru_torch of width 8 on 13 characters: 3·8·(13 + 8 + 2) gate parameters, a 10-way readout
    assert a["n_params"] == 3 * 8 * (13 + 8 + 2) + 10 * 8 + 10
    assert 0 <= a["pca_var_2"] <= a["pca_var_1"] <= 1
    assert a["probe_depth_selectivity"] == pytest.approx(
        a["probe_depth_accuracy"] - a["probe_depth_control_accuracy"])


def test_other_alphas_and_spans_name_their_keys():
    out = ea.analyse_sums({**SMALL, "epochs": 1, "alphas": [-1, 0.25], "spans": [2]})
    assert {"patch_-1_probe_moved", "patch_0.25_output_moved", "log10_sv_max_2", "n_spans_2"} <= set(out)
    assert "patch_1_probe_moved" not in out and "log10_sv_max_16" not in out


def test_through_the_sweep_runner(tmp_path):
    spec = {"run": "gleam.labs.extrapolation.analysis:analyse_sums", "grid": {"seed": [0]},
            "fixed": {**SMALL, "epochs": 1}}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, progress=False)
    assert report.ran == 1 and report.errors == 0
    r = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert r["metrics"] == ea.analyse_sums(r["config"])


@pytest.mark.parametrize("bad, word", [
    ({"cell": "transformer"}, "cell"), ({"n": 0}, "'n'"), ({"alphas": []}, "alphas"),
    ({"alphas": [1, 1.0]}, "alphas"), ({"spans": [0]}, "spans"), ({"spans": "4"}, "spans"),
    ({"max_depth": 6, "max_operands": 4}, "max_depth"), ({"max_operands": 1}, "max_operands"),
    ({"p_nest": 1.5}, "p_nest"), ({"lr": 0}, "lr"), ({"n_long": 0}, "n_long"),
    ({"probe_examples": 0}, "probe_examples"), ({"seed": -1}, "seed"), ({"typo": 1}, "unknown")])
def test_bad_configs_are_refused_by_name(bad, word):
    with pytest.raises(ValueError, match=word):
        ea.AnalysisRun({**SMALL, **bad})


# ---------------------------------------------------------------- patching: decodable, used
def test_patching_the_partial_direction_moves_probe_and_output_past_a_known_alpha():
    """State before the final ')' = tanh(20) e_d, partial = d, d̂ = (e_{d+1} − e_d)/√2: the probe
    reads d + 1 once α/√2 > tanh(20) − α/√2, i.e. α > tanh(20)/√2 ≈ 0.7071; the ')' keeps the
    state and the readout is the probe, so the output moves with it."""
    examples = zero_then_digit()
    alphas = [0.5, 0.7, 0.71, 1, 2, 4]
    assert 0.7 < T20 / math.sqrt(2) < 0.71
    out = parts.patch_metrics(last_digit_gru(), digit_probe(), examples, VOCAB, alphas)
    for a, moved in zip(alphas, [0, 0, 1, 1, 1, 1]):
        assert out[f"patch_{a:g}_probe_moved"] == moved
        assert out[f"patch_{a:g}_output_moved"] == moved


def test_a_readout_that_ignores_the_state_decodes_the_edit_but_never_uses_it():
    examples = zero_then_digit()
    out = parts.patch_metrics(last_digit_gru("none"), digit_probe(), examples, VOCAB, [0.5, 1, 4])
    assert [out[f"patch_{a}_probe_moved"] for a in (0.5, 1, 4)] == [0, 1, 1]
    assert [out[f"patch_{a}_output_moved"] for a in (0.5, 1, 4)] == [0, 0, 0]


def test_a_class_the_probe_lacks_leaves_the_patch_undefined():
    """A probe of classes 0..4 only: d = 1..3 have both d and d + 1, the rest are left out."""
    examples = zero_then_digit()
    out = parts.patch_metrics(last_digit_gru(), digit_probe(5), examples, VOCAB, [4])
    assert out["patch_4_probe_moved"] == 1 and out["patch_4_output_moved"] == 1
    high = [e for e in examples if int(e.text[3]) >= 5]
    none = parts.patch_metrics(last_digit_gru(), digit_probe(5), high, VOCAB, [4])
    assert none == {"patch_4_probe_moved": -1, "patch_4_output_moved": -1}


# ---------------------------------------------------------------- swap and clamp
def test_swapping_states_before_the_final_bracket_swaps_the_answers():
    examples = zero_then_digit()
    out = parts.swap_metrics(last_digit_gru(), examples, VOCAB, seed=0)
    assert 1 <= out["swap_pairs"] <= len(examples) // 2
    assert out["swap_follows"] == 1 and out["swap_unchanged"] == 0
    blind = parts.swap_metrics(last_digit_gru("none"), examples, VOCAB, seed=0)
    assert blind["swap_pairs"] == out["swap_pairs"]
    assert blind["swap_follows"] == 0 and blind["swap_unchanged"] == 1
    same = [e for e in examples if e.text == "(0+4)"]
    assert parts.swap_metrics(last_digit_gru(), same, VOCAB) == {
        "swap_pairs": 0, "swap_follows": -1, "swap_unchanged": -1}


def test_clamping_the_depth_unit_the_readout_weighs_breaks_every_answer():
    """States per "(0+d)": e_(, e_0, e_+, e_d, e_d (times tanh 20); depth 1, 1, 1, 1, 0. The units
    of '(', '0' and '+' each have corr = (0.2 − 0.2·0.8)/0.16 = 0.25 with depth, the largest;
    its mean is 0.2 tanh(20), and 10 × that on class 0 outweighs the digit's tanh(20)."""
    examples = zero_then_digit()
    model = last_digit_gru("depth")
    rows = parts.state_rows(model, examples, VOCAB)
    assert np.mean(rows.predictions == [e.target for e in examples]) == 1
    out = parts.clamp_metrics(model, rows, examples, VOCAB)
    assert out["clamp_unit"] in (UNIT["("], UNIT["0"], UNIT["+"])
    assert out["clamp_corr"] == pytest.approx(0.25, abs=1e-9)
    assert out["clamp_accuracy"] == 0 and out["clamp_changed"] == 1
    plain = parts.clamp_metrics(last_digit_gru(), rows, examples, VOCAB)   # the unit is not read
    assert plain["clamp_accuracy"] == 1 and plain["clamp_changed"] == 0


# ---------------------------------------------------------------- probes and PCA
def test_a_state_that_never_moves_leaves_every_probe_at_the_majority():
    """Keep gate 1 everywhere: h_t = 0 at every character, so a probe can only answer the train
    set's commonest label, and the test rows have no variance."""
    model = last_digit_gru()
    model.params["W_ih"][model.config.n:2 * model.config.n] = 50.0
    train, test = tasks.nested_sums(60, 1), tasks.nested_sums(30, 2)
    out = parts.probe_metrics(parts.state_rows(model, train, VOCAB), parts.state_rows(model, test, VOCAB))
    for L in parts.LABELS:
        tr = [v for e in train for v, ch in zip(e.labels[L], e.text) if L != "scope" or ch == "+"]
        te = np.array([v for e in test for v, ch in zip(e.labels[L], e.text) if L != "scope" or ch == "+"])
        values, counts = np.unique(tr, return_counts=True)
        majority = np.mean(te == values[np.argmax(counts)])
        assert out[f"probe_{L}_majority"] == pytest.approx(majority)
        assert out[f"probe_{L}_accuracy"] == pytest.approx(majority)
    assert out["pca_var_1"] == 0 and out["pca_var_2"] == 0


def test_a_state_that_holds_the_current_character_is_probed_to_its_per_character_mode():
    """h_t = tanh(20 e_{char_t}) (an Elman cell with no recurrence): the best any probe can do is
    the train set's commonest label for each character, counted here by hand."""
    model = elman(20.0 * np.eye(13), np.zeros((13, 13)))
    train, test = tasks.nested_sums(300, 1), tasks.nested_sums(100, 2)
    out = parts.probe_metrics(parts.state_rows(model, train, VOCAB), parts.state_rows(model, test, VOCAB))
    for L in ("depth", "partial", "running"):
        mode = {}
        for ch in VOCAB:
            seen = [v for e in train for v, c in zip(e.labels[L], e.text) if c == ch]
            if seen:
                values, counts = np.unique(seen, return_counts=True)
                mode[ch] = values[np.argmax(counts)]
        right = [v == mode.get(c) for e in test for v, c in zip(e.labels[L], e.text)]
        assert out[f"probe_{L}_accuracy"] == pytest.approx(np.mean(right)), L
    # every '+' row is the same state: the scope probe is the majority
    assert out["probe_scope_accuracy"] == pytest.approx(out["probe_scope_majority"])


def test_state_rows_line_up_with_the_texts():
    examples = tasks.nested_sums(5, 0)
    model = SeqModel(SeqModelConfig("gru_torch", d=13, n=4, n_out=10, seed=1))
    rows = parts.state_rows(model, examples, VOCAB)
    assert len(rows.X) == sum(len(e.text) for e in examples)
    for (t, b), ch, ty, depth in zip(rows.index, rows.chars, rows.types, rows.labels["depth"]):
        text = examples[b].text
        assert ch == text[t] and ty == ("^" + text)[t:t + 2] and depth == examples[b].labels["depth"][t]
    hs = model.hidden_states(tasks.encode(examples[2:3], VOCAB).X)[:, 0]
    assert np.allclose(rows.X[rows.index[:, 1] == 2], hs)


def test_the_partial_probe_is_the_one_probe_metrics_scores():
    model = SeqModel(SeqModelConfig("gru_torch", d=13, n=6, n_out=10, seed=2))
    train = parts.state_rows(model, tasks.nested_sums(40, 1), VOCAB)
    test = parts.state_rows(model, tasks.nested_sums(20, 2), VOCAB)
    probe = parts.fit_partial_probe(train, seed=7)
    assert parts.probe_metrics(train, test, seed=7)["probe_partial_accuracy"] == probe.score(
        test.X, test.labels["partial"])


# ---------------------------------------------------------------- stability
def test_a_linear_recurrence_has_its_known_span_gains():
    """h stays 0 (no input, no bias), so J_s = c I exactly: σ_max over s steps is c^s, and from the
    first state to the last of a text of L characters it is c^(L−1)."""
    c, examples = 0.5, tasks.nested_sums(30, 3)
    out = parts.stability_metrics(elman(np.zeros((3, 13)), c * np.eye(3)), examples, VOCAB, [1, 4, 16], n_long=5)
    lengths = sorted((len(e.text) for e in examples), reverse=True)[:5]
    for s in (1, 4, 16):
        assert out[f"log10_sv_max_{s}"] == pytest.approx(s * math.log10(c), abs=1e-12)
        assert out[f"n_spans_{s}"] == sum(max(L - s, 0) for L in lengths)
    assert out["growth_final"] == pytest.approx(np.median([(L - 1) * math.log10(c) for L in lengths]))


def test_span_gains_match_hand_products_of_the_elman_jacobian():
    """Near-linear Elman: J_s = diag(1 − h_{s+1}²) W_h, multiplied with np.linalg.multi_dot."""
    rng = np.random.default_rng(0)
    n = 5
    model = elman(0.3 * rng.standard_normal((n, 13)), 0.6 * rng.standard_normal((n, n)) / np.sqrt(n),
                  0.1 * rng.standard_normal(n))
    examples = tasks.nested_sums(20, 4)
    out = parts.stability_metrics(model, examples, VOCAB, [1, 3, 8], n_long=3)
    longest = sorted(examples, key=lambda e: -len(e.text))[:3]
    logs, growth = {1: [], 3: [], 8: []}, []
    for e in longest:
        h = model.hidden_states(tasks.encode([e], VOCAB).X)[:, 0]
        J = [(1 - h[s + 1] ** 2)[:, None] * model.params["Wh"] for s in range(len(h) - 1)]
        for s, found in logs.items():
            for i in range(len(J) - s + 1):
                P = J[i] if s == 1 else np.linalg.multi_dot(J[i:i + s][::-1])
                found.append(math.log10(np.linalg.svd(P, compute_uv=False)[0]))
        growth.append(math.log10(np.linalg.svd(np.linalg.multi_dot(J[::-1]), compute_uv=False)[0]))
    for s, found in logs.items():
        assert out[f"log10_sv_max_{s}"] == pytest.approx(np.median(found), abs=1e-9)
        assert out[f"n_spans_{s}"] == len(found)
    assert out["growth_final"] == pytest.approx(np.median(growth), abs=1e-9)


def test_a_recurrence_that_forgets_at_once_floors_its_gains_and_a_short_text_has_no_long_span():
    model = elman(np.ones((2, 13)), np.zeros((2, 2)))                     # J_s = 0 exactly
    examples = [e for e in tasks.nested_sums(50, 0, max_depth=1, max_operands=2)][:3]   # 5 characters
    out = parts.stability_metrics(model, examples, VOCAB, [1, 5], n_long=2)
    assert out["log10_sv_max_1"] == -300 and out["growth_final"] == -300
    assert out["log10_sv_max_5"] == -1 and out["n_spans_5"] == 0 and out["n_spans_1"] == 8


# ---------------------------------------------------------------- bad input to the parts
def test_the_parts_refuse_what_they_cannot_measure_by_name():
    model, examples = last_digit_gru(), zero_then_digit()
    with pytest.raises(ValueError, match="vocab"):
        parts.state_rows(model, examples, VOCAB[:-1])
    with pytest.raises(ValueError, match="examples"):
        parts.swap_metrics(model, tasks.cue_delay(3, 0), VOCAB)
    with pytest.raises(ValueError, match="model"):
        parts.swap_metrics(SeqModel(SeqModelConfig("elman", 13, 2, 1, head="regress")), examples, VOCAB)
    with pytest.raises(ValueError, match="probe"):
        parts.patch_metrics(model, digit_probe().params, examples, VOCAB)
    with pytest.raises(ValueError, match="alphas"):
        parts.patch_metrics(model, digit_probe(), examples, VOCAB, [1e300])
    with pytest.raises(ValueError, match="spans"):
        parts.stability_metrics(model, examples, VOCAB, [3, 3])
    with pytest.raises(ValueError, match="train"):
        parts.clamp_metrics(model, "rows", examples, VOCAB)


def test_the_states_pca_is_an_svd_of_the_test_states_coloured_by_depth():
    run = ea.AnalysisRun(SMALL)
    run.step(5)
    out = ea.pca_by_depth(run, limit=100)
    _, hs, caches = run.model.forward(*[getattr(run._test, k) for k in ("X", "mask")])
    m = caches["mask"]
    index = np.argwhere(m)[:100]                        # t-major rows, as state_rows orders them
    X = hs[index[:, 0], index[:, 1]]
    centred = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(centred, full_matrices=False)
    assert np.allclose(out["explained"], (s[:2] ** 2) / np.sum(s ** 2))
    for i, key in enumerate(("x", "y")):               # each component up to its sign
        proj = centred @ Vt[i]
        assert np.allclose(np.abs(out[key]), np.abs(proj), atol=1e-9)
    depths = [run.test_examples[b].labels["depth"][t] for t, b in index]
    assert out["depth"] == depths
    with pytest.raises(ValueError, match="limit"):
        ea.pca_by_depth(run, limit=1)
