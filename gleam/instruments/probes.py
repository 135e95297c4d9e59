"""Probes of hidden states, with control tasks (Hewitt & Liang 2019).

Rows of states (flatten_states) and PCA are gleam.instruments.states's, re-exported here.

Probes (`fit_probe`) read a label from a row x (n,). Losses, averaged over the N rows:
  classify (the C distinct labels, sorted):  L = mean −log softmax(z)[y] + ½ l2 Σ‖W‖²
  regress  (y (N,) or (N, k)):               L = ½ mean ‖y − z‖² + ½ l2 Σ‖W‖²
with Σ‖W‖² over the weight matrices (biases are not penalised); `Probe.objective` gives L and
its gradients.
- linear (hidden = 0): z = x W + b. Regress: ridge in closed form on centred data,
  W = (X_cᵀX_c/N + l2 I)⁻¹ X_cᵀY_c/N, b = ȳ − x̄ W. Classify: multinomial logistic regression
  by Böhning's (1992) bound ∇²(mean cross-entropy) ≤ ½ X̃ᵀX̃/N ⊗ I_C (X̃ = [X, 1]): the step
  Θ ← Θ − M⁻¹∇L, M = ½ X̃ᵀX̃/N + l2 diag(1, …, 1, 0), never raises L (Newton with a fixed
  Hessian, inverted once). Nesterov momentum (FISTA) speeds it, restarted when a step points
  uphill (O'Donoghue & Candès 2015); it stops once max |∇L| < tol, or after `steps` steps.
  For l2 > 0 the minimiser is unique up to a common shift of b (which softmax ignores); the
  fit, starting from 0, keeps Σ_c b_c = 0.
- MLP (hidden = H > 0): z = tanh(x W1 + b1) W2 + b2, full-batch Adam (`gleam.optim`, lr) for
  `steps` steps from W1 ~ N(0, 1/n), W2 ~ N(0, 1/H), zero biases, drawn from `seed`. The
  "memorising" probe: it can give every tight cluster of states a label of its own.
score: accuracy (classify); R² = 1 − Σ(y − ŷ)²/Σ(y − ȳ)² averaged over the k outputs
(regress; a constant output scores 1 if predicted exactly, else 0).
direction (linear): W's columns as rows, (C or k, n); adding α·direction[c] to a state moves
output j by α·direction[j]·direction[c]. At the minimum the class rows sum to 0 (∇_W L = 0
and Σ_c (p_c − y_c) = 0 give l2 Σ_c W_c = 0), so with two classes row 1 = −row 0.

Control tasks and selectivity (control_labels, probe_report) are gleam.instruments.control's.

Inputs are finite with entries at most 1e100 in size, so X̃ᵀX̃ cannot overflow (the lab's
hidden states lie in [−1, 1]); a fit that still overflows is refused.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks, optim
from gleam.instruments.states import MAX_MAGNITUDE, PCA, check_bounded, check_rows, flatten_states, pca  # noqa: F401

__all__ = ["flatten_states", "fit_probe", "Probe", "pca", "PCA", "KINDS"]

KINDS = ("classify", "regress")


def _finite(a, what):
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} overflowed the float range; rescale the data")
    return a


def check_labels(name, y, N, kind):
    """Classify: (N,) integer labels as int64; regress: (N,) or (N, k) floats."""
    y = checks.numeric(name, y)
    if y.shape[:1] != (N,) or y.ndim > (1 if kind == "classify" else 2) or y.size == 0:
        want = "(N,)" if kind == "classify" else "(N,) or (N, k)"
        raise ValueError(f"{name} has shape {y.shape}, expected {want} with N = {N}")
    a = checks.array(name, y)
    if kind == "regress":
        return check_bounded(name, a)
    if np.any(a != np.round(a)) or np.max(np.abs(a)) > 2 ** 62:
        raise ValueError(f"{name} must hold integer class labels for a classify probe")
    return y.astype(np.int64)


def _chain(p):
    return [p["W"], p["b"]] if "W" in p else [p["W1"], p["b1"], p["W2"], p["b2"]]


def _forward(p, X):
    """(z (N, k), hidden activations (N, H) or None)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if "W1" in p:
            a = np.tanh(X @ p["W1"] + p["b1"])                               # (N, H)
            return a @ p["W2"] + p["b2"], a
        return X @ p["W"] + p["b"], None


