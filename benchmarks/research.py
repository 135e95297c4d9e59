"""The research trainer's speed: gleam.seqmodel.Trainer.step against PyTorch eager, same model.

One step = forward + backward + global-norm clipping (5.0) + Adam (lr 1e-3) on one batch of
B = 64 sequences, T = 40 steps of d = 8 real features (float64, N(0, 1); not token ids), a
many-to-one classify head over C = 4 classes (softmax cross-entropy at the last step).
- gleam: SeqModel(SeqModelConfig(cell, d=8, n=H, n_out=4)) with cell "gru_torch" or "lstm",
  Trainer(model, Adam(1e-3), clip=5.0, batch_size=64).step(batch), the batch a SeqData built once.
- torch: nn.GRU / nn.LSTM(8, H) + nn.Linear(H, 4) in float64 on the CPU, eager, holding gleam's
  initial weights (so the first losses agree, printed as a check), F.cross_entropy,
  clip_grad_norm_(5.0), torch.optim.Adam(lr=1e-3). torch.set_num_threads(1), and NumPy's BLAS
  held to one thread as well (OPENBLAS_NUM_THREADS etc. = 1 unless already set).
Both run in this process in interleaved rounds (gleam, torch, gleam, ...), each ~BUDGET seconds
of steps; the medians of sequences per second are reported, with the ratio gleam / torch (> 1:
gleam is faster) and the same per CPU-second of this process. Nothing is asserted.

Prints a table, then as its last line one JSON object:
{"gru": {"32": {"gleam": seq_per_s, "torch": seq_per_s}, "128": {...}}, "lstm": {...}}.

    python benchmarks/research.py [--rounds 5] [--budget 1.0] [--hidden 32 128]
    python benchmarks/research.py --profile gru 32      # cProfile of gleam's step instead
"""
import argparse
import json
import os
import statistics
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")          # before NumPy loads its BLAS

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from gleam.optim import Adam  # noqa: E402
from gleam.seqmodel import SeqData, SeqModel, SeqModelConfig, Trainer  # noqa: E402

B, T, D, C = 64, 40, 8, 4
LR, CLIP = 1e-3, 5.0
CELLS = {"gru": ("gru_torch", torch.nn.GRU), "lstm": ("lstm", torch.nn.LSTM)}


def problem(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((T, B, D))
    y = rng.integers(0, C, B)
    return X, y


def gleam_setup(cell, H, X, y):
    model = SeqModel(SeqModelConfig(CELLS[cell][0], d=D, n=H, n_out=C, seed=0))
    trainer = Trainer(model, Adam(LR), clip=CLIP, batch_size=B)
    batch = SeqData(X, np.ones((T, B), bool), y)
    return model, lambda: trainer.step(batch)


def torch_setup(cell, H, X, y, params):
    torch.manual_seed(0)
    rnn = CELLS[cell][1](D, H).double()
    head = torch.nn.Linear(H, C).double()
    with torch.no_grad():           # gleam's initial weights (same packing: torch's own)
        for name in ("W_ih", "W_hh", "b_ih", "b_hh"):
            t_name = {"W_ih": "weight_ih_l0", "W_hh": "weight_hh_l0",
                      "b_ih": "bias_ih_l0", "b_hh": "bias_hh_l0"}[name]
            getattr(rnn, t_name).copy_(torch.from_numpy(params[name]))
        head.weight.copy_(torch.from_numpy(params["Wo"]))
        head.bias.copy_(torch.from_numpy(params["bo"]))
    weights = list(rnn.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(weights, lr=LR)
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)

    def step():
        opt.zero_grad()
        out, _ = rnn(Xt)
        loss = torch.nn.functional.cross_entropy(head(out[-1]), yt)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(weights, CLIP)
        opt.step()
        return loss.item()
    return step


def run(step, budget):
    """Steps for ~budget wall seconds -> (sequences per wall second, per CPU second)."""
    n, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < budget:
        step()
        n += 1
    return n * B / (time.perf_counter() - start), n * B / max(time.process_time() - cpu, 1e-9)


def profile(cell, H, steps=100):
    import cProfile
    import pstats
    X, y = problem()
    _, step = gleam_setup(cell, H, X, y)
    step()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(steps):
        step()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--hidden", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--profile", nargs=2, metavar=("CELL", "H"),
                        help="cProfile gleam's step for one cell and width, then stop")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile[0], int(args.profile[1]))
        return
    torch.set_num_threads(1)
    print(f"numpy {np.__version__}, torch {torch.__version__}, Python {sys.version.split()[0]}, "
          f"torch threads {torch.get_num_threads()}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; "
          f"B={B} T={T} d={D} (features) C={C}, Adam lr={LR}, clip {CLIP}")
    X, y = problem()
    results = {}
    for cell in CELLS:
        for H in args.hidden:
            model, fast = gleam_setup(cell, H, X, y)
            slow = torch_setup(cell, H, X, y, model.params)
            first_gleam, first_torch = fast().loss, slow()         # also the warm-up
            run(fast, 0.1), run(slow, 0.1)
            g, t = [], []
            for _ in range(args.rounds):
                g.append(run(fast, args.budget))
                t.append(run(slow, args.budget))
            (gw, gc), (tw, tc) = ([statistics.median(x) for x in zip(*runs)] for runs in (g, t))
            results.setdefault(cell, {})[str(H)] = {"gleam": round(gw, 1), "torch": round(tw, 1)}
            print(f"{cell:4s} H={H:4d}  gleam {gw:7.0f} seq/s (rounds {min(x[0] for x in g):.0f}.."
                  f"{max(x[0] for x in g):.0f})  torch {tw:7.0f} seq/s (rounds "
                  f"{min(x[0] for x in t):.0f}..{max(x[0] for x in t):.0f})  ratio {gw / tw:5.2f}"
                  f"  | per CPU-second ratio {gc / tc:.2f}  | first loss "
                  f"|gleam - torch| = {abs(first_gleam - first_torch):.1e}", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
