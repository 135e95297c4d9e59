"""The arrays of one chunk of the char-level GRU's recurrence (gleam.chargru.kernels), allocated once
and reused by every training step of a model; BatchWorkspace, the same for B chunks side by side
(gleam.chargru.batch)."""
import numpy as np


class _Factors:
    """What both workspaces share: the backward's per-step factors, written into their arrays."""

    def write_factors(self, zr, h_tilde, dh, h_prev):
        """For all steps at once (time first, B streams or none after it): f_h = z (1 − h̃²),
        f_zr = zr (1 − zr) ⊙ [h̃ − h_{t-1}, h_{t-1}] and f_carry = [1 − z, r] (gleam.chargru.kernels'
        `backward` says what each is)."""
        H = h_tilde.shape[-1]
        z = zr[..., :H]
        np.multiply(z, np.subtract(1.0, np.multiply(h_tilde, h_tilde, out=self.f_h), out=self.f_h), out=self.f_h)
        self.dh_h[..., :H], self.dh_h[..., H:] = dh, h_prev
        np.multiply(np.multiply(zr, np.subtract(1.0, zr, out=self.f_zr), out=self.f_zr), self.dh_h, out=self.f_zr)
        np.copyto(self.f_carry, zr)
        np.subtract(1.0, z, out=self.f_carry[..., :H])


class Workspace(_Factors):
    """The arrays a chunk's recurrence runs through, for K steps of H units, each allocated once,
    with the rows the loops of `forward` and `backward` walk taken out once too. A model passes
    its own to every step, so that a step slices nothing per time step: in Pyodide, taking the
    ~20 row views of a step's loops cost about as much as a tenth of the step (K = 25, H = 32).
    `forward` and `backward` make a fresh one when given none. What `forward` returns in its
    cache are these arrays: they hold that chunk until the next `forward` with this workspace."""

    def __init__(self, K, H):
        self.K, self.H = K, H
        # forward: W x_t + b, its ½-scaled gate part, the states h_0..h_K, [z_t, r_t], h̃_t,
        # r_t ⊙ h_{t-1} and h̃_t − h_{t-1}
        self.A, self.half_A_zr = np.empty((K, 3 * H)), np.empty((K, 2 * H))
        self.hs, self.zr = np.empty((K + 1, H)), np.empty((K, 2 * H))
        self.h_tilde, self.rh, self.dh = np.empty((K, H)), np.empty((K, H)), np.empty((K, H))
        z, r = self.zr[:, :H], self.zr[:, H:]
        self.forward_rows = list(zip(self.hs[:-1], self.hs[1:], self.zr, z, r, self.h_tilde, self.rh,
                                     self.dh, self.half_A_zr, self.A[:, 2 * H:]))
        # backward: [∂L/∂h_t, ∂L/∂(r_t ⊙ h_{t-1})] for t = 0..K, the per-step factors, and
        # [∂L/∂a_z, ∂L/∂a_r], ∂L/∂a_h; walked from t = K down to 1
        self.gd = np.empty((K + 1, 2 * H))
        self.f_h, self.f_zr, self.f_carry = np.empty((K, H)), np.empty((K, 2 * H)), np.empty((K, 2 * H))
        self.dh_h = np.empty((K, 2 * H))                                # [h̃_t − h_{t-1}, h_{t-1}]
        self.da_zr, self.da_h = np.empty((K, 2 * H)), np.empty((K, H))
        self.both, self.tmp = np.empty(2 * H), np.empty(H)
        g_h, g_rh = self.gd[:, :H], self.gd[:, H:]
        self.backward_rows = list(zip(self.gd[:0:-1], g_h[:0:-1], g_rh[:0:-1], g_h[-2::-1], self.f_h[::-1],
                                      self.da_h[::-1], self.f_zr[::-1], self.da_zr[::-1], self.f_carry[::-1]))


class BatchWorkspace(_Factors):
    """Workspace's counterpart for B chunks side by side (`forward_batch` / `backward_batch`): the
    same arrays with a B axis after the time axis (row t is the (B, ·) block of the B chunks), plus
    the chunk's probabilities and ∂L/∂y, (K·B, V) each, and the gates' input terms as the σ of
    the batched forward takes them (−[Wz; Wr] x_t − [bz; br]) and the candidate's, contiguous.
    Reusing one saves the allocations and the ~20 row views a chunk's loops would take (in
    Pyodide, B = 8, K = 25, H = 32: ~3% of a step)."""

    def __init__(self, B, K, H, V):
        self.B, self.K, self.H, self.V = B, K, H, V
        self.A = np.empty((K, B, 3 * H))
        self.neg_A_zr, self.A_h = np.empty((K, B, 2 * H)), np.empty((K, B, H))
        self.hs, self.zr = np.empty((K + 1, B, H)), np.empty((K, B, 2 * H))
        self.h_tilde, self.rh, self.dh = np.empty((K, B, H)), np.empty((K, B, H)), np.empty((K, B, H))
        z, r = self.zr[:, :, :H], self.zr[:, :, H:]
        self.forward_rows = list(zip(self.hs[:-1], self.hs[1:], self.zr, z, r, self.h_tilde, self.rh,
                                     self.dh, self.neg_A_zr, self.A_h))
        self.probs, self.dy = np.empty((K * B, V)), np.empty((K * B, V))
        self.gd = np.empty((K + 1, B, 2 * H))
        self.f_h, self.f_zr, self.f_carry = np.empty((K, B, H)), np.empty((K, B, 2 * H)), np.empty((K, B, 2 * H))
        self.dh_h = np.empty((K, B, 2 * H))                             # [h̃_t − h_{t-1}, h_{t-1}]
        self.da = np.empty((K, B, 3 * H))                               # [∂L/∂a_z, ∂L/∂a_r, ∂L/∂a_h]
        self.both, self.tmp = np.empty((B, 2 * H)), np.empty((B, H))
        g_h, g_rh = self.gd[:, :, :H], self.gd[:, :, H:]
        da_zr, da_h = self.da[:, :, :2 * H], self.da[:, :, 2 * H:]
        self.backward_rows = list(zip(self.gd[:0:-1], g_h[:0:-1], g_rh[:0:-1], g_h[-2::-1], self.f_h[::-1],
                                      da_h[::-1], self.f_zr[::-1], da_zr[::-1], self.f_carry[::-1]))


def fits(work, check, kind=Workspace, **sizes):
    """`work`, if it is a `kind` (Workspace or BatchWorkspace) of these sizes (K=, H=, ...; checked
    only if `check`); else ValueError."""
    if check and (not isinstance(work, kind) or any(getattr(work, k) != v for k, v in sizes.items())):
        def named(sizes):
            return f"{kind.__name__}({', '.join(f'{k}={v}' for k, v in sizes.items())})"
        raise ValueError(f"work must be a {named(sizes)} for this chunk, got "
                         + (named({k: getattr(work, k) for k in sizes}) if isinstance(work, kind) else repr(type(work))))
    return work
