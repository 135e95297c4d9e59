"""The extrapolation lab in the browser: every number of its tables is the build's records'
(tests/extrap_trained.py); a retrain pauses, keeps its model, goes on and finishes, measured
beside the build's run (on a server, in CPython, equal to every digit); the choices an experiment
does not read are disabled."""
import pytest

from app.chapters.extrapolation_lab.retrain import rows
from gleam import pretrained
from gleam.labs.extrapolation import brackets as extrap_brackets
from helpers import wait_until
from tests.extrap_trained import expected

pytestmark = pytest.mark.ui


def open_lab(lab):
    if lab.chapter_in_url() != "extrapolation" or lab.page.locator(".gl-chextrapolation-x").count() == 0:
        lab.show("extrapolation")


def choose(lab, cls, label):
    lab.page.locator(f".{cls} select").select_option(label=label)


def test_the_tables_show_the_builds_records(shared_lab):
    lab = shared_lab
    open_lab(lab)
    want = expected()

    def equal():
        shown = lab.shown_values()
        wrong = {k: (shown.get(k), v) for k, v in want.items() if shown.get(k) != v}
        assert not wrong, f"{len(wrong)} values differ from the records', e.g. {list(wrong.items())[:3]}"
    wait_until(equal, page=lab.page, message="for the extrapolation tables")


def test_a_retrain_pauses_goes_on_and_finishes(shared_lab, site):
    lab = shared_lab
    open_lab(lab)
    choose(lab, "gl-chextrapolation-x", "1. length vs depth")
    choose(lab, "gl-chextrapolation-cell", "LSTM")
    lab.wait_text("extrapolation.retrain.updates", lambda t: t == "0", what="0 (a new run)")
    lab.click("gl-chextrapolation-rt-train")
    lab.wait_number("extrapolation.retrain.updates", lambda n: n >= 10, timeout=60, what=">= 10 updates")
    lab.click("gl-chextrapolation-rt-pause")
    lab.wait_text("extrapolation.retrain.status", lambda s: s == "paused", what="paused")
    kept = lab.number("extrapolation.retrain.updates")
    lab.wait_text("extrapolation.retrain.mine.iid_accuracy", lambda t: t != "—", what="the paused model measured")
    lab.click("gl-chextrapolation-rt-train")
    lab.wait_text("extrapolation.retrain.status", lambda s: s == "finished", timeout=180, what="finished")
    shown = lab.shown_values()
    assert int(shown["extrapolation.retrain.updates"]) > kept
    assert shown["extrapolation.retrain.updates"] == shown["extrapolation.retrain.total"]
    config = {**pretrained.SPECS["extrapolation"]["length_depth"]["fixed"], "cell": "lstm", "seed": 0}
    for key, _, _ in rows(extrap_brackets.BracketsRun(config)):
        assert shown[f"extrapolation.retrain.mine.{key}"] not in ("—", None), key
        if site.mode == "serve":
            assert shown[f"extrapolation.retrain.mine.{key}"] == shown[f"extrapolation.retrain.built.{key}"], key


def test_the_choices_an_experiment_does_not_read_are_disabled(shared_lab):
    lab = shared_lab
    open_lab(lab)

    def disabled():
        return {k for k in ("cell", "kind", "split", "head")
                if lab.page.locator(f".gl-chextrapolation-{k} select").is_disabled()}
    choose(lab, "gl-chextrapolation-x", "2. counting")
    wait_until(lambda: disabled() == {"split", "head"}, page=lab.page, message="counting's choices")
    choose(lab, "gl-chextrapolation-x", "3. nested sums")
    wait_until(lambda: disabled() == ({"kind"} if lab.model_value("gl-chextrapolation-head") == "classify"
                                      else {"kind", "split"}), page=lab.page, message="nested sums' choices")
    choose(lab, "gl-chextrapolation-x", "1. length vs depth")
    wait_until(lambda: disabled() == {"kind", "split", "head"}, page=lab.page, message="length vs depth's choices")


def test_a_measured_value_head_draws_its_ceiling(shared_lab):
    lab = shared_lab
    open_lab(lab)
    choose(lab, "gl-chextrapolation-x", "3. nested sums")
    choose(lab, "gl-chextrapolation-head", "regress")
    lab.wait_text("extrapolation.retrain.updates", lambda t: t == "0", what="0 (a new run)")
    lab.click("gl-chextrapolation-rt-step")
    lab.wait_text("extrapolation.figure", lambda t: t.startswith("ceiling ") and "largest value trained on" in t,
                  what="the ceiling of the model after one update")
    assert lab.page.locator(".gl-chextrapolation-values").count() == 1
