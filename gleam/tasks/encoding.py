"""Rule-made tasks for the research labs, and their encoding into gleam.seqmodel.batching.SeqData.

Four families, each `family(n, seed, **options) -> list[Example]` (the rules: each module's
docstring): cue_delay (gleam.tasks.delayed_cue), nested_sums (gleam.tasks.sums), brackets
(gleam.tasks.dyck) and counting (gleam.tasks.anbn). The Example record and the size
bounds are gleam.tasks.base.

Encoding: the vocabulary is the sorted distinct characters of the texts and of any
next-character targets; character text[t] becomes token id vocab.index(text[t]). What the
model learns is picked by `target` (see `target_of`):
    "target"    the Example's target: one class or value per sequence, or, if it is a
                next-character str, one token id per step (per_char=True);
    "value"     facts["value"] per sequence (nested sums' integer, for a regression head);
    a label     labels[name]: per step with per_char=True, else its value at the last step.

    examples = nested_sums(500, seed=0)
    vocab = vocabulary(examples)
    data = encode(examples, vocab, target="depth", per_char=True)
    model = SeqModel(SeqModelConfig("gru_textbook", d=len(vocab), n=16, n_out=4,
                                    many_to_many=True))      # depths 0..3
"""
import numpy as np

from gleam import checks
from gleam.seqmodel.batching import SeqData, pad_batch, pad_targets
from gleam.tasks.base import MAX_EXAMPLES, Example
from gleam.tasks.dyck import brackets
from gleam.tasks.anbn import counting
from gleam.tasks.delayed_cue import cue_delay
from gleam.tasks.sums import nested_sums

__all__ = ["Example", "FAMILIES", "brackets", "counting", "cue_delay", "nested_sums",
           "vocabulary", "target_of", "encode", "decode", "check_examples"]

FAMILIES = {"cue_delay": cue_delay, "nested_sums": nested_sums, "brackets": brackets,
            "counting": counting}
MAX_VOCAB = 4096


def check_examples(examples, name="examples"):
    """examples as a list, or ValueError unless it is a non-empty list of Example (at most
    MAX_EXAMPLES)."""
    ok = (isinstance(examples, (list, tuple)) and 1 <= len(examples) <= MAX_EXAMPLES
          and all(isinstance(e, Example) for e in examples))
    if not ok:
        raise ValueError(f"{name} must be a non-empty list of at most {MAX_EXAMPLES:,} "
                         f"gleam.tasks.Example, got {examples!r:.80}")
    return list(examples)


def vocabulary(examples):
    """The sorted distinct characters of the texts and of the next-character targets, as a str."""
    examples = check_examples(examples)
    chars = set()
    for e in examples:
        chars.update(e.text)
        if isinstance(e.target, str):
            chars.update(e.target)
    return "".join(sorted(chars))


def _check_vocab(vocab):
    if not (isinstance(vocab, str) and 1 <= len(vocab) <= MAX_VOCAB
            and len(set(vocab)) == len(vocab)):
        raise ValueError(f"vocab must be a str of 1 to {MAX_VOCAB} distinct characters, "
                         f"got {vocab!r:.80}")
    return vocab


def _ids(text, index, what):
    try:
        return np.array([index[ch] for ch in text], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"vocab lacks the character {e.args[0]!r} of {what}") from None


def target_of(example, target="target", per_char=False):
    """What `encode` learns from one Example: its target, facts["value"] or a label (the rule:
    this module's docstring). A next-character target comes back as its str."""
    if not isinstance(example, Example):
        raise ValueError(f"example must be a gleam.tasks.Example, got {example!r:.80}")
    per_char = checks.flag("per_char", per_char)
    if not isinstance(target, str):
        raise ValueError(f"target must be 'target', 'value' or a label name, got {target!r:.80}")
    if target == "target":
        if isinstance(example.target, str) != per_char:
            raise ValueError("per_char must be True for a next-character target (a str) and "
                             f"False for a class or value, got per_char={per_char}")
        return example.target
    if target == "value":
        if per_char or "value" not in example.facts:
            raise ValueError("target 'value' is facts['value'], one per sequence: it needs "
                             "per_char=False and examples that record a value")
        value = example.facts["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"target 'value' must be a number in facts['value'] of examples, "
                             f"got {value!r:.80}")
        return value
    if target not in example.labels:
        raise ValueError(f"target must be 'target', 'value' or a label name "
                         f"({', '.join(map(repr, example.labels))}), got {target!r:.80}")
    labels = example.labels[target]
    return labels if per_char else labels[-1]


