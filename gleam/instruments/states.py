"""Rows of hidden states for probing, and their principal components.

Rows. `flatten_states(states (T, B, n), mask (T, B))` -> (X (N, n), index (N, 2)): the valid
steps in t-major order (step 0's valid b ascending, then step 1, …), the order of
`states[mask]`; index[i] = (t, b) of row i, so (T, B) labels line up as
`labels[index[:, 0], index[:, 1]]` (= `labels[mask]`).

PCA (`pca`): the SVD X − x̄ = U S Vᵀ; components = the first k rows of Vᵀ, each signed so its
largest-|entry| (the first such) is positive; explained_variance_ratio = s_i² / Σ_j s_j²;
transform(X) = (X − mean) componentsᵀ.

Inputs are finite with entries at most 1e100 in size.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.seqmodel.batching import check_mask

__all__ = ["flatten_states", "PCA", "pca"]

MAX_MAGNITUDE = 1e100


def check_rows(name, X, n=None):
    X = checks.array(name, X, ndim=2)
    if 0 in X.shape or (n is not None and X.shape[1] != n):
        raise ValueError(f"{name} has shape {X.shape}, expected (N, {n or 'n'}) with N >= 1")
    return check_bounded(name, X)


def check_bounded(name, a):
    if a.size and np.max(np.abs(a)) > MAX_MAGNITUDE:
        raise ValueError(f"{name} has entries beyond {MAX_MAGNITUDE:g} in size; rescale it")
    return a


def flatten_states(states, mask=None):
    """(T, B, n) states and a (T, B) mask (None: all valid) -> (X (N, n), index (N, 2))."""
    s = checks.array("states", states, ndim=3)
    if 0 in s.shape:
        raise ValueError(f"states has shape {s.shape}, expected (T, B, n) with each >= 1")
    index = np.argwhere(check_mask(mask, *s.shape[:2])).astype(np.int64)   # t-major, then b
    return s[index[:, 0], index[:, 1]], index


@dataclass
class PCA:
    mean: np.ndarray                      # (n,) the rows' mean
    components: np.ndarray                # (k, n) orthonormal rows, largest-|entry| positive
    explained_variance_ratio: np.ndarray  # (k,) s_i² / Σ s² (zeros if the rows are all equal)

    def __post_init__(self):
        self.mean = check_rows("mean", [checks.array("mean", self.mean, ndim=1)])[0]
        self.components = check_rows("components", self.components, len(self.mean))
        self.explained_variance_ratio = r = checks.array("explained_variance_ratio",
                                                         self.explained_variance_ratio, ndim=1)
        if len(r) != len(self.components):
            raise ValueError(f"explained_variance_ratio needs {len(self.components)} entries")

    def transform(self, X):
        """(N, n) rows -> (N, k) coordinates (X − mean) componentsᵀ."""
        return (check_rows("X", X, len(self.mean)) - self.mean) @ self.components.T


def pca(X, k):
    """The first k principal components of rows X (N, n), 1 <= k <= min(N, n) -> PCA."""
    X = check_rows("X", X)
    k = checks.integer("k", k, minimum=1, maximum=min(X.shape))
    mean = X.mean(axis=0)
    try:
        _, s, Vt = np.linalg.svd(X - mean, full_matrices=False)
    except np.linalg.LinAlgError:
        raise ValueError("X: the SVD did not converge") from None
    C = Vt[:k] * np.sign(Vt[np.arange(k), np.argmax(np.abs(Vt[:k]), axis=1)])[:, None]
    total = np.sum(s * s)
    return PCA(mean, C, s[:k] ** 2 / total if total > 0 else np.zeros(k))
