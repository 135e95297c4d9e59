"""The GRU cell in its two conventions. They are NOT numerically equal on the same weights.

Textbook (Cho et al. 2014 as usually written; chapter 4): the reset gate acts BEFORE U_h, and z
is the WRITE gate:
    z = σ(W_z x + U_z h + b_z)        r = σ(W_r x + U_r h + b_r)
    h̃ = tanh(W_h x + U_h (r ⊙ h) + b_h)
    h' = (1 − z) ⊙ h + z ⊙ h̃

PyTorch / cuDNN (torch.nn.GRU): the reset gate acts AFTER the hidden matmul, blocks are packed
in the order r, z, n, there are two biases, and z is the KEEP gate:
    r = σ(W_ir x + b_ir + W_hr h + b_hr)      z = σ(W_iz x + b_iz + W_hz h + b_hz)
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
    h' = (1 − z) ⊙ n + z ⊙ h

`pin_gates(cell, p, z, r)` makes gates constant in either convention (chapter 4's sliders).
"""
from collections.abc import Mapping

import numpy as np

from gleam import checks
from gleam.cells.common import (batch_sum, check_cell_params, check_shapes, check_sizes,
                                check_step_inputs, column, guarded, init_weights, logit,
                                gate_sigmoid, outer_sum, sigmoid)


# ---------------------------------------------------------------- textbook convention

def gru_textbook_shapes(d, n):
    """Parameter name -> shape for the textbook GRU."""
    check_sizes(d, n)
    return {"Wz": (n, d), "Uz": (n, n), "bz": (n,),
            "Wr": (n, d), "Ur": (n, n), "br": (n,),
            "Wh": (n, d), "Uh": (n, n), "bh": (n,)}


def init_gru_textbook(d, n, rng, scale=None):
    """Weights ~ U(−scale, scale) (default 1/√n), biases 0."""
    check_sizes(d, n)
    return init_weights(gru_textbook_shapes(d, n), rng, scale, n)


def _textbook_params(p):
    return check_cell_params(p, "gru_textbook", "Wz", "Uz", gru_textbook_shapes)


@guarded(_textbook_params)
def gru_textbook_step(x, h, p):
    """One textbook GRU step (reset before U_h). Returns (h_next, cache)."""
    x, h = check_step_inputs(x, h, p["Wz"].shape[1], p["Uz"].shape[0])
    # z = σ(W_z x + U_z h + b_z)            write gate, (…, n)
    z = sigmoid(x @ p["Wz"].T + h @ p["Uz"].T + p["bz"])
    # r = σ(W_r x + U_r h + b_r)            reset gate
    r = sigmoid(x @ p["Wr"].T + h @ p["Ur"].T + p["br"])
    # h̃ = tanh(W_h x + U_h (r ⊙ h) + b_h)   candidate
    h_tilde = np.tanh(x @ p["Wh"].T + (r * h) @ p["Uh"].T + p["bh"])
    # h' = (1 − z) ⊙ h + z ⊙ h̃
    h_next = (1 - z) * h + z * h_tilde
    return h_next, {"x": x, "h_prev": h, "z": z, "r": r, "h_tilde": h_tilde, "h": h_next}


@guarded(_textbook_params, backward="other")
def gru_textbook_step_backward(dh_next, cache, p):
    """Backward of gru_textbook_step: ∂L/∂h' -> (dx, dh_prev, grads)."""
    x, h, z, r, h_tilde = (cache[k] for k in ("x", "h_prev", "z", "r", "h_tilde"))
    # h' = (1 − z) ⊙ h + z ⊙ h̃: three paths out of h'
    dh = dh_next * (1 - z)               # the carry path
    dh_tilde = dh_next * z
    dz = dh_next * (h_tilde - h)
    # back through tanh and σ to the pre-activations
    da_h = dh_tilde * (1 - h_tilde ** 2)
    d_rh = da_h @ p["Uh"]                # ∂L/∂(r ⊙ h)
    da_r = d_rh * h * r * (1 - r)
    da_z = dz * z * (1 - z)
    # h also enters through r ⊙ h and through both gates' U matrices
    dh += d_rh * r + da_r @ p["Ur"] + da_z @ p["Uz"]
    dx = da_z @ p["Wz"] + da_r @ p["Wr"] + da_h @ p["Wh"]
    grads = {"Wz": outer_sum(da_z, x), "Uz": outer_sum(da_z, h), "bz": batch_sum(da_z),
             "Wr": outer_sum(da_r, x), "Ur": outer_sum(da_r, h), "br": batch_sum(da_r),
             "Wh": outer_sum(da_h, x), "Uh": outer_sum(da_h, r * h), "bh": batch_sum(da_h)}
    return dx, dh, grads


