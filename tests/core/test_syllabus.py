"""Every number SYLLABUS.md prints, at the digits it prints, computed through gleam.examples.

The literals below are the syllabus's values: they are the spec. Numbers the syllabus does not
print (chapter 3's measured decay, the carry challenge) are held to their defining properties,
recomputed here by straightforward loops.
"""
import json
import math
import random
import statistics
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from gleam import cells, losses, examples as ex


def sig(x, k):
    """x to k significant digits, as printed: sig(9.5367e-7, 2) == 9.5e-7."""
    return float(f"{x:.{k}g}")


def r4(v):
    return [round(float(a), 4) for a in v]


# ---- chapter 0 -------------------------------------------------------------------------------
def test_ch0_retained_and_half_lives():
    c0 = ex.chapter0_scalar_memory()
    assert sig(c0["retained_0.9_over_64"], 3) == 0.00118
    assert round(c0["half_life_0.90"], 1) == 6.6
    assert round(c0["half_life_0.99"]) == 69
    assert round(c0["half_life_ratio_0.99_over_0.90"]) == 10          # "ten times the reach"
    assert c0["sensitivity_a1_h0"] == 1.0 and c0["sensitivity_a1_h2"] < 0.1   # weight 1, saturated


# ---- chapter 1 -------------------------------------------------------------------------------
def test_ch1_elman_hand_example():
    c1 = ex.chapter1_hand_example()
    assert [r4(h) for h in c1["states"]] == [[0.8005, -0.0997], [0.0202, 0.6171], [0.1845, -0.0277]]
    Wx = ex.chapter1_params()["Wx"]
    for j, step in enumerate(c1["steps"]):            # one-hot input: W_x x is a column of W_x
        assert step["input_column"] == Wx[:, j].tolist()


def test_ch1_wh_scale_study():
    w, p = ex.chapter1_wh_scale(), ex.chapter1_params()
    rho = max(abs(np.linalg.eigvals(p["Wh"])))
    assert w["spectral_radius"] == pytest.approx(rho, rel=1e-12)
    assert w["scale_for_radius_one"] == pytest.approx(1 / rho, rel=1e-12)
    # scale 0: memoryless, the state after c is tanh(column c of W_x + b)
    assert w["memoryless"]["states"][2] == pytest.approx(np.tanh(p["Wx"][:, 2] + p["b"]).tolist())
    # "aaaaaaaa" at scale 2: by the third a, unit 1's pre-activation is where tanh saturates
    h, Wh = np.zeros(2), 2 * p["Wh"]
    for _ in range(3):
        a = p["Wx"][:, 0] + Wh @ h + p["b"]
        h = np.tanh(a)
    assert w["saturating_pre_activation"] == pytest.approx(a[0]) and np.tanh(a[0]) > 0.95
    assert ex.chapter1_hand_example()["param_count"] == 2 * 3 + 2 * 2 + 2     # nd + n² + n


# ---- chapter 2 -------------------------------------------------------------------------------
def test_ch2_bptt():
    c2 = ex.chapter2_bptt()
    assert r4(c2["states"]) == [0.6640, 0.8848, 0.9211]
    assert [round(v, 3) for v in c2["tanh_derivatives"]] == [0.559, 0.217, 0.152]
    assert round(c2["loss"], 4) == 0.0887
    assert round(c2["dL_dw"], 4) == 0.0826
    assert round(c2["dL_du"], 4) == 0.0647
    assert sum(c2["dL_dw_per_step"]) == pytest.approx(c2["dL_dw"])          # a sum over steps
    assert c2["dL_du_per_step"][0] == 0.0                                   # h_0 = 0
    assert round(c2["dL_dw_truncated"], 5) == 0.07628
    assert round(100 * c2["truncation_shortfall"], 1) == 7.6


def test_ch2_far_bars_grow_with_u():
    low, high = ex.chapter2_contributions(u=0.3), ex.chapter2_contributions(u=0.9)
    assert high["abs_contributions"][0] > 100 * low["abs_contributions"][0]
    assert high["share_kept_last_k"] < low["share_kept_last_k"]


