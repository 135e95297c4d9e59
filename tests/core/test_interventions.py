"""gleam.instruments.interventions on models whose answers are known by hand, and identities for every cell.

The latch models (Elman and textbook GRU, weights set by hand): tokens 0 = cue a, 1 = cue b,
2 = distractor p, 3 = distractor q. Unit 0 latches the cue (+ for a, − for b) and only the cues
feed it; unit 1 follows the current distractor (+ for p, − for q) and nothing else; unit 2 is
unused. The cue readout reads unit 0 only (class 0 = "a", class 1 = "b"); the ignoring readout
reads unit 1 only, so it answers the last distractor.
"""
import numpy as np
import pytest

from gleam.instruments import interventions as iv
from gleam.seqmodel import SeqModel, SeqModelConfig

CUE_A, CUE_B, P, Q = 0, 1, 2, 3
# six sequences: a cue, then four distractors; the answer is read after the last step
X = np.array([[CUE_A, CUE_B, CUE_A, CUE_B, CUE_B, CUE_A],
              [P, Q, Q, P, P, Q],
              [Q, P, Q, Q, P, P],
              [P, P, Q, Q, Q, P],
              [Q, P, P, Q, P, Q]])
CUE_LABEL = np.array([0, 1, 0, 1, 1, 0])            # the cue's class, by hand from X[0]
LAST_LABEL = np.array([1, 0, 0, 1, 0, 1])           # p -> class 0, q -> class 1, from X[-1]
CELLS = ["elman", "gru_textbook", "gru_torch", "lstm"]


def readout(unit):
    Wo = np.zeros((2, 3))
    Wo[0, unit], Wo[1, unit] = 1.0, -1.0            # logit_0 − logit_1 = 2 h[unit]
    return {"Wo": Wo, "bo": np.zeros(2)}


def latch_elman(unit, many_to_many=False):
    """h' = tanh(Wx x + Wh h): h0' = tanh(3 h0 ± 3 [cue]), h1' = tanh(±2 [p/q])."""
    Wx, Wh = np.zeros((3, 4)), np.zeros((3, 3))
    Wx[0, CUE_A], Wx[0, CUE_B], Wx[1, P], Wx[1, Q] = 3.0, -3.0, 2.0, -2.0
    Wh[0, 0] = 3.0                                  # tanh(3 h) = h has roots ±0.995: a latch
    config = SeqModelConfig("elman", 4, 3, 2, many_to_many=many_to_many)
    return SeqModel(config, {"Wx": Wx, "Wh": Wh, "b": np.zeros(3), **readout(unit)})


def latch_gru(unit):
    """Textbook GRU: z0 = σ(±12) opens on cues only, h̃0 = tanh(±3 [cue]); z1 = σ(12) ≈ 1, so
    h1 ≈ h̃1 = tanh(±2 [p/q]); no recurrent weights at all."""
    p = {k: np.zeros(s) for k, s in [("Wz", (3, 4)), ("Uz", (3, 3)), ("bz", 3), ("Wr", (3, 4)),
                                     ("Ur", (3, 3)), ("br", 3), ("Wh", (3, 4)), ("Uh", (3, 3)),
                                     ("bh", 3)]}
    p["bz"][:] = [-12.0, 12.0, -12.0]
    p["Wz"][0, CUE_A] = p["Wz"][0, CUE_B] = 24.0
    p["Wh"][0, CUE_A], p["Wh"][0, CUE_B], p["Wh"][1, P], p["Wh"][1, Q] = 3.0, -3.0, 2.0, -2.0
    return SeqModel(SeqModelConfig("gru_textbook", 4, 3, 2), {**p, **readout(unit)})


LATCHES = [latch_elman, latch_gru]


@pytest.mark.parametrize("make", LATCHES)
def test_the_hand_set_models_answer_as_designed(make):
    assert make(0).predict(X).tolist() == CUE_LABEL.tolist()
    assert make(1).predict(X).tolist() == LAST_LABEL.tolist()


