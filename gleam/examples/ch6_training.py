"""Chapter 6: cross-entropy and temperature, the char-level GRU trainer's settings."""
import numpy as np

from gleam import chargru, losses
from gleam.examples.data import plain

__all__ = ['chapter6_cross_entropy', 'chapter6_trainer']


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


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter6_cross_entropy": chapter6_cross_entropy(), "chapter6_trainer": chapter6_trainer()}
