"""The measurements behind gleam.labs.extrapolation.analysis: what a model's states hold (probes, PCA), what
the model uses of them (patching, swapping, clamping), and how its recurrence stretches them.

Each takes a many-to-one classify SeqModel, nested-sum examples (gleam.tasks.nested_sums: labels
depth, partial, running, scope; target = value mod 10) and the vocabulary the model reads, and
returns plain numbers. h_t is the state after character t (SeqModel's states; an LSTM's h).

state_rows(model, examples, vocab) -> StateRows: h_t at every character of every example, one
    row each (t-major, as gleam.instruments.probes.flatten_states), with that character's labels and its
    type for control tasks: the two characters ending at t ("^" + text[0] at t = 0), so that
    the '+' rows, all one character, still have 11 types; and the model's answers.
probe_metrics(train, test, seed): for L in LABELS, gleam.instruments.control.probe_report's linear
    classify probe (l2 = 1e-3, at most 1000 steps) fitted on the train rows, scored on the test
    rows: probe_<L>_accuracy, _control_accuracy, _selectivity (their difference), _majority;
    "scope" reads only the rows whose character is '+' (-1 for all four if either side has
    none). pca_var_1, pca_var_2: explained variance ratios of the test rows' first two
    principal components (gleam.instruments.states.pca; -1 beyond min(rows, n)).
fit_partial_probe(train, seed) -> Probe: probe_metrics's probe of "partial", for patching.
patch_metrics(model, probe, examples, vocab, alphas): at t_b = len(text_b) − 2, the state just
    before the final ')', per example c = partial label at t_b, c' = (c + 1) mod 10,
    d̂ = (w_c' − w_c) / ‖w_c' − w_c‖ (rows of the linear partial probe's `direction`), and
    h_{t_b} ← h_{t_b} + α d̂ through the intervene hook. Over the examples with d̂ defined (c
    and c' among the probe's classes, w_c' ≠ w_c; -1 if none): patch_<α>_probe_moved = fraction
    whose probe reading is c' after the edit and was not before (the edit is decodable);
    patch_<α>_output_moved = fraction whose prediction is (target + 1) mod 10 after the edit
    and was not before (the edit is used).
swap_metrics(model, examples, vocab, seed): examples of one length, in an order drawn from
    seed, are paired greedily with the next unpaired one of another target; each pair's
    states at t = length − 2 are exchanged (gleam.instruments.interventions.swap_states). swap_pairs;
    swap_follows = fraction of pairs in which each answers the other's target; swap_unchanged
    = fraction in which neither prediction changed (-1: no pair). Every text ends in ')', so
    the swapped prediction is exactly the partner's own: follows = both right to begin with.
clamp_metrics(model, train, examples, vocab): u = the unit of largest |corr(h_u, depth)| over
    the train rows (0 where a unit is constant; the first on ties), clamped at every step to
    its train mean (gleam.instruments.interventions.clamp_unit); on the examples, as
    gleam.instruments.interventions.effect measures it: clamp_unit, clamp_corr (signed), clamp_accuracy
    (accuracy with the clamp), clamp_changed (fraction of answers it changed).
stability_metrics(model, examples, vocab, spans, n_long): on the n_long longest examples (the
    first on ties), J_s = ∂h_{s+1}/∂h_s (gleam.instruments.stability.state_jacobians); for each span
    length s, log10_sv_max_<s> = median over every start i (pooled over those examples) of
    log10 σ_max(J_{i+s−1} … J_i) (span_product), n_spans_<s> = how many (if 0, the log10 is
    reported as -1, which n_spans_<s> = 0 tells apart from a real −1);
    growth_final = median over the examples of log10 σ_max(∂h_{T−1}/∂h_0) (growth_profile: a
    perturbation of h_0 in its worst direction, at the last step). An exact 0 counts as −300.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks, tasks
from gleam.instruments import interventions
from gleam.instruments import stability
from gleam.instruments.probes import Probe, fit_probe
from gleam.instruments.control import probe_report
from gleam.instruments.states import pca
from gleam.seqmodel import SeqModel

__all__ = ["LABELS", "StateRows", "state_rows", "probe_metrics", "fit_partial_probe",
           "patch_metrics", "swap_metrics", "clamp_metrics", "stability_metrics"]

LABELS = ("depth", "partial", "running", "scope")
PROBE = {"l2": 1e-3, "steps": 1000}
LOG10_FLOOR = -300.0
MAX_SPAN = 4096


@dataclass
class StateRows:
    """Hidden states at every character, one row each, with that character's labels."""
    X: np.ndarray        # (N, n) h_t
    index: np.ndarray    # (N, 2) (t, b): step and example of each row
    labels: dict         # name -> (N,) int labels of LABELS
    types: np.ndarray    # (N,) str: the two characters ending at t
    chars: np.ndarray    # (N,) str: the character read at t
    predictions: np.ndarray  # (B,) the model's answer to each example

    def __post_init__(self):
        self.X = checks.array("X", self.X, ndim=2)
        N = len(self.X)
        if N == 0 or not (isinstance(self.labels, dict) and set(self.labels) == set(LABELS)):
            raise ValueError(f"X must have rows and labels must map each of {', '.join(LABELS)} to them")
        fields = {"index": (self.index, "iu", (N, 2)), "types": (self.types, "U", (N,)),
                  "chars": (self.chars, "U", (N,)), "predictions": (self.predictions, "iu", None),
                  **{f"labels[{L!r}]": (self.labels[L], "iu", (N,)) for L in LABELS}}
        for name, (a, kinds, shape) in fields.items():
            if not (isinstance(a, np.ndarray) and a.dtype.kind in kinds
                    and (a.shape == shape if shape else a.ndim == 1)):
                raise ValueError(f"{name} must be a {shape or '1-D'} array of "
                                 f"{'strings' if kinds == 'U' else 'integers'}, as state_rows makes it")


