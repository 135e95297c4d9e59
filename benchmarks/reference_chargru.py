"""The char-level GRU written the straightforward way, exactly as chapter 6 walks through it.

min-char-rnn style: one-hot column vectors, a matrix-vector product per gate per step, outer
products per step in the backward pass, parameters and Adagrad memory in dicts. Same
initialisation, same equations and the same training loop as gleam/chargru/model.py, so on the same
weights and chunk it gives the same loss and gradients (tests/core/test_chargru.py checks this);
benchmarks/trainer.py measures how much faster gleam's batched version is.
"""
import numpy as np

NAMES = ("Wz", "Uz", "bz", "Wr", "Ur", "br", "Wh", "Uh", "bh", "Wy", "by")


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def init_params(V, H, rng, scale=0.1):
    """Weights ~ N(0, scale²), biases 0; drawn in the order Wz, Wr, Wh, Uz, Ur, Uh, Wy."""
    p = {}
    for name in ("Wz", "Wr", "Wh"):
        p[name] = scale * rng.standard_normal((H, V))
    for name in ("Uz", "Ur", "Uh"):
        p[name] = scale * rng.standard_normal((H, H))
    p["Wy"] = scale * rng.standard_normal((V, H))
    for name in ("bz", "br", "bh"):
        p[name] = np.zeros((H, 1))
    p["by"] = np.zeros((V, 1))
    return p


def loss_fun(inputs, targets, hprev, p):
    """Forward and backward over one chunk. Returns (loss, grads, last hidden state).

    loss = Σ_t −ln p_t[target_t] (nats, summed over the chunk); grads are NOT clipped.
    hprev: (H, 1), the state carried in from the previous chunk.
    """
    V, H = p["Wy"].shape
    xs, hs, zs, rs, hts, ps = {}, {}, {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0.0
    for t in range(len(inputs)):
        xs[t] = np.zeros((V, 1))                       # one-hot input
        xs[t][inputs[t]] = 1.0
        zs[t] = sigmoid(p["Wz"] @ xs[t] + p["Uz"] @ hs[t - 1] + p["bz"])
        rs[t] = sigmoid(p["Wr"] @ xs[t] + p["Ur"] @ hs[t - 1] + p["br"])
        hts[t] = np.tanh(p["Wh"] @ xs[t] + p["Uh"] @ (rs[t] * hs[t - 1]) + p["bh"])
        hs[t] = (1.0 - zs[t]) * hs[t - 1] + zs[t] * hts[t]
        y = p["Wy"] @ hs[t] + p["by"]
        e = np.exp(y - np.max(y))
        ps[t] = e / np.sum(e)                          # softmax
        loss += -np.log(ps[t][targets[t], 0])

    grads = {name: np.zeros_like(p[name]) for name in NAMES}
    dhnext = np.zeros((H, 1))
    for t in reversed(range(len(inputs))):
        dy = np.copy(ps[t])
        dy[targets[t]] -= 1.0                          # p − onehot
        grads["Wy"] += dy @ hs[t].T
        grads["by"] += dy
        dh = p["Wy"].T @ dy + dhnext                   # readout path + carry path
        dht = dh * zs[t]
        dz = dh * (hts[t] - hs[t - 1])
        dhprev = dh * (1.0 - zs[t])
        da_h = dht * (1.0 - hts[t] * hts[t])
        grads["Wh"] += da_h @ xs[t].T
        grads["Uh"] += da_h @ (rs[t] * hs[t - 1]).T
        grads["bh"] += da_h
        drh = p["Uh"].T @ da_h
        dr = drh * hs[t - 1]
        dhprev += drh * rs[t]
        da_z = dz * zs[t] * (1.0 - zs[t])
        da_r = dr * rs[t] * (1.0 - rs[t])
        grads["Wz"] += da_z @ xs[t].T
        grads["Uz"] += da_z @ hs[t - 1].T
        grads["bz"] += da_z
        grads["Wr"] += da_r @ xs[t].T
        grads["Ur"] += da_r @ hs[t - 1].T
        grads["br"] += da_r
        dhprev += p["Uz"].T @ da_z + p["Ur"].T @ da_r
        dhnext = dhprev
    return loss, grads, hs[len(inputs) - 1]


class ReferenceCharGRU:
    """The training loop: chunks of K with the state carried, clip ±5, Adagrad."""

    def __init__(self, corpus, hidden=32, seq_len=25, lr=0.1, clip=5.0, seed=0):
        self.vocab = sorted(set(corpus))
        index = {ch: i for i, ch in enumerate(self.vocab)}
        self.data = [index[ch] for ch in corpus]
        self.V, self.H, self.K, self.lr, self.clip = len(self.vocab), hidden, seq_len, lr, clip
        self.p = init_params(self.V, hidden, np.random.default_rng(seed))
        self.mem = {name: np.zeros_like(v) for name, v in self.p.items()}
        self.hprev = np.zeros((hidden, 1))
        self.pos = 0

    def step(self):
        """One chunk: returns (loss per char, pre-clip global gradient norm)."""
        if self.pos + self.K + 1 > len(self.data):
            self.pos = 0
            self.hprev = np.zeros((self.H, 1))
        inputs = self.data[self.pos:self.pos + self.K]
        targets = self.data[self.pos + 1:self.pos + self.K + 1]
        loss, grads, self.hprev = loss_fun(inputs, targets, self.hprev, self.p)
        norm = np.sqrt(sum(np.sum(g * g) for g in grads.values()))
        for name in NAMES:
            g = np.clip(grads[name], -self.clip, self.clip)
            self.mem[name] += g * g
            self.p[name] -= self.lr * g / (np.sqrt(self.mem[name]) + 1e-8)
        self.pos += self.K
        return loss / self.K, norm
