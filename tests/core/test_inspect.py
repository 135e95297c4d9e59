"""gleam.instruments.inspect against the instruments it is made of, computed here another way: the
states and the read-out by hand from the cell steps, the path from an SVD, the sensitivity from
finite differences, and each intervention's new answer by SeqModel.forward with it."""
import numpy as np
import pytest

from gleam.cells import CELLS
from gleam.instruments import inspect
from gleam.instruments.input_interventions import zero_input
from gleam.instruments.interventions import add_along, clamp_unit, swap_states
from gleam.instruments.probes import fit_probe
from gleam.seqmodel import SeqModel, SeqModelConfig

IDS = np.array([0, 3, 1, 1, 2, 0, 3, 2])


def model(cell, seed=0, n=6):
    return SeqModel(SeqModelConfig(cell=cell, d=4, n=n, n_out=5, init_scale=0.9, seed=seed))


@pytest.mark.parametrize("cell", ["elman", "gru_torch", "gru_textbook", "lstm"])
def test_a_look_is_the_cells_steps_and_the_read_out_by_hand(cell):
    m = model(cell)
    got = inspect.look(m, IDS)
    step = CELLS[cell].step
    h = np.zeros((1, m.config.n))
    state = (h, h.copy()) if cell == "lstm" else h
    hs, cs = [], []
    for i in IDS:
        x = np.eye(4)[[i]]
        state, _ = step(x, state, m.params)
        hs.append((state[0] if cell == "lstm" else state)[0])
        if cell == "lstm":
            cs.append(state[1][0])
    assert np.allclose(got.states, hs, atol=1e-12)
    assert (got.cells is None) == (cell != "lstm") and (cell != "lstm" or np.allclose(got.cells, cs, atol=1e-12))
    logits = m.params["Wo"] @ hs[-1] + m.params["bo"]
    p = np.exp(logits - logits.max())
    assert np.allclose(got.probabilities, p / p.sum(), atol=1e-12)
    assert got.prediction == int(np.argmax(logits))


def test_the_path_is_the_references_principal_components():
    m = model("gru_torch")
    reference = np.random.default_rng(1).standard_normal((40, 6))
    got = inspect.look(m, IDS, reference)
    centred = reference - reference.mean(axis=0)
    _, s, Vt = np.linalg.svd(centred, full_matrices=False)
    proj = (got.states - reference.mean(axis=0)) @ Vt[:2].T
    assert np.allclose(np.abs(got.path), np.abs(proj), atol=1e-10)     # (each axis up to its sign)
    assert np.allclose(got.explained, s[:2] ** 2 / np.sum(s ** 2))


@pytest.mark.parametrize("cell", ["elman", "gru_torch", "lstm"])
def test_the_sensitivity_is_each_jacobians_largest_singular_value_and_a_known_prefix_is_kept(cell):
    from gleam.instruments.stability import state_jacobians
    m = model(cell, n=9)
    rng = np.random.default_rng(4)
    ids = rng.integers(0, 4, 30)
    got = inspect.look(m, ids)
    want = [np.linalg.svd(J, compute_uv=False)[0] for J in state_jacobians(m, ids[:, None])]
    assert np.allclose(got.sensitivity, want, rtol=1e-12, atol=0)
    for other in (ids[:12], np.concatenate([ids[:17], (ids[17:] + 1) % 4]), np.concatenate([ids, [1, 2]]),
                  (ids + 1) % 4, ids):
        again = inspect.look(m, other, known=(ids, got))
        alone = inspect.look(m, other)
        assert np.array_equal(again.sensitivity, alone.sensitivity) and np.array_equal(again.states, alone.states)
    # another model's Look shares no states: nothing of it is kept
    stranger = inspect.look(model(cell, seed=1, n=9), ids)
    assert np.array_equal(inspect.look(m, ids, known=(ids, stranger)).sensitivity, got.sensitivity)
    with pytest.raises(ValueError, match="known"):
        inspect.look(m, ids, known=(ids[:5], got))


@pytest.mark.parametrize("cell", ["elman", "lstm"])
def test_the_sensitivity_is_the_largest_stretch_of_one_step_by_finite_differences(cell):
    m, eps = model(cell), 1e-6
    got = inspect.look(m, IDS).sensitivity
    assert got.shape == (len(IDS) - 1,)
    X = IDS[:, None]
    t = 3
    _, _, caches = m.forward(X[:t + 1])
    lstm = cell == "lstm"
    s = np.concatenate([caches["steps"][t]["h"] if not lstm else caches["steps"][t]["h"],
                        caches["c"][t] if lstm else np.zeros((1, 0))], axis=1)[0]
    n = m.config.n

    def next_state(s):
        state = (s[None, :n], s[None, n:]) if lstm else s[None]
        new, _ = CELLS[cell].step(np.eye(4)[[IDS[t + 1]]], state, m.params)
        return np.concatenate([new[0][0], new[1][0]]) if lstm else new[0]
    J = np.stack([(next_state(s + eps * e) - next_state(s - eps * e)) / (2 * eps) for e in np.eye(len(s))], axis=1)
    assert abs(np.linalg.svd(J, compute_uv=False)[0] - got[t]) < 1e-6