@pytest.mark.parametrize("units", [[0], None])
@pytest.mark.parametrize("make", LATCHES)
def test_swapping_the_latched_unit_swaps_the_answers(make, units):
    mask = np.ones(X.shape, bool)
    e = iv.effect(make(0), X, mask, iv.swap_states(2, [(0, 1), (2, 3)], mask, units=units),
                  targets=CUE_LABEL)
    swapped = CUE_LABEL[[1, 0, 3, 2, 4, 5]]         # sequences 0 ↔ 1 and 2 ↔ 3
    assert e.before.tolist() == CUE_LABEL.tolist() and e.after.tolist() == swapped.tolist()
    assert e.changed == pytest.approx(4 / 6) and e.count == 6
    assert e.metric == "accuracy" and (e.accuracy_before, e.accuracy_after) == (1.0, 2 / 6)


@pytest.mark.parametrize("make", LATCHES)
def test_clamping_the_latched_unit_to_plus_one_gives_every_sequence_the_a_answer(make):
    e = iv.effect(make(0), X, None, iv.clamp_unit(0, 1.0, 2), targets=CUE_LABEL)
    assert e.after.tolist() == [0] * 6
    assert e.changed == pytest.approx(3 / 6)        # the three b-cued sequences
    assert e.accuracy_after == pytest.approx(3 / 6)
    # the same along the direction e_0
    e2 = iv.effect(make(0), X, None, iv.clamp_direction([5.0, 0, 0], 1.0, [2, 3]))
    assert e2.after.tolist() == [0] * 6


@pytest.mark.parametrize("make", LATCHES)
def test_a_readout_that_ignores_the_latched_unit_is_unmoved_by_its_swap_or_clamp(make):
    model = make(1)
    for intervene in (iv.swap_states(2, [(0, 1), (2, 3)], units=[0]), iv.clamp_unit(0, 1.0, 2),
                      iv.clamp_unit(0, -1.0, [1, 2, 3]), iv.add_along([1.0, 0, 0], 5.0, 2)):
        e = iv.effect(model, X, None, intervene)
        assert e.changed == 0 and e.mean_abs_change == 0.0
    # the whole state at step 2: unit 1 is rebuilt from the inputs (exactly for the Elman,
    # up to the GRU's carry (1 − σ(12))² ≈ 4e-11)
    e = iv.effect(model, X, None, iv.swap_states(2, [(0, 1), (2, 3)]))
    assert e.changed == 0 and e.mean_abs_change < 1e-9
    # ... while the same swap at the last step moves the answers it reads
    assert iv.effect(model, X, None, iv.swap_states(4, [(0, 1)])).changed == pytest.approx(2 / 6)


def test_many_to_many_a_swap_moves_the_answers_from_its_step_on():
    model = latch_elman(0, many_to_many=True)
    e = iv.effect(model, X, None, iv.swap_states(2, (0, 1)))
    expected = np.tile(CUE_LABEL, (5, 1))           # the latch holds the cue from step 0
    assert e.before.tolist() == expected.tolist()
    expected[2:, [0, 1]] = expected[2:, [1, 0]]
    assert e.after.tolist() == expected.tolist()
    assert e.changed == pytest.approx(6 / 30) and e.count == 30


def test_erasing_the_cue_leaves_the_latch_at_zero():
    model = latch_elman(0)
    X0 = iv.zero_input(X, 0, d=4)
    assert X0.shape == (5, 6, 4) and not X0[0].any()
    assert np.array_equal(X0[1:], np.eye(4)[X[1:]])
    assert np.all(model.hidden_states(X0)[:, :, 0] == 0.0)   # tanh(3·0) = 0 at every step
    e = iv.effect(model, X0, None, None, targets=CUE_LABEL)
    assert e.after.tolist() == [0] * 6 and e.accuracy_after == 0.5   # equal logits: argmax 0


