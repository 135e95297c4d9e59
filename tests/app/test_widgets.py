"""What chapters share, tested alone: value spans, the theme, the streaming curve, the live loop."""
import asyncio
import sys
import time
import types
from dataclasses import asdict, dataclass

import numpy as np
import pytest

from gleam_lab.app.widgets.figures import Heatmaps, LinePlot, SeedCurves, SignedBars
from gleam_lab.app.widgets.streaming import StreamingCurve
from gleam_lab.app.widgets import live_loop
from gleam_lab.app.widgets.live_loop import LiveLoop, View
from gleam_lab.app.widgets.page import gv
from gleam_lab.app.widgets.theme import PALETTE, variables_css


def test_gv_escapes_everything():
    out = gv('a"<b>', "<script>x</script>")
    assert "<script>" not in out and "&lt;script&gt;" in out and 'data-key="a&quot;&lt;b&gt;"' in out


def test_the_theme_names_every_colour_once_as_a_css_variable():
    css = variables_css()
    for name, colour in asdict(PALETTE).items():
        if name != "heatmap":
            var = name.replace('_', '-')
            assert f"--gl-{var}: var(--gl-root-{var}, {colour});" in css     # the page's choice, else light


def test_signed_bars_colour_by_sign():
    bars = SignedBars([("a", "1"), ("a", "2")], y_range=(-1, 1))
    bars.show([0.5, -0.25])
    assert bars.source.data["top"] == [0.5, -0.25]
    assert bars.source.data["color"] == [PALETTE.positive, PALETTE.negative]


def test_heatmaps_share_one_source():
    maps = Heatmaps({"z": "z", "r": "r"}, rows=3, cols=4)
    z, r = np.full((3, 4), 0.25), np.full((3, 4), 0.75)
    maps.show(z=z, r=r)
    assert maps.source.data["z"][0].shape == (3, 4) and maps.source.data["r"][0][0, 0] == 0.75
    maps.resize(5, 6)
    assert all(f.y_range.end == 5 and f.x_range.end == 6 for f in maps.figs.values())


def test_streaming_curve_keeps_every_step_in_bounded_points():
    curve = StreamingCurve("t", "step", y_end=3.0, lines={"chance": ("chance", PALETTE.negative, "dashed", "above")},
                           max_points=40)
    curve.restart(3.0, {"chance": 3.0})
    steps = np.arange(1, 144)
    for chunk in np.array_split(steps, 13):                  # 13 pushes of 11 steps
        curve.stream(chunk, 2.0 + 0 * chunk, 1.0 + chunk / 1000)
    curve.stream([], [], [], final=True)                     # training stopped: the partial group too
    data = curve.source.data
    assert len(data["step"]) <= 40 and curve.stride > 1
    assert list(data["step"]) == sorted(data["step"]) and data["step"][-1] == 143
    assert sum(p[3] for p in curve.points) == 143            # every step counted once
    # a merged point's raw value is the mean of its steps
    first = curve.points[0]
    assert first[2] == pytest.approx(np.mean(1.0 + steps[:first[3]] / 1000))
    assert curve.fig.x_range.end >= 143 and curve.fig.y_range.end >= 1.1 * 2.0
    curve.restart(2.0)
    assert len(curve.source.data["step"]) == 0 and curve.stride == 1 and curve.fig.y_range.end == 2.2
    curve.stream([1, 2, 3], [3.0] * 3, [3.0] * 3, final=True)     # a run that stopped at step 3
    assert curve.fig.x_range.end == 200
    curve.fit_x()
    assert curve.fig.x_range.end == 10


@dataclass
class Stats:
    loss: np.ndarray
    seconds: float
    diverged: bool

    @property
    def n(self):
        return len(self.loss)


class CountingTrainer:
    """A trainer whose step t has loss 1/t; it diverges after `limit` updates."""

    def __init__(self, limit=10**9):
        self.steps, self.limit, self.resets = 0, limit, 0

    def step(self, n):
        losses = []
        for _ in range(n):
            if self.steps >= self.limit:
                return Stats(np.array(losses + [np.inf]), 1e-4, True)
            self.steps += 1
            losses.append(1.0 / self.steps)
        return Stats(np.array(losses), 1e-4 * n, False)

    def reset(self):
        self.steps, self.resets = 0, self.resets + 1


async def train_until_it_stops(loop):
    """Train, as a page's event loop runs it, until the loop stops (at most 20 s)."""
    loop.training = True
    deadline = time.perf_counter() + 20
    while loop.training or loop.running:
        await asyncio.sleep(0.001)
        assert time.perf_counter() < deadline, f"still training after {loop.trainer.steps} steps"


