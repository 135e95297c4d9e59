"""The models the inspector takes apart (gleam.instruments.inspect), each with what reading it needs.

A Subject is one many-to-one classify SeqModel with its alphabet and class names, its sets of
examples (the first drawn as it was trained, the others beyond it), the labels a probe can read
per character, and the task's rule for the answer to a typed text (None where there is none).

    choices()               the shipped models on offer: Choice(id, group, name, learned), one per
                            record of SHIPPED whose weights ship (gleam.pretrained)
    shipped(id, n=SET_SIZE) that model as a Subject, rebuilt from its record's config and weights;
                            n examples per set
    from_run(run, metrics, n)  a model trained in the page (the memory lab's or the extrapolation
                            lab's retrain) as a Subject: its weights as they are, its run's sets
    from_checkpoint(ck, n)  a loaded file's model (gleam.checkpoints.Checkpoint) as a Subject; if
                            its vocabulary's task is one of TASKS and fits, with that task's sets
                            (its status then says how many of the first set's examples it answers
                            right: no criterion says whether a file's model learned)
    Subject.labels_of(text)  the labels of a typed text, by the task's rule (as its examples carry them)
    reading(subject, label) -> Reading: a linear probe of h for one label, fitted on the first
                            set's first half of examples (every character's state), with its
                            control task (gleam.instruments.control.probe_report; a row's type is
                            its last two characters) on the second

The shipped models:
    memory · cells          cue–delay (gleam.labs.memory.run): the record's own test set (its first
                            n examples, delays 20–40 as trained) and a set with delays 60–80,
                            drawn from SeedSequence(seed).spawn(6)[5]; the inputs are features
                            (one channel per character, a distractor's at the record's amplitude)
    extrapolation · counting  aⁿbⁿ and aⁿbⁿcⁿ, accept or reject (gleam.labs.extrapolation.counting):
                            the record's own sets (the first n of each): its i.i.d. test (blocks
                            1 … 8, as trained) and its hard sets at blocks 9, 12 and 16
A text's answer: counting, automata.exact_counter (1: aᵏbᵏ(cᵏ)); cue–delay, the task's rule (a cue
first and a query last: '?' asks for the cue in force, '!' for whether the last distractor is in
the first half of the distractors), None for any other text.
"""
from dataclasses import dataclass, field

import numpy as np

from gleam import checks, pretrained, tasks
from gleam.instruments.control import probe_report
from gleam.labs.extrapolation import automata
from gleam.labs.extrapolation.counting import CountingRun
from gleam.labs.memory.run import DISTRACTORS, CueDelayRun, normalized
from gleam.seqmodel import SeqModel, SeqModelConfig
from gleam.sweep.config import child_seed
from gleam.tasks.delayed_cue import CUES, QUERIES, channels, features

__all__ = ["SHIPPED", "TASKS", "SET_SIZE", "MAX_TEXT", "Choice", "Subject", "Reading", "choices", "shipped",
           "from_checkpoint", "from_run", "reading"]

SHIPPED = {"memory": "cells", "extrapolation": "counting"}     # lab -> its many-to-one experiment
TASKS = ("anbn", "anbncn")          # a file's task that gives it sets and a rule
SET_SIZE = 100
MAX_TEXT = 256                      # characters of a typed input
HARD_BLOCKS = (9, 12, 16)
# label -> probe kind, per task
LABELS = {"cue_delay": {"cue_in_force": "classify", "steps_since_cue": "regress"},
          "anbn": {"a_minus_b": "regress"}, "anbncn": {"a_minus_b": "regress", "b_minus_c": "regress"}}
CELL_NAMES = {"elman": "Elman RNN", "gru_torch": "GRU", "lstm": "LSTM"}


@dataclass(frozen=True)
class Choice:
    id: str          # "<lab>/<experiment>/<key>"
    group: str       # e.g. "memory · cue–delay · LSTM"
    name: str        # e.g. "LSTM · ~4,000 parameters · lr 0.003 · seed 3 · learned": unique
    learned: bool