def _objective(p, X, Y, classify, l2):
    """(L, grads) with Y one-hot (N, C) (classify) or values (N, k) (regress)."""
    N = len(X)
    z, a = _forward(p, X)
    with np.errstate(over="ignore", invalid="ignore"):
        if classify:
            # log softmax, shifted by the row max; ∂L/∂z = (softmax(z) − onehot) / N
            z = z - z.max(axis=1, keepdims=True)
            logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
            data, dz = -np.sum(Y * logp) / N, (np.exp(logp) - Y) / N
        else:
            # ½ mean ‖y − z‖²; ∂L/∂z = (z − y) / N
            r = z - Y
            data, dz = 0.5 * np.sum(r * r) / N, r / N
        L = data + 0.5 * l2 * sum(np.sum(p[k] ** 2) for k in p if k[0] == "W")
        if a is None:
            return L, {"W": X.T @ dz + l2 * p["W"], "b": dz.sum(axis=0)}
        da = (dz @ p["W2"].T) * (1 - a * a)                                  # tanh' = 1 − a²
        return L, {"W1": X.T @ da + l2 * p["W1"], "b1": da.sum(axis=0),
                   "W2": a.T @ dz + l2 * p["W2"], "b2": dz.sum(axis=0)}


def _targets(y, kind, classes):
    """One-hot (N, C) of y's classes (classify), or y as (N, k) (regress)."""
    if kind == "regress":
        return y.reshape(len(y), -1)
    return (np.searchsorted(classes, y)[:, None] == np.arange(len(classes))).astype(float)


@dataclass
class Probe:
    """A fitted probe. params: linear W (n, k), b (k,); MLP W1 (n, H), b1, W2 (H, k), b2."""
    kind: str                    # "classify" or "regress"
    params: dict
    classes: np.ndarray = None   # classify: the label of output column c, sorted, (k,)
    flat: bool = True            # regress: y was (N,), so predict returns (N,)

    def __post_init__(self):
        checks.one_of("kind", self.kind, KINDS)
        keys = ({"W", "b"}, {"W1", "b1", "W2", "b2"})
        if not isinstance(self.params, dict) or set(self.params) not in keys:
            raise ValueError("params must be a dict with keys W, b or W1, b1, W2, b2")
        self.params = p = {k: check_bounded(f"params[{k!r}]", checks.array(
            f"params[{k!r}]", v, ndim=2 if k[0] == "W" else 1)) for k, v in self.params.items()}
        c = _chain(p)
        if any(b.shape != W.shape[1:] or 0 in W.shape for W, b in zip(c[::2], c[1::2])) or (
                len(c) == 4 and c[2].shape[0] != c[0].shape[1]):
            raise ValueError(f"params have shapes {[a.shape for a in c]}: expected "
                             "W (n, k), b (k,) or W1 (n, H), b1 (H,), W2 (H, k), b2 (k,)")
        self.n, k = c[0].shape[0], c[-1].shape[0]
        if self.kind == "classify":
            self.classes = checks.numeric("classes", self.classes)
            if self.classes.shape != (k,) or np.any(np.diff(self.classes) <= 0):
                raise ValueError(f"classes must be {k} increasing labels, got {self.classes!r}")
        checks.flag("flat", self.flat)

    def predict(self, X):
        """Labels (N,) (classify) or values (N,) / (N, k) (regress)."""
        z = _finite(_forward(self.params, check_rows("X", X, self.n))[0], "X: the probe's outputs")
        if self.kind == "classify":
            return self.classes[np.argmax(z, axis=1)]
        return z[:, 0] if self.flat and z.shape[1] == 1 else z

    def _data(self, X, y):
        X = check_rows("X", X, self.n)
        y = check_labels("y", y, len(X), self.kind)
        k = _chain(self.params)[-1].shape[0]
        if self.kind == "regress" and y.reshape(len(y), -1).shape[1] != k:
            raise ValueError(f"y has shape {y.shape}, expected (N,) or (N, {k}) outputs")
        return X, y

    def score(self, X, y):
        """Accuracy (classify) or R² averaged over outputs (regress) on (X, y)."""
        X, y = self._data(X, y)
        if self.kind == "classify":
            return float(np.mean(self.predict(X) == y))
        return r2_score(y, self.predict(X))

    def objective(self, X, y, l2=1e-3):
        """(L, grads): the loss above at these params on (X, y), and ∂L/∂params."""
        X, y = self._data(X, y)
        l2 = checks.number("l2", l2, minimum=0, maximum=1e6)
        if self.kind == "classify" and not np.all(np.isin(y, self.classes)):
            raise ValueError(f"y holds labels outside the probe's classes {self.classes!r:.60}")
        L, g = _objective(self.params, X, _targets(y, self.kind, self.classes),
                          self.kind == "classify", l2)
        _finite([L] + [np.max(np.abs(v)) for v in g.values()], "X and y: the loss")
        return float(L), g

    @property
    def direction(self):
        """(k, n): row j the weight vector of output j (class j for classify)."""
        if "W" not in self.params:
            raise ValueError("direction: an MLP probe (hidden > 0) has no single direction")
        return self.params["W"].T.copy()


