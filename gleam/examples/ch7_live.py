"""Chapter 7: the live lab's numbers, read off the model it trains."""
import numpy as np

from gleam import chargru, counting, losses, smoothing

__all__ = ['chapter7_live_lab']


def chapter7_live_lab(wide_hidden=128):
    """The live lab's numbers, read off the model it trains (a default CharGRU on the default
    corpus): sizes, the chance and unigram baselines, the cost of a step, the EMA's lag."""
    m = chargru.CharGRU()
    V, H, K = m.V, m.H, m.K
    chance = losses.cross_entropy(np.zeros(V), 0)      # uniform guess: ln V
    return {"V": V, "H": H, "K": K, "corpus_length": len(m.corpus),
            "chance_nats": chance, "chance_bits": losses.nats_to_bits(chance),
            "unigram_nats": m.unigram_loss, "clip": m.clip,
            "macs_per_step": counting.macs_per_step("gru", V, H),
            "chunk_operations": counting.train_chunk_macs("gru", V, H, K),
            "wide_hidden": wide_hidden, "wide_macs_per_step": counting.macs_per_step("gru", V, wide_hidden),
            "ema_decay": smoothing.EMA_DECAY, "ema_new_weight": 1 - smoothing.EMA_DECAY,
            "ema_lag_steps": smoothing.ema_lag(smoothing.EMA_DECAY),
            "divergence_factor": chargru.DIVERGENCE_FACTOR, "min_corpus_length": K + 1}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter7_live_lab": chapter7_live_lab()}
