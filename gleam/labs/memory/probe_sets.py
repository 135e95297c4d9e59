"""Probe sets for gleam.labs.memory.acceptance: cue–delay sequences in mirror pairs, run through a model.

A probe set of n pairs is drawn by gleam.tasks.cue_delay(n, seed, delay=D, distractors,
p_supersede=0, p_needs_cue=1 for '?' or 0 for '!', amplitude) and made exactly balanced: each
drawn example is followed by its mirror (`mirror`), the same example with the cues a ↔ b
exchanged:
    text      every 'a' becomes 'b' and every 'b' 'a' (the first cue and any superseding one)
    target    1 − target for a '?' query (the cue in force flips); unchanged for '!'
    labels    cue_in_force ← 1 − cue_in_force; steps_since_cue unchanged
    facts     cue ← 1 − cue, final_cue ← 1 − final_cue; the rest unchanged
    features  the two cue channels (columns 0 and 1) exchanged
So sequences 2i and 2i + 1 of a set share their distractors and query and differ only in the
cue: a model that answers them without the cue gives both one answer and is right on exactly
one of them, so its accuracy on a '?' set is exactly ½. The mirror of a task example is
another example of the task (the cue is drawn uniformly), so the set is still the task's.

A superseded probe (`_supersede(e, g)`) inserts the other cue CUES[1 − c] before x_s with
s = D − g + 1 in a drawn example without one: the task's rule with s set instead of drawn, so
that exactly g distractors (the gap, 1 <= g <= D) stand between the new cue and the query;
its '?' target is the new cue 1 − c (its feature row: 1 on that cue's channel).

Inputs: token ids vocab.index(ch) (gleam.tasks.encode) when amplitude is None, else the
examples' features (channels CUES + distractors + QUERIES, gleam.tasks.cue_delay). Every probe
set of a call is drawn with one integer seed (a Generator or None given as `seed` first draws
that integer), so sets of different delays share their cues and their first distractors.
Sizes: n <= MAX_PAIRS pairs; one call runs at most MAX_STEPS sequence-steps in all; the model
runs on chunks of whole pairs of at most CHUNK floats of states and caches.
"""
import numpy as np

from gleam import checks
from gleam.instruments.interventions import swap_states, zero_input
from gleam.seqmodel import SeqModel
from gleam.tasks import Example, cue_delay, encode
from gleam.tasks.base import MAX_LENGTH
from gleam.tasks.delayed_cue import CUES, QUERIES, channels

__all__ = ["MAX_PAIRS", "MAX_STEPS", "MAX_DELAY", "mirror"]

MAX_PAIRS = 2048              # pairs per probe set (4096 sequences)
MAX_STEPS = 2 ** 21           # sequence-steps per call, over all its probe sets
MAX_DELAY = MAX_LENGTH - 4    # a superseded text of delay D has D + 3 characters
CHUNK = 2 ** 22               # floats of states and caches per model run
_SWAP = str.maketrans("ab", "ba")


def mirror(example):
    """The cue_delay example with its cues a ↔ b exchanged (the rule: this module's docstring)."""
    facts = getattr(example, "facts", {})
    ok = (isinstance(example, Example) and {"cue", "final_cue", "query"} <= set(facts)
          and "cue_in_force" in example.labels and example.text[:1] in CUES
          and facts["query"] in QUERIES and facts["cue"] in (0, 1)
          and facts["final_cue"] in (0, 1) and isinstance(example.target, (int, np.integer))
          and (example.features is None or example.features.shape[1] >= 2))
    if not ok:
        raise ValueError(f"example must be an Example of gleam.tasks.cue_delay, "
                         f"got {example!r:.80}")
    flip = facts["query"] == QUERIES[0]
    labels = dict(example.labels)
    labels["cue_in_force"] = tuple(1 - v for v in labels["cue_in_force"])
    facts = {**facts, "cue": 1 - facts["cue"], "final_cue": 1 - facts["final_cue"]}
    F = example.features
    if F is not None:
        F = F[:, [1, 0] + list(range(2, F.shape[1]))]
    return Example(example.text.translate(_SWAP), 1 - example.target if flip else example.target,
                   labels, facts, F)


# ---------------------------------------------------------------- argument checks
def check_model(model):
    """model, or ValueError unless it is a many-to-one classify SeqModel."""
    if not isinstance(model, SeqModel):
        raise ValueError(f"model must be a gleam.seqmodel.SeqModel, got {type(model).__name__}")
    if model.config.head != "classify" or model.config.many_to_many:
        raise ValueError(f"model must be a many-to-one classify SeqModel, got head "
                         f"{model.config.head!r}, many_to_many={model.config.many_to_many}")
    return model


