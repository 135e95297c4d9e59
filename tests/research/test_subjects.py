"""gleam.labs.subjects: the inspector's models are the shipped records' own, rebuilt from their
configs and weights (each answers its record's test sets as the record says), with the records'
own sets, the tasks' rules for a typed text, and probes fitted as gleam.instruments.control fits
them; a file's model gets its task's sets; bad ids and tasks that do not fit are refused."""
import math

import numpy as np
import pytest

from gleam import checkpoints, pretrained
from gleam.instruments.control import probe_report
from gleam.labs import subjects
from gleam.labs.extrapolation.counting import CountingRun
from gleam.labs.memory.run import CueDelayRun, normalized

CHOICES = subjects.choices()


def pick(group, learned=True):
    return next(c for c in CHOICES if c.group == group and c.learned == learned)


def accuracy(subject, examples):
    right = [int(subject.model.predict(subjects._batch(subject.encode(e.text)))[0]) == e.target for e in examples]
    return float(np.mean(right))


def test_every_shipped_many_to_one_model_is_offered_with_its_status():
    for lab, experiment in subjects.SHIPPED.items():
        records = pretrained.results(lab)[experiment]
        offered = [c for c in CHOICES if c.id.startswith(f"{lab}/{experiment}/")]
        assert [c.id.rsplit("/", 1)[1] for c in offered] == [r["key"] for r in records]
        assert [c.learned for c in offered] == [bool(r["metrics"]["learned"]) for r in records]
        assert all(c.name.endswith("· learned" if c.learned else "· not learned") for c in offered)
    assert len({c.id for c in CHOICES}) == len({c.name for c in CHOICES}) == len(CHOICES)   # (a menu's labels)


def test_a_memory_model_answers_its_records_own_test_set_as_the_record_says():
    choice = pick("memory · cue–delay · LSTM")
    record = next(r for r in pretrained.results("memory")["cells"] if choice.id.endswith(r["key"]))
    n_test = normalized(record["config"])["n_test"]
    subject = subjects.shipped(choice.id, n=n_test)
    first = next(iter(subject.sets))
    assert subject.sets[first] == CueDelayRun(record["config"]).test_examples
    assert accuracy(subject, subject.sets[first]) == record["metrics"]["test_accuracy"]
    assert subject.status == "learned" and subject.task == "cue_delay"


@pytest.mark.parametrize("group", ["counting · aⁿbⁿ · GRU", "counting · aⁿbⁿcⁿ · Elman RNN"])
def test_a_counting_model_answers_its_records_own_sets_as_the_record_says(group):
    learned = any(c.group == group and c.learned for c in CHOICES)
    choice = pick(group, learned)
    record = next(r for r in pretrained.results("extrapolation")["counting"] if choice.id.endswith(r["key"]))
    subject = subjects.shipped(choice.id, n=200)
    run = CountingRun(record["config"])
    names = list(subject.sets)
    assert subject.sets[names[0]] == run.iid_examples
    assert accuracy(subject, subject.sets[names[0]]) == record["metrics"]["iid_accuracy"]
    for k, name in zip(subjects.HARD_BLOCKS, names[1:]):
        assert subject.sets[name] == run.hard_examples[k] and f"block {k}" in name
        assert accuracy(subject, subject.sets[name]) == record["metrics"][f"hard_{k}"]


@pytest.mark.parametrize("group", ["memory · cue–delay · GRU", "counting · aⁿbⁿcⁿ · LSTM"])
def test_the_rule_and_the_labels_of_a_typed_text_are_the_examples_own(group):
    subject = subjects.shipped(pick(group).id, n=60)
    for examples in subject.sets.values():
        for e in examples:
            assert subject.target(e.text) == e.target, e.text
            assert subject.labels_of(e.text) == {k: e.labels[k] for k in subject.labels}, e.text
    assert subject.target(subject.alphabet[-1] * 3) is None or subject.task != "cue_delay"


