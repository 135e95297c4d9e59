"""What every example module shares: plain data out, one-hot input, the hand examples' vocabulary."""
import math
import statistics

import numpy as np

VOCAB_ABC = ("a", "b", "c")


def plain(obj):
    """numpy scalars/arrays and tuples → Python floats/ints/lists, recursively."""
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [plain(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj)
    return obj


def onehot(ch, vocab=VOCAB_ABC):
    x = np.zeros(len(vocab))
    x[vocab.index(ch)] = 1.0
    return x


def sigmoid(a):
    return 1.0 / (1.0 + math.exp(-a))




def seed_stats(values):
    """A setting's metric over its seeds: the exact mean (statistics.mean, so a printed digit never
    rests on summation order), the sample std, min, max and the values themselves, in order."""
    x = [float(v) for v in values]
    return {"mean": statistics.mean(x), "std": statistics.stdev(x) if len(x) > 1 else 0.0,
            "min": min(x), "max": max(x), "values": x}
