"""The char-level GRU's maths for B chunks side by side (CharGRU(batch=B > 1)).

The same textbook GRU, readout and loss as gleam.chargru.kernels (see there), for B chunks at once:
each step of the recurrence is one (B, H) @ (H, ·) matrix product instead of B matrix-vector
ones, and the loss is the sum over all B·K characters, so every gradient is the sum of the B
chunks' gradients. chargru_math.gradient_check checks these two as well as the one-chunk pair.

Here too, the checks of both pairs' arguments (one chunk is B chunks without the B axis): p,
and the grads written into, must be the dict of views chargru_math.views makes, W (3H, V),
U (3H, H), b (3H,), Wy (V, H), by (V,), float64, V, H >= 1; inputs and targets integer arrays
(K,) or (B, K), K >= 1, of indices in [0, V); h0 (H,) or (B, H); the cache what the forward
returned for them. A non-finite h0 or parameter is not refused: it propagates to the losses and
gradients (CharGRU reports that as divergence). The checks cost a few comparisons and reductions
a chunk; `check=False` skips them, for a caller whose arguments are right by construction
(CharGRU's training step, the gradient check's loop).
"""
import functools
import sys

import numpy as np

from gleam import checks
from gleam.chargru.workspace import BatchWorkspace, fits

_BLOCKS = ("W", "U", "b", "Wy", "by")
_CACHE = ("inputs", "targets", "hs", "zr", "h_tilde", "rh", "dh", "probs")


def _blocks(name, p, V=None, H=None, out=False):
    """(V, H) of p, the views of a parameter buffer (V, H as given, if given); ValueError naming
    `name` otherwise. out: the gradients are written into them, so they must be writable rows."""
    if not isinstance(p, dict):
        raise ValueError(f"{name} must be the dict of views chargru_math.views makes (W, U, b, Wy, "
                         f"by, ...), got {type(p).__name__}")
    lacking = [k for k in _BLOCKS if not isinstance(p.get(k), np.ndarray)]
    if lacking:
        raise ValueError(f"{name} must be the dict of views chargru_math.views makes: it has no "
                         f"array {', '.join(lacking)}")
    if V is None:
        if p["Wy"].ndim != 2 or 0 in p["Wy"].shape:
            raise ValueError(f"{name}['Wy'] must be a (V, H) matrix, V, H >= 1, got {p['Wy'].shape}")
        V, H = p["Wy"].shape
    want = {"W": (3 * H, V), "U": (3 * H, H), "b": (3 * H,), "Wy": (V, H), "by": (V,)}
    for k, shape in want.items():
        a = p[k]
        if a.shape != shape or a.dtype != np.float64 or (out and not (
                a.flags.c_contiguous and a.flags.writeable)):
            raise ValueError(f"{name}['{k}'] must be a {'writable contiguous ' if out else ''}float64 "
                             f"array of shape {shape} (V = {V}, H = {H}), got {a.dtype} {a.shape}")
    return V, H


def _indices(name, value, V, ndims):
    """value as an integer array of `ndims` dimensions, not empty, entries in [0, V)."""
    a = checks.numeric(name, value)
    if a.dtype.kind not in "iu" or a.ndim not in ndims or a.size == 0:
        shapes = " or ".join(("(K,)", "(B, K)")[d - 1] for d in ndims)
        raise ValueError(f"{name} must be a non-empty {shapes} array of character indices (integers), "
                         f"got {a.dtype} {a.shape}")
    if a.min() < 0 or a.max() >= V:
        raise ValueError(f"{name} must hold character indices in [0, {V}), got {a.min()} to {a.max()}")
    return a


def check_chunk(p, inputs, targets, h0, ndims=(2,)):
    """(inputs, targets, h0) as arrays if they are a chunk (ndims 1) or B chunks (ndims 2) that
    p fits (the module's docstring says what fits); ValueError naming the argument otherwise."""
    V, H = _blocks("p", p)
    inputs = _indices("inputs", inputs, V, ndims)
    targets = _indices("targets", targets, V, (inputs.ndim,))
    if targets.shape != inputs.shape:
        raise ValueError(f"targets has shape {targets.shape}, expected {inputs.shape} (the shape of inputs)")
    h0 = checks.array("h0", h0, ndim=inputs.ndim, finite=False)
    if h0.shape != inputs.shape[:-1] + (H,):
        raise ValueError(f"h0 has shape {h0.shape}, expected {inputs.shape[:-1] + (H,)} (H = {H})")
    return inputs, targets, h0