def test_the_loop_steps_queues_the_curve_and_pushes_on_stop():
    pushed = []
    trainer = CountingTrainer()
    loop = LiveLoop(trainer, views=[View(10.0, lambda final: pushed.append(("stats", final))),
                                    View(10.0, lambda final: pushed.append(("curve", loop.take_curve())),
                                         lambda final: loop.has_curve())])
    loop.param.trigger("step_once")
    loop.param.trigger("step_once")
    assert trainer.steps == 2 and loop.status == "paused"
    assert pushed == [("stats", True), ("curve", ([1], [1.0], [1.0])),
                      ("stats", True), ("curve", ([2], [pytest.approx(0.97 + 0.03 * 0.5)], [0.5]))]
    pushed.clear()
    loop.tick(n=5)
    loop.push()                     # within `every` of the last push: nothing yet
    assert pushed == [] and loop.has_curve()
    loop.flush()
    assert [name for name, _ in pushed] == ["stats", "curve"] and pushed[1][1][0] == [3, 4, 5, 6, 7]


def test_the_loop_reports_divergence_and_reset_starts_again():
    restarts = []
    trainer = CountingTrainer(limit=3)
    loop = LiveLoop(trainer, on_restart=lambda: restarts.append(loop.status))
    loop.tick(n=10)
    assert loop.status == "diverged" and not loop.training and trainer.steps == 3
    loop.param.trigger("step_once")                 # refused until Reset
    loop.training = True
    assert trainer.steps == 3 and not loop.training
    loop.param.trigger("reset")
    assert trainer.resets == 1 and loop.status == "ready" and loop.ema is None and restarts == ["ready"]
    loop.replace(CountingTrainer())
    assert loop.trainer.steps == 0 and restarts == ["ready", "ready"]


class FixedRun(CountingTrainer):
    """A run of `total` updates (gleam.labs.memory.run.CueDelayRun's shape): `finished` at its end."""

    def __init__(self, total):
        super().__init__()
        self.total = total

    finished = property(lambda self: self.steps >= self.total)

    def step(self, n):
        return super().step(min(n, self.total - self.steps))


def test_a_run_of_fixed_length_stops_as_finished_and_only_reset_starts_it_again():
    pushed = []
    run = FixedRun(400)
    loop = LiveLoop(run, views=[View(10.0, lambda final: pushed.append((final, loop.status)))])
    loop.tick(n=5)
    assert loop.status == "ready" and run.steps == 5

    asyncio.run(train_until_it_stops(loop))
    assert run.steps == 400 and loop.status == "finished" and not loop.training
    assert pushed[-1] == (True, "finished")               # stopping pushed the exact figures
    loop.param.trigger("step_once")
    loop.training = True
    assert run.steps == 400 and not loop.training and loop.status == "finished"
    loop.param.trigger("reset")
    assert run.steps == 0 and loop.status == "ready"
    loop.param.trigger("step_once")
    assert run.steps == 1 and loop.status == "paused"


def test_the_loops_of_one_process_take_turns_so_a_click_waits_behind_one_tick_at_most():
    """Five sessions training on one event loop (panel serve): between two turns of a waiting
    coroutine (a click being handled) at most one loop trains, and a tick's budget is shared."""
    log = []

    class Slow(CountingTrainer):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def step(self, n):
            log.append(self.name)
            end = time.perf_counter() + 0.001 * n      # 1 ms a step
            while time.perf_counter() < end:
                pass
            return Stats(np.ones(n), 0.001 * n, False)

    async def main():
        loops = [LiveLoop(Slow(i)) for i in range(5)]
        for loop in loops:
            loop.training = True
        wakes = []
        deadline = time.perf_counter() + 20
        while len(wakes) < 2 or len(set(log[wakes[0]:])) < 5:   # the click's handler, step by step
            await asyncio.sleep(0)
            wakes.append(len(log))
            assert time.perf_counter() < deadline, f"only {sorted(set(log))} trained"
        budgets = [live_loop.TURNS.budget(loop.budget) for loop in loops]
        for loop in loops:
            loop.training = False
        await asyncio.sleep(0.05)
        return wakes, budgets, loops

    wakes, budgets, loops = asyncio.run(main())
    trained_between = [{log[i] for i in range(a, b)} for a, b in zip(wakes, wakes[1:])]
    assert max(len(names) for names in trained_between) == 1, [n for n in trained_between if len(n) > 1]
    assert len({name for names in trained_between for name in names}) == 5   # every session had turns
    assert budgets == [live_loop.TICK_MIN] * 5 and live_loop.TURNS.training == 0
    assert not any(loop.running for loop in loops)
    alone = LiveLoop(CountingTrainer())
    assert live_loop.TURNS.budget(alone.budget) == live_loop.TICK_BUDGET


