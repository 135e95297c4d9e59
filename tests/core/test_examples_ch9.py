"""gleam.examples for chapter 9: the self-test's checker and the deployment budget, against the
syllabus's printed numbers and against plain NumPy / arithmetic written out here."""
import numpy as np
import pytest

from gleam import examples as ex

KEYS = ["z1", "z2", "r1", "r2", "htilde1", "htilde2", "h1", "h2"]
sig = lambda a: 1 / (1 + np.exp(-a))   # noqa: E731


def by_hand(col, torch=False):
    """Chapter 4's cell on one input column (the weights of the syllabus), written out."""
    W = {"z": [[-0.2, 0.6], [0.5, -0.4]], "r": [[0.4, -0.3], [-0.1, 0.7]], "h": [[0.3, 0.5], [-0.6, 0.4]]}
    Uz, Ur, Uh = np.array([[0.3, 0.1], [-0.2, 0.5]]), np.array([[0.2, -0.4], [0.1, 0.3]]), \
        np.array([[0.7, 0.2], [-0.1, 0.9]])
    h = np.array([0.5, -0.2])
    x = {g: np.array(W[g])[:, col] for g in W}
    z = sig(x["z"] + Uz @ h + np.array([0.0, 0.1]))
    r = sig(x["r"] + Ur @ h + np.array([0.2, 0.0]))
    if torch:
        cand = np.tanh(x["h"] + r * (Uh @ h))
        return {"z": z, "r": r, "htilde": cand, "h": (1 - z) * cand + z * h}
    cand = np.tanh(x["h"] + Uh @ (r * h))
    return {"z": z, "r": r, "htilde": cand, "h": (1 - z) * h + z * cand}


RIGHT = by_hand(0)


def typed(values, fmt="{:.4f}"):
    return {f"{q}{u}": fmt.format(values[q][u - 1]) for q in ("z", "r", "htilde", "h") for u in (1, 2)}


def test_self_test_values_are_the_syllabus_cell():
    s = ex.chapter9_self_test()
    for q, field in (("z", "z"), ("r", "r"), ("htilde", "candidate"), ("h", "h")):
        assert np.allclose(s[field], RIGHT[q], atol=1e-12)


def test_right_answers_typed_to_four_decimals_are_correct():
    r = ex.chapter9_check_self_test(typed(RIGHT))
    assert r["all_correct"] and r["n_correct"] == r["n_entries"] == 8
    assert [e["key"] for e in r["entries"]] == KEYS
    assert all(e["status"] == "correct" and e["message"] == "correct" for e in r["entries"])
    assert r["tolerance"] == 0.0005 == ex.SELF_TEST_TOLERANCE
    # a learner's spellings: a typographic minus, a decimal comma, spaces, plain numbers
    answers = {k: v.replace("-", "\u2212") for k, v in typed(RIGHT).items()}
    answers["z1"] = " " + answers["z1"].replace(".", ",") + " "
    answers["r2"] = float(RIGHT["r"][1])
    assert ex.chapter9_check_self_test(answers)["all_correct"]


def test_wrong_answers_say_which_and_which_way_without_the_answer():
    answers = typed(RIGHT)
    answers["r2"] = f"{RIGHT['r'][1] + 0.01:.4f}"           # a little too high
    answers["h1"] = f"{RIGHT['h'][0] - 0.3:.4f}"            # far too low
    answers["htilde2"] = f"{RIGHT['htilde'][1] + 0.002:.4f}"  # a slip in the last digits
    r = ex.chapter9_check_self_test(answers)
    assert r["off"] == ["r2", "htilde2", "h1"] and r["n_correct"] == 5 and not r["all_correct"]
    v = r["verdicts"]
    assert v["r2"]["direction"] == "too high" and "less than 0.05" in v["r2"]["message"]
    assert v["h1"]["direction"] == "too low" and "0.2 or more" in v["h1"]["message"]
    assert "only slightly" in v["htilde2"]["message"]
    for key in ("r2", "h1", "htilde2"):
        right = r["answers"][key]
        assert f"{right:.4f}" not in v[key]["message"] and f"{right:.3f}" not in v[key]["message"]