def check_cache(p, cache, grads, ndims=(2,)):
    """ValueError naming the argument unless cache is what the forward of B chunks (ndims (1,):
    of one chunk) returned for parameters p, and grads views of p's sizes to write into."""
    V, H = _blocks("p", p)
    _blocks("grads", grads, V, H, out=True)
    if not isinstance(cache, dict):
        raise ValueError(f"cache must be the dict the forward returned, got {type(cache).__name__}")
    lacking = [k for k in _CACHE if not isinstance(cache.get(k), np.ndarray)]
    if lacking:
        raise ValueError(f"cache must be the dict the forward returned: it has no array {', '.join(lacking)}")
    inputs = _indices("cache['inputs']", cache["inputs"], V, ndims)
    if _indices("cache['targets']", cache["targets"], V, ndims).shape != inputs.shape:
        raise ValueError(f"cache['targets'] has shape {cache['targets'].shape}, expected {inputs.shape}")
    B, K = inputs.shape[:-1], inputs.shape[-1]
    want = {"hs": (K + 1, *B, H), "zr": (K, *B, 2 * H), "h_tilde": (K, *B, H), "rh": (K, *B, H),
            "dh": (K, *B, H), "probs": (inputs.size, V)}
    for k, shape in want.items():
        if cache[k].shape != shape or cache[k].dtype != np.float64:
            raise ValueError(f"cache['{k}'] must be a float64 array of shape {shape} for these p and "
                             f"inputs, got {cache[k].dtype} {cache[k].shape}")


# Arrays are time-major: row t of hs is (B, H), the B states at step t. B = 1 gives the numbers
# of chargru_math's `forward` / `backward` to rounding (the trainer uses those for B = 1, so that
# a one-stream run stays bit for bit what it was).
#
# Layout, for Pyodide: its NumPy has no BLAS, and its own matmul loop runs fastest (3-4x) when
# the left operand's rows and the right operand's columns are contiguous, so every product
# below is `np.matmul(A, X.T)` with A and X C-contiguous (X.T is then a free view).

def _t(a):
    """The transpose as a C-contiguous copy (for `_t(M).T`, M with contiguous columns)."""
    return np.ascontiguousarray(a.T)


# Pyodide's NumPy has no BLAS: there, for a sum over the chunk's B·K characters, einsum's dot loop
# over the long contiguous axis runs 1.7-1.9x NumPy's own matmul loop (n = 200, H = 32). Where
# matmul has BLAS (CPython), it is 5-13x faster than einsum for the same product.
SUM_OUTER_BY_EINSUM = sys.platform == "emscripten"
# The per-time-step products, (B, H) by (H, 2H) and (H, H): there too einsum's loop beats NumPy's own
# matmul from H = 64 on (one 8 × 128 by 128 × 256 product: 198 µs against 333 µs; the step 1.07-1.09x
# at H = 64, 1.26-1.32x at H = 128), and not at H = 32. None: matmul at every H (CPython's BLAS).
STEP_BY_EINSUM_FROM = 64 if sys.platform == "emscripten" else None
_EINSUM_ROWS = functools.partial(np.einsum, "ik,jk->ij")       # out = A Xᵀ, X C-contiguous


def _step_product(H):
    """How forward_batch and backward_batch multiply one time step's (B, ·) rows by a matrix M:
    (product, operand of M) with product(A, operand of M, out=...) = A M. The operand is M
    itself for matmul, and Mᵀ as a C-contiguous array for einsum (whose loop then runs over
    contiguous rows of both)."""
    if STEP_BY_EINSUM_FROM is not None and H >= STEP_BY_EINSUM_FROM:
        return _EINSUM_ROWS, lambda M: np.ascontiguousarray(M.T)
    return np.matmul, lambda M: M


def _sum_outer(A, X, out):
    """out = A Xᵀ for A (m, n), X (p, n) C-contiguous, n the chunk's B·K characters: a weight
    gradient, Σ over the characters of outer products (by einsum without BLAS, see above)."""
    if SUM_OUTER_BY_EINSUM:
        return np.einsum("ik,jk->ij", A, X, out=out)
    return np.matmul(A, X.T, out=out)