def r2_score(y, yhat):
    # R² = 1 − Σ(y − ŷ)² / Σ(y − ȳ)² per output, averaged
    y, yhat = y.reshape(len(y), -1), yhat.reshape(len(y), -1)
    with np.errstate(over="ignore", invalid="ignore"):
        res = np.sum((y - yhat) ** 2, axis=0)
        tot = np.sum((y - y.mean(axis=0)) ** 2, axis=0)
        r2 = np.where(tot > 0, 1 - res / np.where(tot > 0, tot, 1), np.where(res == 0, 1.0, 0.0))
    return float(_finite(np.mean(r2), "X and y: R²"))


def _fit_logistic(X, Y, l2, steps, tol):
    N, n = X.shape
    Xt = np.hstack([X, np.ones((N, 1))])                                     # X̃ (N, n + 1)
    M_inv = np.linalg.inv(0.5 * Xt.T @ Xt / N + l2 * np.diag(np.r_[np.ones(n), 0.0]))
    theta = V = np.zeros((n + 1, Y.shape[1]))
    t = 1.0
    for _ in range(steps):
        _, g = _objective({"W": V[:n], "b": V[n]}, X, Y, True, l2)
        G = np.vstack([g["W"], g["b"]])
        if np.max(np.abs(G)) < tol:
            return {"W": V[:n], "b": V[n]}
        new = V - M_inv @ G                                                  # Böhning's step
        if np.sum(G * (new - theta)) > 0:                                    # uphill: restart
            t, V = 1.0, new
        else:
            t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
            V, t = new + (t - 1) / t_next * (new - theta), t_next
        theta = new
    return {"W": theta[:n], "b": theta[n]}


def _fit_mlp(X, Y, classify, l2, hidden, rng, steps, lr):
    n, k = X.shape[1], Y.shape[1]
    p = {"W1": rng.standard_normal((n, hidden)) / np.sqrt(n), "b1": np.zeros(hidden),
         "W2": rng.standard_normal((hidden, k)) / np.sqrt(hidden), "b2": np.zeros(k)}
    opt = optim.Adam(lr)
    for _ in range(steps):
        try:
            opt.step(p, _objective(p, X, Y, classify, l2)[1])
        except optim.Diverged:
            raise ValueError(f"lr = {lr}: the MLP probe's Adam step diverged") from None
    return p


def fit_probe(X, y, kind="classify", l2=1e-3, hidden=0, seed=0, steps=1000, lr=0.01, tol=1e-7):
    """Fit a probe reading y (N,) (or (N, k) to regress) from rows X (N, n) -> Probe.

    l2 in (0, 1e6]; hidden: 0 linear, H in [1, 1e4] one tanh layer; seed: the MLP's initial
    weights; steps (<= 1e5): iterations of the logistic fit (which stops at max |∇L| < tol) or
    of Adam (MLP); lr: Adam's learning rate, in (0, 1]. A linear regress probe is closed form."""
    kind = checks.one_of("kind", kind, KINDS)
    X = check_rows("X", X)
    y = check_labels("y", y, len(X), kind)
    l2 = checks.number("l2", l2, minimum=0, maximum=1e6, strict_min=True)
    hidden = checks.integer("hidden", hidden, minimum=0, maximum=10 ** 4)
    rng = np.random.default_rng(checks.seed("seed", seed))
    steps = checks.integer("steps", steps, minimum=1, maximum=10 ** 5)
    lr = checks.number("lr", lr, minimum=0, maximum=1, strict_min=True)
    tol = checks.number("tol", tol, minimum=0)
    (N, n), classes = X.shape, np.unique(y) if kind == "classify" else None
    checks.entries("y", "its classes", (N, 1 if classes is None else len(classes)))
    checks.entries("hidden", hidden, (N + n + 1, hidden))
    checks.entries("X", f"of shape {X.shape}", (n + 1, n + 1))
    Y = _targets(y, kind, classes)
    try:
        if hidden:
            p = _fit_mlp(X, Y, kind == "classify", l2, hidden, rng, steps, lr)
        elif kind == "classify":
            p = _fit_logistic(X, Y, l2, steps, tol)
        else:
            # ridge on centred data: (X_cᵀX_c/N + l2 I) W = X_cᵀY_c/N, b = ȳ − x̄ W
            xm, ym = X.mean(axis=0), Y.mean(axis=0)
            Xc = X - xm
            W = np.linalg.solve(Xc.T @ Xc / N + l2 * np.eye(n), Xc.T @ (Y - ym) / N)
            p = {"W": W, "b": ym - xm @ W}
    except np.linalg.LinAlgError:
        raise ValueError(f"X and l2 = {l2:g}: the probe's equations are singular; rescale X "
                         "or raise l2") from None
    for key, v in p.items():
        if not np.all(np.isfinite(v)) or np.max(np.abs(v)) > MAX_MAGNITUDE:
            raise ValueError(f"X and y: the fitted {key} is beyond {MAX_MAGNITUDE:g} in size; rescale them")
    return Probe(kind, p, classes, kind == "classify" or y.ndim == 1)
