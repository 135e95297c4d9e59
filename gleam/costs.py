"""Parameter, MAC and memory counts for recurrent cells (chapters 5, 7, 8 and 9).

`cell` is a kind ("elman", "gru", "lstm") or a cell name ("gru_torch", ...; gleam.cells.names).
A cell with k blocks (Elman 1, GRU 3, LSTM 4), input width d and state width n has, per block,
an input matrix (n × d), a recurrent matrix (n × n) and a bias (n), so
    params = k (nd + n² + n)        (PyTorch keeps two biases: k (nd + n² + 2n))
    MACs per step = k (nd + n²)     (one multiply-accumulate per matrix entry; gates' pointwise
                                     work and biases are not counted)
"""
import math

import numpy as np

from gleam import checks
from gleam.cells.names import BLOCKS, kind

__all__ = ["param_count", "macs_per_step", "layer_input_widths", "stacked_param_counts",
           "stacked_param_count", "stacked_macs", "matching_width", "embedding_params", "readout_params", "readout_macs",
           "state_floats", "state_bytes", "kv_cache_bytes_per_token", "kv_cache_bytes",
           "train_chunk_macs", "deployment_budget"]


# a stack deeper than this is no model anyone trains; it bounds the per-layer lists built here
MAX_LAYERS = 10_000


def _blocks(cell):
    return BLOCKS[kind(cell)]


def _width(value, name, allow_zero=False):
    # a whole float (3.0) counts as an integer here, as it always has
    return checks.integer(name, value, minimum=0 if allow_zero else 1, whole_floats=True)


def param_count(cell, d, n, double_bias=False):
    # k (nd + n² + n), or k (nd + n² + 2n) with PyTorch's b_ih and b_hh
    k, d, n = _blocks(cell), _width(d, "d"), _width(n, "n")
    double_bias = checks.flag("double_bias", double_bias)
    return k * (n * d + n * n + (2 if double_bias else 1) * n)


def macs_per_step(cell, d, n):
    # k (nd + n²)
    k, d, n = _blocks(cell), _width(d, "d"), _width(n, "n")
    return k * (n * d + n * n)


def layer_input_widths(d, n, layers, bidirectional=False):
    # layer 1 reads x (d); layer ℓ > 1 reads the layer below's output: n, or 2n (both directions)
    d, n, layers = _width(d, "d"), _width(n, "n"), _width(layers, "layers")
    if layers > MAX_LAYERS:
        raise ValueError(f"layers must be an integer in [1, {MAX_LAYERS}], got {layers!r}")
    bidirectional = checks.flag("bidirectional", bidirectional)
    return [d] + [(2 if bidirectional else 1) * n] * (layers - 1)


def stacked_param_counts(cell, d, n, layers=1, bidirectional=False, double_bias=False):
    """Parameters of each layer of a stack; a bidirectional layer is two full cells."""
    per_dir = 2 if bidirectional else 1
    return [per_dir * param_count(cell, d_in, n, double_bias)
            for d_in in layer_input_widths(d, n, layers, bidirectional)]


def stacked_param_count(cell, d, n, layers=1, bidirectional=False, double_bias=False):
    return sum(stacked_param_counts(cell, d, n, layers, bidirectional, double_bias))


def stacked_macs(cell, d, n, layers=1, bidirectional=False):
    per_dir = 2 if bidirectional else 1
    return sum(per_dir * macs_per_step(cell, d_in, n) for d_in in layer_input_widths(d, n, layers, bidirectional))