def test_permuting_the_cues_makes_the_answers_follow_the_moved_cues():
    model = latch_elman(0)
    Xp = iv.permute_inputs(X, None, 0, seed=3)
    assert Xp.dtype.kind == "i" and np.array_equal(Xp[1:], X[1:])
    assert sorted(Xp[0]) == sorted(X[0])
    assert model.predict(Xp).tolist() == (Xp[0] == CUE_B).astype(int).tolist()
    assert np.array_equal(iv.permute_inputs(X, None, 0, seed=3), Xp)


def test_permute_inputs_moves_only_valid_inputs_at_the_listed_steps():
    rng = np.random.default_rng(0)
    F = rng.standard_normal((4, 6, 2))
    mask = np.ones((4, 6), bool)
    mask[2:, 4:] = False                            # sequences 4, 5 end after step 1
    out = iv.permute_inputs(F, mask, [0, 2], seed=1)
    assert np.array_equal(out[[1, 3]], F[[1, 3]]) and np.array_equal(out[2, 4:], F[2, 4:])
    for t, b in ((0, slice(None)), (2, slice(0, 4))):
        assert sorted(map(tuple, out[t, b])) == sorted(map(tuple, F[t, b]))


def test_zero_input_on_features_and_ids_with_padding():
    mask = np.ones(X.shape, bool)
    mask[3:, 0] = False
    ids = X.copy()
    ids[3:, 0] = 99                                 # padding may hold anything
    out = iv.zero_input(ids, [1, 4], d=4, mask=mask)
    by_hand = np.eye(4)[np.where(mask, ids, 0)] * mask[..., None]
    by_hand[[1, 4]] = 0.0
    assert np.array_equal(out, by_hand)
    F = np.arange(5 * 6 * 2, dtype=float).reshape(5, 6, 2)
    out = iv.zero_input(F, 2)
    assert not out[2].any() and np.array_equal(out[[0, 1, 3, 4]], F[[0, 1, 3, 4]])


# ---------------------------------------------------------------- every cell: identities
def random_case(cell, many_to_many, B=4, T=5, seed=0):
    config = SeqModelConfig(cell, 3, 3, 2, many_to_many=many_to_many, init_scale=1.5,
                            seed=seed)
    rng = np.random.default_rng(seed + 100)
    mask = np.ones((T, B), bool)
    mask[3:, B - 1] = False                         # the last sequence ends after step 2
    return SeqModel(config), rng.standard_normal((T, B, 3)), mask


def outputs(model, X, mask, intervene=None):
    return model.forward(X, mask, intervene=intervene)[0]


@pytest.mark.parametrize("m2m", [False, True])
@pytest.mark.parametrize("cell", CELLS)
def test_identities_change_nothing(cell, m2m):
    model, F, mask = random_case(cell, m2m)
    parts = ["h", "c", "both"] if cell == "lstm" else ["h", "both"]
    for part in parts:
        width = 6 if (cell == "lstm" and part == "both") else 3
        d = np.arange(1.0, width + 1)
        e = iv.effect(model, F, mask, iv.add_along(d, 0.0, [1, 3], part=part))
        assert e.changed == 0 and e.mean_abs_change == 0.0
    sw = iv.swap_states(1, [(0, 2), (1, 3)], mask)
    e = iv.effect(model, F, mask, iv.combine(sw, sw))
    assert e.changed == 0 and e.mean_abs_change == 0.0
    # clamping to the current value (one sequence, so one value)
    one, one_mask = F[:, :1], mask[:, :1]
    hs = model.hidden_states(one, one_mask)
    e = iv.effect(model, one, one_mask, iv.clamp_unit(1, hs[2, 0, 1], 2))
    assert e.mean_abs_change == 0.0
    if cell == "lstm":
        cs = model.hidden_states(one, one_mask, cell_state=True)
        e = iv.effect(model, one, one_mask, iv.clamp_unit(2, cs[2, 0, 2], 2, part="c"))
        assert e.mean_abs_change == 0.0
    d = np.array([1.0, -2.0, 0.5])
    value = hs[2, 0] @ (d / np.linalg.norm(d))
    e = iv.effect(model, one, one_mask, iv.clamp_direction(d, value, 2))
    assert e.changed == 0 and e.mean_abs_change < 1e-12