@dataclass
class Subject:
    """A model and what the inspector reads it with (module docstring)."""
    title: str
    model: SeqModel
    alphabet: str
    classes: tuple
    status: str                      # "learned", "not learned", or where a file's model came from
    task: str = None                 # "cue_delay", "anbn", "anbncn" or None
    sets: dict = field(default_factory=dict)     # set name -> list of Examples
    amplitude: float = None          # cue–delay features: a distractor's channel value
    _states: dict = field(default_factory=dict, repr=False)

    @property
    def labels(self):
        """label -> probe kind: what a probe can read of this subject's states."""
        return LABELS.get(self.task, {}) if self.sets else {}

    def encode(self, text):
        """One text as the model's input: ids (T,) or features (T, d); ValueError naming the
        characters outside the alphabet or a text too long."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"text must be a non-empty string, got {text!r:.60}")
        if len(text) > MAX_TEXT:
            raise ValueError(f"text has {len(text)} characters; at most {MAX_TEXT} are read")
        unknown = sorted(set(text) - set(self.alphabet))
        if unknown:
            raise ValueError(f"text has {', '.join(map(repr, unknown))}, outside this model's alphabet "
                             f"{self.alphabet!r}")
        if self.amplitude is not None:               # (a cue–delay model: its alphabet is channels(DISTRACTORS))
            return features(text, DISTRACTORS, self.amplitude)
        return np.array([self.alphabet.index(ch) for ch in text], dtype=np.int64)

    def target(self, text):
        """The task's answer to `text` (a class index), or None (no rule, or the text is not
        one of the task's forms)."""
        if self.task in TASKS:
            return int(automata.exact_counter(self.task)(text))
        if self.task == "cue_delay":
            body = text[1:-1]
            if len(text) < 3 or text[0] not in CUES or text[-1] not in QUERIES or text[-2] not in DISTRACTORS \
                    or not set(body) <= set(DISTRACTORS + CUES):
                return None
            if text[-1] == QUERIES[0]:
                return CUES.index([ch for ch in text if ch in CUES][-1])
            return int(text[-2] in DISTRACTORS[:len(DISTRACTORS) // 2])
        return None

    def labels_of(self, text):
        """label -> its value after each character of `text` (a tuple), by the task's rule, for
        the labels a probe reads ({} without a task): the count differences #a − #b, #b − #c; the
        cue in force and the steps since it (0 before any cue: a text need not start with one)."""
        out, counts = {}, {ch: 0 for ch in "abc"}
        if self.task in TASKS:
            rows = []
            for ch in text:
                counts[ch] = counts.get(ch, 0) + 1
                rows.append((counts["a"] - counts["b"], counts["b"] - counts["c"]))
            out = {"a_minus_b": tuple(r[0] for r in rows), "b_minus_c": tuple(r[1] for r in rows)}
        elif self.task == "cue_delay":
            in_force, since, last = [], [], None
            for t, ch in enumerate(text):
                if ch in CUES:
                    last = t
                in_force.append(0 if last is None else CUES.index(text[last]))
                since.append(0 if last is None else t - last)
            out = {"cue_in_force": tuple(in_force), "steps_since_cue": tuple(since)}
        return {k: v for k, v in out.items() if k in self.labels}

    def states(self, set_name):
        """(h rows (N_chars, n), each row's type, the examples' index per row) of one set. A row's
        type, for the control tasks, is the two characters ending there ("^" + the first at t = 0),
        as in gleam.labs.extrapolation.measures."""
        if set_name not in self._states:
            examples = self.sets[set_name]
            rows, chars, which = [], [], []
            for i, e in enumerate(examples):
                logits, hs, _ = self.model.forward(_batch(self.encode(e.text)))
                rows.append(hs[:, 0])
                chars += [a + b for a, b in zip("^" + e.text, e.text)]
                which += [i] * len(e.text)
            self._states[set_name] = (np.concatenate(rows), np.array(chars), np.array(which))
        return self._states[set_name]

    def reference(self):
        """The states of the first set (the rows the inspector's PCA is fitted on), or None."""
        return self.states(next(iter(self.sets)))[0] if self.sets else None


def _batch(x):
    return x[:, None] if x.ndim == 1 else x[:, None, :]


@dataclass
class Reading:
    """A linear probe of h for one label, and its test against a control task."""
    label: str
    kind: str                # "classify" or "regress"
    probe: object            # gleam.instruments.probes.Probe
    report: object           # gleam.instruments.control.ProbeReport
    direction: np.ndarray    # (n,) the probe's direction (regress: its output; classify: class 1)

    def per_char(self, states):
        """The probe's reading after each character: (T,) classes or values."""
        return np.ravel(self.probe.predict(states))


def _model(cell, d, n, n_out, weights):
    model = SeqModel(SeqModelConfig(cell, d=d, n=n, n_out=n_out))
    if set(weights) != set(model.params):
        raise ValueError(f"weights name {sorted(weights)}, the model {sorted(model.params)}")
    for k, v in weights.items():
        np.copyto(model.params[k], v)
    return model


def choices():
    """Every shipped model the inspector offers, in the records' order."""
    out = []
    for lab, experiment in SHIPPED.items():
        for r in pretrained.results(lab)[experiment]:
            c, learned = r["config"], bool(r["metrics"]["learned"])
            cell = CELL_NAMES[c["cell"]]
            if lab == "memory":
                group = f"memory · cue–delay · {cell}"
                name = f"{cell} · ~{int(c['params']):,} parameters · lr {c['lr']:g} · seed {c['seed']}"
            else:
                kind = "aⁿbⁿ" if c["kind"] == "anbn" else "aⁿbⁿcⁿ"
                group, name = f"counting · {kind} · {cell}", f"{cell} · {kind} · seed {c['seed']}"
            out.append(Choice(f"{lab}/{experiment}/{r['key']}", group,
                              f"{name} · {'learned' if learned else 'not learned'}", learned))
    return out


def _record(choice_id):
    parts = choice_id.split("/") if isinstance(choice_id, str) else []
    if len(parts) != 3 or SHIPPED.get(parts[0]) != parts[1]:
        raise ValueError(f"id must be '<lab>/<experiment>/<key>' of a shipped model, got {choice_id!r:.80}")
    for r in pretrained.results(parts[0])[parts[1]]:
        if r["key"] == parts[2]:
            return parts[0], r
    raise ValueError(f"id = {choice_id!r:.80} names no shipped record")


def _counting_sets(config, n):
    run = CountingRun({**config, "n_train": 1, "n_val": 0, "check_every": 0, "n_test": n, "max_test_n": max(HARD_BLOCKS)})
    sets = {f"test: blocks 1–{run.config['max_train_n']}, as trained": run.iid_examples}
    sets.update({f"hard, block {k} (beyond training)": run.hard_examples[k] for k in HARD_BLOCKS})
    return sets


def _memory_sets(c, n):
    data_ss = np.random.SeedSequence(c["seed"]).spawn(6)
    options = {"p_needs_cue": c["p_needs_cue"], "p_supersede": c["p_supersede"], "amplitude": c["amplitude"]}
    delay = c["delay"] if isinstance(c["delay"], int) else tuple(c["delay"])
    said = f"delay {delay}" if isinstance(delay, int) else "delays {}–{}".format(*delay)
    return {f"test: {said}, as trained": tasks.cue_delay(n, child_seed(data_ss[0]) + 1, delay=delay, **options),
            "longer delays: 60–80": tasks.cue_delay(n, child_seed(data_ss[5]), delay=(60, 80), **options)}


def _memory_title(c):
    return f"memory · cue–delay · {CELL_NAMES[c['cell']]} · ~{int(c['params']):,} parameters · lr {c['lr']:g} · seed {c['seed']}"


def _counting_title(c):
    return f"counting · {c['kind']} · {CELL_NAMES[c['cell']]} · seed {c['seed']}"


def shipped(choice_id, n=SET_SIZE):
    """The Subject of one shipped model (module docstring)."""
    n = checks.integer("n", n, minimum=2, maximum=2000)
    lab, r = _record(choice_id)
    c, m = (normalized(r["config"]) if lab == "memory" else r["config"]), r["metrics"]
    weights = pretrained.weights(lab, SHIPPED[lab], r["key"])
    status = "learned" if m["learned"] else "not learned"
    if lab == "memory":
        alphabet = channels(DISTRACTORS)
        model = _model(c["cell"], len(alphabet), m["n"], 2, weights)
        return Subject(_memory_title(c), model, alphabet, ("0", "1"), status, "cue_delay", _memory_sets(c, n),
                       c["amplitude"])
    alphabet = "ab" if c["kind"] == "anbn" else "abc"
    model = _model(c["cell"], len(alphabet), weights["Wo"].shape[1], 2, weights)
    return Subject(_counting_title(c), model, alphabet, ("reject", "accept"), status, c["kind"], _counting_sets(c, n))


def from_run(run, metrics, n=SET_SIZE):
    """The Subject of a model trained in the page, as it is now: a copy of `run`'s weights (training
    on changes nothing here). `run` is a gleam.labs.memory.run.CueDelayRun (the memory lab's
    retrain) or a CountingRun in accept mode (the extrapolation lab's counting retrain); `metrics`
    its metrics() for these weights. Its sets are drawn from its config's seed as a shipped
    model's; its status says the updates taken and whether its held-in score reaches the criterion
    fixed for the experiment (gleam.labs.stepped): "learned" or "not learned"."""
    n = checks.integer("n", n, minimum=2, maximum=2000)
    if isinstance(run, CueDelayRun):
        c = run.config
        alphabet, classes, task, sets = run.vocab, ("0", "1"), "cue_delay", _memory_sets(c, n)
        title = _memory_title(c)
    elif isinstance(run, CountingRun) and run.config["mode"] == "accept":
        c = run.config
        alphabet, classes, task, sets = run.vocab, ("reject", "accept"), c["kind"], _counting_sets(c, n)
        title = _counting_title(c)
    else:
        raise ValueError(f"run must be a cue–delay run or a counting run that accepts or rejects; "
                         f"got a {type(run).__name__}" + (f" in {run.config['mode']!r} mode"
                                                         if isinstance(run, CountingRun) else ""))
    if not isinstance(metrics, dict):
        raise ValueError(f"metrics must be the run's metrics() (a dict), got {type(metrics).__name__}")
    try:
        heldin, criterion = float(run.heldin_score(metrics)), run.config["criterion"]
    except (KeyError, TypeError) as e:
        raise ValueError(f"metrics must be the run's metrics(): {e!s:.60} is missing or not a number") from None
    model = _model(c["cell"], len(alphabet), run.model.config.n, 2, run.model.params)
    status = (f"trained in this page: {run.steps:,} updates; held-in score {heldin:.3f} against the criterion "
              f"{criterion:g}: {'learned' if heldin >= criterion else 'not learned'}")
    return Subject(f"trained here · {title}", model, alphabet, classes, status, task, sets,
                   c["amplitude"] if task == "cue_delay" else None)


def from_checkpoint(ck, n=SET_SIZE):
    """The Subject of a loaded file (gleam.checkpoints.Checkpoint)."""
    n = checks.integer("n", n, minimum=2, maximum=2000)
    alphabet, classes = "".join(ck.alphabet), tuple(ck.classes)
    title = f"your file: a {ck.layer}, width {ck.model.config.n}, {len(alphabet)} characters, {len(classes)} classes"
    task = ck.task if ck.task in TASKS else None
    if task is not None:
        letters = "ab" if task == "anbn" else "abc"
        if not set(letters) <= set(alphabet) or len(classes) != 2:
            raise ValueError(f"vocab: task {task!r} needs the letters {letters!r} in the alphabet and two "
                             f"classes (reject, accept), got {alphabet!r} and {len(classes)}")
        config = {**pretrained.SPECS["extrapolation"]["counting"]["fixed"], "kind": task, "cell": "lstm", "seed": 0}
        sets = _counting_sets(config, n)
        first = next(iter(sets))
        right = [int(ck.model.predict(_batch(ck.encode(e.text)[:, 0]))[0]) == e.target for e in sets[first]]
        return Subject(title, ck.model, alphabet, classes,
                       f"from a {ck.dtype} file; right on {sum(right)} of the {len(right)} examples of its "
                       f"task's {first.split(':')[0]} set", task, sets)
    return Subject(title, ck.model, alphabet, classes, f"from a {ck.dtype} file")


def reading(subject, label):
    """The Reading of one label (module docstring)."""
    if label not in subject.labels:
        raise ValueError(f"label must be one of {sorted(subject.labels)} for this model, got {label!r:.60}")
    kind = subject.labels[label]
    rows, chars, which = subject.states(next(iter(subject.sets)))
    examples = next(iter(subject.sets.values()))
    y = np.concatenate([np.asarray(e.labels[label], dtype=float) for e in examples])
    if kind == "classify":
        y = y.astype(np.int64)
    train = which < len(examples) // 2
    report, probe = probe_report(rows[train], y[train], chars[train], rows[~train], y[~train], chars[~train],
                                 kind=kind, return_probe=True)
    d = probe.direction
    return Reading(label, kind, probe, report, d[0] if kind == "regress" else d[-1])
