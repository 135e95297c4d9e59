"""Chapter 7: the live lab's numbers, read off the model it trains."""
import numpy as np

from gleam import chargru, losses, smoothing
from gleam.chargru import fileformat as chargru_io
from gleam import costs as counting

__all__ = ['chapter7_live_lab', 'chapter7_experiments', 'chapter7_files', 'chapter7_streams']


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


# name, learning rate, hidden size, temperature, corpus (None: the default), what you see, why
_EXPERIMENTS = [
    ("Default: lr 0.1, H 32", 0.1, 32, 1.0, None,
     "chance → unigram → far below within a few hundred steps",
     "a step size that suits Adagrad on this model"),
    ("Too cold: lr 0.001", 0.001, 32, 1.0, None,
     "the curve parks near the unigram line for thousands of steps",
     "each update is tiny, and Adagrad's steps only shrink as its memory grows"),
    ("Too hot: lr 5", 5.0, 32, 1.0, None,
     "the loss leaps far above chance within a few steps: diverged",
     "Adagrad's first step moves every weight by about lr, here 5, when the weights started near 0.1"),
    ("Tiny: H 4", 0.1, 4, 1.0, None,
     "fast steps, but the curve settles far above the others and the samples stay broken words",
     "four numbers of state cannot carry enough of the past: the model underfits"),
    ("Narrow: H 16", 0.1, 16, 1.0, None,
     "fast steps, a higher floor",
     "16 numbers of state cannot hold as much of the corpus"),
    ("Wide: H 128", 0.1, 128, 1.0, None,
     "fewer steps per second and a bumpier start, then the lowest floor of all",
     "the H² cost of the recurrence, more weights to disturb at once, and more state to remember with"),
    ("One repeated word", 0.1, 32, 1.0, "the " * 70,
     "the loss falls almost to zero within about a hundred steps and the sample repeats the word",
     "a periodic text has nothing to predict beyond its cycle; its chance line is ln 4, four characters"),
    ("Cold sampling: T 0.1", 0.1, 32, 0.1, None,
     "untrained, the sample repeats one character; trained, it recites the corpus the same way every time",
     "dividing the logits by 0.1 makes the softmax almost an argmax: the same choice every time"),
    ("Hot sampling: T 2", 0.1, 32, 2.0, None,
     "even a well-trained model writes garbled words",
     "dividing the logits by 2 flattens the distribution toward uniform; the model is unchanged"),
]


def chapter7_experiments():
    """The live lab's experiments: the settings each one sets, what you see, and why."""
    return [{"name": n, "lr": lr, "hidden": h, "temperature": t, "corpus": c, "symptom": see, "cause": why}
            for n, lr, h, t, c, see, why in _EXPERIMENTS]


def chapter7_files(steps=50):
    """The live lab's files: the limits on your own text, the model file's format, and a default
    model saved after `steps` steps and loaded into a new one, both then taking one more step."""
    m = chargru.CharGRU()
    m.step(steps)
    data = m.to_bytes()
    loaded = chargru.CharGRU.from_bytes(data)
    return {"max_file_bytes": chargru.MAX_FILE_BYTES, "max_corpus_chars": chargru.MAX_CORPUS_CHARS,
            "max_vocab": chargru.MAX_VOCAB, "format": chargru_io.FORMAT, "format_version": chargru_io.VERSION,
            "saved_after_steps": steps, "model_file_bytes": len(data),
            "next_loss": m.step(1).loss[0], "next_loss_loaded": loaded.step(1).loss[0]}


def chapter7_streams(streams=8, steps=100):
    """Parallel streams: a default model with B = `streams` against the one-stream default, both
    after `steps` steps — where the B pointers start, characters per step, and the mean loss of
    the last 10 steps of each run (nats per character)."""
    one, many = chargru.CharGRU(), chargru.CharGRU(batch=streams)
    a, b = one.step(steps).loss, many.step(steps).loss
    return {"B": streams, "K": many.K, "max_batch": chargru.MAX_BATCH, "starts": list(many.starts),
            "corpus_length": len(many.corpus), "chars_per_step": streams * many.K, "steps": steps,
            "chars_seen_one": steps * one.K, "chars_seen_many": steps * streams * many.K,
            "loss_one": float(a[-10:].mean()), "loss_many": float(b[-10:].mean())}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter7_live_lab": chapter7_live_lab(), "chapter7_files": chapter7_files(),
            "chapter7_streams": chapter7_streams()}
