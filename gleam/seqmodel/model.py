"""A small sequence model: one cell from `gleam.cells` run over a padded batch, and a head.

Time-major throughout: X (T, B) token ids or (T, B, d) features, mask (T, B), states (T, B, n).
A masked step is no step at all:  h_t = m_t ⊙ cell(x_t, h_{t−1}) + (1 − m_t) ⊙ h_{t−1},
so padding leaves the state unchanged, and (by the same rule backwards) adds no loss and no
gradient. Many-to-one reads the final state, which is therefore each sequence's state at its
last valid step; many-to-many reads every step and averages the loss over valid steps.

Heads: "classify" and "regress" read y = Wo h + bo (gleam.seqmodel.heads); "nau", "nmu" and "nalu" are the
arithmetic heads of gleam.seqmodel.arith_heads, scored like "regress" (½ squared error) plus
arith_reg · R (the NAU/NMU penalty). `SeqModel.project()` clips NAU/NMU weights back into
their range; gleam.seqmodel's Trainer calls it after every update it keeps.
"""
from dataclasses import dataclass

import numpy as np

from gleam import checks
from gleam.cells.names import CELL_NAMES  # noqa: F401  (re-exported by gleam.seqmodel)
from gleam.cells import get_cell
from gleam.seqmodel.heads import HEADS, classify_loss, readout, regress_loss, regression_bound
from gleam.seqmodel.arith_heads import ARITH_HEADS, arith_forward, arith_penalty, arith_project, init_arith
from gleam.seqmodel.backward import backward
from gleam.seqmodel.inputs import as_tuple, apply_intervention, check_intervene, initial_state, model_inputs


def cell_functions(name):
    """(step, step_backward, init) of a cell named in `gleam.cells.names.CELL_NAMES`."""
    cell = get_cell(name)
    return cell.step, cell.step_backward, cell.init


@dataclass
class SeqModelConfig:
    cell: str                    # "elman", "gru_textbook", "gru_torch" or "lstm"
    d: int                       # input width: vocabulary size (token ids) or feature count
    n: int                       # hidden width
    n_out: int                   # classes (classify, >= 2) or outputs (regress, usually 1)
    head: str = "classify"       # "classify": softmax cross-entropy; "regress": ½ squared error;
                                 # "nau", "nmu", "nalu": arithmetic heads, ½ squared error
    many_to_many: bool = False   # False: one output per sequence (its last valid step)
    init_scale: float = None     # cell weights ~ U(−scale, scale); None: the cell's 1/√n
    forget_bias: float = 1.0     # LSTM only: initial forget-gate bias
    seed: int = 0                # parameters drawn from np.random.default_rng(seed)
    arith_reg: float = 0.0       # "nau"/"nmu" only: weight of the penalty R added to the loss

    def __post_init__(self):
        cell_functions(self.cell)
        if not (isinstance(self.head, str) and self.head in ARITH_HEADS):
            try:
                checks.one_of("head", self.head, HEADS)
            except ValueError as e:
                raise ValueError(f"{e} (or one of the arithmetic heads "
                                 f"{', '.join(map(repr, ARITH_HEADS))})") from None
        for name in ("d", "n", "n_out"):
            checks.integer(name, getattr(self, name), minimum=1)
        if self.head == "classify" and self.n_out < 2:
            raise ValueError(f"a classify head needs n_out >= 2 classes, got {self.n_out}")
        checks.number("init_scale", self.init_scale, minimum=0, strict_min=True, none_ok=True)
        checks.flag("many_to_many", self.many_to_many)
        checks.number("forget_bias", self.forget_bias)
        checks.seed("seed", self.seed)
        checks.entries("n_out", self.n_out, (self.n_out, self.n))
        checks.entries("n", self.n, (4 * self.n, max(self.n, self.d)))
        checks.number("arith_reg", self.arith_reg, minimum=0)
        if self.arith_reg != 0 and self.head not in ("nau", "nmu"):
            raise ValueError(f"arith_reg weighs the NAU/NMU penalty: it must be 0 for head "
                             f"{self.head!r}, got {self.arith_reg!r}")