@pytest.mark.parametrize("in_pyodide", [False, True])
def test_a_message_from_the_page_is_handled_before_the_next_tick(monkeypatch, in_pyodide):
    """A click reaches the loop as a message (its own task) that schedules the coroutine applying
    its patch, as Pyodide's worker runs them (main.js: onmessage, then runPythonAsync). Both run
    before the next tick, in the browser with no timer between ticks (a timer there idled the
    worker 4 ms or more a tick), under a server after TICK_SLEEP."""
    if in_pyodide:
        monkeypatch.setitem(sys.modules, "pyodide", types.ModuleType("pyodide"))
    delays, log = [], []

    class Asyncio:                     # what live_loop sees as asyncio: its sleeps are recorded
        def __getattr__(self, name):
            return getattr(asyncio, name)

        async def sleep(self, delay):
            delays.append(delay)
            await asyncio.sleep(delay)

    monkeypatch.setattr(live_loop, "asyncio", Asyncio())

    class Clicked(CountingTrainer):
        def step(self, n):
            if self.steps == 20:           # during the third tick the page sends Pause
                asyncio.get_running_loop().call_soon(message)
            return super().step(n)

    def message():                       # the worker's onmessage: queue the patch's coroutine
        log.append("message")
        asyncio.ensure_future(apply_patch())

    async def apply_patch():
        log.append("patch")
        loop.training = False

    loop = LiveLoop(Clicked())
    real_tick = loop.tick
    monkeypatch.setattr(loop, "tick", lambda **kw: (log.append("tick"), real_tick(n=10))[1])

    asyncio.run(train_until_it_stops(loop))
    assert log == ["tick", "tick", "tick", "message", "patch"], log
    assert loop.trainer.steps == 30 and loop.status == "paused"
    assert delays == ([0, 0] if in_pyodide else [live_loop.TICK_SLEEP]) * 3, delays


def test_a_line_plots_unlabelled_series_have_no_legend_entry():
    plot = LinePlot({"a.0": ("a", PALETTE.positive, "solid"), "a.1": ("", PALETTE.positive, "dashed"),
                     "b.0": ("b", PALETTE.secondary, "solid")}, x_range=(0, 1), y_range=(0, 1))
    legend = plot.fig.above[0]
    assert [item.label.value for item in legend.items] == ["a", "b"] and len(plot.fig.renderers) == 3


def test_seed_curves_draw_every_seed_of_a_group_with_one_renderer_and_one_legend_entry():
    plot = SeedCurves({"a": ("cell a", PALETTE.positive, "solid"), "b": ("cell b", PALETTE.secondary, "dashed")},
                      x_range=(0, 10), y_range=(0, 1))
    plot.show(a=[([0, 1], [0.5, 0.9]), ([0, 1, 2], [0.4, 0.6, 1.0])], b=[([0], [0.2])])
    assert len(plot.fig.renderers) == 2
    assert [item.label.value for item in plot.fig.above[0].items] == ["cell a", "cell b"]
    assert plot.data("a.1") == ([0.0, 1.0, 2.0], [0.4, 0.6, 1.0]) and plot.data("b.0") == ([0.0], [0.2])
    plot.show(a=[([1], [1.0])])
    assert plot.data("a.0") == ([1.0], [1.0])
    with pytest.raises(IndexError):
        plot.data("a.1")


def test_line_plot_replaces_its_lines_and_keeps_log_axes_drawable():
    plot = LinePlot({"a": ("a", PALETTE.positive, "solid"), "b": ("b", PALETTE.secondary, "dashed")},
                    x_range=(0, 10), y_range=(1e-6, 2.0), y_log=True, markers={"half": (PALETTE.muted, "dotted")})
    plot.show(a=([0, 1, 2], [1.0, 0.5, 0.0]), b=([0, 1], [2.0, 1.0]))
    assert plot.data("a") == ([0.0, 1.0, 2.0], [1.0, 0.5, 1e-6])     # 0 drawn at the floor
    assert plot.data("b") == ([0.0, 1.0], [2.0, 1.0])
    plot.mark("half", 6.6, "half-life 6.6")
    span, label = plot.markers["half"]
    assert span.visible and span.location == 6.6 and label.text == "half-life 6.6"
    plot.mark("half", None)
    assert not span.visible
    plot.set_ranges(x=(0, 100))
    assert (plot.fig.x_range.start, plot.fig.x_range.end) == (0, 100)


def test_every_widget_description_is_shown_as_text():
    """Panel renders a widget's `description` as Markdown, which passes raw HTML through: the
    embed button's "An <iframe> showing ..." once put an empty frame inside its tooltip. Every
    description of the lab (its contents and every chapter) renders to its own text."""
    import re

    import panel as pn
    from panel.pane.markup import Markdown

    from gleam_lab.app.lab import Lab

    parser = Markdown._get_parser("markdown-it", (), Markdown.hard_line_break)   # as Panel's widgets do
    lab = Lab()
    layouts = [lab.__panel__()] + [lab.view(cid).__panel__() for cid in lab.param.chapter.objects]
    descriptions = {w.description for layout in layouts for w in layout.select(pn.widgets.Widget)
                    if getattr(w, "description", None)}
    assert len(descriptions) >= 4          # the theme's, and the share tools' three
    for text in descriptions:
        rendered = parser.render(text)
        tags = set(re.findall(r"</?([a-z]+)", rendered))
        assert tags <= {"p", "code", "em", "strong"}, (text, rendered)
