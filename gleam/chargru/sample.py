"""Text from a CharGRU: `sample(model, ...)` is CharGRU.sample (see its docstring).

From h = 0 the model reads its prefix, then writes: each step is `gleam.cells.gru_textbook_step`
on the model's parameters, the readout y = Wy h + by, and a draw from p_i ∝ exp(y_i / T) by
inverting the cumulative distribution; the character drawn is the next input. The training state
is not touched (only the generator given, or the model's own sampling generator, advances).
"""
import numpy as np

from gleam import checks
from gleam.cells import gru_textbook_step

__all__ = ["sample", "MAX_SAMPLE_CHARS"]

MAX_SAMPLE_CHARS = 10_000          # characters of a sample's prefix, and of what it writes


def sample(model, n_chars, temperature=1.0, rng=None, prefix=None):
    """The text of CharGRU.sample."""
    n_chars = checks.integer("n_chars", n_chars, minimum=0, maximum=MAX_SAMPLE_CHARS)
    temperature = checks.number("temperature", temperature, minimum=0, strict_min=True)
    rng = model._sample_rng if rng is None else np.random.default_rng(checks.seed("rng", rng))
    prefix = model.corpus[0] if prefix is None else prefix
    if not isinstance(prefix, str):
        raise ValueError(f"prefix must be None or a str, got {type(prefix).__name__}")
    if not 1 <= len(prefix) <= MAX_SAMPLE_CHARS:
        raise ValueError(f"prefix must have 1 to {MAX_SAMPLE_CHARS:,} characters, got {len(prefix):,}")
    unknown = sorted(set(prefix) - set(model.vocab))
    if unknown:
        raise ValueError(f"prefix has characters not in the vocabulary: {unknown}")
    p, index, vocab = model._p, model._index, model.vocab   # p: views Wz, Uz, bz, ..., Wy, by
    one_hot = np.eye(model.V)           # row x: the input vector of character x
    h = np.zeros(model.H)
    out = []
    with np.errstate(all="ignore"):
        for ch in prefix[:-1]:
            h, _ = gru_textbook_step(one_hot[index[ch]], h, p)
        x = index[prefix[-1]]
        for _ in range(n_chars):
            h, _ = gru_textbook_step(one_hot[x], h, p)
            # y = Wy h + by
            y = p["Wy"] @ h + p["by"]
            # p_i ∝ exp((y_i − max y) / T), drawn by inverting the cumulative distribution
            with np.errstate(over="ignore"):          # a tiny T: exp(−inf) = 0, never NaN
                cdf = np.cumsum(np.exp((y - y.max()) / temperature))
            x = int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right"))
            x = min(x, model.V - 1)
            out.append(vocab[x])
    return "".join(out)