def forward_batch(p, inputs, targets, h0, *, check=True, work=None):
    """Run B chunks side by side. inputs, targets: (B, K) character indices; h0: (B, H).

    Returns (losses, cache): losses (B, K), −ln p[target] of each character of each chunk; the
    cache's arrays are those of `work`, a BatchWorkspace(B, K, H, V), if given (they hold this
    chunk until the next forward with it). check=False skips `check_chunk` and the check that
    `work` fits (for a caller whose arguments are right by construction).

    The gates' σ is 1 / (1 + e^−a) here, the candidate's tanh as in the one-chunk forward, whose
    σ(a) = ½ (1 + tanh(a/2)): in Pyodide the exp of the gates' 2BH values, an add and a reciprocal
    take ~2/3 the time of their tanh and its two passes. The two agree to rounding (~1e-16), so a
    batched run's last bits differ from B one-chunk runs'; e^−a overflows to inf for a < −709,
    where σ is then 0 as it should be.
    """
    if check:
        inputs, targets, h0 = check_chunk(p, inputs, targets, h0)
    U, Wy = p["U"], p["Wy"]
    H = U.shape[1]
    B, K = inputs.shape
    V = Wy.shape[0]
    w = BatchWorkspace(B, K, H, V) if work is None else fits(work, check, BatchWorkspace, B=B, K=K, H=H, V=V)
    A = np.add(p["W"].T[inputs.T], p["b"], out=w.A)                 # (K, B, 3H): W x_t + b
    np.negative(A[:, :, :2 * H], out=w.neg_A_zr)                    # (K, B, 2H), for e^−a
    np.copyto(w.A_h, A[:, :, 2 * H:])                               # (K, B, H), contiguous rows
    product, operand = _step_product(H)
    neg_U_zr_T = operand((-U[:2 * H]).T)                            # (H, 2H), contiguous columns
    U_h_T = operand(U[2 * H:].T)                                    # (H, H), contiguous columns

    hs = w.hs
    hs[0] = h0
    tanh, add, mul, sub, exp, reciprocal = np.tanh, np.add, np.multiply, np.subtract, np.exp, np.reciprocal
    with np.errstate(over="ignore"):                                # e^−a = inf: σ = 0
        for h, h_next, g, z_t, r_t, c, rh_t, dh_t, neg_a_zr, a_h in w.forward_rows:
            # [z; r] = σ(h_{t-1} [Uz; Ur]ᵀ + ...) = 1 / (1 + e^−(...)) for all B rows at once
            product(h, neg_U_zr_T, out=g)
            add(g, neg_a_zr, g)
            exp(g, g)
            add(g, 1.0, g)
            reciprocal(g, g)
            mul(r_t, h, rh_t)
            product(rh_t, U_h_T, out=c)
            add(c, a_h, c)
            tanh(c, c)
            sub(c, h, dh_t)
            mul(z_t, dh_t, h_next)
            add(h_next, h, h_next)

    flat_t = targets.T.reshape(-1)                                   # row t·B + b
    y = np.matmul(hs[1:].reshape(K * B, H), Wy.T, out=w.probs)       # (K·B, V)
    y += p["by"]
    y -= y.max(axis=1, keepdims=True)
    probs = np.exp(y, out=y)
    probs /= probs.sum(axis=1, keepdims=True)
    losses = -np.log(probs[np.arange(K * B), flat_t]).reshape(K, B).T
    cache = dict(inputs=inputs, targets=targets, hs=hs, zr=w.zr, h_tilde=w.h_tilde, rh=w.rh, dh=w.dh,
                 probs=probs)
    return losses, cache