@guarded(_textbook_params)
def gru_textbook_jacobian(cache, p):
    """∂h_t/∂h_{t−1}, (n, n) (or (B, n, n) for a batched cache):
    diag(1−z) + diag((h̃−h) z(1−z)) U_z + diag(z (1−h̃²)) U_h [diag(r) + diag(h r(1−r)) U_r]
    """
    h, z, r, h_tilde = (cache[k] for k in ("h_prev", "z", "r", "h_tilde"))
    eye = np.eye(h.shape[-1])
    # ∂(r ⊙ h)/∂h = diag(r) + diag(h r(1−r)) U_r
    d_rh = column(r) * eye + column(h * r * (1 - r)) * p["Ur"]
    carry = column(1 - z) * eye
    through_z = column((h_tilde - h) * z * (1 - z)) * p["Uz"]
    through_candidate = column(z * (1 - h_tilde ** 2)) * (p["Uh"] @ d_rh)
    return carry + through_z + through_candidate


# ---------------------------------------------------------------- PyTorch convention

def gru_torch_shapes(d, n):
    """Parameter name -> shape for the PyTorch-convention GRU (blocks r, z, n stacked)."""
    check_sizes(d, n)
    return {"W_ih": (3 * n, d), "W_hh": (3 * n, n), "b_ih": (3 * n,), "b_hh": (3 * n,)}


def init_gru_torch(d, n, rng, scale=None):
    """Weights ~ U(−scale, scale) (default 1/√n), biases 0."""
    check_sizes(d, n)
    return init_weights(gru_torch_shapes(d, n), rng, scale, n)


def _torch_params(p):
    return check_cell_params(p, "gru_torch", "W_ih", "W_hh", gru_torch_shapes)


@guarded(_torch_params)
def gru_torch_step(x, h, p):
    """One torch.nn.GRU step (reset after the matmul, z keeps). Returns (h_next, cache)."""
    x, h = check_step_inputs(x, h, p["W_ih"].shape[1], p["W_hh"].shape[1])
    n_ = h.shape[-1]
    gi = x @ p["W_ih"].T + p["b_ih"]           # (…, 3n) input side, blocks r, z, n
    gh = h @ p["W_hh"].T + p["b_hh"]           # (…, 3n) hidden side
    # r = σ(W_ir x + b_ir + W_hr h + b_hr),  z = σ(W_iz x + b_iz + W_hz h + b_hz) (keep gate)
    rz = gate_sigmoid(gi[..., :2 * n_] + gh[..., :2 * n_])
    r, z = rz[..., :n_], rz[..., n_:]
    # n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
    hn = gh[..., 2 * n_:]
    n = np.tanh(gi[..., 2 * n_:] + r * hn)
    # h' = (1 − z) ⊙ n + z ⊙ h
    h_next = (1 - z) * n + z * h
    return h_next, {"x": x, "h_prev": h, "r": r, "z": z, "n": n, "hn": hn, "h": h_next}


@guarded(_torch_params, backward="other")
def gru_torch_step_backward(dh_next, cache, p):
    """Backward of gru_torch_step: ∂L/∂h' -> (dx, dh_prev, grads)."""
    x, h, r, z, n, hn = (cache[k] for k in ("x", "h_prev", "r", "z", "n", "hn"))
    # h' = (1 − z) ⊙ n + z ⊙ h
    dn = dh_next * (1 - z)
    dz = dh_next * (h - n)
    da_n = dn * (1 - n ** 2)             # ∂L/∂(pre-activation of n)
    da_r = da_n * hn * r * (1 - r)
    da_z = dz * z * (1 - z)
    # input side sees da_n directly; hidden side sees it through r ⊙ (W_hn h + b_hn)
    dgi = np.concatenate([da_r, da_z, da_n], axis=-1)          # (…, 3n)
    dgh = np.concatenate([da_r, da_z, da_n * r], axis=-1)      # (…, 3n)
    dh = dh_next * z + dgh @ p["W_hh"]
    dx = dgi @ p["W_ih"]
    grads = {"W_ih": outer_sum(dgi, x), "W_hh": outer_sum(dgh, h),
             "b_ih": batch_sum(dgi), "b_hh": batch_sum(dgh)}
    return dx, dh, grads


