"""gleam.cells.pin_gates and logit: chapter 4's pinned gates, in both GRU conventions."""
import copy
import warnings

import numpy as np
import pytest

from gleam import cells
from gleam.cells import logit, pin_gates, sigmoid

STEPS = {"gru_textbook": cells.gru_textbook_step, "gru_torch": cells.gru_torch_step}


def setup(cell, d=3, n=4, seed=0):
    rng = np.random.default_rng(seed)
    p = cells.CELLS[cell].init(d, n, rng, scale=0.8)
    p = {k: v + 0.3 * rng.standard_normal(v.shape) for k, v in p.items()}    # biases too
    return p, rng.standard_normal(d), np.tanh(rng.standard_normal(n))


def test_logit_inverts_the_sigmoid_with_infinite_ends():
    v = np.linspace(0, 1, 101)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                      # no divide-by-zero warning
        b = logit(v)
    assert b[0] == -np.inf and b[-1] == np.inf and b[50] == 0.0
    assert sigmoid(b[0]) == 0.0 and sigmoid(b[-1]) == 1.0
    np.testing.assert_allclose(sigmoid(b), v, rtol=0, atol=1e-15)
    assert logit(0.25) == pytest.approx(np.log(0.25 / 0.75), rel=1e-15)


@pytest.mark.parametrize("cell", STEPS)
def test_pinned_gates_come_out_as_the_cache_gates(cell):
    p, x, h = setup(cell)
    z, r = [0.0, 0.3, 0.9, 1.0], [1.0, 0.5, 0.01, 0.0]
    _, cache = STEPS[cell](x, h, pin_gates(cell, p, z=z, r=r))
    np.testing.assert_allclose(cache["z"], z, rtol=0, atol=1e-15)
    np.testing.assert_allclose(cache["r"], r, rtol=0, atol=1e-15)
    assert cache["z"][0] == 0.0 and cache["z"][3] == 1.0          # the ends are exact
    assert cache["r"][0] == 1.0 and cache["r"][3] == 0.0
    # whatever the input and the state: the same gates on a batch of other (x, h)
    X, Hs = np.random.default_rng(1).standard_normal((2, 5, 4))[:, :, :3], np.zeros((5, 4))
    _, batch = STEPS[cell](X[0], Hs, pin_gates(cell, p, z=z, r=r))
    np.testing.assert_allclose(batch["z"], np.broadcast_to(z, (5, 4)), rtol=0, atol=1e-15)


def test_textbook_step_with_pinned_gates_is_the_gru_equation():
    p, x, h = setup("gru_textbook")
    z, r = np.array([0.2, 0.4, 0.6, 0.8]), np.array([0.9, 0.7, 0.5, 0.3])
    h_next, cache = cells.gru_textbook_step(x, h, pin_gates("gru_textbook", p, z=z, r=r))
    h_tilde = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])
    np.testing.assert_allclose(cache["h_tilde"], h_tilde, rtol=0, atol=1e-14)
    np.testing.assert_allclose(h_next, (1 - z) * h + z * h_tilde, rtol=0, atol=1e-14)


def test_z_is_each_cells_own_gate():
    # textbook z writes: z = 0 keeps h; torch.nn.GRU's z keeps: z = 1 keeps h
    p, x, h = setup("gru_textbook")
    assert np.array_equal(cells.gru_textbook_step(x, h, pin_gates("gru_textbook", p, z=[0.0] * 4))[0], h)
    q, x, h = setup("gru_torch")
    assert np.array_equal(cells.gru_torch_step(x, h, pin_gates("gru_torch", q, z=[1.0] * 4))[0], h)


@pytest.mark.parametrize("cell", STEPS)
def test_a_mapping_pins_only_the_named_units(cell):
    p, x, h = setup(cell)
    _, free = STEPS[cell](x, h, p)
    _, cache = STEPS[cell](x, h, pin_gates(cell, p, z={2: 0.75}, r={0: 0.0, np.int64(3): 1.0}))
    assert cache["z"][2] == pytest.approx(0.75, abs=1e-15)
    assert (cache["r"][0], cache["r"][3]) == (0.0, 1.0)
    np.testing.assert_array_equal(cache["z"][[0, 1, 3]], free["z"][[0, 1, 3]])
    np.testing.assert_array_equal(cache["r"][[1, 2]], free["r"][[1, 2]])
    # a gate left alone is the unpinned cell's, bit for bit
    _, only_r = STEPS[cell](x, h, pin_gates(cell, p, r={1: 0.5}))
    np.testing.assert_array_equal(only_r["z"], free["z"])


@pytest.mark.parametrize("cell", STEPS)
def test_the_rows_it_writes_and_p_untouched(cell):
    p, _, _ = setup(cell)
    before = copy.deepcopy(p)
    q = pin_gates(cell, p, z={1: 0.8}, r=None)
    for k in p:
        np.testing.assert_array_equal(p[k], before[k])
        assert q[k] is not p[k]
    n = 4
    if cell == "gru_textbook":
        changed = {"Wz": [1], "Uz": [1], "bz": [1]}
    else:
        changed = {"W_ih": [n + 1], "W_hh": [n + 1], "b_ih": [n + 1], "b_hh": [n + 1]}
    for k in p:
        rows = changed.get(k, [])
        keep = np.setdiff1d(np.arange(len(p[k])), rows)
        np.testing.assert_array_equal(q[k][keep], p[k][keep])
        for i in rows:
            assert np.all(q[k][i] == (logit(0.8) if k in ("bz", "b_ih") else 0.0))
    assert {k: np.array_equal(q[k], p[k]) for k in p} == {k: k not in changed for k in p}
    assert all(np.array_equal(a, p[k]) for k, a in pin_gates(cell, p).items())


@pytest.mark.parametrize("kwargs, message", [
    (dict(z=[0.5, 1.5, 0.5, 0.5]), r"z\[1\] must be a finite number in \[0, 1\], got 1.5"),
    (dict(r=[0.5, 0.5, -0.1, 0.5]), r"r\[2\] must be a finite number in \[0, 1\], got -0.1"),
    (dict(z={0: float("nan")}), r"z\[0\] must be a finite number in \[0, 1\], got nan"),
    (dict(r={4: 0.5}), r"r's unit must be an integer in \[0, 3\], got 4"),
    (dict(z={-1: 0.5}), r"z's unit must be an integer in \[0, 3\], got -1"),
    (dict(z=[0.5, 0.5]), r"z must be None, a sequence of n = 4 values or a mapping"),
    (dict(z=0.5), r"z must be None, a sequence of n = 4 values or a mapping"),
    (dict(z=["a", 0.5, 0.5, 0.5]), r"z\[0\] must be a finite number"),
])
@pytest.mark.parametrize("cell", STEPS)
def test_bad_pins_are_refused(cell, kwargs, message):
    p, _, _ = setup(cell)
    with pytest.raises(ValueError, match=message):
        pin_gates(cell, p, **kwargs)


def test_only_gru_cells_and_their_own_parameters():
    with pytest.raises(ValueError, match="cell must be one of 'gru_textbook', 'gru_torch', got 'lstm'"):
        pin_gates("lstm", cells.init_lstm(3, 2, 0), z=[0.5, 0.5])
    with pytest.raises(ValueError, match="gru_torch parameters need the matrices W_ih and W_hh"):
        pin_gates("gru_torch", cells.init_gru_textbook(3, 2, 0), z=[0.5, 0.5])
    p = cells.init_gru_textbook(3, 2, 0)
    p["Ur"] = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"Ur has shape \(3, 3\), expected \(2, 2\)"):
        pin_gates("gru_textbook", p, r=[0.5, 0.5])