def _model(model):
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    if model.config.head != "classify" or model.config.many_to_many:
        raise ValueError("model must be a many-to-one classify SeqModel")
    return model


def _sums(name, examples):
    examples = tasks.check_examples(examples, name)
    for e in examples:
        if len(e.text) < 2 or not isinstance(e.target, int) or not all(k in e.labels for k in LABELS):
            raise ValueError(f"{name} must be nested sums (gleam.tasks.nested_sums: labels "
                             f"{', '.join(LABELS)}, an int target, 2 or more characters)")
    return examples


def _batch(model, examples, vocab, name="examples"):
    """(examples, X (T, B), mask (T, B), targets (B,)) for the model."""
    examples = _sums(name, examples)
    if not isinstance(vocab, str) or len(vocab) != model.config.d:
        raise ValueError(f"vocab must be the model's {model.config.d} characters, got {vocab!r:.40}")
    T = max(len(e.text) for e in examples)
    checks.entries(name, f"{len(examples)} texts of up to {T} characters",
                   (T, len(examples), 4 * model.config.n))
    data = tasks.encode(examples, vocab)
    return examples, data.X, data.mask, np.asarray(data.targets)


def _rows(name, rows):
    if not isinstance(rows, StateRows):
        raise ValueError(f"{name} must be a StateRows (state_rows), got {type(rows).__name__}")
    return rows


def state_rows(model, examples, vocab):
    """h_t after every character of every example, with its labels and types -> StateRows."""
    examples, X, mask, _ = _batch(_model(model), examples, vocab)
    outputs, hs, _ = model.forward(X, mask)
    index = np.argwhere(mask)                                                # t-major, then b
    t, b = index[:, 0], index[:, 1]
    labels = {L: np.array([examples[j].labels[L][i] for i, j in index], dtype=np.int64)
              for L in LABELS}
    texts = [e.text for e in examples]
    types = np.array([("^" + texts[j])[i:i + 2] for i, j in index])
    chars = np.array([texts[j][i] for i, j in index])
    return StateRows(hs[t, b], index, labels, types, chars, outputs.argmax(axis=-1))


def _label_seeds(seed):
    """One seed per label of LABELS: SeedSequence(seed)'s children."""
    ss = np.random.SeedSequence(checks.integer("seed", seed, minimum=0))
    return [int(child.generate_state(1)[0]) for child in ss.spawn(len(LABELS))]