def encode(examples, vocab=None, target="target", per_char=False, features=False, skip=None,
           loss_on=None):
    """Examples -> SeqData for gleam.seqmodel.Trainer (time-major, padded, masked).

    vocab: the characters, in id order (default: vocabulary(examples)).
    target, per_char: what is learnt (`target_of`); per_char gives (T, N) targets for a
      many-to-many model, else (N,). Ints stay int64 (classes); "value" and float labels are
      float64 (regression).
    features: True puts each Example's (T_i, d) features into X instead of token ids.
    skip: per_char only: steps whose target equals `skip` carry no loss (e.g. -1 for "scope").
    loss_on: per_char only, a label name: steps where that label is 0 carry no loss
      (e.g. "deterministic" for next-character prediction of counting languages).
    """
    examples = check_examples(examples)
    vocab = _check_vocab(vocabulary(examples) if vocab is None else vocab)
    features = checks.flag("features", features)
    per_char = checks.flag("per_char", per_char)
    checks.number("skip", skip, none_ok=True)
    if loss_on is not None and not per_char:
        raise ValueError("loss_on masks per-step targets: it needs per_char=True")
    if skip is not None and not per_char:
        raise ValueError("skip masks per-step targets: it needs per_char=True")
    index = {ch: i for i, ch in enumerate(vocab)}
    if features:
        if any(e.features is None for e in examples):
            raise ValueError("features=True needs every example to carry features "
                             "(cue_delay(..., amplitude=...))")
        seqs = [e.features for e in examples]
    else:
        seqs = [_ids(e.text, index, f"examples[{b}].text") for b, e in enumerate(examples)]
    ys = [target_of(e, target, per_char) for e in examples]
    if per_char:
        ys = [_ids(y, index, f"examples[{b}].target") if isinstance(y, str) else np.asarray(y)
              for b, y in enumerate(ys)]
    X, mask, _ = pad_batch(seqs)
    if not per_char:
        y = np.asarray(ys, dtype=np.float64 if target == "value" else None)
        return SeqData(X, mask, y)
    y = pad_targets(ys, pad_to=X.shape[0])
    if skip is None and loss_on is None:
        return SeqData(X, mask, y)
    keep = mask.copy()
    if skip is not None:
        keep &= y != skip
    if loss_on is not None:
        marks = pad_targets([target_of(e, _label(loss_on, e), True) for e in examples],
                            pad_to=X.shape[0])
        keep &= marks != 0
    if not keep.any():
        raise ValueError("skip and loss_on leave no step with a loss")
    return SeqData(X, mask, y, keep)


def _label(name, example):
    if not isinstance(name, str) or name not in example.labels:
        raise ValueError(f"loss_on must be a label name ({', '.join(map(repr, example.labels))})"
                         f", got {name!r:.80}")
    return name


def decode(ids, vocab):
    """Token ids (T,) -> the text they encode (the inverse of encode's X column)."""
    vocab = _check_vocab(vocab)
    try:
        a = np.asarray(ids)
    except (TypeError, ValueError):
        a = np.asarray(None)
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and (a.min() < 0
                                                                 or a.max() >= len(vocab))):
        raise ValueError(f"ids must be a 1-D array of integers in [0, {len(vocab)}), "
                         f"got {ids!r:.80}")
    return "".join(vocab[i] for i in a)
