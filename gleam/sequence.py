"""A cell unrolled over T steps: forward, backpropagation through time, per-step Jacobians.

Unrolled, the recurrence is a T-layer feed-forward net whose layers share one set of weights,
so every parameter's gradient is a SUM over steps (`+=`, never `=`). `backward` returns each
step's share of that sum too, which is what chapter 2's bars show.

Shapes: xs (T, d) or (T, B, d); hs (T, n) or (T, B, n). For "lstm" the state is (h, c): h0 is
a tuple (h0, c0), hs holds the h's and each cache holds its c under "c".
"""
import numpy as np

from gleam import checks
from gleam.cells import check_params, get_cell, param_shapes


def _zero_state(cell, shape):
    h0 = np.zeros(shape)
    return (h0, np.zeros(shape)) if cell == "lstm" else h0


def forward(cell, xs, h0, p):
    """Run `cell` over xs from state h0 (None = zeros). Returns (hs, caches), caches[t] a dict."""
    step = get_cell(cell).step
    d, n = check_params(cell, p)
    xs = checks.array("xs", xs)
    if xs.ndim not in (2, 3) or xs.shape[-1] != d or len(xs) == 0:
        raise ValueError(f"xs has shape {xs.shape}, expected (T, d) = (T, {d}) or "
                         f"(T, B, d) = (T, B, {d}) with T >= 1")
    state = _zero_state(cell, xs.shape[1:-1] + (n,)) if h0 is None else h0
    if cell == "lstm" and not (isinstance(state, tuple) and len(state) == 2):
        raise ValueError("h0 for lstm must be a tuple (h0, c0) (or None for zeros)")
    hs, caches = [], []
    for x in xs:
        state, cache = step(x, state, p)
        hs.append(cache["h"])
        caches.append(cache)
    return np.stack(hs), caches


def _check_caches(caches):
    if not isinstance(caches, (list, tuple)) or not all(
            isinstance(c, dict) and "h" in c for c in caches):
        raise ValueError("caches must be the list of dicts forward returned")
    if len(caches) == 0:
        raise ValueError("caches is empty: run forward on at least one step first")
    return len(caches)


def _check_truncate(truncate, T):
    k = checks.integer("truncate", truncate, minimum=1, none_ok=True)
    return T if k is None else min(k, T)


def backward(cell, dhs, caches, p, truncate=None):
    """Backpropagation through time.

    dhs[t] = ∂L/∂h_t from the loss at step t (same shape as hs). With truncate=k only the last
    k steps of the backward recursion run: earlier steps contribute nothing, and no gradient
    reaches h0 unless k >= T.
    Returns (grads, dh0, contributions): contributions[t] is step t's share of each parameter's
    gradient (Σ_t contributions[t] == grads); for lstm dh0 is the pair (dh0, dc0).
    """
    step_backward = get_cell(cell).step_backward
    d, n = check_params(cell, p)
    T = _check_caches(caches)
    dhs = checks.array("dhs", dhs, finite=False)
    hs_shape = (T,) + caches[0]["h"].shape
    if dhs.shape != hs_shape:
        raise ValueError(f"dhs has shape {dhs.shape}, expected the shape of hs {hs_shape}")
    k = _check_truncate(truncate, T)

    names = list(param_shapes(cell, d, n))
    grads = {name: np.zeros_like(p[name], dtype=float) for name in names}
    contributions = [None] * T
    # gradient arriving at the state from the step after it (nothing after the last step)
    dh_next = np.zeros_like(dhs[-1])
    dc_next = np.zeros_like(dhs[-1])
    for t in reversed(range(T - k, T)):
        # ∂L/∂h_t: the loss at t plus what step t+1 sends back (two paths, summed)
        dh = dhs[t] + dh_next
        if cell == "lstm":
            _, (dh_next, dc_next), step_grads = step_backward((dh, dc_next), caches[t], p)
        else:
            _, dh_next, step_grads = step_backward(dh, caches[t], p)
        for name in names:
            grads[name] += step_grads[name]          # shared weights: +=, not =
        contributions[t] = step_grads
    for t in range(T - k):                           # outside the window: nothing
        contributions[t] = {name: np.zeros_like(grads[name]) for name in names}
    if k < T:                                        # the gradient stops at the window's edge
        dh_next, dc_next = np.zeros_like(dh_next), np.zeros_like(dc_next)
    dh0 = (dh_next, dc_next) if cell == "lstm" else dh_next
    return grads, dh0, contributions


def jacobians(cell, caches, p):
    """Per-step Jacobians ∂h_t/∂h_{t−1} along a run: (T, n, n), or (T, B, n, n) batched;
    for lstm ∂(h_t, c_t)/∂(h_{t−1}, c_{t−1}), (T, 2n, 2n)."""
    jacobian = get_cell(cell).jacobian
    check_params(cell, p)
    _check_caches(caches)
    return np.stack([jacobian(cache, p) for cache in caches])