def check_inputs(model, vocab, distractors, amplitude, name="amplitude"):
    """(vocab, distractors, amplitude) checked against the model's input width d; `name`: the
    argument the amplitude came in as."""
    order = channels(distractors)
    amplitude = checks.number(name, amplitude, minimum=0, strict_min=True, none_ok=True)
    d = model.config.d
    if amplitude is not None:
        if d != len(order):
            raise ValueError(f"{name} is given, so the model reads features of "
                             f"{len(order)} channels {order!r}, but its d = {d}")
        return None, distractors, amplitude                 # features: vocab is not read
    if not (isinstance(vocab, str) and len(set(vocab)) == len(vocab) and set(order) <= set(vocab)):
        raise ValueError(f"vocab must be a str of distinct characters holding {order!r} "
                         f"(the model's vocabulary), got {vocab!r:.80}")
    if len(vocab) != d:
        raise ValueError(f"vocab has {len(vocab)} characters, but the model's d = {d}")
    return vocab, distractors, amplitude


def check_seed(seed):
    """seed as an int (from a Generator or None: one draw)."""
    seed = checks.seed("seed", seed)
    if isinstance(seed, int):
        return seed
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng()
    return int(rng.integers(2 ** 63))


def check_pairs(n):
    return checks.integer("n", n, minimum=1, maximum=MAX_PAIRS)


def check_sizes(name, values, maximum=MAX_DELAY):
    """An integer or a list of them, each in [1, maximum] -> a sorted tuple of distinct ints."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        values = values.tolist()
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, (list, tuple, range)) or len(values) == 0:
        raise ValueError(f"{name} must be an integer or a non-empty list of integers in "
                         f"[1, {maximum}], got {values!r:.80}")
    checks.entries(name, len(values), (len(values),), limit=MAX_DELAY)
    return tuple(sorted({checks.integer(name, v, minimum=1, maximum=maximum) for v in values}))


def check_budget(name, value, n, lengths):
    """ValueError naming `name` if 2n sequences of each of `lengths` exceed MAX_STEPS steps."""
    checks.entries(name, value, (2 * n, sum(lengths)), limit=MAX_STEPS)


# ---------------------------------------------------------------- probe sets
def mirror_pairs(n, seed, delay, distractors, query, amplitude):
    """2n examples: cue_delay's n draws, each followed by its mirror."""
    drawn = cue_delay(n, seed, delay=delay, distractors=distractors, p_supersede=0.0,
                      p_needs_cue=1.0 if query == QUERIES[0] else 0.0, amplitude=amplitude)
    return [e for x in drawn for e in (x, mirror(x))]


def _supersede(example, gap):
    """The example with CUES[1 − c] inserted before x_s, s = D − gap + 1 (a '?' probe)."""
    D, c = example.facts["delay"], example.facts["cue"]
    s = D - gap + 1
    text = example.text[:s] + CUES[1 - c] + example.text[s:]
    F = example.features
    if F is not None:
        # the new cue's row: 1 on its channel (CUES come first in the channel order)
        F = np.insert(F, s, np.eye(F.shape[1])[1 - c], axis=0)
    return Example(text, 1 - c, {}, {"delay": D, "cue": c}, F)


def supersede_all(examples, gap):
    return [_supersede(e, gap) for e in examples]


def run_pairs(model, examples, vocab, amplitude, erase=False, swap_at=None):
    """(predictions (B,), targets (B,)) of the model on the examples, all of one length, run in
    chunks of whole pairs; erase: the input at step 0 zeroed (gleam.instruments.interventions.zero_input);
    swap_at: the whole states of each pair (2i, 2i + 1) exchanged after that step."""
    T = len(examples[0].text)
    c = model.config
    rows = max(2, CHUNK // (T * (c.d + 8 * c.n)) // 2 * 2)
    preds, targets = [], []
    for start in range(0, len(examples), rows):
        data = encode(examples[start:start + rows], vocab, features=amplitude is not None)
        X, mask = data.X, data.mask
        if erase:
            X = zero_input(X, 0, d=c.d, mask=mask)
        B = X.shape[1]
        swap = None if swap_at is None else swap_states(
            swap_at, [(b, b + 1) for b in range(0, B, 2)], mask)
        with np.errstate(over="ignore", invalid="ignore"):   # huge weights: argmax still picks
            preds.append(model.predict(X, mask, intervene=swap))
        targets.append(data.targets)
    return np.concatenate(preds), np.concatenate(targets)


def pair_fraction(same):
    """The fraction of pairs (2i, 2i + 1) for which same (B,) holds at both members."""
    return float(np.mean(same[0::2] & same[1::2]))
