"""A character-level GRU language model trained live (chapters 6 and 7).

Teacher forcing over a fixed corpus: the model reads K characters and, at every position, predicts
the next one. Training is truncated BPTT in chunks of K characters: the hidden state is carried from
one chunk to the next (its value crosses the boundary, its gradient does not) and is reset to zero
only when the data pointer wraps around to the start of the corpus. Each step:

    L = Σ_t −ln p_t[target_t]              summed over the chunk (reported as L / K, nats per char)
    g = ∂L/∂θ                              (gleam/chargru/kernels.py; ‖g‖ reported before clipping)
    g ← clip(g, −5, 5)                     element by element
    M ← M + g²;   θ ← θ − lr · g / (√M + 1e−8)        Adagrad

The vocabulary is the sorted set of distinct characters in the corpus; the hidden size H and the
corpus are fixed for the life of a model: to change either, construct a new CharGRU. The learning
rate can be changed between steps without resetting anything; each change is recorded with the
step it was made at (`lr_history`), so that a run can be replayed.

Around the model: the corpus's limits and reading one from a file (gleam.chargru.corpus:
check_corpus, decode_corpus, MAX_CORPUS_CHARS, MAX_VOCAB), the model as a file that continues
exactly (`to_bytes` / `from_bytes`, gleam.chargru.fileformat), the text it writes (`sample`,
gleam.chargru.sample), and the run as a standalone script (`export_script`, gleam.chargru.export).

Parallel streams (`batch=B`, 1 … MAX_BATCH, default 1): B data pointers read the corpus at once,
each with its own carried hidden state, and one update trains on the B chunks they point at (a
minibatch of B chunks of K characters). With N the corpus length, stream b starts at
s_b = ⌊b·(N − K)/B⌋ (spread evenly over the N − K places a chunk can start), moves K characters a
step, and when its next chunk would run past the end it goes back to s_b mod K, the first place of
its own K-grid, with its state reset to zero. So no two streams ever read the same chunk at the same
step. For B = 1 this is the single pointer above (start 0, back to 0), and the step is exactly the
one-stream algorithm, bit for bit. For B > 1:

    L = Σ_b Σ_t −ln p_{b,t}[target_{b,t}]   summed over the B chunks (reported as L / (B·K))
    g = ∂L/∂θ                              the SUM of the B chunks' gradients, not their mean

then the same per-element clipping and Adagrad as above, once per step. The recurrence is
vectorised over the streams (each time step is one (B, H) @ (H, ·) product,
`chargru_batch.forward_batch` / `backward_batch`), so B streams cost far less than B steps,
above all in Pyodide, where every NumPy call is dear. The gates reported are stream 0's.

Divergence: a step whose chunk loss is not finite, or is above DIVERGENCE_FACTOR · ln V nats per
char (far worse than guessing uniformly; with lr = 5 the loss jumps from ln V to tens of nats after
one update, while the pre-clip gradient norm reaches 1e8 and more), is refused: its loss is
reported, the parameters and Adagrad memory stay as they were before it, the stats say
`diverged=True`, and every later `step()` does nothing until `reset()`. NumPy's floating-point
warnings are silenced inside, so a diverging run prints nothing and raises nothing.

Sizes: the parameters (one buffer of n_params(V, H)) and a step's largest arrays (the (K, B, 3H)
gate inputs, the (K·B, V) probabilities) stay within gleam.checks.MAX_ENTRIES each; one call
trains at most MAX_STEPS_PER_CALL chunks, and a sample reads and writes at most MAX_SAMPLE_CHARS
characters each (no call is interrupted).
"""
import math
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np

from gleam.chargru import fileformat
from gleam.chargru import batch as gb
from gleam.chargru import kernels as gm
from gleam.chargru import sample as sampling
from gleam.chargru.workspace import BatchWorkspace, Workspace
from gleam import checks
from gleam.chargru.corpus import MAX_CORPUS_CHARS, MAX_FILE_BYTES, MAX_VOCAB, check_corpus, decode_corpus  # noqa: F401
from gleam.chargru.sample import MAX_SAMPLE_CHARS  # noqa: F401  (the limit of sample(), named here too)

