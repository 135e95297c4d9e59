"""Live training, written once: Train / Pause / Step / Reset around anything that trains in steps.

The trainer is any object with `step(n) -> stats`, `reset()` and `steps` (updates so far), where
stats has `loss` (the n per-step losses, in order), `n`, `seconds` and `diverged` — a
`gleam.chargru.CharGRU`, or a run of a fixed length (`gleam.labs.memory.run.CueDelayRun`) whose
`finished` turns true at its end: training then stops with the status "finished" (Reset starts
it again).

Training runs as an asyncio task (`pn.state.execute`, so it works under `panel serve` and in the
Pyodide worker alike): a tick trains for a time budget (~40 ms), then lets the event loop handle
what came in meanwhile, so a click or a slider change is handled between two ticks (Panel's
periodic callbacks never yield when a callback outlasts its period). Under a server that is
`await asyncio.sleep(0.004)`, a real timer, as a websocket message takes several turns of the
loop. In Pyodide's worker a message from the page is one task and the patch it applies one more
(a coroutine), so two `asyncio.sleep(0)` do it: Pyodide runs those as immediate tasks, where a
timer left the worker idle for 4 ms or more of every tick. Under `panel serve` every session's
loop runs on the one event loop of the process, so the loops take turns: one trains at a time
(a process-wide lock), for a budget shared among those training (TICK_BUDGET / their number,
at least TICK_MIN), so a click waits behind at most one short tick, never behind every session's.
The trainer reports; the page
listens: every view of the page (a curve, a heatmap, a line of figures, a sample) is a `View`
pushed at its own pace while training, because every push costs the worker time it could train
in and the page a repaint. Whenever training stops (Pause, the Train toggle, divergence) or
after a Step, every view with something new is pushed at once, in the order given, so the page
then shows the exact figures.
"""
import asyncio
import math
import sys
import time
import weakref
from dataclasses import dataclass
from typing import Callable

import panel as pn
import param

from gleam.smoothing import EMA_DECAY, ema

TICK_BUDGET = 0.040        # seconds of training per tick (a click waits at most about this long)
TICK_MIN = 0.010           # a tick's budget when many loops of the process train at once
TICK_SLEEP = 0.004         # under a server, a real timer (> ~2 ms): widget changes are handled between ticks
STATUSES = ("ready", "training", "paused", "diverged", "finished")


class _Turns:
    """The loops of this process that are training, and the lock they take turns by."""

    def __init__(self):
        self.training = 0
        self._locks = weakref.WeakKeyDictionary()    # event loop -> its lock

    @property
    def lock(self):            # one per event loop (a lock belongs to the loop it waits in)
        loop = asyncio.get_running_loop()
        if loop not in self._locks:
            self._locks[loop] = asyncio.Lock()
        return self._locks[loop]

    def budget(self, alone):
        return max(TICK_MIN, alone / max(1, self.training)) if self.training > 1 else alone


TURNS = _Turns()


async def between_ticks():
    """Let the event loop handle what the page sent during a tick (the module's docstring says how)."""
    if "pyodide" in sys.modules:
        await asyncio.sleep(0)     # the page's message: it schedules the coroutine applying its patch
        await asyncio.sleep(0)     # that coroutine, queued before this task's next turn
    else:
        await asyncio.sleep(TICK_SLEEP)


@dataclass
class View:
    """A part of the page the loop keeps up to date: `push(final)` shows what is new, at most
    every `every` seconds while training; `has_news(final)` says whether there is anything."""
    every: float
    push: Callable[[bool], None]
    has_news: Callable[[bool], bool] = lambda final: True


