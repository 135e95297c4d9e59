"""What a research run answers for its page (gleam.labs.stepped.SteppedRun: baseline_loss,
table_rows, figure), so that the app lays it out without asking what class the run is."""
import math

import numpy as np
import pytest

from gleam.labs.extrapolation import analysis, brackets, counting, sums
from tests.core import test_extrap_analysis, test_extrap_brackets, test_extrap_counting, test_extrap_sums

RUNS = {"brackets": lambda **k: brackets.BracketsRun({**test_extrap_brackets.SMALL, **k}),
        "counting": lambda **k: counting.CountingRun({**test_extrap_counting.SMALL, **k}),
        "counting_lstm": lambda **k: counting.CountingRun({**test_extrap_counting.SMALL, "cell": "lstm", **k}),
        "counting_predict": lambda **k: counting.CountingRun({**test_extrap_counting.SMALL, "mode": "predict", **k}),
        "sums": lambda **k: sums.SumsRun({**test_extrap_sums.SMALL, "head": "classify", **k}),
        "sums_regress": lambda **k: sums.SumsRun({**test_extrap_sums.SMALL, "split": "value", "head": "regress", **k}),
        "analysis": lambda **k: analysis.AnalysisRun({**test_extrap_analysis.SMALL, **k})}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_every_row_names_a_metric_the_run_measures(name):
    run = RUNS[name]()
    run.step(2)
    rows = run.table_rows()
    measured = run.metrics()
    assert rows and all(isinstance(label, str) and fmt in ("f2", "f3", "horizon", "sci")
                        for _, label, fmt in rows)
    assert [key for key, _, _ in rows if key not in measured] == []


@pytest.mark.parametrize("name, classes", [("brackets", 2), ("counting", 2), ("counting_predict", 4), ("sums", 10),
                                           ("analysis", 10)])
def test_a_classifiers_baseline_is_the_loss_of_a_uniform_guess(name, classes):
    assert RUNS[name]().baseline_loss() == pytest.approx(math.log(classes), rel=1e-15)


def test_a_value_heads_baseline_is_the_squared_error_of_guessing_the_mean():
    run = RUNS["sums_regress"]()
    values = np.array([e.facts["value"] for e in run.train_examples], float)
    assert run.baseline_loss() == pytest.approx(np.mean((values - values.mean()) ** 2), rel=1e-12)
    assert run.baseline_loss() > 1.0


def test_the_figures_are_plain_data_of_their_kind():
    assert RUNS["brackets"]().figure() is None and RUNS["sums"]().figure() is None
    values = RUNS["sums_regress"]().figure()
    assert values["kind"] == "values" and len(values["values"]) == len(values["mean_prediction"]) > 0
    states = RUNS["analysis"]().figure()
    assert states["kind"] == "states_by_depth" and len(states["x"]) == len(states["y"]) == len(states["depth"]) > 0
