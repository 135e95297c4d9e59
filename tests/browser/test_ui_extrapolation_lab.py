"""The extrapolation lab in the browser: every number of its tables is the shipped records'
(tests/extrap_trained.py, worked out from the records alone); every verdict is the records'; a
retrain at the page's demonstration budget pauses, keeps its model, goes on and finishes, measured
beside the shipped run of the same setting; the language is read by counting only."""
import pytest

from gleam_lab.app.chapters.extrapolation_lab.retrain import rows
from gleam import pretrained
from gleam.labs.extrapolation import brackets as extrap_brackets
from helpers import wait_until
from tests.extrap_trained import KEY, expected, verdicts

pytestmark = pytest.mark.ui


def open_lab(lab):
    if lab.chapter_in_url() != "extrapolation" or lab.page.locator(".gl-chextrapolation-x").count() == 0:
        lab.show("extrapolation")


def choose(lab, cls, label):
    lab.page.locator(f".{cls} select").select_option(label=label)


def test_the_tables_show_the_records(shared_lab):
    lab = shared_lab
    open_lab(lab)
    want = expected()
    want.update({f"{KEY}.{name}.published.{i}.verdict": v for name, vs in verdicts().items() for i, v in enumerate(vs)})

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
    lab.train_again("gl-chextrapolation-rt-train")
    lab.wait_text("extrapolation.retrain.status", lambda s: s == "finished", timeout=180, what="finished")
    shown = lab.shown_values()
    assert int(shown["extrapolation.retrain.updates"]) > kept
    assert shown["extrapolation.retrain.updates"] == shown["extrapolation.retrain.total"]
    config = {**pretrained.SPECS["extrapolation"]["length_depth"]["fixed"], "cell": "lstm", "seed": 0}
    for key, _, _ in rows(extrap_brackets.BracketsRun(config)):
        assert shown[f"extrapolation.retrain.mine.{key}"] not in ("—", None), key
        assert shown[f"extrapolation.retrain.built.{key}"] not in ("—", None), key      # the shipped run beside it


def test_the_language_is_read_by_counting_only(shared_lab):
    lab = shared_lab
    open_lab(lab)

    def disabled():
        return lab.page.locator(".gl-chextrapolation-kind select").is_disabled()
    choose(lab, "gl-chextrapolation-x", "2. counting (accept)")
    wait_until(lambda: not disabled(), page=lab.page, message="counting reads the language")
    choose(lab, "gl-chextrapolation-x", "4. nested sums")
    wait_until(disabled, page=lab.page, message="nested sums do not")
    lab.wait_text("extrapolation.retrain.demo", lambda t: t.startswith("400 sums drawn"), what="the sums demo budget")
    choose(lab, "gl-chextrapolation-x", "1. length vs depth")
    # the select stays disabled from the sums: wait for the page to hold the new setting's retrain
    # (a test leaving the server mid-push would close its socket under a write)
    lab.wait_text("extrapolation.retrain.demo", lambda t: t.startswith("1,000 examples, 5 epochs"),
                  what="the length-vs-depth demo budget")
    wait_until(disabled, page=lab.page, message="length vs depth does not")