def test_each_intervention_gives_what_the_model_gives_with_it():
    m = model("lstm", seed=3)
    X = IDS[:, None]
    for intervention in (clamp_unit(2, 0.9, [4]), add_along(np.arange(6.0), 2.0, [3], part="c")):
        before, after = inspect.edit(m, IDS, intervention)
        logits, hs, _ = m.forward(X, intervene=intervention)
        assert after.prediction == int(np.argmax(logits[0])) and np.allclose(after.states, hs[:, 0])
        assert np.allclose(before.states, m.forward(X)[1][:, 0])
        assert np.isnan(after.sensitivity).all()
    erased = zero_input(X, [0], d=4)
    before, after = inspect.edit(m, IDS, erased)
    assert np.allclose(after.states, m.forward(erased)[1][:, 0])


def test_a_swap_with_another_input_is_the_others_state_carried_on():
    m, other = model("gru_torch", seed=5), np.array([3, 3, 2, 0, 1, 1, 2, 0])
    X = np.stack([IDS, other], axis=1)
    swapped = m.forward(X, intervene=swap_states(4, [(0, 1)]))[1][:, 0]
    # from step 5 on, the input's own characters read on from the other's state
    h = m.forward(other[:5, None])[1][-1]
    rest = m.forward(IDS[5:, None], h0=h[0])[1][:, 0]
    assert np.allclose(swapped[5:], rest, atol=1e-12)


@pytest.mark.parametrize("cell", ["gru_torch", "lstm"])
def test_a_transplant_is_the_swap_of_a_batch_of_two(cell):
    m, other = model(cell, seed=5), np.array([3, 3, 2, 0, 1, 1, 2, 0])
    X = np.stack([IDS, other], axis=1)
    swapped = m.forward(X, intervene=swap_states(4, [(0, 1)]))
    before, after = inspect.edit(m, IDS, inspect.transplant(m, other, 4))
    assert np.allclose(after.states, swapped[1][:, 0], rtol=0, atol=1e-12)   # (a batch of two: other roundings)
    assert after.prediction == int(np.argmax(swapped[0][0]))
    assert np.array_equal(before.states, m.forward(IDS[:, None])[1][:, 0])
    with pytest.raises(ValueError, match="outside the other input's 8 steps"):
        inspect.transplant(m, other, 8)


def test_a_fitted_reference_and_a_look_made_before_give_what_the_rows_give():
    m = model("lstm", seed=1)
    rows = np.random.default_rng(2).standard_normal((30, 6))
    fit = inspect.fit_reference(rows)
    a, b = inspect.look(m, IDS, rows), inspect.look(m, IDS, fit)
    assert np.array_equal(a.path, b.path) and np.array_equal(a.explained, b.explained)
    intervention = clamp_unit(1, -0.5, [2, 3])
    again = inspect.edit(m, IDS, intervention, fit, before=b)
    fresh = inspect.edit(m, IDS, intervention, rows)
    assert again[0] is b and np.array_equal(again[1].states, fresh[1].states)
    assert np.array_equal(again[1].path, fresh[1].path)
    with pytest.raises(ValueError, match="before must be the Look of this input"):
        inspect.edit(m, IDS[:3], intervention, fit, before=b)


def test_the_change_in_words():
    m = model("elman", seed=2)
    before, after = inspect.edit(m, IDS, clamp_unit(0, 5.0, [len(IDS) - 1]))
    classes = list("abcde")
    probe = fit_probe(np.random.default_rng(0).standard_normal((30, 6)),
                      np.random.default_rng(1).standard_normal(30), kind="regress")
    text = inspect.in_words(before, after, classes, probe)
    moved = float(probe.predict(after.states[-1:])[0] - probe.predict(before.states[-1:])[0])
    start = (f"The answer moved from {classes[before.prediction]} to {classes[after.prediction]}"
             if before.prediction != after.prediction else f"The answer stayed at {classes[before.prediction]}")
    assert text == f"{start}; the probe's reading moved by {moved:+.1f}." and abs(moved) >= 0.05
    # a move that rounds to 0.0 is written in full, never "-0.0"
    tiny = inspect.edit(m, IDS, clamp_unit(0, float(before.states[-1, 0]) + 1e-4, [len(IDS) - 1]))[1]
    small = float(probe.predict(tiny.states[-1:])[0] - probe.predict(before.states[-1:])[0])
    assert 0 < abs(small) < 0.05
    assert inspect.in_words(before, tiny, classes, probe).endswith(f"moved by {small:+.1e}.")
    assert inspect.in_words(before, before, classes) == f"The answer stayed at {classes[before.prediction]}."


@pytest.mark.parametrize("ids, message", [
    (np.zeros((3, 2), dtype=int), "one sequence of token ids"),
    (np.array([], dtype=int), "at least one step"),
    (np.array(["a"]), "token ids or features"),
])
def test_bad_inputs_are_refused_by_name(ids, message):
    with pytest.raises(ValueError, match=message):
        inspect.look(model("elman"), ids)


def test_an_empty_intervention_and_a_reference_of_the_wrong_width_are_refused():
    with pytest.raises(ValueError, match="changes nothing"):
        inspect.edit(model("elman"), IDS, {})
    with pytest.raises(ValueError, match="reference has 3 columns"):
        inspect.look(model("elman"), IDS, np.zeros((5, 3)))