def test_just_inside_and_just_outside_the_tolerance():
    answers = typed(RIGHT)
    answers["z1"] = RIGHT["z"][0] + 0.00049
    answers["z2"] = RIGHT["z"][1] - 0.00051
    v = ex.chapter9_check_self_test(answers)["verdicts"]
    assert v["z1"]["status"] == "correct" and v["z2"]["status"] == "off" and v["z2"]["direction"] == "too low"


def test_missing_and_not_a_number():
    answers = typed(RIGHT)
    answers.update(z1="", r1="   ", htilde1="abc", h1="nan", h2="inf")
    del answers["z2"]
    r = ex.chapter9_check_self_test(answers)
    assert r["missing"] == ["z1", "z2", "r1"]
    assert r["not a number"] == ["htilde1", "h1", "h2"]
    assert r["verdicts"]["htilde1"]["message"] == "not a number"


def test_neighbouring_questions_are_recognised():
    answers = typed(RIGHT)
    torch, ch4 = by_hand(0, torch=True), by_hand(1)
    answers["h2"] = f"{torch['h'][1]:.4f}"                  # right under PyTorch's convention
    answers["z1"] = f"{ch4['z'][0]:.4f}"                    # chapter 4's input b
    v = ex.chapter9_check_self_test(answers)["verdicts"]
    assert v["h2"]["status"] == "off" and "PyTorch" in v["h2"]["message"]
    assert v["z1"]["status"] == "off" and "chapter 4" in v["z1"]["message"]


@pytest.mark.parametrize("bad", [0, -1e-3, float("nan"), "0.001"])
def test_bad_tolerance_is_refused(bad):
    with pytest.raises(ValueError, match="tolerance"):
        ex.chapter9_check_self_test({}, tolerance=bad)


def test_answers_must_be_a_dict():
    with pytest.raises(ValueError, match="answers"):
        ex.chapter9_check_self_test(["0.5"])


def budget_by_hand(d, n, layers, vocab, tokens):
    gru = lambda d_in: 3 * (n * d_in + n * n)               # noqa: E731  MACs of one GRU layer
    return {"state_bytes": 4 * n * layers, "kv_cache_bytes_per_token": 2 * layers * n * 4,
            "kv_cache_bytes": 2 * layers * n * 4 * tokens,
            "recurrent_macs_per_token": gru(d) + (layers - 1) * gru(n), "readout_macs_per_token": n * vocab,
            "recurrent_params": 3 * (n * d + n * n + n) + (layers - 1) * 3 * (2 * n * n + n),
            "readout_params": vocab * (n + 1), "embedding_params": vocab * d}


def test_deployment_syllabus_numbers():
    b = ex.chapter9_deployment()
    assert (b["d"], b["n"], b["layers"], b["vocab"], b["tokens"]) == (256, 512, 2, 50_000, 10_000)
    assert b["state_bytes"] == 4_096 and b["kv_cache_bytes_per_token"] == 8_192
    assert round(b["kv_cache_megabytes"]) == 82
    assert round(b["recurrent_macs_per_token"] / 1e6, 2) == 2.75
    assert b["readout_over_recurrent_macs"] > 5                # the readout dwarfs the stack


@pytest.mark.parametrize("d, n, layers, vocab, tokens", [(256, 512, 2, 50_000, 10_000), (128, 64, 3, 1000, 7),
                                                          (1, 1, 1, 1, 0)])
def test_deployment_against_arithmetic(d, n, layers, vocab, tokens):
    b = ex.chapter9_deployment(d=d, n=n, layers=layers, vocab=vocab, tokens=tokens)
    want = budget_by_hand(d, n, layers, vocab, tokens)
    assert {k: b[k] for k in want} == want
    assert b["kv_cache_megabytes"] == want["kv_cache_bytes"] / 1e6
    assert b["readout_over_recurrent_macs"] == want["readout_macs_per_token"] / want["recurrent_macs_per_token"]
    assert b["kv_cache_over_state"] == 2 * tokens


@pytest.mark.parametrize("bad", [dict(d=0), dict(n=-3), dict(layers=0), dict(vocab=0), dict(tokens=-1),
                                 dict(n=None), dict(d=2.5)])
def test_deployment_refuses_bad_inputs(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        ex.chapter9_deployment(**bad)
