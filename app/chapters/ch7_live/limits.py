"""What one session may ask of a shared server.

Under `panel serve` every session trains on the same processor, and an update (one chunk of
seq_len characters in each of B streams, forward and backward) cannot be interrupted: the
sessions' loops take turns (app.widgets.live_loop), but a click can still wait behind a whole
update of another session. So a server session may not build a model whose update does more
than UPDATE_MACS multiply-adds; in the browser (the static site) the work is the learner's own
machine's, and there is no such limit. The count is gleam.costs's: per stream and character,
the GRU's three blocks and the readout, forward and twice that backward.
"""
from gleam import costs as counting

UPDATE_MACS = 16_000_000     # ≈ 20 ms of NumPy on the 2-core machine the lab is tested on
NOTE = (f"On a shared server one update may do at most {UPDATE_MACS / 1e6:g} million multiply-adds "
        "(H, B and the corpus's alphabet together); the static site has no such limit.")


def update_macs(H, V, B, seq_len):
    """Multiply-adds of one update: B streams × seq_len characters, forward and backward."""
    per_char = counting.macs_per_step("gru", V, H) + counting.readout_macs(H, V)
    return 3 * B * seq_len * per_char


def check(model):
    """ValueError unless a shared server may train `model`."""
    work = update_macs(model.H, model.V, model.B, model.K)
    if work > UPDATE_MACS:
        raise ValueError(f"H = {model.H} with B = {model.B} streams on {model.V} distinct characters "
                         f"makes {work / 1e6:.1f} million multiply-adds an update; a shared server "
                         f"allows {UPDATE_MACS / 1e6:g} million (fewer streams or a smaller H fit)")
