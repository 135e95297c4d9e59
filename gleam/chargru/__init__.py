"""The character-level GRU of chapters 6 and 7: the model and everything around it.

    model       CharGRU: truncated BPTT with Adagrad over a fixed corpus, B parallel streams
    kernels     one chunk's forward and backward, batched over time (B = 1)
    batch       the same for B chunks side by side (B > 1)
    workspace   a B = 1 chunk's arrays, made once per model
    corpus      the text it trains on: limits, checks, reading a file
    fileformat  the model as bytes that continue exactly
    sample      the text it writes
    export      its run as a standalone script (standalone.py is that script's template)
"""
from gleam.chargru.corpus import MAX_CORPUS_CHARS, MAX_FILE_BYTES, MAX_VOCAB, check_corpus, decode_corpus
from gleam.chargru.export import export_script
from gleam.chargru.model import (ADAGRAD_EPS, DEFAULT_CORPUS, DIVERGENCE_FACTOR, INIT_SCALE, MAX_BATCH,
                                 MAX_STEPS_PER_CALL, CharGRU, ChunkStats, gradient_check)
from gleam.chargru.sample import MAX_SAMPLE_CHARS

__all__ = ["CharGRU", "ChunkStats", "gradient_check", "export_script", "check_corpus", "decode_corpus",
           "DEFAULT_CORPUS", "ADAGRAD_EPS", "INIT_SCALE", "DIVERGENCE_FACTOR", "MAX_STEPS_PER_CALL",
           "MAX_BATCH", "MAX_CORPUS_CHARS", "MAX_FILE_BYTES", "MAX_VOCAB", "MAX_SAMPLE_CHARS"]