# ---- chapter 3 -------------------------------------------------------------------------------
def test_ch3_bound():
    c3 = ex.chapter3_vanishing()
    assert sig(c3["factor_0.45_over_20"], 3) == 1.16e-7
    assert c3["factor_0.45_over_20"] < c3["float32_epsilon"]                 # the noise floor
    assert c3["factor_1.5_over_20"] > 1000                                  # explodes


def test_ch3_clipping():
    c = ex.chapter3_clipping()
    assert round(c["pre_clip_norm"], 1) == 47.3
    assert round(c["scale"], 4) == 0.1057
    assert round(c["clipped_components"][0], 3) == 1.268
    assert round(c["clipped_components"][1], 4) == -0.0423
    assert c["post_clip_norm"] == pytest.approx(5.0)
    assert c["cosine_before_after"] == pytest.approx(1.0)                    # direction kept


def loop_decay(rho, t_report, n=64):
    """Straightforward: forward the RNN, multiply the Jacobians out, no renormalisation."""
    W = np.random.default_rng(seed=0).standard_normal((n, n))
    W = W * rho / max(abs(np.linalg.eigvals(W)))
    X = np.random.default_rng(1).standard_normal((t_report, n)) * 0.5
    h, P = np.zeros(n), np.eye(n)
    for t in range(t_report):
        h = np.tanh(W @ h + X[t])
        P = np.diag(1 - h ** 2) @ W @ P
    return math.log10(np.linalg.norm(P, 2))


def test_ch3_measured_decay_table():
    table = ex.chapter3_measured_decay()
    assert table["rho"] == [0.5, 0.9, 1.5, 2.5] and table["steps"] == [5, 10, 20, 50]
    rows = dict(zip(table["rho"], table["log10_norm"]))
    for rho, col, t in ((0.9, 2, 20), (2.5, 1, 10), (1.5, 3, 50)):
        assert rows[rho][col] == pytest.approx(loop_decay(rho, t), abs=1e-9)
    assert all(np.diff(rows[0.5]) < 0) and all(np.diff(rows[0.9]) < 0)     # vanishing
    assert all(np.diff(rows[2.5]) > 0)                                      # exploding
    flat = max(rows[1.5]) - min(rows[1.5])                                  # saturation cancels
    assert flat < 1.0 and all(abs(v) < 1.0 for v in rows[1.5])
    assert flat < (max(rows[2.5]) - min(rows[2.5])) / 3
    assert rows[0.5][-1] < rows[0.9][-1] < rows[1.5][-1] < rows[2.5][-1]


# ---- chapter 4 -------------------------------------------------------------------------------
def test_ch4_gru_hand_example_textbook():
    g = ex.chapter4_gru_hand_example("textbook")
    assert r4(g["z"]) == [0.6748, 0.3775]
    assert r4(g["r"]) == [0.5200, 0.6660]
    assert r4(g["candidate"]) == [0.5753, 0.2488]
    assert r4(g["h"]) == [0.5508, -0.0306]


def test_ch4_torch_convention_differs_as_written():
    tb, tc = ex.chapter4_gru_hand_example("textbook"), ex.chapter4_gru_hand_example("torch")
    # same r and z (b_hh = 0); n applies r after U_h; h' = (1 − z) n + z h
    h, p = np.array([0.5, -0.2]), ex.gru_hand_params()
    r, z = np.array(tb["r"]), np.array(tb["z"])
    n = np.tanh(p["Wh"][:, 1] + p["bh"] + r * (p["Uh"] @ h))
    assert np.allclose(tc["r"], r) and np.allclose(tc["z"], z)
    assert np.allclose(tc["candidate"], n) and np.allclose(tc["h"], (1 - z) * n + z * h)
    assert not np.allclose(tc["h"], tb["h"], atol=1e-3)


