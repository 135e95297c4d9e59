"""Arithmetic heads on numbers, not on GRU states: Madsen & Johansen's (2020, "Neural Arithmetic
Units", ICLR) arithmetic task, so the NAU, NMU and NALU of gleam.seqmodel.arith_heads are compared
on inputs they can reach (experiment 3 reads them off states in [−1, 1], where the NMU cannot
exceed 1 and the NAU's ceiling is below the largest training value).

The task (their "arithmetic dataset", static, simplified to two subsets and one seed). Input
x ∈ R^k (config "k", default 100 as theirs). Subsets: s = ⌊subset_ratio · k⌋ and
o = ⌊overlap_ratio · s⌋ (defaults 0.25 and 0.5: s = 25, o = 12); A = [p, p + s) and
B = [p + s − o, p + 2s − o), overlapping in o inputs as in their code, the offset p drawn once per
seed, uniform in 0 … k − (2s − o). Then
    a = Σ_{i∈A} x_i,  b = Σ_{i∈B} x_i,   t = a + b ("add") or a · b ("mul")   (config "op")
Training inputs x_i ~ U[lo, hi] (default U[1, 2], interpolation), a fresh minibatch per update as
theirs; the tests are n_test fresh inputs from U[lo, hi] (interp_mse) and from U[elo, ehi]
(default U[2, 6], extrap_mse: every a, b and t beyond the training range).
The network, two layers as theirs, k → 2 → 1, no biases (config "head"):
    "nau"     NAU → NAU      add only
    "nmu"     NAU → NMU      mul only (the NMU multiplies: the paper never tries it on addition)
    "nalu"    NALU → NALU    either op
    "linear"  W₂ W₁ x, Glorot-uniform init (r = √(6 / (fan_in + fan_out))), either op
The NAU, NMU and NALU layers are arith_heads' (init, forward, backward, penalty, projection), as
SeqModel uses them. Loss, as theirs: mean over the batch of (y − t)² plus λ_u · (R₁ + R₂), R the
penalty of each NAU/NMU layer (arith_penalty: mean of min(|W|, 1 − |W|), or of min(W, 1 − W)),
λ_u = reg · clip((u − reg_start · U) / ((reg_end − reg_start) · U), 0, 1) at update u of U: their
λ = 10 ramped in linearly over [1·10⁶, 2·10⁶] of 5·10⁶ iterations, kept as fractions (0.2, 0.4)
of our budget ("reg" is ignored for linear and NALU layers, which have no penalty). Adam (lr 1e-3,
batch 128, as theirs); after each update the NAU/NMU weights are projected (arith_project). An
update whose gradient or new weights would not be finite (a NALU's exp overflowing) is refused
and counted in "diverged"; no clipping, no early stopping: the weights after the last update are
tested.

Solved (fixed before any run, theirs): extrap_mse < threshold, the extrapolation MSE of an
ε-perturbed perfect solution, ε = EPSILON = 1e-5: first-layer rows 1 − ε on A (on B) and ε off it,
a perfect second layer, i.e. threshold = mean over the extrapolation test of (f(a_ε, b_ε) − t)²
with a_ε = a + ε(S − 2a), S = Σ_i x_i (their simulation, computed here on our test set). With k =
100 it is about 1.6e-5 for add and 0.16 for mul: every weight must be within about 1e-5 of an
exact solution.

Budget. Theirs is 5·10⁶ updates; an update takes about 0.2 ms here (0.5 ms for the NALU), so the
default "updates" is 20,000 (3–4 s a run, 8–11 s for the NALU, on one busy core), with k kept at
theirs (k = 10 and 25 at 50,000 updates, 4 seeds, did no better: NAU on add 0/4 at both, NMU on
mul 0/4 and 1/4). At the default nothing solves: 10 seeds each, solved and median extrap_mse
(threshold 1.6e-5 add, 0.16 mul) were
    add  linear 1/10, 1.8e-4   nau 0/10, 0.55   nalu 0/10, 2.7e4
    mul  linear 0/10, 4.0e7    nmu 0/10, 199    nalu 0/10, 8e20
The penalty's ramp, at a fifth of the budget, reaches the NAU before it fits: with reg = 0 it ends
at a median extrap_mse of 5e-4 (seeds 0–2), like the linear net. At 100,000 updates (seeds 0–2) the
NAU fits, its weights end within 5e-4 of {0, 1} and extrap_mse near 4e-5, still above the
threshold; NAU → NMU stays between solutions (sparsity ~0.43). Their setting,
{"updates": 5 * 10 ** 6}, would take 20 to 40 minutes a run here.

Metrics (plain numbers; an error that is not finite or exceeds MAX_ERROR counts as MAX_ERROR):
    interp_mse, extrap_mse   mean squared error on the two test sets
    threshold, solved        the criterion above; solved = 1 if extrap_mse < threshold else 0
    sparsity                 max over every weight of min(|W|, |1 − |W||), its distance from
                             {−1, 0, 1} (their sparsity error; NALU: of W = tanh(Ŵ) ⊙ σ(M̂), the gate
                             G not counted; linear: of W₁ and W₂ as they are)
    updates, diverged        updates taken, and how many of them were refused
Seeding: SeedSequence(seed) spawns the subsets' offset, the training batches, the interpolation
test, the extrapolation test and the initial weights, so a config fixes its metrics.

    {"run": "gleam.labs.extrapolation.arith:train_arith",
     "grid": {"head": ["linear", "nau", "nalu"], "seed": [0, 1, 2, 3, 4]}, "fixed": {"op": "add"}}
"""
import math