def probe_metrics(train, test, seed=0):
    """Probes of every label with control tasks, and PCA of the test rows (module docstring)."""
    train, test = _rows("train", train), _rows("test", test)
    if train.X.shape[1] != test.X.shape[1]:
        raise ValueError(f"test rows have {test.X.shape[1]} units, the train rows {train.X.shape[1]}")
    out = {}
    for L, s in zip(LABELS, _label_seeds(seed)):
        tr, te = ((r.chars == "+") if L == "scope" else np.ones(len(r.X), bool) for r in (train, test))
        if tr.any() and te.any():
            r = probe_report(train.X[tr], train.labels[L][tr], train.types[tr],
                             test.X[te], test.labels[L][te], test.types[te], seed=s, **PROBE)
            values = (r.accuracy, r.control_accuracy, r.selectivity, r.majority)
        else:
            values = (-1.0,) * 4
        out.update({f"probe_{L}_{k}": float(v) for k, v in zip(
            ("accuracy", "control_accuracy", "selectivity", "majority"), values)})
    k = min(2, *test.X.shape)
    ratios = list(pca(test.X, k).explained_variance_ratio) + [-1.0] * (2 - k)
    return {**out, "pca_var_1": float(ratios[0]), "pca_var_2": float(ratios[1])}


def fit_partial_probe(train, seed=0):
    """The linear classify probe of "partial" on the train rows (probe_metrics's fit) -> Probe."""
    train = _rows("train", train)
    return fit_probe(train.X, train.labels["partial"], "classify", seed=_label_seeds(seed)[1], **PROBE)


def _alphas(alphas):
    if not isinstance(alphas, (list, tuple)) or not 1 <= len(alphas) <= 64:
        raise ValueError(f"alphas must be a list of 1 to 64 numbers, got {alphas!r:.60}")
    out = [checks.number("alphas", a, minimum=-1e6, maximum=1e6) for a in alphas]
    if len({f"{a:g}" for a in out}) != len(out):
        raise ValueError(f"alphas must be distinct (as %g), got {alphas!r:.60}")
    return out


def _edit_at(steps, delta, lstm):
    """{t: fn}: fn adds delta[b] to h of the examples b with steps[b] == t."""
    def at(rows):
        def fn(state):
            h = (state[0] if lstm else state).copy()
            h[rows] += delta[rows]
            return (h, state[1]) if lstm else h
        return fn
    return {int(t): at(np.flatnonzero(steps == t)) for t in np.unique(steps)}


def patch_metrics(model, probe, examples, vocab, alphas=(0.5, 1, 2, 4)):
    """Add α d̂ (the partial probe's step to the next class) before the final ')' (module docstring)."""
    examples, X, mask, targets = _batch(_model(model), examples, vocab)
    if not (isinstance(probe, Probe) and probe.kind == "classify" and "W" in probe.params
            and probe.n == model.config.n):
        raise ValueError(f"probe must be a linear classify Probe of the model's {model.config.n} units")
    alphas = _alphas(alphas)
    B = len(examples)
    steps = np.array([len(e.text) - 2 for e in examples])
    outputs, hs, _ = model.forward(X, mask)
    h = hs[steps, np.arange(B)]                                                     # (B, n)
    current = np.array([e.labels["partial"][t] for e, t in zip(examples, steps)])
    wanted = (current + 1) % 10
    rows, classes = probe.direction, list(probe.classes)
    d, ok = np.zeros_like(h), np.zeros(B, bool)
    for b in range(B):
        if current[b] in classes and wanted[b] in classes:
            # d̂ = (w_c' − w_c) / ‖w_c' − w_c‖
            v = rows[classes.index(wanted[b])] - rows[classes.index(current[b])]
            norm = np.linalg.norm(v)
            if norm > 0 and np.isfinite(norm):
                d[b], ok[b] = v / norm, True
    out_wanted = (targets + 1) % 10
    reading0, pred0 = probe.predict(h), outputs.argmax(axis=-1)
    out = {}
    for a in alphas:
        with np.errstate(over="ignore", invalid="ignore"):
            # h_{t_b} ← h_{t_b} + α d̂_b
            patched = h + a * d
            if not np.all(np.isfinite(patched)):
                raise ValueError(f"alphas: α = {a:g} makes the state non-finite")
            reading = probe.predict(patched)
            pred = model.predict(X, mask, intervene=_edit_at(steps, a * d, model.lstm))
        probe_moved = (reading == wanted) & (reading0 != wanted)
        output_moved = (pred == out_wanted) & (pred0 != out_wanted)
        out[f"patch_{a:g}_probe_moved"] = float(probe_moved[ok].mean()) if ok.any() else -1.0
        out[f"patch_{a:g}_output_moved"] = float(output_moved[ok].mean()) if ok.any() else -1.0
    return out


