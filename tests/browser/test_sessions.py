"""Under `panel serve`, every visitor has a lab of their own: two browser contexts training
chapter 7 at the same time see their own step counts and losses (a paused one stays put while
the other runs; Reset in one leaves the other alone)."""
import re
from pathlib import Path

import pytest

from helpers import wait_until

pytestmark = pytest.mark.ui


def steps(lab):
    return int(lab.number("ch7.steps"))


def train(lab):
    lab.click("gl-ch7-train")
    lab.wait_text("ch7.status", lambda s: s == "training", what="'training'")


def pause(lab):
    lab.click("gl-ch7-pause")
    lab.wait_text("ch7.status", lambda s: s == "paused", what="'paused'")


def test_two_sessions_train_independently(pages, serve_site):
    a, b = pages.new(serve_site, "session A"), pages.new(serve_site, "session B")
    for lab in (a, b):
        lab.open("7")
        assert lab.text("ch7.steps") == "0"
    train(a)
    train(b)
    for lab in (a, b):
        lab.wait_number("ch7.steps", lambda n: n >= 20, what=">= 20")

    # A paused stays where it is while B trains on
    pause(a)
    n_a, loss_a = steps(a), a.text("ch7.loss")
    n_b = steps(b)
    b.wait_number("ch7.steps", lambda n: n > n_b + 20, what=f"> {n_b + 20}")
    a.page.wait_for_timeout(1500)
    assert steps(a) == n_a and a.text("ch7.loss") == loss_a
    assert a.text("ch7.status") == "paused" and b.text("ch7.status") == "training"

    # Reset in B restarts B only
    pause(b)
    b.click("gl-ch7-reset")
    b.wait_text("ch7.steps", lambda t: t == "0", what="0 after Reset")
    assert steps(a) == n_a and a.text("ch7.loss") == loss_a

    # stepping A moves A only; B, reset, stays at 0
    a.click("gl-ch7-step")
    a.wait_text("ch7.steps", lambda t: t == str(n_a + 1), what=str(n_a + 1))
    b.page.wait_for_timeout(500)
    assert b.text("ch7.steps") == "0"

    # and A trains on from where it was while B stays reset
    train(a)
    a.wait_number("ch7.steps", lambda n: n > n_a + 20, what=f"> {n_a + 20}")
    assert b.text("ch7.steps") == "0" and b.text("ch7.status") == "ready"
    pause(a)
    assert b.text("ch7.steps") == "0"


def test_a_class_on_two_processes_each_learner_has_a_lab_of_their_own(pages, two_process_site):
    """`panel serve app/ --num-procs 2`: two worker processes share the port; every session
    lives in one of them (its models, loop and generators with it), so links open as they say
    and sessions train independently whichever process serves them."""
    site = two_process_site
    labs = [pages.new(site, f"learner {i}") for i in range(4)]
    for i, lab in enumerate(labs):
        lab.open_query(f"?chapter=7&temp={0.5 + 0.25 * i}", "7")
        assert lab.text("ch7.temperature") == f"{0.5 + 0.25 * i:.2f}" and lab.text("ch7.steps") == "0"
    train(labs[0])
    labs[0].wait_number("ch7.steps", lambda n: n >= 10, what=">= 10")
    for lab in labs[1:3]:
        lab.click("gl-ch7-step")
        lab.wait_text("ch7.steps", lambda t: t == "1", what="1")
    pause(labs[0])
    assert labs[3].text("ch7.steps") == "0" and [lab.text("ch7.steps") for lab in labs[1:3]] == ["1", "1"]
    log = Path(site.log).read_text(errors="replace")
    workers = set(re.findall(r"^(\d+) Starting Bokeh server with process id: \1$", log, re.M))
    assert len(workers) == 2, log[-2000:]
    served = set(re.findall(r"^(\d+) WebSocket connection opened", log, re.M))
    assert served and served <= workers, log[-2000:]
