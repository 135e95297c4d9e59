"""Chapters 6 and 7: cross-entropy and temperature, the char-level GRU trainer, the live lab."""
import numpy as np

from gleam import chargru, counting, losses, smoothing
from gleam.examples.data import plain


def chapter6_cross_entropy(logits=(2.0, 0.5, -1.0, 0.3, 1.2), target=0, temperatures=(0.5, 1.0, 2.0)):
    z = np.array(logits)
    loss = losses.cross_entropy(z, target)
    grad = losses.cross_entropy_grad(z, target)
    return plain({"p_target": losses.softmax(z)[target], "loss_nats": loss, "loss_bits": losses.nats_to_bits(loss),
                   "uniform_loss": losses.cross_entropy(np.zeros_like(z), target), "grad": grad,
                   "grad_sum": grad.sum(), "temperatures": list(temperatures),
                   "p_target_at_temperature": [losses.softmax(z, t)[target] for t in temperatures],
                   "at_temperature": [{"T": t, "p_target": losses.softmax(z, t)[target]}
                                      for t in temperatures]})


def chapter6_trainer():
    """The char-level GRU trainer's settings, as a default CharGRU has them."""
    m = chargru.CharGRU()
    return {"K": m.K, "clip": m.clip, "lr": m.lr, "H": m.H}


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


