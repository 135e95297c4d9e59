"""The extrapolation lab without a browser: every number of its tables is the build's sweep
records' (tests/extrap_trained.py works them out from the records alone); the retrain trains the
chosen experiment's configuration, and a run to the end is the build's run of it, number for
number; the controls an experiment does not read are disabled; the prose's counts are the runs'."""
import pytest

from app.chapters.extrapolation_lab import ExtrapolationLabChapter
from app.chapters.extrapolation_lab.retrain import EXPERIMENTS, build_record, config_of, rows
from gleam import pretrained
from gleam.labs.extrapolation import brackets as extrap_brackets
from gleam.labs.extrapolation import counting as extrap_counting
from gleam.labs.extrapolation import sums as extrap_sums
from surface import find, set_value, shown
from tests.extrap_trained import SPECS, expected, seeds


@pytest.fixture(scope="module")
def chapter():
    return ExtrapolationLabChapter()


def test_every_number_of_the_tables_is_the_records(chapter):
    want = expected()
    v = chapter.values()
    assert {k: v[k] for k in want} == want
    assert {k: x for k, x in v.items() if k.startswith("extrapolation.trained.")} == want
    assert {k: x for k, x in shown(chapter).items() if k in want} == want


def test_the_curves_draw_every_seed(chapter):
    runs = pretrained.results("extrapolation")
    ld = {**extrap_brackets.DEFAULTS, **SPECS["length_depth"]["fixed"]}
    for cell in SPECS["length_depth"]["grid"]["cell"]:
        for i, m in enumerate(seeds(runs["length_depth"], cell=cell)):
            assert chapter.trained.plots["lengths"].data(f"{cell}.{i}") == (
                [float(L) for L in ld["test_lengths"]], [m[f"length_{L}"] for L in ld["test_lengths"]])
    top = {**extrap_counting.DEFAULTS, **SPECS["counting"]["fixed"]}["max_test_n"]
    for i, m in enumerate(seeds(runs["counting"], kind="anbn", cell="lstm")):
        xs, ys = chapter.trained.plots["anbn"].data(f"lstm.{i}")
        assert xs == [float(n) for n in range(1, top + 1)] and ys == [m[f"acc_{n}"] for n in range(1, top + 1)]


@pytest.mark.parametrize("experiment, choices, name", [
    ("1. length vs depth", {"cell": "lstm", "seed": 2}, "length_depth"),
    ("2. counting", {"kind": "anbncn", "cell": "gru_torch", "seed": 1}, "counting"),
    ("3. nested sums", {"head": "nau", "seed": 0}, "sums_heads")])
def test_a_retrain_to_the_end_is_the_builds_run(experiment, choices, name):
    c = ExtrapolationLabChapter()
    set_value(c, "gl-chextrapolation-x", experiment)
    for key, value in choices.items():
        set_value(c, f"gl-chextrapolation-{key}", value)
    config = config_of(c.experiment, c.cell, c.kind, c.split, c.head, c.seed)
    assert c.retrain.run.config == EXPERIMENTS[experiment][1].normalized(config)
    record = build_record(config)
    where = {k: v for k, v in choices.items() if k != "seed"}
    assert record == seeds(pretrained.results("extrapolation")[name], **where)[choices["seed"]]
    c.retrain.loop.tick(n=10 ** 5)
    v = c.values()
    assert v["extrapolation.retrain.status"] == "finished"
    for key, _, _ in rows(c.retrain.run):
        assert v[f"extrapolation.retrain.mine.{key}"] == v[f"extrapolation.retrain.built.{key}"] != "—", key
    assert c.retrain.tested[1] == record


def test_each_experiment_enables_the_choices_it_reads():
    c = ExtrapolationLabChapter()
    c.__panel__()
    disabled = lambda: {k for k in ("cell", "kind", "split", "head") if find(c, f"gl-chextrapolation-{k}").disabled}  # noqa: E731
    assert disabled() == {"kind", "split", "head"}
    set_value(c, "gl-chextrapolation-x", "2. counting")
    assert disabled() == {"split", "head"}
    set_value(c, "gl-chextrapolation-x", "3. nested sums")
    assert disabled() == {"kind"}                       # classify: the split is read
    set_value(c, "gl-chextrapolation-head", "regress")
    assert disabled() == {"kind", "split"}              # a value head trains on the value split only
    assert isinstance(c.retrain.run, extrap_sums.SumsRun) and c.retrain.run.config["head"] == "regress"
    set_value(c, "gl-chextrapolation-seed", 9)
    assert c.retrain.build is None and c.values()["extrapolation.retrain.build"].startswith("The build did not run")


