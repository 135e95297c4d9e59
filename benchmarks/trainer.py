"""Char-GRU training speed: gleam (batched over time) vs the chapter-6 reference (step by step).

One step = forward + backward on a K = 25 character chunk + clipping + Adagrad, V = 24 (the lab's
default corpus), at H = 32, 64, 128. Both run in this process on the same corpus, in interleaved
rounds (gleam, reference, gleam, ...), each round ~BUDGET seconds of steps; the medians are reported.
Prints a table, then one JSON line: {"32": {"gleam": .., "reference": .., "ratio": ..}, ...}
(wall-clock medians). The table also gives steps per CPU-second of this process, steadier than
wall time when other processes share the machine.

    python benchmarks/trainer.py [--rounds 5] [--budget 1.0]
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from gleam.chargru import DEFAULT_CORPUS, CharGRU  # noqa: E402
from reference_chargru import ReferenceCharGRU  # noqa: E402


def run(step, budget):
    """Steps for ~budget wall seconds; returns (steps per wall second, steps per CPU second)."""
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < budget:
        n += step()
    return n / (time.perf_counter() - start), n / max(time.process_time() - cpu, 1e-9)


def gleam_steps(model):
    def step():
        stats = model.step(10)
        if stats.diverged:                      # keep measuring real steps
            model.reset()
        return stats.n
    return step


def reference_steps(model):
    def step():
        model.step()
        return 1
    return step


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--hidden", type=int, nargs="+", default=[32, 64, 128])
    args = parser.parse_args(argv)

    print(f"numpy {np.__version__}, Python {sys.version.split()[0]}, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    results = {}
    for H in args.hidden:
        fast = gleam_steps(CharGRU(DEFAULT_CORPUS, hidden=H, seq_len=25, lr=0.1, seed=0))
        slow = reference_steps(ReferenceCharGRU(DEFAULT_CORPUS, hidden=H, seq_len=25, lr=0.1, seed=0))
        run(fast, 0.1), run(slow, 0.1)                               # warm up
        g, r = [], []
        for _ in range(args.rounds):
            g.append(run(fast, args.budget))
            r.append(run(slow, args.budget))
        (gw, gc), (rw, rc) = ([statistics.median(x) for x in zip(*runs)] for runs in (g, r))
        results[str(H)] = {"gleam": round(gw, 1), "reference": round(rw, 1),
                           "ratio": round(gw / rw, 2)}
        print(f"H={H:4d}  gleam {gw:7.0f} steps/s (rounds {min(x[0] for x in g):.0f}.."
              f"{max(x[0] for x in g):.0f})  reference {rw:6.0f} steps/s (rounds "
              f"{min(x[0] for x in r):.0f}..{max(x[0] for x in r):.0f})  ratio {gw / rw:5.2f}   "
              f"| per CPU-second: {gc:.0f} vs {rc:.0f}, ratio {gc / rc:.2f}", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
