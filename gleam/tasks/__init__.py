"""Rule-made tasks for the research labs, their splits, and their encoding as a batch.

    base         the Example record and the generators' size checks
    dyck         brackets(): Dyck-1 and Dyck-2, well formed or one character wrong
    anbn         counting(): aⁿbⁿ and aⁿbⁿcⁿ: accept or reject, or predict the next character
    delayed_cue  cue_delay(): hold one of two cues across distractors, or answer from the last step
    sums         nested_sums(): bracketed sums of digits and their value
    splits       train/test splits that hold out one property
    encoding     examples to gleam.seqmodel.SeqData and back
"""
from gleam.tasks.base import MAX_CHARS, MAX_EXAMPLES, MAX_LENGTH, Example
from gleam.tasks.encoding import (FAMILIES, MAX_VOCAB, brackets, check_examples, counting, cue_delay, decode,
                                  encode, nested_sums, target_of, vocabulary)

__all__ = ["Example", "FAMILIES", "brackets", "counting", "cue_delay", "nested_sums", "vocabulary",
           "target_of", "encode", "decode", "check_examples", "MAX_VOCAB", "MAX_EXAMPLES", "MAX_LENGTH",
           "MAX_CHARS"]