class LiveLoop(param.Parameterized):
    """Train / Pause / Step / Reset for one trainer; the curve's EMA and the pending points."""

    training = param.Boolean(default=False, label="Train", doc="Training runs while this is on.")
    pause = param.Event(label="Pause")
    step_once = param.Event(label="Step")
    reset = param.Event(label="Reset")
    status = param.Selector(default="ready", objects=list(STATUSES))

    def __init__(self, trainer, views=(), on_restart=None, budget=TICK_BUDGET, ema_decay=EMA_DECAY,
                 before_reset=None, **params):
        super().__init__(**params)
        self.trainer = trainer
        self.views = list(views)
        self.on_restart = on_restart
        self.before_reset = before_reset   # called with the trainer just before Reset re-initialises it
        self.budget, self.ema_decay = budget, ema_decay
        self.ema = None            # the last EMA value (it continues across ticks)
        self.rate = 0.0            # steps per second while training
        self.last_stats = None     # what the trainer reported last
        self.running = False       # the training task is alive
        self._curve = ([], [], [])  # steps, EMA, loss: trained but not yet pushed
        self._pushed = [0.0] * len(self.views)   # when each view was last pushed
        self._per_step = 0.002     # seconds per step (measured): sizes the step() calls
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(self._on_session_destroyed)

    def _on_session_destroyed(self, session_context):
        self.training = False      # the page is gone: stop the loop

    # ------------------------------------------------------------ the controls
    def controls(self, css_prefix, width=70):
        """Train / Pause / Step / Reset, with css classes `{css_prefix}-train` etc."""
        w = pn.widgets
        return pn.Row(*[
            kind.from_param(self.param[name], label=label, css_classes=[f"{css_prefix}-{cls}"],
                            width=width, margin=(5, 4), **extra)
            for kind, name, label, cls, extra in (
                (w.Toggle, "training", "Train", "train", {"color": "success"}),
                (w.Button, "pause", "Pause", "pause", {}), (w.Button, "step_once", "Step", "step", {}),
                (w.Button, "reset", "Reset", "reset", {}))], width=4 * (width + 8) + 8)

    @param.depends("training", watch=True)
    def _on_training(self):
        if not self.training:
            if self.status == "training":
                self.status = "paused"
            self.flush()           # stopped: the page shows the exact figures
            return
        if self.status in ("diverged", "finished"):
            self.training = False
            return
        self.status = "training"
        if not self.running:
            self._start()

    @param.depends("pause", watch=True)
    def _on_pause(self):
        if self.training:
            self.training = False  # -> _on_training -> flush()
        else:
            self.flush()

    @param.depends("step_once", watch=True)
    def _on_step(self):
        if self.status in ("diverged", "finished"):
            return
        self.tick(n=1)
        if not self.training and self.status not in ("diverged", "finished"):
            self.status = "paused"
        self.flush()

    @param.depends("reset", watch=True)
    def _on_reset(self):
        if self.before_reset is not None:
            self.before_reset(self.trainer)
        self.trainer.reset()
        self.restart()

    def replace(self, trainer):
        """Train `trainer` from now on (a new model): the curve starts again."""
        self.trainer = trainer
        self.restart()

    def restart(self):
        """Forget the curve (EMA, rate, pending points); `on_restart` redraws the views."""
        self.ema, self.rate, self.last_stats = None, 0.0, None
        self._curve = ([], [], [])
        self.status = "training" if self.training else "ready"
        if self.on_restart is not None:
            self.on_restart()

    # ------------------------------------------------------------ training
    def _start(self):
        if "pyodide" not in sys.modules:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                curdoc = pn.state.curdoc
                if curdoc is None or curdoc.session_context is None:
                    # a plain script: nothing runs in the background; train on with Step
                    self.training = False
                    return
        self.running = True
        pn.state.execute(self._run)

    async def _run(self):
        TURNS.training += 1
        try:
            while self.training and self.status not in ("diverged", "finished"):
                async with TURNS.lock:     # one loop of the process trains at a time
                    if not self.training:
                        break
                    self.tick(budget=TURNS.budget(self.budget))
                    if self.training:      # (a stop has already flushed everything)
                        self.push()
                    # the turn ends after a pause in which the page's events are handled; the next
                    # loop waiting for the lock trains only then
                    await between_ticks()
        finally:
            TURNS.training -= 1
            self.running = False

    def tick(self, budget=None, n=None):
        """Train for `n` steps, or for about `budget` seconds; queue the results for the views."""
        trainer = self.trainer
        first_step = trainer.steps + 1
        losses, start, stats, elapsed = [], time.perf_counter(), None, 0.0
        while True:
            k = n
            if n is None:  # calls of ~1/4 budget, the last one cut to what is left: ticks end near it
                k = max(1, min(round((budget - elapsed) / self._per_step), int(0.25 * budget / self._per_step)))
            stats = trainer.step(k)
            losses.extend(stats.loss.tolist())
            if stats.n:
                self._per_step = max(stats.seconds / stats.n, 1e-5)
            elapsed = time.perf_counter() - start
            if n is not None or stats.diverged or stats.n == 0 or elapsed + 0.5 * self._per_step >= budget:
                break
        if losses and elapsed > 0 and n is None:
            self.rate = len(losses) / elapsed
        finite = [v for v in losses if math.isfinite(v)]
        emas = ema(finite, self.ema_decay, start=self.ema) if finite else []
        if len(emas):
            self.ema = float(emas[-1])
            steps, ema_list, loss_list = self._curve
            steps.extend(first_step + i for i, v in enumerate(losses) if math.isfinite(v))
            ema_list.extend(float(e) for e in emas)
            loss_list.extend(finite)
        self.last_stats = stats
        # divergence is the trainer's call (or a loss that is not finite)
        if stats.diverged or len(finite) < len(losses):
            self.status = "diverged"
            self.training = False  # -> _on_training -> flush()
        elif getattr(trainer, "finished", False):
            self.status = "finished"
            self.training = False  # -> _on_training -> flush() (a Step flushes after its tick)

    def has_curve(self):
        return bool(self._curve[0])

    def take_curve(self):
        """(steps, EMA values, losses) trained since the last call."""
        curve, self._curve = self._curve, ([], [], [])
        return curve

    # ------------------------------------------------------------ pushing
    def push(self, final=False):
        """Push each view whose interval has passed (every view with something new, if `final`)."""
        now = time.perf_counter()
        for i, view in enumerate(self.views):
            if view.has_news(final) and (final or now - self._pushed[i] >= view.every):
                self._pushed[i] = now
                view.push(final)

    def flush(self):
        self.push(final=True)
