"""A character-level GRU language model, trained from scratch: taken home from gleam's live lab.

Needs nothing but Python 3 and NumPy:    python <this file>

It trains the model the lab trained: the same corpus, the same settings (below), the same random
seed, the learning-rate changes made at the same steps, the same number of steps. Then it prints
the loss of the last few steps (the last one is the "last chunk" loss the lab showed) and the
text the lab's page showed for the model at that point.

Written to be read, not to be fast: one GRU step at a time, as chapter 6 walks through it. The lab
runs a fused, batched version of the same arithmetic, adding the same numbers in another order,
so the two agree to rounding: over the default model's first few hundred steps, to about 1e-11.
Stretches where training is sensitive to its last digits (the default model's from about step
400, a wide model's bumpy start, a learning rate near divergence) amplify those differences, to
around 1e-7 in the printed losses.

The model, for a one-hot character x_t and the state h_{t-1}:
    z_t = σ(Wz x_t + Uz h_{t-1} + bz)                  update gate
    r_t = σ(Wr x_t + Ur h_{t-1} + br)                  reset gate
    h̃_t = tanh(Wh x_t + Uh (r_t ⊙ h_{t-1}) + bh)        candidate
    h_t = (1 − z_t) ⊙ h_{t-1} + z_t ⊙ h̃_t
    p_t = softmax(Wy h_t + by),   loss_t = −ln p_t[the next character]
Training: chunks of SEQ_LEN characters; the state is carried from one chunk to the next (its
gradient is not: truncated BPTT) and set back to zero when the data wraps around; every gradient
entry is clipped to [−CLIP, CLIP]; Adagrad updates the weights.
With BATCH = B > 1 streams, B pointers read the corpus side by side, each with its own state:
stream b starts at ⌊b·(N − K)/B⌋ (N characters, K = SEQ_LEN), and wraps back to that start mod K;
each update adds up the B chunks' losses and gradients (a sum, not a mean) before clipping.
"""
import math

import numpy as np

# <settings> what the lab trained (gleam.chargru.export_script writes this block)
CORPUS = (
    "the river runs by the old mill, and the miller sits on the wall to watch the water "
    "turn the wheel. it turns day and night, slow and steady, and the mill sings a low "
    "song the miller has known since he was a boy. when rain comes the river runs "
    "fast and the wheel turns faster."
)
HIDDEN = 32                  # H, numbers of state
SEQ_LEN = 25                 # K, characters per chunk
LR_SCHEDULE = [(0, 0.1)]     # (steps done, learning rate from then on)
CLIP = 5.0                   # each gradient entry is clipped to [-CLIP, CLIP]
SEED = 0                     # the random seed of the initial weights
BATCH = 1                    # B, parallel streams trained together
STEPS = 200                  # updates to make
TEMPERATURE = 1.0            # of the sample printed at the end
# </settings>

SAMPLE_CHARS = 240
SHOW_LAST = 5                # losses printed
INIT_SCALE = 0.1             # initial weights ~ N(0, 0.1²), biases 0
ADAGRAD_EPS = 1e-8
DIVERGENCE_FACTOR = 5.0      # a chunk loss above 5 ln V nats per character: diverged, stop
NAMES = ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")


def sigmoid(a):
    """σ(a) = 1 / (1 + e^(−a)), written so that no a can overflow."""
    return np.exp(-np.logaddexp(0.0, -a))


def init_params(V, H, rng):
    """Weights ~ N(0, INIT_SCALE²), drawn in the lab's order (Wz, Wr, Wh, Uz, Ur, Uh, Wy); biases 0."""
    p = {}
    for name, shape in (("Wz", (H, V)), ("Wr", (H, V)), ("Wh", (H, V)),
                        ("Uz", (H, H)), ("Ur", (H, H)), ("Uh", (H, H)), ("Wy", (V, H))):
        p[name] = INIT_SCALE * rng.standard_normal(shape)
    for name, size in (("bz", H), ("br", H), ("bh", H), ("by", V)):
        p[name] = np.zeros(size)
    return p


def gru_step(x, h, p):
    """One GRU step: x (V,) one-hot, h (H,) -> the new state and what the backward step needs."""
    z = sigmoid(x @ p["Wz"].T + h @ p["Uz"].T + p["bz"])                # update gate
    r = sigmoid(x @ p["Wr"].T + h @ p["Ur"].T + p["br"])                # reset gate
    h_tilde = np.tanh(x @ p["Wh"].T + (r * h) @ p["Uh"].T + p["bh"])    # candidate
    h_next = (1 - z) * h + z * h_tilde
    return h_next, (x, h, z, r, h_tilde)


def gru_step_backward(dh_next, cache, p, grads):
    """∂L/∂h_t -> ∂L/∂h_{t-1}; adds this step's share of every weight gradient into `grads`."""
    x, h, z, r, h_tilde = cache
    # h_t = (1 − z) ⊙ h + z ⊙ h̃: three paths out of h_t
    dh = dh_next * (1 - z)                       # the carry path
    dz = dh_next * (h_tilde - h)
    da_h = dh_next * z * (1 - h_tilde ** 2)      # back through tanh
    d_rh = da_h @ p["Uh"]                        # ∂L/∂(r ⊙ h)
    da_r = d_rh * h * r * (1 - r)                # back through σ
    da_z = dz * z * (1 - z)
    dh += d_rh * r + da_r @ p["Ur"] + da_z @ p["Uz"]
    for gate, da, h_in in (("z", da_z, h), ("r", da_r, h), ("h", da_h, r * h)):
        grads["W" + gate] += np.outer(da, x)
        grads["U" + gate] += np.outer(da, h_in)
        grads["b" + gate] += da
    return dh


