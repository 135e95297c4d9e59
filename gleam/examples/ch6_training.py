"""Chapter 6: cross-entropy and temperature, the char-level GRU trainer's settings, and the
gradient check of its hand-written backward pass (as written, or with a classic bug put in)."""
import numpy as np

from gleam import chargru, losses
from gleam.chargru import kernels as gm
from gleam.examples.data import plain

__all__ = ['chapter6_cross_entropy', 'chapter6_trainer', 'chapter6_gradient_check', 'GRADIENT_BUGS',
           'GRADIENT_CHECK_SETUP']

# bug name -> what it gets wrong (None: the backward pass as written)
GRADIENT_BUGS = {None: "the backward pass as written",
                 "assign": "the readout's gradient assigned (dWy = …) instead of summed (dWy += …)"}


def chapter6_cross_entropy(logits=(2.0, 0.5, -1.0, 0.3, 1.2), target=0, temperatures=(0.5, 1.0, 2.0)):
    """Softmax, cross-entropy and its gradient for one position's logits, and softmax(z / T)."""
    z = np.array(logits, dtype=np.float64)
    loss = losses.cross_entropy(z, target)
    grad = losses.cross_entropy_grad(z, target)
    at_t = [losses.softmax(z, t) for t in temperatures]
    return plain({"logits": z, "target": target, "p": losses.softmax(z),
                  "p_target": losses.softmax(z)[target], "loss_nats": loss, "loss_bits": losses.nats_to_bits(loss),
                  "uniform_loss": losses.cross_entropy(np.zeros_like(z), target), "grad": grad,
                  "grad_sum": grad.sum(), "temperatures": list(temperatures),
                  "p_at_temperature": at_t, "p_target_at_temperature": [p[target] for p in at_t],
                  "at_temperature": [{"T": t, "p_target": p[target]} for t, p in zip(temperatures, at_t)]})


def chapter6_trainer():
    """The char-level GRU trainer's settings, as a default CharGRU has them."""
    m = chargru.CharGRU()
    return {"K": m.K, "clip": m.clip, "lr": m.lr, "H": m.H}


def _assign_bug_backward(p, cache, grads):
    """The chunk's backward with the readout's gradient assigned at every step of the backward
    loop (dWy = dy_t h_tᵀ) instead of summed over the steps (dWy += dy_t h_tᵀ): what is left is
    the last assignment, step 1's (the loop runs from t = K down to 1). The gradient reaching h_t
    goes through Wy itself, not dWy, so every other parameter's gradient stays right."""
    gm.backward(p, cache, grads)
    dy = cache["probs"][0].copy()                  # dy_1 = p_1 − onehot(target_1)
    dy[cache["targets"][0]] -= 1.0
    grads["Wy"][...] = np.outer(dy, cache["hs"][1])
    grads["by"][...] = dy


# the model chapter6_gradient_check checks by default: small, seeded, trained past its first steps
GRADIENT_CHECK_SETUP = {"hidden": 8, "trained_steps": 50, "seed": 0}


def chapter6_gradient_check(hidden=GRADIENT_CHECK_SETUP["hidden"], trained_steps=GRADIENT_CHECK_SETUP["trained_steps"],
                            seed=GRADIENT_CHECK_SETUP["seed"], bug=None, tolerance=1e-6):
    """Chapter 6's widget: a small CharGRU on the default corpus (H = `hidden`, seeded), trained
    `trained_steps` steps so that no gradient is still near zero, then its hand-written gradient on
    the next chunk compared with central differences (`gleam.chargru.gradient_check`). With
    bug="assign" the same check runs on a backward pass with a classic bug (GRADIENT_BUGS).

    A correct float64 backward gives relative errors of ~1e-9 or less; a parameter passes below
    `tolerance`. Returns the errors per parameter (and "all"), the worst parameter, and which fail.
    """
    if bug not in GRADIENT_BUGS:
        raise ValueError(f"bug must be one of {list(GRADIENT_BUGS)}, got {bug!r}")
    model = chargru.CharGRU(hidden=hidden, seed=seed)
    model.step(trained_steps)
    if bug is None:
        errors = chargru.gradient_check(model)
    else:
        with np.errstate(all="ignore"):
            errors = gm.gradient_check(model.params, *model.next_chunk(), backward_fn=_assign_bug_backward)
    names = list(gm.NAMES)
    worst = max(names, key=lambda n: errors[n])
    failing = [n for n in names if not errors[n] < tolerance]
    return plain({"hidden": model.H, "V": model.V, "K": model.K, "trained_steps": model.steps, "seed": seed,
                  "bug": bug, "backward": GRADIENT_BUGS[bug], "names": names, "errors": errors,
                  "worst": worst, "worst_error": errors[worst], "tolerance": tolerance,
                  "failing": failing, "passed": not failing,
                  "n_params": gm.n_params(model.V, model.H)})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter6_cross_entropy": chapter6_cross_entropy(), "chapter6_trainer": chapter6_trainer(),
            "chapter6_gradient_check": chapter6_gradient_check()}
