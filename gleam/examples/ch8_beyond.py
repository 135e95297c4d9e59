"""Chapter 8: stacked and bidirectional counts, the encoder–decoder bottleneck."""
import math

from gleam import counting

__all__ = ['chapter8_beyond']


def chapter8_beyond(d=128, n=256, context_floats=256, vocab=30_000, words=(5, 50, 500)):
    layers = counting.stacked_param_counts("gru", d, n, layers=2)
    bits = math.log2(vocab)
    return {"layer_params": layers, "two_layer_params": sum(layers),
            "two_layer_params_torch": counting.stacked_param_count("gru", d, n, 2, double_bias=True),
            "bidirectional_width": 2 * n,
            "bidirectional_params": counting.stacked_param_count("gru", d, n, 1, bidirectional=True),
            "context_bytes": context_floats * 4, "bits_per_word": bits,
            "words": list(words), "source_bits": [w * bits for w in words]}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter8_beyond": chapter8_beyond()}