def test_the_prose_states_the_runs_counts():
    import content
    text = " ".join(content.render("extrapolation").split())
    assert "Not built yet" not in text
    runs = pretrained.results("extrapolation")
    ld = {**extrap_brackets.DEFAULTS, **SPECS["length_depth"]["fixed"]}
    longer = [L for L in ld["test_lengths"] if L > ld["max_train_length"]]
    deeper = [D for D in ld["test_depths"] if D > ld["max_train_depth"]]
    easier = {}
    for cell in ("elman", "gru_torch", "lstm"):
        ms = seeds(runs["length_depth"], cell=cell)
        easier[cell] = sum(sum(m[f"length_{L}"] for L in longer) / len(longer) > sum(m[f"depth_{D}"] for D in deeper) / len(deeper)
                           for m in ms)
    n = len(SPECS["length_depth"]["grid"]["seed"])
    assert (f"in {easier['elman']} of {n} Elman seeds, {easier['gru_torch']} of {n} GRU seeds and "
            f"{easier['lstm']} of {n} LSTM seeds") in text
    top = {**extrap_counting.DEFAULTS, **SPECS["counting"]["fixed"]}["max_train_n"]
    beyond = {(k, c): sum(m["largest_n"] > top for m in seeds(runs["counting"], kind=k, cell=c))
              for k in ("anbn", "anbncn") for c in ("gru_torch", "lstm")}
    assert (f"in {beyond['anbn', 'gru_torch']} of {n} GRU seeds and {beyond['anbn', 'lstm']} of {n} LSTM seeds on aⁿbⁿ, "
            f"and in {beyond['anbncn', 'gru_torch']} and {beyond['anbncn', 'lstm']} on aⁿbⁿcⁿ") in text
    assert ("in line with Weiss" in text) == (beyond["anbn", "lstm"] > beyond["anbn", "gru_torch"])


def test_a_measured_value_head_draws_its_predictions_and_its_ceiling():
    c = ExtrapolationLabChapter()
    c.__panel__()
    set_value(c, "gl-chextrapolation-x", "3. nested sums")
    set_value(c, "gl-chextrapolation-head", "regress")
    assert c.values()["extrapolation.figure"] == "" and not c.figure.values_pane.visible
    c.retrain.loop.tick(n=10 ** 5)
    curve = extrap_sums.prediction_curve(c.retrain.run)
    assert c.figure.values_pane.visible and not c.figure.states_pane.visible
    assert c.figure.values_plot.data("prediction") == (curve["values"], curve["mean_prediction"])
    assert c.figure.values_plot.data("bound")[1] == [curve["bound"]] * len(curve["values"])
    assert c.values()["extrapolation.figure"].startswith(f"ceiling {curve['bound']:.1f}; largest value trained on")
    assert shown(c)["extrapolation.figure"] == c.values()["extrapolation.figure"]
    set_value(c, "gl-chextrapolation-seed", 3)                    # a new run: nothing measured yet
    assert not c.figure.values_pane.visible and c.values()["extrapolation.figure"] == ""


def test_a_measured_analysis_model_draws_its_states_by_depth():
    from gleam.labs.extrapolation import analysis as extrap_analysis
    c = ExtrapolationLabChapter()
    c.__panel__()
    set_value(c, "gl-chextrapolation-x", "4-6. information and mechanism")
    config = config_of(c.experiment, c.cell, c.kind, c.split, c.head, c.seed)
    assert isinstance(c.retrain.run, extrap_analysis.AnalysisRun)
    assert build_record(config) == seeds(pretrained.results("extrapolation")["analysis"])[0]
    c.retrain.loop.tick(n=10 ** 5)
    v = c.values()
    for key, _, _ in rows(c.retrain.run):
        assert v[f"extrapolation.retrain.mine.{key}"] == v[f"extrapolation.retrain.built.{key}"] != "—", key
    p = extrap_analysis.pca_by_depth(c.retrain.run)
    xs, ys, labels = c.figure.states_plot.data()
    assert c.figure.states_pane.visible and xs == p["x"] and labels == [f"depth {d}" for d in p["depth"]]