def backward_batch(p, cache, grads, *, check=True, work=None):
    """Gradient of L = Σ over the B chunks and their K characters of −ln p[target] (the sum of
    the B chunks' gradients), written into `grads`. Returns ∂L/∂h_0, (B, H). `work`: a
    BatchWorkspace of the cache's sizes, whose arrays the backward uses (it may be the one the
    forward wrote the cache into). check=False skips `check_cache` and the check of `work`."""
    if check:
        check_cache(p, cache, grads)
    U, Wy = p["U"], p["Wy"]
    H = U.shape[1]
    hs, zr, h_tilde, rh, dh = cache["hs"], cache["zr"], cache["h_tilde"], cache["rh"], cache["dh"]
    inputs, targets = cache["inputs"], cache["targets"]
    B, K = inputs.shape
    V = Wy.shape[0]
    n = K * B
    w = BatchWorkspace(B, K, H, V) if work is None else fits(work, check, BatchWorkspace, B=B, K=K, H=H, V=V)
    matmul = np.matmul

    dy = w.dy
    np.copyto(dy, cache["probs"])
    dy[np.arange(n), targets.T.reshape(-1)] -= 1.0
    h_flat = hs[1:].reshape(n, H)
    _sum_outer(_t(dy), _t(h_flat), grads["Wy"])                     # Σ dy hᵀ
    grads["by"][...] = dy.sum(axis=0)

    # row t of gd (t = 0..K) = [∂L/∂h_t, ∂L/∂(r_t ⊙ h_{t-1})] of the B streams, (B, 2H), as in
    # chargru_math's `backward`; matmul writes a (B, H) product straight into its strided half
    gd = w.gd
    gd.fill(0.0)
    g_h = gd[:, :, :H]
    g_h[1:] = matmul(dy, _t(Wy).T).reshape(K, B, H)
    # the per-step factors z (1 − h̃²), [z(1 − z), r(1 − r)] ⊙ [h̃ − h_{t-1}, h_{t-1}], [1 − z, r]
    w.write_factors(zr, h_tilde, dh, hs[:-1])
    product, operand = _step_product(H)
    U_zr, U_h = operand(_t(U[:2 * H]).T), operand(_t(U[2 * H:]).T)  # (2H, H), (H, H), contiguous columns

    da = w.da                                                        # [∂L/∂a_z, ∂L/∂a_r, ∂L/∂a_h]
    both, tmp = w.both, w.tmp
    both_h, both_rh = both[:, :H], both[:, H:]
    mul, add = np.multiply, np.add
    # t = K .. 1: row t of gd, g_h, g_rh, row t−1 of g_h, f_h, da_h, f_zr, da_zr, f_carry
    for row, g, g_rh_t, prev, fh, dah, fzr, dazr, fc in w.backward_rows:
        mul(g, fh, dah)                                  # ∂L/∂a_h
        product(dah, U_h, out=g_rh_t)                    # ∂L/∂(r ⊙ h_{t-1}) = ∂L/∂a_h Uh
        mul(row, fzr, dazr)                              # [∂L/∂a_z, ∂L/∂a_r]
        # ∂L/∂h_{t-1} += (1 − z) ⊙ ∂L/∂h_t + r ⊙ ∂L/∂(r⊙h) + [∂L/∂a_z, ∂L/∂a_r] [Uz; Ur]
        mul(row, fc, both)
        add(prev, both_h, prev)
        add(prev, both_rh, prev)
        product(dazr, U_zr, out=tmp)
        add(prev, tmp, prev)

    # weight gradients, sums over the B·K characters: ∂L/∂W adds each da into the column of its
    # input character (grouped by character: sorted, then summed a run at a time), ∂L/∂b = Σ da,
    # ∂L/∂[Uz; Ur] = Σ [da_z; da_r] h_{t-1}ᵀ, ∂L/∂Uh = Σ da_h (r ⊙ h_{t-1})ᵀ
    da_T = _t(da.reshape(n, 3 * H))                                  # (3H, n)
    chars = inputs.T.reshape(-1)
    order = np.argsort(chars, kind="stable")
    sorted_chars = chars[order]
    first = np.flatnonzero(np.concatenate(([True], sorted_chars[1:] != sorted_chars[:-1])))
    grads["W"][...] = 0.0
    grads["W"][:, sorted_chars[first]] = np.add.reduceat(da_T[:, order], first, axis=1)
    grads["b"][...] = da_T.sum(axis=1)
    _sum_outer(da_T[:2 * H], _t(hs[:-1].reshape(n, H)), grads["U"][:2 * H])
    _sum_outer(da_T[2 * H:], _t(rh.reshape(n, H)), grads["U"][2 * H:])
    return g_h[0].copy()