@pytest.mark.parametrize("cell", CELLS)
def test_a_whole_state_swap_at_the_last_step_swaps_the_outputs(cell):
    model, F, _ = random_case(cell, False)
    e = iv.effect(model, F, None, iv.swap_states(4, [(0, 1), (2, 3)]))
    assert np.array_equal(e.outputs_after, e.outputs_before[[1, 0, 3, 2]])


@pytest.mark.parametrize("cell", CELLS)
def test_many_to_many_a_swap_before_identical_suffixes_swaps_every_later_output(cell):
    model, F, _ = random_case(cell, True)
    F[3:, 1] = F[3:, 0]                             # sequences 0 and 1 agree from step 3
    out = outputs(model, F, None, iv.swap_states(2, (0, 1)))
    before = outputs(model, F, None)
    assert np.allclose(out[2:, [0, 1]], before[2:, [1, 0]], rtol=0, atol=1e-12)
    assert np.array_equal(out[:2], before[:2]) and np.array_equal(out[:, 2:], before[:, 2:])


@pytest.mark.parametrize("cell", CELLS)
def test_the_state_interventions_do_what_their_formulas_say(cell):
    model, F, mask = random_case(cell, False)
    hs = model.hidden_states(F, mask)
    d = np.array([2.0, -1.0, 2.0])
    d_hat = d / 3.0                                  # ‖d‖ = 3
    patched = model.hidden_states(F, mask, intervene=iv.add_along(d, 0.7, 2))
    assert np.array_equal(patched[:2], hs[:2])
    assert np.allclose(patched[2] - hs[2], 0.7 * d_hat, rtol=0, atol=1e-15)
    clamped = model.hidden_states(F, mask, intervene=iv.clamp_direction(d, -0.4, 2))
    assert np.allclose(clamped[2] @ d_hat, -0.4, rtol=0, atol=1e-15)
    def rest(h):                                     # the part orthogonal to d̂
        return h - np.outer(h @ d_hat, d_hat)
    assert np.allclose(rest(clamped[2]), rest(hs[2]), rtol=0, atol=1e-15)
    by_direction = outputs(model, F, mask, iv.clamp_direction([0, 0, 4.0], 0.3, [1, 2]))
    by_unit = outputs(model, F, mask, iv.clamp_unit(2, 0.3, [1, 2]))
    assert np.allclose(by_direction, by_unit, rtol=0, atol=1e-15)
    if cell == "lstm":
        cs = model.hidden_states(F, mask, intervene=iv.clamp_unit(1, 2.5, 3, part="c"),
                                 cell_state=True)
        assert np.all(cs[3, :, 1] == 2.5)
        both = model.hidden_states(F, mask, intervene=iv.clamp_unit(4, 2.5, 3, part="both"),
                                   cell_state=True)   # unit 4 of (h, c) is c's unit 1
        assert np.array_equal(both, cs)


@pytest.mark.parametrize("head", ["classify", "regress"])
def test_effect_against_a_direct_computation(head):
    config = SeqModelConfig("gru_torch", 3, 4, 2 if head == "classify" else 1, head=head,
                            many_to_many=True, init_scale=1.0, seed=4)
    model = SeqModel(config)
    F = np.random.default_rng(7).standard_normal((5, 8, 3))
    mask = np.ones((5, 8), bool)
    mask[4:, :3] = False
    intervene = iv.add_along(np.ones(4), 1.5, 1)
    y0, y1 = outputs(model, F, mask), outputs(model, F, mask, intervene)
    e = iv.effect(model, F, mask, intervene)
    assert e.count == mask.sum()
    assert e.mean_abs_change == pytest.approx(np.abs(y1 - y0)[mask].mean(), rel=1e-12)
    if head == "classify":
        moved = y1.argmax(-1) != y0.argmax(-1)
        assert np.array_equal(e.after, np.where(mask, y1.argmax(-1), -1))
    else:
        moved = np.abs(y1 - y0)[..., 0] > 1e-9 * (1 + np.abs(y0[..., 0]))
        assert np.array_equal(np.isnan(e.after), ~mask)
    assert e.changed == pytest.approx(moved[mask].mean())
    assert 0 < e.changed <= 1
    # compared only where a target is asked for
    tm = np.zeros((5, 8), bool)
    tm[3] = True
    e = iv.effect(model, F, mask, intervene, target_mask=tm)
    assert e.count == 8 and e.mean_abs_change == pytest.approx(np.abs(y1 - y0)[3].mean())