import numpy as np

from gleam import checks
from gleam.cells.common import sigmoid
from gleam.optim import Adam, Diverged
from gleam.seqmodel.arith_heads import arith_backward, arith_forward, arith_penalty, arith_project, init_arith
from gleam.sweep.config import child_seed, with_defaults

__all__ = ["train_arith", "normalized", "threshold", "DEFAULTS", "OPS", "HEADS", "LAYERS", "EPSILON",
           "MAX_ERROR", "MAX_INPUT"]

OPS = ("add", "mul")
HEADS = {"add": ("linear", "nau", "nalu"), "mul": ("linear", "nmu", "nalu")}   # as the paper pairs them
LAYERS = {"linear": ("linear", "linear"), "nau": ("nau", "nau"), "nmu": ("nau", "nmu"),
          "nalu": ("nalu", "nalu")}
PENALISED = ("nau", "nmu")
EPSILON = 1e-5              # the perturbation of the criterion's nearly perfect solution
MAX_ERROR = 1e15            # |ŷ − t| is capped here (and a non-finite ŷ counts as this)
MAX_INPUT = 1e3             # |lo|, |hi|, |elo|, |ehi| and threshold's |X| at most this
MAX_K, MAX_UPDATES, MAX_BATCH, MAX_TEST = 1000, 10 ** 7, 4096, 10 ** 5
DEFAULTS = {"op": "add", "head": "nau", "k": 100, "subset_ratio": 0.25, "overlap_ratio": 0.5,
            "lo": 1.0, "hi": 2.0, "elo": 2.0, "ehi": 6.0, "updates": 20000, "batch_size": 128,
            "lr": 1e-3, "reg": 10.0, "reg_start": 0.2, "reg_end": 0.4, "n_test": 10000, "seed": 0}


def _range(c, lo, hi):
    low = checks.number(f"config[{lo!r}]", c[lo], -MAX_INPUT, MAX_INPUT)
    high = checks.number(f"config[{hi!r}]", c[hi], -MAX_INPUT, MAX_INPUT)
    if not low < high:
        raise ValueError(f"config[{lo!r}] must be below config[{hi!r}] (x ~ U[{lo}, {hi}]), "
                         f"got {low!r} and {high!r}")
    return low, high