# ~270 characters of prose with exactly 24 distinct characters: the lab's default corpus
DEFAULT_CORPUS = (
    "the river runs by the old mill, and the miller sits on the wall to watch the water "
    "turn the wheel. it turns day and night, slow and steady, and the mill sings a low "
    "song the miller has known since he was a boy. when rain comes the river runs "
    "fast and the wheel turns faster."
)

ADAGRAD_EPS = 1e-8
INIT_SCALE = 0.1            # weights ~ N(0, 0.1²), biases 0
DIVERGENCE_FACTOR = 5.0     # a chunk loss above 5 · ln V nats per char counts as divergence
MAX_STEPS_PER_CALL = 10_000        # chunks one call of step(n) may train (a call is not interrupted)
MAX_BATCH = fileformat.MAX_BATCH    # parallel streams at most (64)


@dataclass(frozen=True)
class ChunkStats:
    """What one call to `CharGRU.step(n)` reports, over the n chunks it trained on."""
    loss: np.ndarray        # (n,) mean nats per character of each step (over its B·K characters), in order
    grad_norm: np.ndarray   # (n,) global L2 norm of the gradient, before clipping
    z: np.ndarray           # (H, K) update gate of the last chunk computed, stream 0's (rows = units, cols = steps)
    r: np.ndarray           # (H, K) reset gate of the last chunk computed, stream 0's
    diverged: bool          # True when the model is diverged (the last chunk's update was refused)
    seconds: float          # wall-clock time of the call
    steps: int              # the model's update count after the call

    @property
    def n(self):
        """Number of chunks computed by the call (a refused, non-finite one included)."""
        return len(self.loss)


def _positive(name, value, allow_inf=False):
    return checks.number(name, value, minimum=0, strict_min=True, allow_inf=allow_inf)


