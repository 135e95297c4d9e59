"""Chapter 8, chapter 9's deployment budget and the memory lab's carry challenge."""
import copy
import dataclasses
import functools
import math

from gleam import counting, memory
from gleam.examples.data import plain


def chapter8_beyond(d=128, n=256, context_floats=256, vocab=30_000, words=(5, 50, 500)):
    layers = counting.stacked_param_counts("gru", d, n, layers=2)
    bits = math.log2(vocab)
    return {"layer_params": layers, "two_layer_params": sum(layers),
            "two_layer_params_torch": counting.stacked_param_count("gru", d, n, 2, double_bias=True),
            "bidirectional_width": 2 * n,
            "bidirectional_params": counting.stacked_param_count("gru", d, n, 1, bidirectional=True),
            "context_bytes": context_floats * 4, "bits_per_word": bits,
            "words": list(words), "source_bits": [w * bits for w in words]}




def chapter9_deployment():
    return counting.deployment_budget("gru", d=256, n=512, layers=2, vocab=50_000, tokens=10_000)


@functools.lru_cache(maxsize=None)
def _carry_tables():
    return {name: memory.run_preset(name) for name in memory.PRESETS}


def memory_lab_carry_challenge():
    presets = {name: dataclasses.asdict(p) for name, p in memory.PRESETS.items()}
    return plain({"trials": 5000, "seed": 46, "presets": presets, "rows": copy.deepcopy(_carry_tables())})