def test_ch4_pinned_gates_are_the_widget_numbers():
    hand = ex.chapter4_gru_hand_example("textbook")
    same = ex.chapter4_pinned_gates(hand["z"], hand["r"])
    for key in ("z", "r", "candidate", "h"):
        assert same[key] == pytest.approx(hand[key], abs=1e-12)
    # unit 1 writes (z = 1: h = h̃), unit 2 holds (z = 0: h = h_{t−1}), textbook convention
    hold = ex.chapter4_pinned_gates((1.0, 0.0), hand["r"])
    assert hold["h"][0] == hold["candidate"][0] and hold["h"][1] == hand["h_prev"][1]
    assert hold["carry_multiplier"] == [0.0, 1.0] and hold["carry_multiplier_20"] == [0.0, 1.0]
    # under PyTorch's convention z keeps: z = 1 holds
    torch = ex.chapter4_pinned_gates({1: 1.0}, None, "torch")
    assert torch["h"][1] == hand["h_prev"][1] and torch["carry_multiplier"][1] == 1.0
    assert torch["z"][0] == ex.chapter4_gru_hand_example("torch")["z"][0]      # unit 1 not pinned


def test_ch4_gate_meters():
    m = ex.chapter4_gate_meters()
    assert m["z"] == [0.1, 0.5, 0.9] and m["T"] == 20
    a, b, c = m["carry_over_T"]
    assert round(a, 3) == 0.122 and sig(b, 2) == 9.5e-7 and sig(c, 2) == 1e-20


@given(st.integers(0, 2**31), st.floats(0.1, 5.0))
@settings(max_examples=30, deadline=None)
def test_ch4_gru_state_stays_in_the_unit_box(seed, scale):
    rng = np.random.default_rng(seed)
    p = cells.init_gru_textbook(3, 4, rng, scale=scale)
    h = np.zeros(4)
    for x in rng.standard_normal((10, 3)) * 5:
        h, _ = cells.gru_textbook_step(x, h, p)
        assert np.all(np.abs(h) <= 1.0)


# ---- chapter 5 -------------------------------------------------------------------------------
def test_ch5_counts():
    c = ex.chapter5_counts()
    assert c["gru_params"] == 295_680 and c["lstm_params"] == 394_240
    assert c["gru_width_matching_lstm"] == 304
    assert c["gru_macs"] == 3 * (128 * 256 + 256 ** 2) and c["lstm_macs"] == 4 * (128 * 256 + 256 ** 2)
    assert c["gru_over_lstm"] == 0.75                                       # 25 % smaller


def test_ch5_carry_multipliers():
    m = ex.chapter5_carry_multipliers()
    assert round(m["0.99^30"], 3) == 0.740
    assert sig(m["sigmoid(0)^30"], 2) == 9.3e-10
    assert round(m["sigmoid(1)"], 3) == 0.731 and sig(m["sigmoid(1)^30"], 2) == 8.3e-5
    assert round(m["0.99^100"], 3) == 0.366
    assert sig(m["0.9^100"], 2) == 2.7e-5
    assert sig(m["0.5^100"], 2) == 7.9e-31
    assert round(m["sigmoid(3)"], 3) == 0.953 and round(m["sigmoid(3)^100"], 4) == 0.0078


# ---- chapter 6 -------------------------------------------------------------------------------
def test_ch6_cross_entropy_and_temperature():
    c = ex.chapter6_cross_entropy()
    assert round(c["p_target"], 4) == 0.5250
    assert round(c["loss_nats"], 4) == 0.6444 and round(c["loss_bits"], 2) == 0.93
    assert round(c["uniform_loss"], 4) == 1.6094
    assert np.allclose(c["grad"], np.array(losses.softmax(np.array([2.0, 0.5, -1.0, 0.3, 1.2])))
                       - np.eye(5)[0])
    assert abs(c["grad_sum"]) < 1e-12
    assert c["temperatures"] == [0.5, 1.0, 2.0]
    assert r4(c["p_target_at_temperature"]) == [0.7767, 0.5250, 0.3580]


# ---- chapter 7 -------------------------------------------------------------------------------
def test_ch6_trainer_settings():
    t = ex.chapter6_trainer()
    assert (t["K"], t["clip"], t["lr"], t["H"]) == (25, 5.0, 0.1, 32)


def test_ch7_live_lab_numbers():
    c = ex.chapter7_live_lab()
    assert 250 <= c["corpus_length"] <= 300 and c["min_corpus_length"] == c["K"] + 1
    assert 2.6 <= c["unigram_nats"] <= 2.9                   # the syllabus's unigram plateau
    assert c["ema_decay"] == 0.97 and round(c["ema_new_weight"], 12) == 0.03
    assert c["wide_macs_per_step"] == 3 * (128 * 24 + 128 * 128)
    assert (c["V"], c["H"], c["K"]) == (24, 32, 25)
    assert round(c["chance_nats"], 3) == 3.178
    # the syllabus prints 4.59 bits: log2 24 = 4.58496…, i.e. 4.585 rounded half-up once more
    assert round(c["chance_bits"], 3) == 4.585
    assert c["macs_per_step"] == 5_376
    assert round(c["chunk_operations"], -5) == 400_000
    assert round(c["ema_lag_steps"]) == 33


