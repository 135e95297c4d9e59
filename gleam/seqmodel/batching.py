"""Padding variable-length sequences into one time-major batch, with masks.

Layout (as in `gleam.sequence`): time first. A batch of B sequences padded to T steps is
`X` (T, B) of token ids or (T, B, d) of real features, `mask` (T, B) of booleans, True
where step t of sequence b is real. The recurrence treats a masked step as "no step":
the state is copied unchanged, so padding changes no output, loss or gradient.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks

_MAX_ID = 2 ** 53        # a float holds every integer up to here exactly


def _as_sequence(seq, i, name="sequences"):
    try:
        a = np.asarray(seq)
    except (TypeError, ValueError):          # ragged nested lists
        raise ValueError(f"{name}[{i}] must be an array of numbers, got {seq!r:.80}") from None
    if a.dtype.kind == "b" or (a.size and a.dtype.kind not in "iuf"):
        raise ValueError(f"{name}[{i}] must hold numbers, got dtype {a.dtype}")
    if a.ndim == 1:
        if a.size and not np.issubdtype(a.dtype, np.integer):
            if (not np.all(np.isfinite(a)) or np.any(a != np.round(a))
                    or np.any(np.abs(a) > _MAX_ID)):
                raise ValueError(
                    f"{name}[{i}] is 1-D but not integer: 1-D sequences are token ids; "
                    "pass real-valued features as (T_i, d) arrays")
        if a.size and a.min() < 0:
            raise ValueError(f"{name}[{i}] holds token ids, which must be >= 0, got {a.min()}")
        if a.size and a.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name}[{i}] holds token ids beyond int64, got {a.max()}")
        return a.astype(np.int64)
    if a.ndim == 2:
        return checks.array(f"{name}[{i}]", a)
    raise ValueError(f"{name}[{i}] has shape {a.shape}: "
                     "expected (T_i,) token ids or (T_i, d) features")


def _list(name, value):
    if not isinstance(value, (list, tuple, np.ndarray)):
        raise ValueError(f"{name} must be a list of sequences, got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} must hold at least one sequence, got none")
    return value


def _pad_to(pad_to, longest, name):
    T = longest if pad_to is None else checks.integer("pad_to", pad_to, minimum=1)
    if T < longest:
        raise ValueError(f"pad_to = {T} is shorter than the longest {name} ({longest})")
    return T


def pad_batch(sequences, vocab_size=None, pad_to=None):
    """Pad sequences into one batch: `-> (X, mask, lengths)`.

    sequences: a list of B sequences, all of one kind:
      - token ids, each (T_i,) of ints in [0, vocab_size): X is (T, B) int64 padded with 0,
        or, if `vocab_size` is given, the one-hot (T, B, vocab_size) float64 (zeros at padding);
      - real features, each (T_i, d): X is (T, B, d) float64 padded with 0.
    pad_to: total length T (default: the longest sequence; must be >= it).
    mask (T, B) bool is True at real steps; lengths (B,) int64. Empty sequences are refused
    (a many-to-one output needs a last valid step).
    """
    _list("sequences", sequences)
    checks.integer("vocab_size", vocab_size, minimum=1, none_ok=True)
    seqs = [_as_sequence(s, i) for i, s in enumerate(sequences)]
    kinds = {s.ndim for s in seqs}
    if len(kinds) != 1:
        raise ValueError("sequences mix token ids (1-D) and feature arrays (2-D)")
    lengths = np.array([len(s) for s in seqs], dtype=np.int64)
    if np.any(lengths == 0):
        raise ValueError(f"sequence {int(np.argmin(lengths))} is empty")
    T = _pad_to(pad_to, int(lengths.max()), "sequence")
    B = len(seqs)
    width = seqs[0].shape[1] if kinds == {2} else (vocab_size or 1)
    checks.entries("pad_to" if pad_to is not None else "the longest sequence", T, (T, B, width))
    mask = np.arange(T)[:, None] < lengths[None, :]  # (T, B)
    if kinds == {2}:
        dims = {s.shape[1] for s in seqs}
        if len(dims) != 1:
            raise ValueError(f"feature sequences have different widths d: {sorted(dims)}")
        X = np.zeros((T, B, dims.pop()))
        for b, s in enumerate(seqs):
            X[: len(s), b] = s
        return X, mask, lengths
    X = np.zeros((T, B), dtype=np.int64)
    for b, s in enumerate(seqs):
        X[: len(s), b] = s
    if vocab_size is not None:
        X = one_hot(X, vocab_size) * mask[..., None]  # padded steps: all-zero vectors
    return X, mask, lengths


def pad_targets(targets, pad_to=None):
    """Pad per-step targets (many-to-many) into (T, B) (or (T, B, k)), zeros at padding.

    targets: a list of B sequences of class ids (ints) or real values, (T_i,) or (T_i, k).
    The padded entries are never read: the loss only looks where the mask is True.
    """
    _list("targets", targets)
    ts = []
    for i, t in enumerate(targets):
        a = np.asarray(t) if isinstance(t, np.ndarray) else _as_target(t, i)
        if a.ndim == 0 or a.dtype.kind not in "iuf" or (
                a.dtype.kind == "f" and not np.all(np.isfinite(a))):
            raise ValueError(f"targets[{i}] must be a (T_i,) or (T_i, k) array of finite "
                             f"numbers, got {t!r:.80}")
        ts.append(a)
    integer = all(np.issubdtype(t.dtype, np.integer) for t in ts)
    T = _pad_to(pad_to, max(len(t) for t in ts), "target sequence")
    tail = {t.shape[1:] for t in ts}
    if len(tail) != 1:
        raise ValueError(f"targets have different trailing shapes: {sorted(tail)}")
    shape = (T, len(ts)) + tail.pop()
    checks.entries("pad_to", pad_to, shape)
    out = np.zeros(shape, dtype=np.int64 if integer else np.float64)
    for b, t in enumerate(ts):
        out[: len(t), b] = t
    return out


def _as_target(t, i):
    try:
        return np.asarray(t)
    except (TypeError, ValueError):
        raise ValueError(f"targets[{i}] must be an array of numbers, got {t!r:.80}") from None


def one_hot(tokens, d, name="tokens"):
    """Token ids (...) -> one-hot (..., d) float64. For one-hot input, W x is a column of W.

    `name` is the argument the ids came in as, for the messages."""
    d = checks.integer("d", d, minimum=1)
    try:
        tokens = np.asarray(tokens)
    except (TypeError, ValueError):
        raise ValueError(f"{name} (token ids) must be integers, got {tokens!r:.80}") from None
    if not np.issubdtype(tokens.dtype, np.integer):
        raise ValueError(f"{name} (token ids) must be integers, got dtype {tokens.dtype}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= d):
        raise ValueError(f"{name} (token ids) must lie in [0, {d}), "
                         f"got range [{tokens.min()}, {tokens.max()}]")
    checks.entries("d", d, tokens.shape + (d,))
    checks.entries("d", d, (d, d))
    return np.eye(d)[tokens]


def check_mask(mask, T, B):
    """Validate a (T, B) mask of 0/1 (or bool) and return it as bool; None means all True."""
    T = checks.integer("T", T, minimum=0)
    B = checks.integer("B", B, minimum=0)
    if mask is None:
        checks.entries("T", T, (T, B))
        return np.ones((T, B), dtype=bool)
    try:
        m = np.asarray(mask)
    except (TypeError, ValueError):
        raise ValueError(f"mask must be a (T, B) array of 0/1 or booleans, got {mask!r:.80}") from None
    if m.shape != (T, B):
        raise ValueError(f"mask has shape {m.shape}, expected (T, B) = ({T}, {B})")
    if m.dtype != bool:
        if m.dtype.kind not in "iuf" or not np.all((m == 0) | (m == 1)):
            raise ValueError("mask entries must be 0 or 1 (or booleans)")
        m = m.astype(bool)
    empty = np.flatnonzero(~m.any(axis=0))
    if empty.size:
        raise ValueError(f"sequence {int(empty[0])} has no valid step in the mask")
    return m


@dataclass
class SeqData:
    """A padded data set, time-major: N sequences as one batch.

    X: (T, N) token ids or (T, N, d) features; mask: (T, N) bool;
    targets: (N,) / (N, k) for many-to-one, (T, N) / (T, N, k) for many-to-many;
    target_mask: optional (T, N) bool for many-to-many, where a loss is taken (default: mask).
    """
    X: np.ndarray
    mask: np.ndarray
    targets: np.ndarray
    target_mask: np.ndarray = None

    def __post_init__(self):
        for name in ("X", "targets"):
            try:
                a = np.asarray(getattr(self, name))
            except (TypeError, ValueError):
                a = np.asarray(None)
            if a.dtype.kind not in "iuf":
                raise ValueError(f"{name} must be an array of numbers, got "
                                 f"{getattr(self, name)!r:.80}")
            setattr(self, name, a)
        if self.X.ndim not in (2, 3):
            raise ValueError(f"X has shape {self.X.shape}: expected (T, N) or (T, N, d)")
        T, N = self.X.shape[:2]
        if T == 0 or N == 0:
            raise ValueError(f"X has shape {self.X.shape}: a data set needs T >= 1 steps "
                             "and N >= 1 sequences")
        self.mask = check_mask(self.mask, T, N)
        if self.target_mask is not None:
            self.target_mask = np.asarray(self.target_mask, dtype=bool)
            if self.target_mask.shape != (T, N):
                raise ValueError(f"target_mask has shape {self.target_mask.shape}, "
                                 f"expected ({T}, {N})")
        per_step = self.targets.ndim >= 2 and self.targets.shape[:2] == (T, N)
        if not per_step and (self.targets.ndim == 0 or self.targets.shape[0] != N):
            raise ValueError(f"targets have shape {self.targets.shape}: "
                             f"expected (N, ...) = ({N}, ...) "
                             f"or (T, N, ...) = ({T}, {N}, ...)")
        self.per_step = per_step

    def __len__(self):
        return self.X.shape[1]

    def subset(self, idx):
        """The sequences `idx` as a batch, with trailing all-padding steps dropped."""
        try:
            idx = np.asarray(idx)
        except (TypeError, ValueError):
            idx = np.asarray([None])
        if (idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu"
                or idx.min() < -len(self) or idx.max() >= len(self)):
            raise ValueError(f"idx must be a non-empty 1-D array of sequence indices in "
                             f"[0, {len(self)}), got {idx!r:.80}")
        mask = self.mask[:, idx]
        T = int(np.flatnonzero(mask.any(axis=1)).max()) + 1
        tm = None if self.target_mask is None else self.target_mask[:T, idx]
        y = self.targets[:T, idx] if self.per_step else self.targets[idx]
        return SeqData(self.X[:T, idx], mask[:T], y, tm)

    @classmethod
    def from_sequences(cls, sequences, targets, vocab_size=None, per_step=None):
        """Pad a list of sequences with their targets: one per sequence ((N,) or (N, k)), or
        per step (a list of N target sequences, each as long as its input). per_step=None
        infers which: per step when every target has its sequence's length."""
        X, mask, lengths = pad_batch(sequences, vocab_size=vocab_size)
        if per_step is None:
            per_step = len(targets) == len(lengths) and all(
                np.ndim(t) >= 1 and len(t) == L for t, L in zip(targets, lengths))
        if per_step:
            if any(len(t) != L for t, L in zip(targets, lengths)):
                raise ValueError("per-step targets must be as long as their sequences")
            targets = pad_targets(targets, pad_to=X.shape[0])
        return cls(X, mask, np.asarray(targets))
