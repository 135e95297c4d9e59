"""Chapter 8: stacked, bidirectional and encoder–decoder parameter counts; the encoder–decoder
bottleneck (one fixed-size context vector against the information in the source sentence)."""
import math

from gleam import checks
from gleam import costs as counting
from gleam.cells.names import KINDS
from gleam.examples.data import plain

__all__ = ['chapter8_beyond', 'chapter8_counts', 'chapter8_bottleneck']

MAX_WIDTH = 100_000        # the counter refuses d or n above this (as chapter 5's does)
MAX_LAYERS = 100           # ... and more layers than this
VOCAB = 30_000             # words in the source (and the target) vocabulary
CONTEXT_WIDTH = 256        # the encoder's state: the context vector the decoder starts from
MAX_WORDS = 1000           # the bottleneck's longest sentence
BITS_PER_BYTE = 8


def chapter8_beyond(d=128, n=256, context_floats=256, vocab=VOCAB, words=(5, 50, 500)):
    layers = counting.stacked_param_counts("gru", d, n, layers=2)
    bits = math.log2(vocab)
    return {"layer_params": layers, "two_layer_params": sum(layers),
            "two_layer_params_torch": counting.stacked_param_count("gru", d, n, 2, double_bias=True),
            "bidirectional_width": 2 * n,
            "bidirectional_params": counting.stacked_param_count("gru", d, n, 1, bidirectional=True),
            "context_bytes": context_floats * 4, "bits_per_word": bits,
            "words": list(words), "source_bits": [w * bits for w in words]}


def _stack(cell, d, n, layers, bidirectional):
    per_layer = counting.stacked_param_counts(cell, d, n, layers, bidirectional)
    return {"inputs": counting.layer_input_widths(d, n, layers, bidirectional),
            "layer_params": per_layer, "total": sum(per_layer),
            "total_torch": counting.stacked_param_count(cell, d, n, layers, bidirectional, double_bias=True),
            # what the stack hands on at each position: h, or [h→; h←] when bidirectional
            "output_width": (2 if bidirectional else 1) * n}


def chapter8_counts(cell="gru", d=128, n=256, layers=2, vocab=VOCAB):
    """Parameters of a stack of `layers` recurrent layers of kind `cell`, input width d, state
    width n: one direction ("stack"), both directions ("bidirectional": every layer two cells;
    later layers read 2n), and an encoder–decoder ("encoder_decoder": an encoder stack and a
    decoder stack of the same shape, source and target embeddings (V × d each) and the decoder's
    readout (V × n + V)). Counts use one bias per block; "total_torch" PyTorch's two.
    d, n must be whole numbers in [1, MAX_WIDTH], layers in [1, MAX_LAYERS]."""
    cell = checks.one_of("cell", cell, KINDS)
    d = checks.integer("d", d, minimum=1, maximum=MAX_WIDTH, whole_floats=True)
    n = checks.integer("n", n, minimum=1, maximum=MAX_WIDTH, whole_floats=True)
    layers = checks.integer("layers", layers, minimum=1, maximum=MAX_LAYERS, whole_floats=True)
    vocab = checks.integer("vocab", vocab, minimum=1)
    encoder = counting.stacked_param_count(cell, d, n, layers)
    decoder = counting.stacked_param_count(cell, d, n, layers)       # same shape: reads target embeddings
    embeddings = counting.embedding_params(vocab, d)
    readout = counting.readout_params(n, vocab)
    return plain({
        "cell": cell, "d": d, "n": n, "layers": layers, "vocab": vocab,
        "stack": _stack(cell, d, n, layers, False),
        "bidirectional": _stack(cell, d, n, layers, True),
        "encoder_decoder": {"encoder": encoder, "decoder": decoder, "stacks": encoder + decoder,
                            "source_embedding": embeddings, "target_embedding": embeddings,
                            "readout": readout,
                            "total": encoder + decoder + 2 * embeddings + readout}})


def chapter8_bottleneck(words=50, vocab=VOCAB, n=CONTEXT_WIDTH, bytes_per_float=4, max_words=MAX_WORDS):
    """The encoder–decoder bottleneck for a source of `words` words: the context vector (the
    GRU encoder's last state, n floats) against up to log2(vocab) bits per word.

    bits_per_float: source bits each of the n floats would have to carry; capacity_ratio: source
    bits over the vector's raw bits (n × 32 for float32); `fits` is False past 1. The curve
    (two points: the information grows linearly in the length) spans 0 .. max_words words."""
    words = checks.integer("words", words, minimum=1, whole_floats=True)
    vocab = checks.integer("vocab", vocab, minimum=2)
    bits = math.log2(vocab)
    floats = counting.state_floats("gru", n)
    context_bytes = counting.state_bytes("gru", n, bytes_per_float=bytes_per_float)
    context_bits = BITS_PER_BYTE * context_bytes
    source = words * bits
    return plain({"words": words, "vocab": vocab, "bits_per_word": bits, "source_bits": source,
                  "context_floats": floats, "context_bytes": context_bytes, "context_bits": context_bits,
                  "bits_per_float": source / floats, "capacity_ratio": source / context_bits,
                  "fits": source <= context_bits, "max_words": max_words,
                  "curve_words": [0, max_words], "curve_source_bits": [0.0, max_words * bits]})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter8_beyond": chapter8_beyond(), "chapter8_counts": chapter8_counts(),
            "chapter8_bottleneck": chapter8_bottleneck()}