def chunk_loss(inputs, targets, h0, p):
    """Forward over one chunk from the carried state h0, then backward through it.
    Returns (loss summed over the chunk, gradients, the last state)."""
    V, H = p["Wy"].shape
    h, caches, states, probs, loss = h0, [], [], [], 0.0
    for x_index, target in zip(inputs, targets):
        x = np.zeros(V)
        x[x_index] = 1.0
        h, cache = gru_step(x, h, p)
        y = p["Wy"] @ h + p["by"]
        e = np.exp(y - y.max())                  # softmax (shifted: the same, without overflow)
        probs.append(e / e.sum())
        caches.append(cache)
        states.append(h)
        loss += -float(np.log(probs[-1][target]))
    grads = {name: np.zeros_like(v) for name, v in p.items()}
    dh_next = np.zeros(H)                        # nothing flows back from beyond the chunk
    for t in reversed(range(len(inputs))):
        dy = probs[t].copy()
        dy[targets[t]] -= 1.0                    # ∂L/∂y = p − onehot(target)
        grads["Wy"] += np.outer(dy, states[t])
        grads["by"] += dy
        # ∂L/∂h_t: from the readout at t and from step t + 1
        dh_next = gru_step_backward(dy @ p["Wy"] + dh_next, caches[t], p, grads)
    return loss, grads, h


def learning_rate(steps_done):
    """The rate in use after `steps_done` updates: the last change made at or before then."""
    return [lr for at, lr in LR_SCHEDULE if at <= steps_done][-1]


def train():
    """Train for STEPS updates; returns (parameters, vocabulary, loss per character of each step,
    True if it stopped at a diverging step as the lab does)."""
    vocab = sorted(set(CORPUS))
    index = {ch: i for i, ch in enumerate(vocab)}
    data = [index[ch] for ch in CORPUS]
    V, H, K = len(vocab), HIDDEN, SEQ_LEN
    p = init_params(V, H, np.random.default_rng(SEED))
    memory = {name: np.zeros_like(v) for name, v in p.items()}    # Adagrad: Σ g²
    starts = [b * (len(data) - K) // BATCH for b in range(BATCH)]   # where each stream starts
    hs, pos, losses = [np.zeros(H) for _ in starts], list(starts), []
    for steps_done in range(STEPS):
        loss, grads, h_last = 0.0, None, []
        for b in range(BATCH):                   # each stream's chunk; losses and gradients add up
            if pos[b] + K + 1 > len(data):       # wrap around: back to the start (mod K), state 0
                pos[b], hs[b] = starts[b] % K, np.zeros(H)
            inputs, targets = data[pos[b]:pos[b] + K], data[pos[b] + 1:pos[b] + K + 1]
            loss_b, grads_b, h_b = chunk_loss(inputs, targets, hs[b], p)
            loss += loss_b
            grads = grads_b if grads is None else {name: grads[name] + grads_b[name] for name in grads}
            h_last.append(h_b)
        losses.append(loss / (BATCH * K))
        norm = math.sqrt(sum(float((g * g).sum()) for g in grads.values()))
        limit = DIVERGENCE_FACTOR * math.log(V) * (BATCH * K)
        if not (math.isfinite(loss) and math.isfinite(norm)) or loss > limit:
            return p, vocab, losses, True        # the lab refuses this update and stops
        lr = learning_rate(steps_done)
        for name in NAMES:
            g = np.clip(grads[name], -CLIP, CLIP)
            memory[name] += g * g
            p[name] -= lr * (g / (np.sqrt(memory[name]) + ADAGRAD_EPS))
        hs, pos = h_last, [at + K for at in pos]
    return p, vocab, losses, False


def sample(p, vocab, steps_done, n_chars=SAMPLE_CHARS, temperature=TEMPERATURE):
    """What the lab's page showed: from h = 0, read the corpus's first character, then write
    n_chars characters, each fed back as the next input, with the page's random generator."""
    rng = np.random.default_rng([SEED, 2, steps_done])
    V, H = p["Wy"].shape
    h, x, out = np.zeros(H), vocab.index(CORPUS[0]), []
    for _ in range(n_chars):
        one_hot = np.zeros(V)
        one_hot[x] = 1.0
        h, _ = gru_step(one_hot, h, p)
        y = p["Wy"] @ h + p["by"]
        # p_i ∝ exp((y_i − max y) / T), drawn by inverting the cumulative distribution
        cdf = np.cumsum(np.exp((y - y.max()) / temperature))
        x = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")), V - 1)
        out.append(vocab[x])
    return "".join(out)


def main():
    with np.errstate(all="ignore"):              # a diverging run overflows on purpose
        p, vocab, losses, diverged = train()
        steps_done = len(losses) - diverged
        for step in range(max(1, len(losses) - SHOW_LAST + 1), len(losses) + 1):
            print(f"step {step}: loss {losses[step - 1]!r} nats per character")
        if diverged:
            print(f"diverged at step {len(losses)}: its update was refused, training stopped")
        if losses:
            print(f"last chunk loss (step {len(losses)}): {losses[-1]!r}")
        print(f"sample at temperature {TEMPERATURE:g}:")
        print(sample(p, vocab, steps_done))


if __name__ == "__main__":
    main()