def matching_width(cell, budget, d, double_bias=False):
    """The width n whose parameter count is closest to `budget` (ties go to the smaller n).

    Solves k (n² + (d + β) n) = budget for real n (β = 1, or 2 with double biases) and
    compares the two integers around the root.
    """
    k, d = _blocks(cell), _width(d, "d")
    budget = checks.number("budget", budget, minimum=0, strict_min=True)
    beta = 2 if checks.flag("double_bias", double_bias) else 1
    try:
        # n = (−(d+β) + sqrt((d+β)² + 4·budget/k)) / 2
        root = (-(d + beta) + math.sqrt((d + beta) ** 2 + 4 * budget / k)) / 2
        if not math.isfinite(root):
            raise OverflowError
    except OverflowError:               # d or budget near the float range: the stable form
        try:
            a, q = float(d + beta), budget / k
            # the same root as 2q / (a + sqrt(a² + 4q)), with a² + 4q kept in range
            big = max(a, 2 * math.sqrt(q))
            root = q / ((a + big * math.sqrt((a / big) ** 2 + 4 * (q / big) / big)) / 2)
        except OverflowError:           # d beyond a float: n = 1 is closest
            root = 0.0
    candidates = [max(1, math.floor(root)), max(1, math.ceil(root))]
    return min(candidates, key=lambda m: (abs(param_count(cell, d, m, double_bias) - budget), m))


def embedding_params(vocab, d):
    # a lookup table E (V × d): one d-wide input vector per word
    return _width(vocab, "vocab") * _width(d, "d")


def readout_params(n, vocab, bias=True):
    # W_y (V × n) + b_y (V)
    bias = checks.flag("bias", bias)
    return _width(vocab, "vocab") * (_width(n, "n") + (1 if bias else 0))


def readout_macs(n, vocab):
    # y = W_y h: nV
    return _width(n, "n") * _width(vocab, "vocab")


def state_floats(cell, n, layers=1):
    # what decoding must keep between tokens: h per layer (LSTM: h and c)
    return (2 if kind(cell) == "lstm" else 1) * _width(n, "n") * _width(layers, "layers")


def state_bytes(cell, n, layers=1, bytes_per_float=4):
    """Decode-time recurrent state in bytes (float32 by default): constant in sequence length."""
    return state_floats(cell, n, layers) * _width(bytes_per_float, "bytes_per_float")


def kv_cache_bytes_per_token(width, layers=1, bytes_per_float=4):
    # a Transformer keeps one key and one value of `width` per layer per past token: 2·L·width
    return 2 * _width(layers, "layers") * _width(width, "width") * _width(bytes_per_float, "bytes_per_float")


def kv_cache_bytes(width, layers, tokens, bytes_per_float=4):
    return kv_cache_bytes_per_token(width, layers, bytes_per_float) * _width(tokens, "tokens", allow_zero=True)


def train_chunk_macs(cell, d, n, steps, backward_factor=2):
    """Operations for one truncated-BPTT chunk: forward MACs × (1 + backward_factor).

    The backward pass of a matmul costs about twice its forward (one product for the input's
    gradient, one for the weights'), so a chunk of K steps is ≈ 3 · K · k(nd + n²).
    """
    factor = checks.number("backward_factor", backward_factor, minimum=0)
    K, per_step = _width(steps, "steps"), macs_per_step(cell, d, n)
    if isinstance(backward_factor, (int, np.integer)):      # exact for whole factors
        return (1 + int(backward_factor)) * K * per_step
    try:
        total = (1 + factor) * K * per_step
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"steps = {steps!r}: the chunk's operations overflow a float")
    return total


def deployment_budget(cell="gru", d=256, n=512, layers=2, vocab=50_000, tokens=10_000, bytes_per_float=4):
    """Chapter 9's decode-time budget of a stacked recurrent LM against a Transformer of width n.

    recurrent_macs_per_token counts the stack only (layer 1 k(nd + n²), later layers
    k(n·n + n²)); the readout's nV is reported apart because it dwarfs the stack.
    """
    rec = stacked_macs(cell, d, n, layers)
    out = readout_macs(n, vocab)
    return {
        "state_bytes": state_bytes(cell, n, layers, bytes_per_float),
        "kv_cache_bytes_per_token": kv_cache_bytes_per_token(n, layers, bytes_per_float),
        "kv_cache_bytes": kv_cache_bytes(n, layers, tokens, bytes_per_float),
        "tokens": tokens,
        "recurrent_macs_per_token": rec,
        "readout_macs_per_token": out,
        "total_macs_per_token": rec + out,
        "recurrent_params": stacked_param_count(cell, d, n, layers),
        "readout_params": readout_params(n, vocab),
        "embedding_params": embedding_params(vocab, d),
    }