# ---- chapter 8 -------------------------------------------------------------------------------
def test_ch8_stacks_and_bottleneck():
    c = ex.chapter8_beyond()
    assert c["layer_params"] == [295_680, 393_984]
    assert c["two_layer_params"] == 689_664 and c["two_layer_params_torch"] == 691_200
    assert c["bidirectional_width"] == 512 and c["bidirectional_params"] == 591_360
    assert c["context_bytes"] == 256 * 4                     # the same for 5 or 500 tokens
    assert round(c["bits_per_word"], 2) == 14.87
    bits = dict(zip(c["words"], c["source_bits"]))
    assert math.floor(bits[50]) == 743 and math.floor(bits[500]) == 7_436   # "≈": whole bits


# ---- chapter 9 -------------------------------------------------------------------------------
def test_ch9_self_test_matches_a_hand_computation():
    s = ex.chapter9_self_test()
    sigm = lambda a: 1 / (1 + np.exp(-a))   # noqa: E731
    h = np.array([0.5, -0.2])
    Uz, Ur, Uh = np.array([[0.3, 0.1], [-0.2, 0.5]]), np.array([[0.2, -0.4], [0.1, 0.3]]), \
        np.array([[0.7, 0.2], [-0.1, 0.9]])
    z = sigm(np.array([-0.2, 0.5]) + Uz @ h + np.array([0, 0.1]))
    r = sigm(np.array([0.4, -0.1]) + Ur @ h + np.array([0.2, 0]))
    ht = np.tanh(np.array([0.3, -0.6]) + Uh @ (r * h))
    assert s["input"] == "a"
    assert np.allclose(s["z"], z) and np.allclose(s["r"], r) and np.allclose(s["candidate"], ht)
    assert np.allclose(s["h"], (1 - z) * h + z * ht)


def test_ch9_deployment_budget():
    b = ex.chapter9_deployment()
    assert b["state_bytes"] == 4_096
    assert b["kv_cache_bytes_per_token"] == 8_192
    assert round(b["kv_cache_bytes"] / 1e6) == 82
    assert round(b["recurrent_macs_per_token"] / 1e6, 2) == 2.75
    assert b["readout_macs_per_token"] > 5 * b["recurrent_macs_per_token"]   # the readout dwarfs


# ---- memory lab ------------------------------------------------------------------------------
def reference_carry(arch, delay, noise_sd, carry, admission, trials=5000, seed=46, eps=1e-5):
    """The syllabus's reference program, written out trial by trial in plain Python floats:
    a fresh random.Random(seed) per configuration; per trial the cue, then the distractors."""
    rng = random.Random(seed)
    correct, margins, sensitivities = 0, [], []
    for _ in range(trials):
        cue = 1.0 if rng.random() >= 0.5 else -1.0
        xs = [rng.gauss(0.0, noise_sd) for _ in range(delay)]

        def final(c):
            h = math.tanh(c)
            for x in xs:
                h = math.tanh(carry * h + admission * x) if arch == "elman" else carry * h + admission * math.tanh(x)
            return h
        h = final(cue)
        correct += (h >= 0) == (cue >= 0)
        margins.append(cue * h)
        sensitivities.append(abs(final(cue + eps) - final(cue - eps)) / (2 * eps))
    return {"accuracy": f"{correct / trials:.3f}", "mean_margin": f"{sum(margins) / trials:.3f}",
            "median_abs_grad": f"{statistics.median(sensitivities):.6f}", "carry": f"{carry:.3f}",
            "half_life": f"{math.log(0.5) / math.log(carry):.2f}"}