def _pairs(examples, seed):
    """Pairs (b1, b2) of one length and different targets, greedily in an order from seed."""
    order = np.random.default_rng(checks.integer("seed", seed, minimum=0)).permutation(len(examples))
    waiting, pairs = {}, []
    for b in order.tolist():
        queue = waiting.setdefault(len(examples[b].text), [])
        partner = next((p for p in queue if examples[p].target != examples[b].target), None)
        if partner is None:
            queue.append(b)
        else:
            queue.remove(partner)
            pairs.append((partner, b))
    return pairs


def swap_metrics(model, examples, vocab, seed=0):
    """Exchange the states of pairs before the final ')' (module docstring)."""
    examples, X, mask, targets = _batch(_model(model), examples, vocab)
    pairs = _pairs(examples, seed)
    if not pairs:
        return {"swap_pairs": 0, "swap_follows": -1.0, "swap_unchanged": -1.0}
    by_step = {}
    for b1, b2 in pairs:
        by_step.setdefault(len(examples[b1].text) - 2, []).append((b1, b2))
    swap = interventions.combine(*(interventions.swap_states(t, p, mask) for t, p in by_step.items()))
    before, after = model.predict(X, mask), model.predict(X, mask, intervene=swap)
    a, b = np.array(pairs).T
    follows = (after[a] == targets[b]) & (after[b] == targets[a])
    unchanged = (after[a] == before[a]) & (after[b] == before[b])
    return {"swap_pairs": len(pairs), "swap_follows": float(follows.mean()),
            "swap_unchanged": float(unchanged.mean())}


def clamp_metrics(model, train, examples, vocab):
    """Clamp the unit most correlated with depth to its mean at every step (module docstring)."""
    train = _rows("train", train)
    examples, X, mask, targets = _batch(_model(model), examples, vocab)
    if train.X.shape[1] != model.config.n:
        raise ValueError(f"train rows have {train.X.shape[1]} units, the model {model.config.n}")
    Xc = train.X - train.X.mean(axis=0)
    y = train.labels["depth"] - train.labels["depth"].mean()
    # corr(h_u, depth) = Σ x̃_u ỹ / √(Σ x̃_u² Σ ỹ²), 0 where a side is constant
    den = np.sqrt(np.sum(Xc * Xc, axis=0) * np.sum(y * y))
    corr = np.where(den > 0, Xc.T @ y / np.where(den > 0, den, 1.0), 0.0)
    u = int(np.argmax(np.abs(corr)))
    clamp = interventions.clamp_unit(u, float(train.X[:, u].mean()), range(X.shape[0]))
    before, after = model.predict(X, mask), model.predict(X, mask, intervene=clamp)
    return {"clamp_unit": u, "clamp_corr": float(corr[u]), "clamp_accuracy": float(np.mean(after == targets)),
            "clamp_changed": float(np.mean(after != before))}


def _spans(spans):
    if not isinstance(spans, (list, tuple)) or not 1 <= len(spans) <= 16:
        raise ValueError(f"spans must be a list of 1 to 16 span lengths, got {spans!r:.60}")
    out = [checks.integer("spans", s, minimum=1, maximum=MAX_SPAN) for s in spans]
    if len(set(out)) != len(out):
        raise ValueError(f"spans must be distinct, got {spans!r:.60}")
    return out


def stability_metrics(model, examples, vocab, spans=(1, 4, 16), n_long=4):
    """Span products of the state Jacobians on the longest examples (module docstring)."""
    examples, _, _, _ = _batch(_model(model), examples, vocab)
    spans = _spans(spans)
    n_long = checks.integer("n_long", n_long, minimum=1, maximum=64)
    m = (2 if model.lstm else 1) * model.config.n
    longest = sorted(range(len(examples)), key=lambda b: -len(examples[b].text))[:n_long]
    logs, growth = {s: [] for s in spans}, []
    for b in longest:
        text = examples[b].text
        checks.entries("examples", f"of {len(text)} characters", (len(text), m, m))
        J = stability.state_jacobians(model, tasks.encode([examples[b]], vocab).X)
        for s in spans:
            logs[s] += [stability.span_product(J, i, i + s).log10_norm for i in range(len(J) - s + 1)]
        growth.append(stability.growth_profile(J).log10_gain[-1])
    out = {}
    for s in spans:
        out[f"log10_sv_max_{s}"] = float(max(np.median(logs[s]), LOG10_FLOOR)) if logs[s] else -1.0
        out[f"n_spans_{s}"] = len(logs[s])
    return {**out, "growth_final": float(max(np.median(growth), LOG10_FLOOR))}