def _config(config):
    c = with_defaults(config, DEFAULTS, "train_arith")
    op = checks.one_of("config['op']", c["op"], OPS)
    if isinstance(c["head"], str) and c["head"] in LAYERS and c["head"] not in HEADS[op]:
        raise ValueError(f"config['head'] = {c['head']!r} is not tried on op {op!r}: the paper pairs "
                         f"{op!r} with {', '.join(map(repr, HEADS[op]))}")
    out = dict(c, op=op, head=checks.one_of("config['head']", c["head"], HEADS[op]),
               k=checks.integer("config['k']", c["k"], minimum=2, maximum=MAX_K),
               subset_ratio=checks.number("config['subset_ratio']", c["subset_ratio"], 0, 1, strict_min=True),
               overlap_ratio=checks.number("config['overlap_ratio']", c["overlap_ratio"], 0, 1),
               updates=checks.integer("config['updates']", c["updates"], minimum=1, maximum=MAX_UPDATES),
               batch_size=checks.integer("config['batch_size']", c["batch_size"], minimum=1, maximum=MAX_BATCH),
               lr=checks.number("config['lr']", c["lr"], 0, 1, strict_min=True),
               reg=checks.number("config['reg']", c["reg"], 0, 1e6),
               reg_start=checks.number("config['reg_start']", c["reg_start"], 0, 1),
               reg_end=checks.number("config['reg_end']", c["reg_end"], 0, 1),
               n_test=checks.integer("config['n_test']", c["n_test"], minimum=1, maximum=MAX_TEST),
               seed=checks.integer("config['seed']", c["seed"], minimum=0))
    out["lo"], out["hi"] = _range(c, "lo", "hi")
    out["elo"], out["ehi"] = _range(c, "elo", "ehi")
    if out["reg_start"] > out["reg_end"]:
        raise ValueError(f"config['reg_start'] must be <= config['reg_end'], got {out['reg_start']!r} "
                         f"and {out['reg_end']!r}")
    s, o = _sizes(out)
    if s < 1 or 2 * s - o > out["k"]:
        raise ValueError(f"config['subset_ratio'] = {out['subset_ratio']!r} of config['k'] = {out['k']} "
                         f"gives subsets of {s} inputs overlapping in {o}: they need 1 to k inputs "
                         f"together (2s − o = {2 * s - o})")
    checks.entries("config['n_test']", out["n_test"], (out["n_test"], out["k"]))
    return out


def _sizes(c):
    """(s, o): the subsets' size and overlap."""
    s = math.floor(c["subset_ratio"] * c["k"])
    return s, math.floor(c["overlap_ratio"] * s)


def normalized(config):
    """The config with every default filled in and checked: two configs name the same run exactly
    when their normalized forms are equal."""
    return _config(config)


def _target(op, a, b):
    return a + b if op == "add" else a * b


def threshold(op, X, a, b):
    """The criterion's threshold on inputs X (N, k): mean of (f(a_ε, b_ε) − f(A, B))² over the rows,
    A = X a, B = X b for the 0/1 indicator vectors a, b (k,) of the subsets, a_ε = X a_ε with the
    indicator moved ε = EPSILON towards its wrong value (1 − ε on, ε off), f the op."""
    op = checks.one_of("op", op, OPS)
    X = checks.array("X", X, ndim=2)
    if 0 in X.shape or np.max(np.abs(X)) > MAX_INPUT:
        raise ValueError(f"X must be (N, k) with N, k >= 1 and entries within ±{MAX_INPUT:g}, "
                         f"got shape {X.shape}")
    masks = []
    for name, m in (("a", a), ("b", b)):
        m = checks.array(name, m, ndim=1)
        if m.shape != X.shape[1:] or not np.all((m == 0) | (m == 1)):
            raise ValueError(f"{name} must be a 0/1 indicator of shape ({X.shape[1]},), one entry per "
                             f"column of X")
        masks.append(m)
    (a, b), eps = masks, EPSILON
    A, B = X @ a, X @ b
    # a_ε = Σ_i ((1 − ε) a_i + ε (1 − a_i)) x_i
    A_eps, B_eps = X @ (a * (1 - eps) + (1 - a) * eps), X @ (b * (1 - eps) + (1 - b) * eps)
    return float(np.mean((_target(op, A_eps, B_eps) - _target(op, A, B)) ** 2))


# ---- the two layers ------------------------------------------------------------------------
def _init(kind, n_out, n, rng):
    if kind == "linear":
        # W ~ U(−r, r), r = √(6 / (n + n_out))
        r = np.sqrt(6.0 / (n + n_out))
        return {"W": rng.uniform(-r, r, (n_out, n))}
    return init_arith(kind, n_out, n, rng)


def _forward(kind, h, p):
    # linear: y = W h
    return h @ p["W"].T if kind == "linear" else arith_forward(kind, h, p)


def _backward(kind, dy, h, p):
    # linear: ∂L/∂h = dy W,  ∂L/∂W = Σ dy ⊗ h
    return (dy @ p["W"], {"W": dy.T @ h}) if kind == "linear" else arith_backward(kind, dy, h, p)


def _outputs(kinds, layers, X):
    """Every layer's output on X: [x, h₁, y]."""
    hs = [X]
    for kind, p in zip(kinds, layers):
        hs.append(_forward(kind, hs[-1], p))
    return hs