def printed(row):
    """A row of gleam's table as the reference program prints it."""
    return {"accuracy": f"{row['accuracy']:.3f}", "mean_margin": f"{row['mean_margin']:.3f}",
            "median_abs_grad": f"{row['median_abs_grad']:.6f}", "carry": f"{row['carry']:.3f}",
            "half_life": f"{row['half_life']:.2f}"}


@pytest.mark.parametrize("preset", ["long noisy delay", "negative control", "misgated"])
def test_the_carry_challenge_is_the_reference_programs_to_every_printed_digit(preset):
    c = ex.memory_lab_carry_challenge()
    p, rows = c["presets"][preset], {r["architecture"]: r for r in c["rows"][preset]}
    assert (c["trials"], c["seed"]) == (5000, 46)
    want_elman = reference_carry("elman", p["delay"], p["noise_sd"], p["elman_carry"], p["elman_admission"])
    want_gated = reference_carry("gated", p["delay"], p["noise_sd"], p["gated_carry"], p["gated_admission"])
    assert printed(rows["elman"]) == want_elman
    assert printed(rows["lstm"]) == want_gated and printed(rows["gru"]) == want_gated


def test_memory_lab_carry_challenge():
    c = ex.memory_lab_carry_challenge()
    assert c["trials"] == 5000 and c["seed"] == 46
    rows = {name: {r["architecture"]: r for r in rs} for name, rs in c["rows"].items()}
    for name, by in rows.items():
        assert {k: v for k, v in by["lstm"].items() if k != "architecture"} == \
               {k: v for k, v in by["gru"].items() if k != "architecture"}, name
    long, neg, mis = rows["long noisy delay"], rows["negative control"], rows["misgated"]
    assert long["gru"]["accuracy"] > 0.99 and long["elman"]["accuracy"] < 0.6
    assert long["gru"]["median_abs_grad"] > 1000 * long["elman"]["median_abs_grad"]
    assert all(r["accuracy"] > 0.99 for r in neg.values())
    assert mis["gru"]["accuracy"] < 0.6
    assert round(long["gru"]["half_life"]) == 69 and round(long["elman"]["half_life"], 1) == 6.6
    p = c["presets"]["long noisy delay"]
    assert (p["delay"], p["noise_sd"], p["gated_carry"], p["gated_admission"], p["elman_carry"],
            p["elman_admission"]) == (64, 0.35, 0.99, 0.02, 0.90, 0.12)
    assert c["presets"]["negative control"]["delay"] == 4
    assert (c["presets"]["misgated"]["gated_carry"], c["presets"]["misgated"]["gated_admission"]) == (0.90, 0.10)
    assert c["presets"]["negative control"]["noise_sd"] == 0.0       # exactly: quiet steps


# ---- the JSON document ----------------------------------------------------------------------
def test_examples_print_one_json_document():
    out = subprocess.run([sys.executable, "-m", "gleam.examples", "--json"], capture_output=True, text=True,
                         check=True, timeout=120)
    doc = json.loads(out.stdout)
    assert set(doc) == set(ex.all_examples())
    assert doc["chapter5_counts"]["gru_params"] == 295_680


def test_a_chapter_s_examples_import_only_that_chapter_s_modules():
    """gleam.examples imports a chapter's module on first use: chapter 1's page, in the browser's
    worker, must not pay for the char-level trainer's or the research labs' imports."""
    code = ("import sys\nfrom gleam import examples\nexamples.chapter1_hand_example\n"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('gleam'))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            timeout=60).stdout.split()
    assert "gleam.examples.ch1_elman" in loaded
    assert not [m for m in loaded if m.startswith(("gleam.chargru", "gleam.labs", "gleam.examples.ch6",
                                                   "gleam.examples.memory", "gleam.examples.extrapolation"))]


def test_every_chapter_s_examples_are_gleam_examples_names():
    import importlib
    seen = {}
    for name in ex.CHAPTER_MODULES:
        module = importlib.import_module(f"gleam.examples.{name}")
        assert getattr(ex, name) is module
        for public in module.__all__:
            assert public not in seen, f"{public} is in both {seen.get(public)} and {name}"
            seen[public] = name
            assert getattr(ex, public) is getattr(module, public)
    assert set(seen) <= set(dir(ex)) and len(seen) > 40
    with pytest.raises(AttributeError, match="has no attribute 'chapter99'"):
        ex.chapter99
