"""One model, one input, taken apart: what the inspector page shows, as numbers.

    look(model, ids, reference=None, known=None) -> Look
        the prediction and its probabilities, the state after each character (h, and an LSTM's
        c), the states' path on the first two principal components of `reference` (the states of
        a test set: (N, n) rows, or their PCA from fit_reference(rows), fitted once; None: of this
        input's own states), and the largest singular value of ∂h_{t+1}/∂h_t along the input
        (gleam.instruments.stability's Jacobians; σ_max = √ of the largest eigenvalue of J Jᵀ, within
        a few ulps of an SVD's and several times faster). known: (other ids, their Look) of the same
        model: the steps the two inputs share from the start keep its sensitivities (∂h_{t+1}/∂h_t
        depends only on the characters up to t + 1), checked by the states being the same
    edit(model, ids, intervention, reference=None) -> (Look before, Look after)
        the same input with an intervention (gleam.instruments.interventions' dicts, or an input
        replaced by gleam.instruments.input_interventions.zero_input) and without it
    transplant(model, other, step) -> {step: fn}: the state after `step` replaced by the state
        another input (`other`, as ids) reaches after its own step `step` (an edit's "swap")
    in_words(before, after, classes, probe=None) -> a sentence: "The answer moved from 7 to 9;
        the probe's reading moved by +2.0." (or "stayed at 7"; a move under 0.05: "+3.2e-03")

ids: one sequence of token ids, (T,) or (T, 1); for features, (T, d) or (T, 1, d).
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.losses import softmax
from gleam.instruments.states import PCA, pca
from gleam.instruments.stability import state_jacobians
from gleam.seqmodel import SeqModel

__all__ = ["Look", "look", "edit", "transplant", "fit_reference", "in_words", "as_batch"]


@dataclass
class Look:
    """What the inspector shows of one input."""
    prediction: int            # the class read out of the last state
    probabilities: np.ndarray  # (n_out,) softmax of the read-out
    states: np.ndarray         # (T, n) h after each character
    cells: np.ndarray          # (T, n) an LSTM's c after each character, else None
    path: np.ndarray           # (T, 2) the states on the reference's first two principal components
    explained: np.ndarray      # (2,) the share of the reference's variance each component holds
    sensitivity: np.ndarray    # (T − 1,) largest singular value of ∂h_{t+1}/∂h_t (LSTM: of (h, c))


def as_batch(model, ids):
    """A single sequence as SeqModel's batch of one: (T, 1) ids or (T, 1, d) features."""
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam SeqModel, got {type(model).__name__}")
    X = np.asarray(ids)
    if X.dtype.kind in "iu":
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2 or X.shape[1] != 1:
            raise ValueError(f"ids must be one sequence of token ids, (T,) or (T, 1), got shape {X.shape}")
    elif X.dtype.kind == "f":
        if X.ndim == 2:
            X = X[:, None, :]
        if X.ndim != 3 or X.shape[1] != 1:
            raise ValueError(f"ids must be one sequence of features, (T, d) or (T, 1, d), got shape {X.shape}")
    else:
        raise ValueError(f"ids must hold token ids or features, got dtype {X.dtype}")
    if len(X) == 0:
        raise ValueError("ids must hold at least one step")
    if model.config.head != "classify" or model.config.many_to_many:
        raise ValueError("model must read one class out of its last state (a many-to-one classify head)")
    return X


def fit_reference(rows):
    """The first two principal components (fewer if the rows allow fewer) of (N, n) state rows:
    a `reference` for look and edit, fitted once for many inputs."""
    rows = checks.array("reference", rows, ndim=2)
    return pca(rows, min(2, *rows.shape))


def _sigma_max(Js):
    """The largest singular value of each matrix of a (k, m, m) stack."""
    if len(Js) == 0:
        return np.zeros(0)
    return np.sqrt(np.maximum(np.linalg.eigvalsh(Js @ np.swapaxes(Js, 1, 2))[:, -1], 0.0))


def _shared(model, X, states, known):
    """How many leading sensitivities of `known` = (ids, Look) hold for X (module docstring)."""
    if known is None:
        return 0, None
    if not (isinstance(known, tuple) and len(known) == 2 and isinstance(known[1], Look)):
        raise ValueError("known must be (ids, look(model, ids, ...)) of another input to this model")
    ids, other = known
    try:
        Y = as_batch(model, ids)
    except ValueError as e:
        raise ValueError(f"known: {e}") from None
    if Y.shape[1:] != X.shape[1:] or len(other.states) != len(Y) or len(other.sensitivity) != max(len(Y) - 1, 0):
        raise ValueError("known: its ids and its Look do not describe one input of this model's kind")
    k = 0
    while k < min(len(X), len(Y)) and np.array_equal(X[k], Y[k]) and np.array_equal(states[k], other.states[k]):
        k += 1
    shared = max(k - 1, 0)      # J_s for s + 1 < k reads only the shared characters
    if not np.all(np.isfinite(other.sensitivity[:shared])):
        return 0, None
    return shared, other.sensitivity[:shared]