class SeqModel:
    """Cell + head. `.params`: the cell's parameter dict plus the head's: Wo (n_out, n) and
    bo (n_out,) for "classify"/"regress"; W_nau, W_nmu or W_hat, M_hat, G (each (n_out, n)) for
    the arithmetic heads (gleam.seqmodel.arith_heads, drawn after the cell's from the same rng).

    `params` may be given (same keys and shapes as a fresh init) to start from known weights
    (as given: an NAU/NMU weight outside its range is clipped only by `project()`).
    """

    def __init__(self, config, params=None):
        if not isinstance(config, SeqModelConfig):
            raise ValueError(f"config must be a SeqModelConfig, got {type(config).__name__}")
        if params is not None and not isinstance(params, dict):
            raise ValueError(f"params must be None or a dict of arrays, got {type(params).__name__}")
        self.config = c = config
        self._step, self._step_backward, init = cell_functions(c.cell)
        self.lstm = c.cell == "lstm"
        rng = np.random.default_rng(c.seed)
        kw = {} if c.init_scale is None else {"scale": c.init_scale}
        if self.lstm:
            kw["forget_bias"] = c.forget_bias
        fresh = dict(init(c.d, c.n, rng, **kw))
        self.cell_keys = tuple(fresh)
        self.arith = c.head in ARITH_HEADS
        if self.arith:
            fresh.update(init_arith(c.head, c.n_out, c.n, rng))
        else:
            # (n_out, n) ~ N(0, 1/n)
            fresh["Wo"] = rng.standard_normal((c.n_out, c.n)) / np.sqrt(c.n)
            fresh["bo"] = np.zeros(c.n_out)
        if params is not None:
            for k, v in fresh.items():
                if k not in params or np.shape(params[k]) != v.shape:
                    raise ValueError(f"params[{k!r}] has shape {np.shape(params.get(k))}, "
                                     f"expected {v.shape}")
            fresh = {k: np.array(checks.array(f"params[{k!r}]", params[k])) for k in fresh}
        self.params = fresh
        self.head_keys = tuple(k for k in fresh if k not in self.cell_keys)

    def copy(self):
        return SeqModel(self.config, params=self.params)

    @property
    def n_params(self):
        return int(sum(v.size for v in self.params.values()))

    def regression_bound(self):
        """|ŷ_k| <= |bo_k| + ‖Wo[k]‖₁ for states in [−1, 1]^n (gleam.seqmodel.heads.regression_bound);
        an NAU head is the readout with bo = 0. The NMU and NALU (products, exp) have none here."""
        if self.config.head == "nau":
            return regression_bound(self.params["W_nau"], np.zeros(self.config.n_out))
        if self.arith:
            raise ValueError(f"regression_bound is for a linear head (classify, regress, nau); "
                             f"this model's head is {self.config.head!r}")
        return regression_bound(self.params["Wo"], self.params["bo"])

    def project(self):
        """Put the head's weights back in their range, in place: NAU W_nau into [−1, 1], NMU
        W_nmu into [0, 1] (gleam.seqmodel.arith_heads.arith_project); nothing for the other heads.
        gleam.seqmodel.Trainer calls this after every optimiser step it keeps."""
        if self.arith:
            for k, v in arith_project(self.config.head, self.params).items():
                np.copyto(self.params[k], v)

    def _readout(self, h):
        """The head's outputs on states h (..., n)."""
        if self.arith:
            return arith_forward(self.config.head, h, self.params)
        return readout(h, self.params["Wo"], self.params["bo"])

    def _penalty(self):
        """(arith_reg · R, its gradients) of an NAU/NMU head; (0.0, {}) otherwise."""
        c = self.config
        if c.arith_reg == 0:
            return 0.0, {}
        R, dR = arith_penalty(c.head, self.params)
        return c.arith_reg * R, {k: c.arith_reg * g for k, g in dR.items()}

    # ---- forward -----------------------------------------------------------------------
    def forward(self, X, mask=None, h0=None, intervene=None):
        """Run the batch -> (outputs, states, caches).

        X: (T, B) token ids or (T, B, d) features; mask: (T, B), None = all valid.
        h0: start state, (n,) or (B, n) (an LSTM takes a pair (h0, c0)); default zeros.
        intervene: {t: fn}; after step t the state s_t (h, or the pair (h, c) for an LSTM)
          is replaced by fn(copy of s_t), which must return the same shapes. Later steps and
          the head see the new state: use it to clamp, swap or patch states.
        outputs: logits / predictions, (B, n_out) many-to-one or (T, B, n_out) many-to-many
          (entries at padded steps are computed but mean nothing). states: h_t, (T, B, n).
        caches: {"steps": per-step cell caches (gate values; batched input for
          `gleam.cells.CELLS[cell].jacobian`), "mask", "X" (float inputs), "c" (LSTM cell
          states, (T, B, n), else None), "state0"}.
        """
        Xf, m = model_inputs(X, mask, self.config.d)
        T, B = m.shape
        state = state0 = initial_state(h0, B, self.config.n, self.lstm)
        intervene = check_intervene(intervene, T)
        hs = np.empty((T, B, self.config.n))
        cs = np.empty((T, B, self.config.n)) if self.lstm else None
        steps = []
        full = m.all(axis=1)  # steps with no padding: the rule below is h_t = h_new
        for t in range(T):
            new, cache = self._step(Xf[t], state if self.lstm else state[0], self.params)
            keep = m[t][:, None]
            # h_t = h_new where the step is real, h_{t−1} where it is padding
            state = as_tuple(new) if full[t] else tuple(
                np.where(keep, a, b) for a, b in zip(as_tuple(new), state))
            if t in intervene:
                state = apply_intervention(intervene[t], state, t, self.lstm)
            hs[t] = state[0]
            if self.lstm:
                cs[t] = state[1]
            steps.append(cache)
        outputs = self._readout(hs if self.config.many_to_many else hs[-1])
        return outputs, hs, {"steps": steps, "mask": m, "X": Xf, "c": cs, "state0": state0}

    def hidden_states(self, X, mask=None, h0=None, intervene=None, cell_state=False):
        """Every hidden state h_t, (T, B, n) (LSTM: the cell states c_t if cell_state=True)."""
        cell_state = checks.flag("cell_state", cell_state)
        _, hs, caches = self.forward(X, mask, h0, intervene)
        if cell_state:
            if not self.lstm:
                raise ValueError("cell_state=True needs an LSTM, this model's cell is "
                                 f"{self.config.cell!r}")
            return caches["c"]
        return hs

    def predict(self, X, mask=None, h0=None, intervene=None):
        """classify: class ids, (B,) or (T, B) with −1 at padded steps;
        regress: values, (B,) / (T, B) for a scalar head (else a trailing n_out), NaN at padding."""
        out, _, caches = self.forward(X, mask, h0, intervene)
        m = caches["mask"]
        if self.config.head == "classify":
            pred = out.argmax(axis=-1)
            return np.where(m, pred, -1) if self.config.many_to_many else pred
        if self.config.many_to_many:
            out = np.where(m[..., None], out, np.nan)
        return out[..., 0] if self.config.n_out == 1 else out

    # ---- loss and backward -------------------------------------------------------------
    def _head_loss(self, outputs, m, targets, target_mask):
        """-> (loss, dL/doutputs, weights of the positions with a target, {"accuracy" | "mse"});
        the loss includes arith_reg · R for an NAU/NMU head, the mse never does."""
        T, B = m.shape
        if self.config.many_to_many:
            weights = m.copy()
            if target_mask is not None:
                tm = np.asarray(target_mask)
                if tm.dtype.kind not in "biuf" or not np.all((tm == 0) | (tm == 1)):
                    raise ValueError("target_mask must be a (T, B) array of 0/1 or booleans")
                tm = tm.astype(bool)
                if tm.shape != (T, B):
                    raise ValueError(f"target_mask has shape {tm.shape}, "
                                     f"expected (T, B) = ({T}, {B})")
                weights &= tm
            if not weights.any():
                raise ValueError("no step carries a target (mask & target_mask is all False)")
        elif target_mask is not None:
            raise ValueError("target_mask is for many-to-many models")
        else:
            weights = np.ones(B, dtype=bool)
        targets = checks.numeric("targets", targets)
        lead = weights.shape
        if self.config.head == "classify":
            if targets.shape != lead:
                raise ValueError(f"targets have shape {targets.shape}, expected {lead}")
            loss, dy, correct = classify_loss(outputs, targets, weights)
            return loss, dy, weights, {"accuracy": correct / weights.sum()}
        if targets.shape[: len(lead)] != lead:
            raise ValueError(f"targets have shape {targets.shape}, "
                             f"expected {lead} or {lead} + (n_out,)")
        loss, dy, mse = regress_loss(outputs, targets, weights)
        return loss + self._penalty()[0], dy, weights, {"mse": mse}

    def loss(self, X, mask, targets, h0=None, target_mask=None, intervene=None):
        """Forward only -> (loss, info) with info "outputs", "states", "count", "accuracy"/"mse".
        Accepts `intervene` (see forward), e.g. to measure what a clamped state costs."""
        outputs, hs, caches = self.forward(X, mask, h0, intervene)
        loss, _, w, metric = self._head_loss(outputs, caches["mask"], targets, target_mask)
        return loss, {"outputs": outputs, "states": hs, "count": int(w.sum()), **metric}

    def loss_and_grads(self, X, mask, targets, h0=None, target_mask=None, truncate=None):
        """Mean loss over the targets and its gradient -> (loss, grads, info).

        truncate: None (full backpropagation through time), or k >= 1, many-to-one only: the
          gradient of each sequence's loss flows back through its last k real steps and no
          further (the state before them is taken as given): a backward horizon of k steps.

        targets: many-to-one (B,) class ids or values ((B, n_out) for a vector regression);
          many-to-many (T, B) (or (T, B, n_out)), read only where mask (and target_mask) hold.
        target_mask: many-to-many only, (T, B): the valid steps that carry a loss (e.g. queries).
        The loss includes an NAU/NMU head's penalty arith_reg · R, and grads its gradient.
        grads: same keys as params. info: "outputs", "states", "dh0" (gradient w.r.t. the start
        state, (B, n), a pair for an LSTM), "dX" ((T, B, d), w.r.t. the inputs: for token ids
        the one-hot vectors), "count" (positions averaged over), "accuracy" or "mse".
        """
        return backward(self, X, mask, targets, h0, target_mask, truncate)
