"""The memory lab's carry challenge: can a state hold one bit through a noisy delay?

A cue c = ±1 is written at t = 0 as h_0 = tanh(c); then `delay` steps each admit a distractor
x_t ~ N(0, noise_sd²). Three update rules, named by kind (gleam.cells.names), share the same
cues and the same noise:
    "elman" (a plain RNN):     h ← tanh(carry · h + admission · x)
    "lstm", "gru":             h ← carry · h + admission · tanh(x)
The "lstm" and "gru" paths are those cells with frozen gates: an LSTM's c with forget gate
f = carry and input gate i = admission (c ← f c + i tanh(·)), and a GRU's h with its update
gate frozen (h ← (1−z) h + z h̃, 1 − z = carry, z = admission). That is one affine recurrence,
so on the same noise their rows are identical by design.

The draws are the reference program's (the syllabus states them): each configuration of a
challenge draws from its own fresh `random.Random(seed)` (Python's standard library), trial by
trial the cue first (+1 if rng.random() >= 0.5, else −1), then `delay` distractors
rng.gauss(0.0, noise_sd) in order (drawn even when noise_sd is 0). So all three see the same
cues and distractors, and one draw serves them. A trial is correct when (h_final ≥ 0) equals
(cue ≥ 0); its margin is cue · h_final; its sensitivity |f(cue + ε) − f(cue − ε)| / 2ε on the
same distractors (f: the final state written from tanh(cue)); a row reports the mean margin and
the median sensitivity.
"""
import functools
import random
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.dynamics import half_life

__all__ = ["CarryPreset", "PRESETS", "ARCHITECTURES", "simulate", "draws", "carry_challenge", "run_preset"]

# the rows of a challenge, in order: the plain RNN, then the two gated paths
ARCHITECTURES = ("elman", "lstm", "gru")


@dataclass(frozen=True)
class CarryPreset:
    delay: int              # noisy steps between the write and the read
    noise_sd: float         # standard deviation of each distractor x_t
    gated_carry: float      # per-step keep factor of the gated paths (f, or 1 − z)
    gated_admission: float  # per-step write weight of the gated paths (i, or z)
    elman_carry: float      # recurrent weight of the plain RNN
    elman_admission: float  # input weight of the plain RNN


PRESETS = {
    "long noisy delay": CarryPreset(64, 0.35, 0.99, 0.02, 0.90, 0.12),
    # a 4-step task with silent distractors (noise_sd exactly 0): every architecture passes it
    "negative control": CarryPreset(4, 0.0, 0.99, 0.02, 0.90, 0.12),
    # the gated paths with a short time constant: they forget like the RNN
    "misgated": CarryPreset(64, 0.35, 0.90, 0.10, 0.90, 0.12),
}


def simulate(arch, cues, noise, carry, admission, every_step=False):
    """Final states (trials,) for cues (trials,) and noise (delay, trials), vectorised over
    trials; every_step=True: the whole trajectory h_0 … h_delay, (delay + 1, trials)."""
    every_step = checks.flag("every_step", every_step)
    checks.one_of("arch", arch, ARCHITECTURES)
    cues = checks.array("cues", cues)
    noise = checks.array("noise", noise)
    carry = checks.number("carry", carry, minimum=0, maximum=1)
    admission = checks.number("admission", admission, minimum=0,
                              maximum=None if arch == "elman" else 1)
    if cues.ndim != 1 or noise.ndim != 2 or noise.shape[1] != cues.shape[0]:
        raise ValueError(f"cues {cues.shape} and noise {noise.shape} must be (trials,) and (delay, trials)")
    # write: h_0 = tanh(cue)
    h = np.tanh(cues)
    path = [h]
    for x in noise:
        if arch == "elman":
            h = np.tanh(carry * h + admission * x)
        else:
            h = carry * h + admission * np.tanh(x)
        if every_step:
            path.append(h)
    return np.array(path) if every_step else h