class CharGRU:
    """Char-level GRU: `step(n)` trains, `sample(...)` generates, `reset()` starts again.

    `params`, `grads` and `memory` are dicts {Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh, Wy, by} of views
    into three flat buffers (parameters, last gradient, Adagrad memory): read them freely; writing
    into them changes the model.
    """

    def __init__(self, corpus=DEFAULT_CORPUS, hidden=32, seq_len=25, lr=0.1, clip=5.0, seed=0, batch=1):
        self._H = checks.integer("hidden", hidden, minimum=1)
        self._K = checks.integer("seq_len", seq_len, minimum=1)
        self._B = checks.integer("batch", batch, minimum=1, maximum=MAX_BATCH)
        check_corpus(corpus, self._K)
        if self._B > len(corpus) - self._K:
            raise ValueError(f"batch = {self._B} streams need {self._B} places for a chunk to start: "
                             f"a corpus of at least seq_len + batch = {self._K + self._B} characters, "
                             f"got {len(corpus)}")
        self._lr = _positive("lr", lr)
        self._clip = _positive("clip", clip, allow_inf=True)
        self._corpus = corpus
        self._vocab = "".join(sorted(set(corpus)))
        N, K, B, V, H = len(corpus), self._K, self._B, self.V, self._H
        checks.entries("hidden", H, (gm.n_params(V, H),))       # the parameters, one buffer
        checks.entries("seq_len", K, (K, B, 3 * H))             # a step's gate inputs W x_t + b
        checks.entries("seq_len", K, (K * B, V))                # and its probabilities
        self._index = {ch: i for i, ch in enumerate(self.vocab)}
        self._data = np.array([self._index[ch] for ch in corpus], dtype=np.intp)
        self._starts = np.array([b * (N - K) // B for b in range(B)], dtype=np.intp)  # s_b
        self._offsets = np.arange(K)
        # parameters, their gradient and the Adagrad memory: three flat buffers, named by views
        size = gm.n_params(V, H)
        self._theta, self._grad, self._memory = np.zeros(size), np.zeros(size), np.zeros(size)
        self._tmp = np.empty(size)
        # a step's arrays, reused by every step
        self._work = Workspace(K, H) if B == 1 else BatchWorkspace(B, K, H, V)
        self._p, self._g = gm.views(self._theta, V, H), gm.views(self._grad, V, H)
        self.params = {name: self._p[name] for name in gm.NAMES}
        self.grads = {name: self._g[name] for name in gm.NAMES}
        self.memory = {name: v for name, v in gm.views(self._memory, V, H).items() if name in gm.NAMES}
        counts = np.array(list(Counter(corpus).values()), dtype=np.float64)
        freq = counts / counts.sum()
        self.chance_loss = math.log(V)                             # ln V: uniform guessing
        self.unigram_loss = float(-(freq * np.log(freq)).sum())    # entropy of letter frequencies
        self.divergence_loss = DIVERGENCE_FACTOR * self.chance_loss  # nats per char
        # seed=None draws a fresh one; it is kept, so reset() reproduces the same start
        self.seed = int(np.random.SeedSequence().entropy % 2**63)
        self.reset(seed)

    # --- sizes and state -------------------------------------------------------------------
    corpus = property(lambda self: self._corpus, doc="the training text (fixed: build a new model)")
    vocab = property(lambda self: self._vocab, doc="sorted distinct characters of the corpus")
    V = property(lambda self: len(self._vocab), doc="vocabulary size")
    H = property(lambda self: self._H, doc="hidden size (fixed: build a new model to change it)")
    K = property(lambda self: self._K, doc="characters per chunk (truncation length)")
    B = batch = property(lambda self: self._B, doc="parallel streams trained together (fixed: build a new model)")
    starts = property(lambda self: tuple(int(s) for s in self._starts),
                      doc="where each stream's pointer starts, s_b = ⌊b·(N − K)/B⌋")
    clip = property(lambda self: self._clip, doc="per-element gradient clip")
    steps = property(lambda self: self._steps, doc="number of updates applied")
    diverged = property(lambda self: self._diverged, doc="True after a refused (diverged) step")
    position = property(lambda self: int(self._pos[0]),
                        doc="data pointer (stream 0's): index of the next chunk's first char")
    positions = property(lambda self: tuple(int(p) for p in self._pos), doc="every stream's data pointer")
    h = property(lambda self: (self._h[0] if self._B == 1 else self._h).copy(),
                 doc="the hidden state carried into the next chunk: (H,), or (B, H) for B > 1")
    last_loss = property(lambda self: self._last_loss,
                         doc="loss of the last chunk computed, nats per char (a refused one included; nan before any)")
    lr_history = property(lambda self: tuple(self._lr_history),
                          doc="((steps, lr), ...): from `steps` updates on, the rate was lr (first (0, lr))")

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = _positive("lr", value)
        history = self._lr_history                          # (steps, lr) at each change
        if history[-1][0] == self._steps:                   # changed again before the next step
            history[-1] = (self._steps, self._lr)
            if len(history) > 1 and history[-2][1] == self._lr:
                history.pop()
        elif history[-1][1] != self._lr:
            history.append((self._steps, self._lr))

    def reset(self, seed=None):
        """New random weights (from `seed`, or the model's seed), zero memory, state and pointer;
        the learning-rate history starts again from the rate in use."""
        self.seed = self.seed if seed is None else checks.integer("seed", seed, minimum=0)
        gm.init_params(self._theta, self.V, self._H, np.random.default_rng(self.seed), INIT_SCALE)
        self._memory[:] = 0.0
        self._sample_rng = np.random.default_rng([self.seed, 1])
        self._h = np.zeros((self._B, self._H))             # row b: stream b's carried state
        self._pos = self._starts.copy()
        self._steps = 0
        self._diverged = False
        self._last_loss = math.nan
        self._lr_history = [(0, self._lr)]
        with np.errstate(all="ignore"):                      # gates to show before any step: stream 0's
            self._zr = gm.forward(self._p, *(a[0] for a in self._chunk()[1:]))[1]["zr"]

    def _chunk(self):
        """(pointers (B,), inputs (B, K), targets (B, K), h0 (B, H)) of the next step's chunks."""
        pos, h0, K = self._pos, self._h, self._K
        wrap = pos + K + 1 > len(self._data)
        if wrap.any():                                      # wrap: back to s_b mod K, state 0
            pos, h0 = np.where(wrap, self._starts % K, pos), h0.copy()
            h0[wrap] = 0.0
        at = pos[:, None] + self._offsets
        return pos, self._data[at], self._data[at + 1], h0

    def next_chunk(self):
        """Copies of (inputs, targets, h0) for the next step: character indices (K,) and state
        (H,); for B > 1, (B, K), (B, K) and (B, H), row b stream b's."""
        chunk = self._chunk()[1:]
        return tuple((a[0] if self._B == 1 else a).copy() for a in chunk)

    # --- training --------------------------------------------------------------------------
    def step(self, n=1):
        """Train on the next n chunks; returns their ChunkStats."""
        n = checks.integer("n", n, minimum=0, maximum=MAX_STEPS_PER_CALL)
        start = time.perf_counter()
        losses, norms = [], []
        if not self._diverged:
            with np.errstate(all="ignore"):
                for _ in range(n):
                    loss, norm = self._one_step()
                    losses.append(loss)
                    norms.append(norm)
                    if self._diverged:
                        break
        H = self._H
        return ChunkStats(loss=np.array(losses, dtype=np.float64),
                          grad_norm=np.array(norms, dtype=np.float64),
                          z=self._zr[:, :H].T.copy(), r=self._zr[:, H:].T.copy(),
                          diverged=self._diverged, seconds=time.perf_counter() - start,
                          steps=self._steps)

    def _one_step(self):
        pos, inputs, targets, h0 = self._chunk()
        n_chars = self._B * self._K
        # the kernels' argument checks are skipped (check=False): these are the model's own arrays
        if self._B == 1:                                    # one stream: exactly the unbatched path
            losses, cache = gm.forward(self._p, inputs[0], targets[0], h0[0], check=False, work=self._work)
            self._zr = cache["zr"]                          # (the workspace's: read before the next step)
            gm.backward(self._p, cache, self._g, check=False, work=self._work)
            h_last = cache["hs"][-1:]
        else:                                               # B streams: summed loss and gradient
            losses, cache = gb.forward_batch(self._p, inputs, targets, h0, check=False, work=self._work)
            self._zr = np.ascontiguousarray(cache["zr"][:, 0])   # stream 0's gates
            gb.backward_batch(self._p, cache, self._g, check=False, work=self._work)
            h_last = cache["hs"][-1]
        loss = float(losses.sum())
        self._last_loss = loss / n_chars
        g, q = self._grad, self._tmp
        np.multiply(g, g, out=q)
        norm = math.sqrt(q.sum())                           # global norm ‖g‖, before clipping
        if not (math.isfinite(loss) and math.isfinite(norm)) or loss > self.divergence_loss * n_chars:
            self._diverged = True                           # refuse the update
            return loss / n_chars, norm
        # g ← clip(g, −c, c);  M ← M + g²  (the clipped g² is min(g², c²))
        np.clip(g, -self._clip, self._clip, out=g)
        np.minimum(q, self._clip * self._clip, out=q)
        self._memory += q
        # θ ← θ − lr · g / (√M + ε)
        np.sqrt(self._memory, out=q)
        q += ADAGRAD_EPS
        np.divide(g, q, out=q)
        q *= self._lr
        self._theta -= q
        self._h = h_last.copy()                             # the state crosses into the next chunk
        self._pos = pos + self._K
        self._steps += 1
        return loss / n_chars, norm

    # --- generation ------------------------------------------------------------------------
    def sample(self, n_chars, temperature=1.0, rng=None, prefix=None):
        """Generate n_chars characters, each fed back as the next input.

        Starts from h = 0, reads `prefix` (default: the corpus's first character) and returns only
        the new characters (n_chars and the prefix's length at most MAX_SAMPLE_CHARS each).
        p_i ∝ exp(y_i / T): T < 1 sharpens towards the most likely character,
        T > 1 flattens towards uniform. `rng`: a np.random.Generator or an int seed; without one,
        the model's own sampling generator (seeded from the model's seed) is used and advanced.
        Does not touch the training state. Each step is `gleam.cells.gru_textbook_step` on the
        model's parameters, then the readout y = Wy h + by (gleam.chargru.sample).
        """
        return sampling.sample(self, n_chars, temperature, rng, prefix)

    def sample_preview(self, n_chars, temperature=1.0):
        """`sample` from a generator seeded by (seed, steps): the same model after the same number
        of steps always writes the same text, on any page that holds it; the model's own sampling
        generator is not touched."""
        return self.sample(n_chars, temperature, rng=np.random.default_rng([self.seed, 2, self._steps]))

    # --- keeping the model -------------------------------------------------------------------
    def state_dict(self):
        """Everything needed to continue exactly, as copies: corpus and vocabulary, the settings
        (hidden, seq_len, lr, clip, seed, batch), the weights, the Adagrad memory, the carried
        state h ((H,); (B, H) for B > 1), the data pointer (an int; a list of B for B > 1), the step count, the diverged flag, the last chunk's loss and gates, the
        learning-rate history and the sampling generator's state."""
        return {"corpus": self._corpus, "vocab": self._vocab, "hidden": self._H, "seq_len": self._K,
                "lr": self._lr, "clip": self._clip, "seed": self.seed, "steps": self._steps,
                "batch": self._B, "position": int(self._pos[0]) if self._B == 1 else [int(p) for p in self._pos], "diverged": self._diverged, "last_loss": self._last_loss,
                "lr_history": [list(entry) for entry in self._lr_history],
                "sample_rng": self._sample_rng.bit_generator.state,
                "params": {name: self._p[name].copy() for name in gm.NAMES},
                "memory": {name: v.copy() for name, v in self.memory.items()},
                "h": self.h, "gates": self._zr.copy()}

    @classmethod
    def from_state(cls, state):
        """The model a `state_dict()` describes, continuing exactly where it stopped: the same next
        loss and the same samples. ValueError (the state is checked first, see
        `fileformat.check_state`) for anything inconsistent or out of range."""
        s = fileformat.check_state(state)
        m = cls(s["corpus"], hidden=s["hidden"], seq_len=s["seq_len"], lr=s["lr"], clip=s["clip"],
                seed=s["seed"], batch=s["batch"])
        memory = gm.views(m._memory, m.V, m.H)
        for name in gm.NAMES:
            m._p[name][...] = s["params"][name]
            memory[name][...] = s["memory"][name]
        m._h, m._zr = s["h"].reshape(m.B, m.H).copy(), s["gates"].copy()
        m._pos = np.array(s["position"], dtype=np.intp).reshape(m.B)
        m._steps, m._diverged, m._last_loss = s["steps"], s["diverged"], s["last_loss"]
        m._lr_history = [tuple(entry) for entry in s["lr_history"]]
        m._sample_rng.bit_generator.state = s["sample_rng"]
        return m

    def to_bytes(self):
        """The model as a file: a versioned .npz (see gleam.chargru.fileformat), no pickle."""
        return fileformat.dumps(self.state_dict())

    @classmethod
    def from_bytes(cls, data):
        """The model a `to_bytes()` file holds; ValueError saying why for anything else."""
        return cls.from_state(fileformat.loads(data))

    def __copy__(self):
        return self.__deepcopy__({})

    def __deepcopy__(self, memo):
        """An independent model in the same state (a plain deepcopy would copy the named views
        apart from the flat buffers they view, and the copy would train wrongly)."""
        return type(self).from_state(self.state_dict())


def gradient_check(model_or_params, inputs=None, targets=None, h0=None, eps=1e-5):
    """Compare the analytic gradient of one chunk's loss with central differences.

    Accepts a CharGRU (by default its next chunk, from its carried state — for B > 1 streams its
    next B chunks, the loss summed over them; the model is not touched) or a params dict {Wz, ..., by} with inputs/targets (index sequences) and h0 (default
    zeros). Returns {name: ‖analytic − numeric‖ / (‖analytic‖ + ‖numeric‖)}, see
    `chargru_math.gradient_check`.
    """
    if isinstance(model_or_params, CharGRU):
        chunk = model_or_params.next_chunk()
        inputs = chunk[0] if inputs is None else inputs
        targets = chunk[1] if targets is None else targets
        h0 = chunk[2] if h0 is None else h0
        model_or_params = model_or_params.params
    elif not isinstance(model_or_params, dict):
        raise ValueError(f"model_or_params must be a CharGRU or a params dict, got "
                         f"{type(model_or_params).__name__}")
    elif inputs is None or targets is None:
        raise ValueError("inputs and targets are required with a params dict")
    with np.errstate(all="ignore"):
        return gm.gradient_check(model_or_params, inputs, targets, h0, eps)