@guarded(_torch_params)
def gru_torch_jacobian(cache, p):
    """∂h_t/∂h_{t−1}, (n, n) (or (B, n, n)):
    diag(z) + diag((h−n) z(1−z)) W_hz + diag((1−z)(1−n²)) [diag(r) W_hn + diag(hn r(1−r)) W_hr]
    with hn = W_hn h + b_hn.
    """
    h, r, z, n, hn = (cache[k] for k in ("h_prev", "r", "z", "n", "hn"))
    n_ = h.shape[-1]
    W_hr, W_hz, W_hn = p["W_hh"][:n_], p["W_hh"][n_:2 * n_], p["W_hh"][2 * n_:]
    keep = column(z) * np.eye(n_)
    through_z = column((h - n) * z * (1 - z)) * W_hz
    d_pre_n = column(r) * W_hn + column(hn * r * (1 - r)) * W_hr
    through_candidate = column((1 - z) * (1 - n ** 2)) * d_pre_n
    return keep + through_z + through_candidate


# ---------------------------------------------------------------- pinned gates (chapter 4)

# unit i of a gate is row block·n + i of (input matrix, recurrent matrix, bias, second bias)
_GATE_ROWS = {
    "gru_textbook": {"z": ("Wz", "Uz", "bz", None, 0), "r": ("Wr", "Ur", "br", None, 0)},
    # torch.nn.GRU stacks its blocks r, z, n
    "gru_torch": {"r": ("W_ih", "W_hh", "b_ih", "b_hh", 0),
                  "z": ("W_ih", "W_hh", "b_ih", "b_hh", 1)},
}


def _width(cell, p):
    """n of a GRU parameter dict, after checking every shape."""
    textbook = cell == "gru_textbook"
    w_in, w_rec = ("Wz", "Uz") if textbook else ("W_ih", "W_hh")
    if not isinstance(p, dict) or not all(
            isinstance(p.get(w), np.ndarray) and p[w].ndim == 2 for w in (w_in, w_rec)):
        raise ValueError(f"{cell} parameters need the matrices {w_in} and {w_rec}")
    d, n = np.shape(p[w_in])[1], np.shape(p[w_rec])[1]
    check_shapes(p, (gru_textbook_shapes if textbook else gru_torch_shapes)(d, n), cell)
    return n


def _pins(gate, values, n):
    """None, n values or {unit: value} -> {unit: value}, every value checked to lie in [0, 1]."""
    if values is None:
        return {}
    if isinstance(values, Mapping):
        pairs = values.items()
    elif np.ndim(values) == 1 and len(values) == n:
        pairs = enumerate(values)
    else:
        raise ValueError(f"{gate} must be None, a sequence of n = {n} values or a mapping "
                         f"{{unit: value}}, got {values!r}")
    pins = {}
    for i, v in pairs:
        i = checks.integer(f"{gate}'s unit", i, minimum=0, maximum=n - 1)
        pins[i] = checks.number(f"{gate}[{i}]", v, minimum=0, maximum=1)
    return pins


def pin_gates(cell, p, z=None, r=None):
    """A new parameter dict for `cell` ("gru_textbook" or "gru_torch") in which the update gate z
    and/or the reset gate r are constants. p is not modified.

    z, r: None (not pinned), a sequence of n values (every unit) or {unit: value} (those units),
    each value in [0, 1]. A pinned unit's row of the gate's input and recurrent weights is zeroed
    and its bias set to logit(v), so the gate is σ(logit v) = v whatever x and h are (exactly 0
    or 1 at the ends); under "gru_torch" the row of the second bias b_hh is zeroed too.
    Each cell's own z is pinned: the textbook's write gate, or torch.nn.GRU's KEEP gate.
    """
    if not isinstance(cell, str) or cell not in _GATE_ROWS:
        raise ValueError(f"cell must be one of 'gru_textbook', 'gru_torch', got {cell!r}")
    n = _width(cell, p)
    pins = {gate: _pins(gate, values, n) for gate, values in (("z", z), ("r", r))}
    q = {k: np.array(v, dtype=np.float64) for k, v in p.items()}
    for gate, units in pins.items():
        w_in, w_rec, bias, second_bias, block = _GATE_ROWS[cell][gate]
        for i, v in units.items():
            row = block * n + i
            q[w_in][row] = 0.0
            q[w_rec][row] = 0.0
            # σ(b) = v  <=>  b = σ⁻¹(v)
            q[bias][row] = logit(v)
            if second_bias is not None:
                q[second_bias][row] = 0.0
    return q
