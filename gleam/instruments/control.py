"""Control tasks for probes (Hewitt & Liang 2019), and selectivity.

Control tasks. `control_labels(types, labels, seed)`: each distinct type (say the character
read at that step) draws one label from the empirical distribution of `labels` (a uniformly
chosen row), and every occurrence of the type carries it. `probe_report` fits one probe
architecture on the task and on control labels drawn once over train and test together (a
type has one control label in both): selectivity = accuracy − control accuracy. High: the
states encode the property; low: the probe could as well be memorising types.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.instruments.probes import KINDS, check_labels, r2_score, check_rows, fit_probe

__all__ = ["control_labels", "ProbeReport", "probe_report"]


def _types(name, types, N=None):
    try:
        t = np.asarray(types) if isinstance(types, (np.ndarray, list, tuple)) else None
    except (TypeError, ValueError):
        t = None
    if t is None or t.ndim != 1 or t.size == 0 or t.dtype.kind not in "iuU":
        raise ValueError(f"{name} must be a non-empty 1-D array of integer ids or strings, "
                         f"got {types!r:.80}")
    if N is not None and len(t) != N:
        raise ValueError(f"{name} has {len(t)} entries, expected {N} (one per row)")
    return t


def control_labels(types, labels, seed=0):
    """(N,) types (integer ids or strings) and (N,) / (N, k) labels -> control labels: each
    distinct type gets labels[j] for one j drawn uniformly (seeded), at every occurrence."""
    t = _types("types", types)
    lab = checks.numeric("labels", labels)
    if lab.shape[:1] != t.shape or lab.ndim > 2:
        raise ValueError(f"labels has shape {lab.shape}, expected ({len(t)},) or ({len(t)}, k)")
    checks.array("labels", lab)
    rng = np.random.default_rng(checks.seed("seed", seed))
    distinct, inverse = np.unique(t, return_inverse=True)
    pick = rng.integers(0, len(t), size=len(distinct))          # one row of labels per type
    return lab[pick][inverse.reshape(-1)]


@dataclass
class ProbeReport:
    """Task against control (Hewitt & Liang 2019): held-out scores (R² for regress)."""
    accuracy: float          # the probe on the task labels
    control_accuracy: float  # the same architecture on the control labels
    selectivity: float       # accuracy − control_accuracy
    majority: float          # predicting the train set's commonest label (regress: its mean)
    n_train: int
    n_test: int
    kind: str


def probe_report(X_train, y_train, types_train, X_test, y_test, types_test, kind="classify",
                 l2=1e-3, hidden=0, seed=0, steps=1000, lr=0.01, tol=1e-7, return_probe=False):
    """Fit one probe (`fit_probe`'s l2, hidden, seed, steps, lr, tol) on the task and on
    control labels; score both on the test rows -> ProbeReport (return_probe: (ProbeReport,
    the task's fitted Probe))."""
    kind = checks.one_of("kind", kind, KINDS)
    return_probe = checks.flag("return_probe", return_probe)
    X_train = check_rows("X_train", X_train)
    X_test = check_rows("X_test", X_test, X_train.shape[1])
    y_train = check_labels("y_train", y_train, len(X_train), kind)
    y_test = check_labels("y_test", y_test, len(X_test), kind)
    if y_train.shape[1:] != y_test.shape[1:]:
        raise ValueError(f"y_test has shape {y_test.shape}, expected outputs like y_train's")
    t_train = _types("types_train", types_train, len(X_train))
    t_test = _types("types_test", types_test, len(X_test))
    if (t_train.dtype.kind == "U") != (t_test.dtype.kind == "U"):
        raise ValueError("types_train and types_test must both be ids or both be strings")
    control = control_labels(np.concatenate([t_train, t_test]),
                             np.concatenate([y_train, y_test]), seed)
    probe = {"l2": l2, "hidden": hidden, "seed": seed, "steps": steps, "lr": lr, "tol": tol}
    try:
        task = fit_probe(X_train, y_train, kind, **probe)
        ctrl = fit_probe(X_train, control[:len(X_train)], kind, **probe)
        acc, c_acc = task.score(X_test, y_test), ctrl.score(X_test, control[len(X_train):])
        if kind == "classify":
            values, counts = np.unique(y_train, return_counts=True)
            majority = float(np.mean(y_test == values[np.argmax(counts)]))
        else:
            majority = r2_score(y_test, np.broadcast_to(y_train.mean(axis=0), y_test.shape))
    except ValueError as e:                  # what fit_probe and score call X and y
        raise ValueError(f"X_train, y_train, X_test or y_test: {e}") from None
    report = ProbeReport(acc, c_acc, acc - c_acc, majority, len(X_train), len(X_test), kind)
    return (report, task) if return_probe else report
