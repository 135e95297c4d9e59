"""The research labs' small sequence model and its batched trainer.

    model        SeqModel: one cell from gleam.cells over a padded batch, then a head
    inputs       its input checks, start state and `intervene` hooks
    backward     the loss's gradient through the head and back through time
    batching     padding variable-length sequences into one time-major batch (SeqData)
    heads        linear read-out, then a classify or regress loss
    arith_heads  NAU, NMU and NALU read-outs (Madsen & Johansen 2020; Trask et al. 2018)
    trainer      Trainer: minibatches, clipping, an optimiser, evaluation
"""
from gleam.seqmodel.batching import SeqData, one_hot, pad_batch, pad_targets
from gleam.seqmodel.heads import HEADS, regression_bound
from gleam.seqmodel.arith_heads import ARITH_HEADS
from gleam.seqmodel.model import SeqModel, SeqModelConfig
from gleam.seqmodel.trainer import BatchStats, EpochStats, Trainer, as_data
from gleam.cells.names import CELL_NAMES

__all__ = ["SeqModel", "SeqModelConfig", "SeqData", "one_hot", "pad_batch", "pad_targets", "HEADS",
           "ARITH_HEADS", "regression_bound", "Trainer", "BatchStats", "EpochStats", "as_data",
           "CELL_NAMES"]