def draws(delay, noise_sd, trials=5000, seed=46):
    """The reference program's draws from random.Random(seed): per trial, the cue, then its
    distractors -> cues (trials,), noise (delay, trials), both read-only (the last few draws
    are kept: moving a carry or admission slider draws nothing again)."""
    delay = checks.integer("delay", delay, minimum=0, whole_floats=True)
    trials = checks.integer("trials", trials, minimum=1, whole_floats=True)
    checks.entries("delay and trials", (delay, trials), (delay, trials))
    noise_sd = checks.number("noise_sd", noise_sd, minimum=0)
    if checks.seed("seed", seed) is None:
        raise ValueError("seed must be an integer >= 0 (the reference program draws from "
                         "random.Random(seed)), got None")
    return _draw(delay, noise_sd, trials, int(seed))


@functools.lru_cache(maxsize=8)
def _draw(delay, noise_sd, trials, seed):
    rng = random.Random(seed)
    cues, noise = np.empty(trials), np.empty((trials, delay))
    for k in range(trials):
        cues[k] = 1.0 if rng.random() >= 0.5 else -1.0
        noise[k] = [rng.gauss(0.0, noise_sd) for _ in range(delay)]
    noise = noise.T.copy()
    cues.setflags(write=False)
    noise.setflags(write=False)
    return cues, noise


def _check(delay, noise_sd, carry, admission, trials, gated=False):
    delay = checks.integer("delay", delay, minimum=0, whole_floats=True)
    trials = checks.integer("trials", trials, minimum=1, whole_floats=True)
    checks.entries("delay and trials", (delay, trials), (delay, trials))
    checks.number("noise_sd", noise_sd, minimum=0)
    checks.number("carry", carry, minimum=0, maximum=1)     # a keep fraction
    # the gated paths' admission is a gate value (i, or z); the RNN's an input weight
    checks.number("admission", admission, minimum=0, maximum=1 if gated else None)


def _report(arch, cues, noise, carry, admission, eps):
    h = simulate(arch, cues, noise, carry, admission)
    # ∂h_final/∂cue by central difference, perturbing the cue before the tanh write, same noise
    grad = (simulate(arch, cues + eps, noise, carry, admission)
            - simulate(arch, cues - eps, noise, carry, admission)) / (2 * eps)
    return {
        "architecture": arch,
        "carry": float(carry),
        "admission": float(admission),
        "accuracy": float(np.mean((h >= 0) == (cues >= 0))),
        "mean_margin": float(np.mean(cues * h)),
        "median_abs_grad": float(np.median(np.abs(grad))),
        "half_life": half_life(carry) if carry > 0 else 0.0,
    }


def carry_challenge(delay, noise_sd, gated_carry, gated_admission, elman_carry, elman_admission,
                    trials=5000, seed=46, eps=1e-5):
    """One row per architecture: accuracy of sign(h) against the cue, mean margin cue · h,
    median |∂h_final/∂cue| and the half-life ln 0.5 / ln carry (for the RNN, of its carry
    weight alone, ignoring tanh's derivative). Cues and noise are the reference program's draws
    from random.Random(seed) (see the module's docstring), the same for all three rows."""
    _check(delay, noise_sd, gated_carry, gated_admission, trials, gated=True)
    _check(delay, noise_sd, elman_carry, elman_admission, trials)
    # ∂h/∂cue by a central difference: |Δh| <= 2 + 2·delay, so eps >= 1e-12 keeps it finite
    checks.number("eps", eps, minimum=1e-12, maximum=1)
    cues, noise = draws(delay, noise_sd, trials, seed)
    rows = [_report("elman", cues, noise, elman_carry, elman_admission, eps)]
    rows += [_report(a, cues, noise, gated_carry, gated_admission, eps) for a in ARCHITECTURES[1:]]
    return rows


def run_preset(name, trials=5000, seed=46):
    p = PRESETS[checks.one_of("preset", name, PRESETS)]
    return carry_challenge(p.delay, p.noise_sd, p.gated_carry, p.gated_admission, p.elman_carry,
                           p.elman_admission, trials=trials, seed=seed)