def test_a_reading_is_probe_report_on_the_first_sets_states():
    subject = subjects.shipped(pick("memory · cue–delay · GRU").id, n=40)
    examples = next(iter(subject.sets.values()))
    rows, types, y, half = [], [], [], []
    for i, e in enumerate(examples):     # each example's states by a run of its own
        _, hs, _ = subject.model.forward(subject.encode(e.text)[:, None, :])
        rows.append(hs[:, 0])
        types += [a + b for a, b in zip("^" + e.text, e.text)]
        y += list(e.labels["cue_in_force"])
        half += [i < len(examples) // 2] * len(e.text)
    X, types, y, half = np.concatenate(rows), np.array(types), np.array(y), np.array(half)
    want = probe_report(X[half], y[half], types[half], X[~half], y[~half], types[~half], kind="classify")
    got = subjects.reading(subject, "cue_in_force")
    assert got.report == want and got.kind == "classify"
    assert np.array_equal(got.direction, got.probe.direction[1])
    assert math.isclose(got.report.selectivity, want.accuracy - want.control_accuracy)


def _rnn_file(alphabet="ab", n=5, task="anbn", classes=("reject", "accept")):
    rng = np.random.default_rng(0)
    d = len(alphabet)
    tensors = {"rnn.weight_ih_l0": rng.standard_normal((n, d)), "rnn.weight_hh_l0": rng.standard_normal((n, n)),
               "rnn.bias_ih_l0": rng.standard_normal(n), "rnn.bias_hh_l0": rng.standard_normal(n),
               "readout.weight": rng.standard_normal((len(classes), n)), "readout.bias": rng.standard_normal(len(classes))}
    vocab = {"alphabet": list(alphabet), "classes": list(classes), "layer": "RNN", "task": task}
    return checkpoints.write_safetensors(tensors), vocab


def test_a_files_model_with_a_task_gets_its_sets_and_without_one_none():
    data, vocab = _rnn_file()
    subject = subjects.from_checkpoint(checkpoints.load(data, vocab), n=20)
    assert subject.task == "anbn" and len(subject.sets) == 1 + len(subjects.HARD_BLOCKS)
    assert list(subject.labels) == ["a_minus_b"] and subject.target("aabb") == 1 and subject.target("aab") == 0
    first = next(iter(subject.sets.values()))
    right = sum(accuracy(subject, [e]) for e in first)
    assert subject.status == f"from a float64 file; right on {right:.0f} of the 20 examples of its task's test set"
    plain = subjects.from_checkpoint(checkpoints.load(data, {**vocab, "task": "something else"}))
    assert plain.sets == {} and plain.labels == {} and plain.target("ab") is None and plain.reference() is None


def _short_run(lab, **extra):
    """A run of the page's retrain at a tiny budget, a few updates in."""
    if lab == "memory":
        config = {**pretrained.SPECS["memory"]["horizons"]["fixed"], "cell": "gru_torch", "seed": 3, "n_train": 320,
                  "n_test": 60, "epochs": 1, "n_val": 0, "check_every": 0, **extra}
        run = CueDelayRun(config)
    else:
        config = {**pretrained.SPECS["extrapolation"]["counting"]["fixed"], "cell": "lstm", "kind": "anbncn", "seed": 1,
                  "n_train": 320, "n_test": 60, "epochs": 1, "n_val": 0, "check_every": 0, **extra}
        run = CountingRun(config)
    run.step(2)
    return run


@pytest.mark.parametrize("lab", ["memory", "extrapolation"])
def test_a_model_trained_in_the_page_is_a_copy_measured_as_its_run_measured_it(lab):
    run = _short_run(lab)
    metrics = run.metrics()
    subject = subjects.from_run(run, metrics, n=60)
    first = next(iter(subject.sets))
    if lab == "memory":
        assert subject.sets[first] == run.test_examples and "delay 16" in first
        score = accuracy(subject, subject.sets[first])
        assert score == metrics["test_accuracy"]
        cue = [e for e in subject.sets[first] if e.text[-1] == "?"]
        heldin = min(score, accuracy(subject, cue))
    else:
        assert subject.sets[first] == run.iid_examples and subject.task == "anbncn"
        heldin = accuracy(subject, subject.sets[first])
        assert heldin == metrics["iid_accuracy"]
    verdict = "learned" if heldin >= run.config["criterion"] else "not learned"
    assert subject.status == (f"trained in this page: 2 updates; held-in score {heldin:.3f} against the criterion "
                              f"{run.config['criterion']:g}: {verdict}")
    text = subject.sets[first][0].text
    before = subject.model.forward(subjects._batch(subject.encode(text)))[0]
    run.step(3)                                     # training on changes nothing of the copy
    assert np.array_equal(subject.model.forward(subjects._batch(subject.encode(text)))[0], before)
    assert not np.array_equal(run.model.forward(subjects._batch(subject.encode(text)))[0], before)


def test_a_run_the_inspector_cannot_read_is_refused_by_name():
    with pytest.raises(ValueError, match="accepts or rejects; got a CountingRun in 'predict' mode"):
        subjects.from_run(_short_run("extrapolation", mode="predict"), {})
    run = _short_run("memory")
    with pytest.raises(ValueError, match="metrics must be the run's metrics"):
        subjects.from_run(run, None)
    with pytest.raises(ValueError, match="got a str"):
        subjects.from_run("a run", {})


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="names no shipped record"):
        subjects.shipped("memory/cells/0000000000000000")
    with pytest.raises(ValueError, match="must be '<lab>/<experiment>/<key>'"):
        subjects.shipped("extrapolation/predict/x")
    data, vocab = _rnn_file(alphabet="xy")
    with pytest.raises(ValueError, match="task 'anbn' needs the letters 'ab'"):
        subjects.from_checkpoint(checkpoints.load(data, vocab))
    subject = subjects.shipped(pick("counting · aⁿbⁿ · LSTM").id, n=10)
    with pytest.raises(ValueError, match="outside this model's alphabet"):
        subject.encode("abz")
    with pytest.raises(ValueError, match="at most 256"):
        subject.encode("a" * 300)
    with pytest.raises(ValueError, match="label must be one of"):
        subjects.reading(subject, "cue_in_force")