def test_bad_interventions_are_refused_with_the_argument_named():
    model, F, mask = random_case("elman", False)
    lstm, _, _ = random_case("lstm", False)
    loud = latch_elman(0)
    loud.params["Wo"] *= 10.0                       # 10 · 1e308 overflows the logits
    cases = [
        (lambda: iv.effect(model, F, mask, iv.clamp_unit(0, 1.0, 1, part="c")), "part = 'c'"),
        (lambda: iv.effect(model, F, mask, iv.clamp_unit(3, 1.0, 1)), "unit = 3"),
        (lambda: iv.effect(lstm, F, mask, iv.add_along([1, 2], 1.0, 1)), "direction has 2"),
        (lambda: iv.effect(lstm, F, mask, iv.add_along([1, 2, 3], 1.0, 1, part="both")),
         "direction has 3"),
        (lambda: iv.swap_states(3, (0, 3), mask), "pairs: sequences 0 and 3"),
        (lambda: iv.swap_states(1, [(0, 1), (1, 2)]), "no sequence may be in two pairs"),
        (lambda: iv.swap_states(1, (2, 2)), "each pair needs two sequences"),
        (lambda: iv.swap_states(1, [(0, -1)]), r"pairs\[0\] must be an integer >= 0"),
        (lambda: iv.effect(model, F, mask, iv.swap_states(1, (0, 4))), "pairs: a sequence"),
        (lambda: iv.clamp_unit(0, 1.0, -1), "steps must be an integer >= 0"),
        (lambda: iv.clamp_unit(0, 1.0, []), "steps must name"),
        (lambda: iv.add_along([0.0, 0.0], 1.0, 1), "direction must be a non-zero"),
        (lambda: iv.clamp_unit(0, True, 1), "value must be"),
        (lambda: iv.effect(model, F, mask, iv.clamp_unit(0, 1.0, 5)), "intervene step 5"),
        (lambda: iv.effect(model, F, mask, iv.combine(*[iv.add_along([1, 0, 0], 1e308, 1)] * 2)),
         r"alpha = 1e\+308 makes the state non-finite"),
        (lambda: iv.effect(loud, X, None, iv.clamp_unit(0, 1e308, 4)),
         "intervene drove the outputs"),
        (lambda: iv.zero_input(X, 0), r"d \(the vocabulary size\)"),
        (lambda: iv.zero_input(X, 5, d=4), "steps: step 5"),
        (lambda: iv.permute_inputs(X.astype(float), None, 0), "X of shape"),
        (lambda: iv.combine({0: "f"}), r"intervenes\[0\]\[0\]"),
        (lambda: iv.effect("model", F, mask, None), "model must be"),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=message):
            make()


def test_a_combined_step_whose_first_function_breaks_the_state_is_refused_by_name():
    """Found by fuzzing: the second function of a combined step got what the first returned
    (a number) and failed with an IndexError deep inside."""
    model = SeqModel(SeqModelConfig("elman", d=2, n=3, n_out=2))
    X = np.zeros((3, 2, 2))
    both = iv.combine({0: lambda s: 1.0}, iv.clamp_unit(0, 0.5, 0))
    with pytest.raises(ValueError, match=r"^intervene: function 0 of a combined step returned shapes \[\(\)\]"):
        iv.effect(model, X, None, both)