def _look(model, X, intervene, reference, known=None):
    logits, hs, caches = model.forward(X, intervene=intervene)
    p = softmax(logits[0])
    states = hs[:, 0]
    cells = None if caches["c"] is None else caches["c"][:, 0]
    fit = reference if isinstance(reference, PCA) else fit_reference(states if reference is None else reference)
    if fit.mean.shape[0] != states.shape[1]:
        raise ValueError(f"reference has {fit.mean.shape[0]} columns, the model's state {states.shape[1]}")
    k = fit.components.shape[0]
    path, explained = np.zeros((len(states), 2)), np.zeros(2)
    path[:, :k], explained[:k] = fit.transform(states), fit.explained_variance_ratio
    if len(X) > 1 and not intervene:
        shared, kept = _shared(model, X, states, known)
        sensitivity = _sigma_max(state_jacobians(model, X[shared:], h0=_state_at(states, cells, shared)))
        if shared:
            sensitivity = np.concatenate([kept, sensitivity])
    else:       # (under an intervention the state is not the recurrence's: no Jacobian of it)
        sensitivity = np.full(len(X) - 1, np.nan) if intervene else np.zeros(0)
    return Look(int(np.argmax(p)), p, states, cells, path, explained, sensitivity)


def _state_at(states, cells, shared):
    """The state the run enters step `shared` with (None: the start)."""
    if shared == 0:
        return None
    h = states[shared - 1][None]
    return h if cells is None else (h, cells[shared - 1][None])


def look(model, ids, reference=None, known=None):
    """The Look of `ids` (module docstring)."""
    return _look(model, as_batch(model, ids), None, reference, known)


def edit(model, ids, intervention, reference=None, before=None):
    """(Look without, Look with) an intervention: a state intervention's {step: fn} dict, or
    new inputs (ids or features, as `ids`: e.g. zero_input's erasure). before: look(model, ids,
    reference) if already made (it is not made again)."""
    X = as_batch(model, ids)
    if before is not None and not (isinstance(before, Look) and len(before.states) == len(X)):
        raise ValueError("before must be the Look of this input (look(model, ids, reference))")
    before = before or _look(model, X, None, reference)
    if isinstance(intervention, dict):
        if not intervention:
            raise ValueError("intervention is empty: it changes nothing")
        after = _look(model, X, intervention, reference)
    else:
        X2 = as_batch(model, intervention)
        if len(X2) != len(X):
            raise ValueError(f"intervention: the new input has {len(X2)} steps, the input {len(X)}")
        after = _look(model, X2, None, reference)
    return before, after


def transplant(model, other, step):
    """{step: fn} putting in the state `other` reaches after its step `step` (module docstring)."""
    X = as_batch(model, other)
    step = checks.integer("step", step, minimum=0)
    if step >= len(X):
        raise ValueError(f"step = {step} is outside the other input's {len(X)} steps")
    _, hs, caches = model.forward(X[:step + 1])
    h = hs[step].copy()
    state = h if caches["c"] is None else (h, caches["c"][step].copy())

    def put(current):
        got = current[0] if isinstance(current, tuple) else current
        if np.shape(got)[0] != 1:
            raise ValueError(f"transplant: the input is a batch of {np.shape(got)[0]}, not one sequence")
        return tuple(a.copy() for a in state) if isinstance(state, tuple) else state.copy()
    return {step: put}


def in_words(before, after, classes, probe=None):
    """A sentence on what changed: the answer, and the probe's reading at the last character
    (probe: a fitted gleam.instruments.probes.Probe of the states, regress or classify)."""
    classes = list(classes)
    if not all(0 <= look.prediction < len(classes) for look in (before, after)):
        raise ValueError(f"classes has {len(classes)} names, fewer than the predictions need")
    a, b = classes[before.prediction], classes[after.prediction]
    text = f"The answer stayed at {a}" if a == b else f"The answer moved from {a} to {b}"
    if probe is not None:
        r0, r1 = (float(np.ravel(probe.predict(look.states[-1:]))[0]) for look in (before, after))
        moved = r1 - r0
        size = f"{moved:+.1f}" if abs(moved) >= 0.05 else f"{moved:+.1e}"      # (never "-0.0")
        text += f"; the probe's reading moved by {size}" if moved else "; the probe's reading stayed"
    return text + "."