# ---- fuzz (the house policy of tests/core/test_fuzz.py): a finite result or a named ValueError -----
from hypothesis import strategies as st  # noqa: E402

from tests.core.test_fuzz import BAD_SCALARS, BAD_SIZES, E, call, fuzz_entry, missing_entries  # noqa: E402

SMALL = {}


def small(group):
    """A shipped subject of 4 examples a set, made once."""
    if group not in SMALL:
        SMALL[group] = subjects.shipped(pick(group).id, n=4)
    return SMALL[group]


TEXTS = st.one_of(st.text(alphabet="abc?!defz<", min_size=0, max_size=12), BAD_SCALARS, st.just("a" * 300))
IDS = st.one_of(st.sampled_from([c.id for c in CHOICES[:2]] + ["memory/cells/x", "a/b", ""]), BAD_SCALARS)
GROUPS = st.sampled_from(["counting · aⁿbⁿ · LSTM", "memory · cue–delay · GRU"])


def subject_reads(group, text, label):
    s = small(group)
    ids = s.encode(text)                 # (refuses anything but a text of the alphabet)
    return ids, s.target(text), s.labels_of(text), subjects.reading(s, label)


def from_file(alphabet, task, n):
    data, vocab = _rnn_file(alphabet=alphabet, task=task)
    return subjects.from_checkpoint(checkpoints.load(data, vocab), n).title


RUNS = {}


def from_short_run(lab, metrics, n):
    """subjects.from_run of a short run (made once per lab) with its own metrics, others or none."""
    if lab not in RUNS and lab != "a run":
        run = _short_run(lab)
        RUNS[lab] = (run, run.metrics())
    run, own = RUNS.get(lab, (lab, {}))
    metrics = own if metrics == "its own" else ({"iid_accuracy": 1.0} if metrics == "none of them" else metrics)
    return subjects.from_run(run, metrics, n).status


TABLE = [
    E(subjects.shipped, call(IDS, st.one_of(st.integers(2, 4), BAD_SIZES)), aliases=("id", "n"),
      covers=(subjects.shipped, subjects.Subject)),
    E(subject_reads, call(GROUPS, TEXTS, st.one_of(st.sampled_from(["a_minus_b", "cue_in_force"]), BAD_SCALARS)),
      aliases=("text", "label"), covers=(subjects.reading, subjects.Reading)),
    E(from_file, call(st.sampled_from(["ab", "abc", "xy", "b"]), st.sampled_from(["anbn", "anbncn", "x"]),
                      st.one_of(st.integers(2, 3), BAD_SIZES)), aliases=("vocab", "n", "task"),
      covers=(subjects.from_checkpoint,)),
    E(subjects.choices, call(), covers=(subjects.choices, subjects.Choice)),
    E(from_short_run, call(st.sampled_from(["memory", "extrapolation", "a run"]),
                           st.one_of(st.sampled_from(["its own", "none of them"]), BAD_SCALARS),
                           st.one_of(st.integers(2, 3), BAD_SIZES)), aliases=("run", "metrics", "n"),
      covers=(subjects.from_run,)),
]


@pytest.mark.parametrize("entry", TABLE, ids=[e.fn.__name__ for e in TABLE])
def test_bad_input_raises_a_named_value_error_or_the_result_is_finite(entry):
    fuzz_entry(entry)


def test_the_table_covers_every_public_function():
    assert not missing_entries((subjects,), TABLE)