def _mse(y, t):
    """Mean of e², e = y − t capped at MAX_ERROR in size (a non-finite y counts as MAX_ERROR)."""
    e = np.abs(y - t)
    e = np.where(np.isfinite(e), np.minimum(e, MAX_ERROR), MAX_ERROR)
    return float(np.mean(e * e))


def _sparsity(kinds, layers):
    """max over the weights of min(|W|, |1 − |W||) (NALU: of tanh(Ŵ) ⊙ σ(M̂))."""
    worst = 0.0
    for kind, p in zip(kinds, layers):
        Ws = [np.tanh(p["W_hat"]) * sigmoid(p["M_hat"])] if kind == "nalu" else list(p.values())
        for W in Ws:
            u = np.abs(W)
            worst = max(worst, float(np.max(np.minimum(u, np.abs(1 - u)))))
    return worst


def _reg_weight(c, u):
    """λ_u: reg ramped in linearly between updates reg_start · U and reg_end · U."""
    start, end = c["reg_start"] * c["updates"], c["reg_end"] * c["updates"]
    if end == start:
        return c["reg"] if u >= start else 0.0
    return c["reg"] * min(1.0, max(0.0, (u - start) / (end - start)))


def _update(c, kinds, layers, flat, opt, X, t, u):
    """One Adam update on the batch (X, t); False if refused (non-finite)."""
    hs = _outputs(kinds, layers, X)
    # L = mean (y − t)²  ->  ∂L/∂y = 2 (y − t) / B
    with np.errstate(all="ignore"):
        dy = 2.0 * (hs[-1] - t[:, None]) / len(t)
        grads = {}
        for i in reversed(range(len(kinds))):
            dy, g = _backward(kinds[i], dy, hs[i], layers[i])
            grads.update({f"{i}.{k}": v for k, v in g.items()})
    lam = _reg_weight(c, u)
    for i, kind in enumerate(kinds):
        if lam and kind in PENALISED:
            # + λ_u ∂R/∂W
            for k, v in arith_penalty(kind, layers[i])[1].items():
                grads[f"{i}.{k}"] = grads[f"{i}.{k}"] + lam * v
    try:
        opt.step(flat, grads)
    except Diverged:
        return False
    for i, kind in enumerate(kinds):
        if kind in PENALISED:
            for k, v in arith_project(kind, layers[i]).items():
                np.copyto(layers[i][k], v)
    return True


def train_arith(config):
    """Train the config's head on the arithmetic task and test it -> metrics (module docstring)."""
    c = _config(config)
    offset_ss, batch_ss, interp_ss, extrap_ss, weights_ss = np.random.SeedSequence(c["seed"]).spawn(5)
    k, (s, o) = c["k"], _sizes(c)
    p = int(np.random.default_rng(child_seed(offset_ss)).integers(0, k - (2 * s - o) + 1))
    a, b = np.zeros(k), np.zeros(k)
    a[p:p + s], b[p + s - o:p + 2 * s - o] = 1.0, 1.0
    kinds = LAYERS[c["head"]]
    rng = np.random.default_rng(child_seed(weights_ss))
    layers = [_init(kinds[0], 2, k, rng), _init(kinds[1], 1, 2, rng)]
    flat = {f"{i}.{name}": v for i, q in enumerate(layers) for name, v in q.items()}   # same arrays
    opt, batches = Adam(c["lr"]), np.random.default_rng(child_seed(batch_ss))
    diverged = 0
    for u in range(c["updates"]):
        X = batches.uniform(c["lo"], c["hi"], (c["batch_size"], k))
        diverged += not _update(c, kinds, layers, flat, opt, X, _target(c["op"], X @ a, X @ b), u)
    out, tests = {}, {}
    for name, ss, lo, hi in (("interp", interp_ss, c["lo"], c["hi"]), ("extrap", extrap_ss, c["elo"], c["ehi"])):
        tests[name] = X = np.random.default_rng(child_seed(ss)).uniform(lo, hi, (c["n_test"], k))
        with np.errstate(all="ignore"):
            out[f"{name}_mse"] = _mse(_outputs(kinds, layers, X)[-1][:, 0], _target(c["op"], X @ a, X @ b))
    out["threshold"] = threshold(c["op"], tests["extrap"], a, b)
    out["solved"] = int(out["extrap_mse"] < out["threshold"])
    out.update(sparsity=_sparsity(kinds, layers), updates=c["updates"], diverged=diverged)
    return out
