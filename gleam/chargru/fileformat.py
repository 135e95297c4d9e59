"""A char-level GRU as a file: `dumps(state) -> bytes`, `loads(bytes) -> state`, `check_state`.

The file is a NumPy .npz archive (np.savez: a zip of .npy arrays, read with allow_pickle=False,
so loading one never runs code), readable with NumPy alone, in CPython and in Pyodide:

    header             one JSON text: {"format": "gleam.chargru", "version": 1, the corpus, the
                       vocabulary, hidden, seq_len, lr, clip (null: no clipping), seed, steps,
                       position, diverged, lr_history [[steps, lr], ...], sample_rng (the PCG64
                       state of the sampling generator), "arrays": the names below}
    param.<name>       the eleven parameters Wz, Uz, bz, Wr, Ur, br, Wh, Uh, bh, Wy, by (float64)
    memory.<name>      Adagrad's accumulated squared gradients, one per parameter
    h                  (H,) the state carried into the next chunk
    gates              (K, 2H) [z, r] of the last chunk computed (what the heatmaps show; NaN
                       where a refused, diverged chunk overflowed)
    last_loss          () the last chunk's loss, nats per character (nan before any step)

Version 2 is a model of B > 1 parallel streams (`CharGRU(batch=B)`): the header also holds
"batch": B, "position" is the list of the B data pointers and h is (B, H), row b stream b's state
(gates are stream 0's). A one-stream model is still written as version 1, byte for byte what it
was, and a version-1 file reads as B = 1: version 2 adds nothing a one-stream model has.

`CharGRU.to_bytes()` / `CharGRU.from_bytes(data)` are the way in; `check_state` refuses, with a
sentence, anything a model could not continue from exactly.
"""
import io
import json
import math

import numpy as np

from gleam.chargru import kernels as gm
from gleam import checks
from gleam.chargru.corpus import check_corpus

MAX_BATCH = 64                   # CharGRU's bound on parallel streams (gleam.chargru.MAX_BATCH)

FORMAT = "gleam.chargru"
VERSION = 2                      # the newest; a one-stream model is written as version 1
VERSIONS = (1, 2)
MAX_MODEL_BYTES = 32_000_000     # H = 128 and V = 256 make ~3 MB; anything far larger is not ours
SETTINGS = ("corpus", "vocab", "hidden", "seq_len", "lr", "clip", "seed", "steps", "position",
            "diverged", "lr_history", "sample_rng")
ARRAYS = ([f"param.{n}" for n in gm.NAMES] + [f"memory.{n}" for n in gm.NAMES]
          + ["h", "gates", "last_loss"])


def dumps(state):
    """A `CharGRU.state_dict()` as the bytes of a .npz file (format above).

    It writes what it is given (whether a model can continue from it is `check_state`'s question,
    asked when the file is read), as long as it can be written: ValueError for a state that lacks
    a part, settings that are not plain JSON values (NaN and inf included), arrays that are not
    of numbers, a batch that is not an integer >= 1.
    """
    if not isinstance(state, dict):
        raise ValueError(f"state must be a dict (a CharGRU.state_dict()), got {type(state).__name__}")
    absent = [k for k in SETTINGS + ("params", "memory", "h", "gates", "last_loss") if k not in state]
    if absent:
        raise ValueError(f"state lacks {', '.join(absent)}")
    for group in ("params", "memory"):
        if not isinstance(state[group], dict) or any(n not in state[group] for n in gm.NAMES):
            raise ValueError(f"state['{group}'] must be a dict of the arrays {', '.join(gm.NAMES)}")
    batch = checks.integer("state['batch']", state.get("batch", 1), minimum=1)
    header = {"format": FORMAT, "version": 1 if batch == 1 else 2, "arrays": ARRAYS}
    header.update({k: state[k] for k in SETTINGS})
    if batch != 1:
        header["batch"] = batch
    clip = checks.number("state['clip']", state["clip"], allow_inf=True)
    header["clip"] = None if math.isinf(clip) else state["clip"]
    try:
        text = json.dumps(header, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ValueError(f"state's settings must be plain JSON values, finite numbers ({e})") from None
    arrays = {f"{file}.{n}": checks.numeric(f"state['{group}']['{n}']", state[group][n])
              for group, file in (("params", "param"), ("memory", "memory")) for n in gm.NAMES}
    arrays.update({k: checks.numeric(f"state['{k}']", state[k]) for k in ("h", "gates")})
    arrays["last_loss"] = checks.array("state['last_loss']", state["last_loss"], ndim=0, finite=False)
    buffer = io.BytesIO()
    np.savez(buffer, header=np.array(text), **arrays)
    return buffer.getvalue()


class _Refused(ValueError):
    """A file refused on purpose (any other exception while reading means a damaged one)."""


def _not_a_model(why):
    return _Refused(f"not a saved model of this lab: {why}")


def loads(data):
    """The state a `dumps` file holds (arrays and settings unchecked: see `check_state`).

    ValueError for anything that is not such a file: other bytes, a damaged or truncated archive,
    one without the header, another format, another version.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"expected the file's bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > MAX_MODEL_BYTES:
        raise _not_a_model(f"the file is {len(data):,} bytes, over the {MAX_MODEL_BYTES:,} a model can take")
    if not data.startswith(b"PK"):
        raise _not_a_model("it is not an .npz archive (a zip of NumPy arrays)")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            if sum(info.file_size for info in npz.zip.infolist()) > MAX_MODEL_BYTES:
                raise _not_a_model("its arrays unpack to more than a model can hold")
            if "header" not in npz.files:
                raise _not_a_model("the archive has no header")
            header = npz["header"]
            missing = [name for name in ARRAYS if name not in npz.files]
            arrays = {name: npz[name] for name in ARRAYS if name in npz.files}
    except _Refused:
        raise
    except Exception as e:        # zipfile.BadZipFile, EOFError, OSError, ...: untrusted bytes
        raise _not_a_model(f"the archive cannot be read (damaged or cut short: {e})") from None
    if header.dtype.kind != "U" or header.ndim != 0:
        raise _not_a_model("its header is not one text")
    try:
        header = json.loads(str(header[()]))
    except ValueError:
        raise _not_a_model("its header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        got = header.get("format") if isinstance(header, dict) else None
        raise _not_a_model(f"its format is {got!r}, not {FORMAT!r}")
    version = header.get("version")
    if isinstance(version, bool) or version not in VERSIONS:
        raise ValueError(f"this file is format version {version!r} of {FORMAT}; "
                         f"this lab reads versions {' and '.join(map(str, VERSIONS))}")
    settings = SETTINGS + (("batch",) if version == 2 else ())
    absent = [k for k in settings if k not in header] + missing
    if absent:
        raise ValueError(f"the file lacks {', '.join(absent)}")
    state = {k: header[k] for k in settings}
    state.setdefault("batch", 1)                     # version 1: one stream
    state["clip"] = math.inf if state["clip"] is None else state["clip"]
    state["params"] = {n: arrays[f"param.{n}"] for n in gm.NAMES}
    state["memory"] = {n: arrays[f"memory.{n}"] for n in gm.NAMES}
    state.update(h=arrays["h"], gates=arrays["gates"], last_loss=arrays["last_loss"])
    return state


def _array(name, value, shape, low=-math.inf, high=math.inf, nan_ok=False):
    """value as a float64 array of `shape` with finite entries in [low, high] (nan_ok: or NaN),
    or ValueError."""
    if not isinstance(value, np.ndarray) or value.dtype != np.float64:
        kind = value.dtype if isinstance(value, np.ndarray) else type(value).__name__
        raise ValueError(f"{name} must be a float64 array, got {kind}")
    if value.shape != shape:
        raise ValueError(f"{name} has shape {value.shape}, expected {shape}")
    numbers = value[~np.isnan(value)] if nan_ok else value
    if not np.isfinite(numbers).all():
        raise ValueError(f"{name} has values that are not finite")
    if numbers.size and (numbers.min() < low or numbers.max() > high):
        raise ValueError(f"{name} has values outside [{low:g}, {high:g}]")
    return value


def _sample_rng(state):
    """A valid PCG64 state (the sampling generator's), or ValueError."""
    try:
        if state["bit_generator"] != "PCG64":
            raise ValueError
        np.random.PCG64().state = state
    except Exception:              # KeyError, TypeError, ValueError, OverflowError from NumPy
        raise ValueError("sample_rng is not the state of a PCG64 generator") from None
    return state


def check_state(state):
    """`state` (a `CharGRU.state_dict()`, or what `loads` read) if a model can continue exactly
    from it; ValueError saying what is wrong otherwise. Returns a copy with plain Python numbers."""
    if not isinstance(state, dict):
        raise ValueError(f"a model state is a dict, got {type(state).__name__}")
    s = dict(state)
    H = s["hidden"] = checks.integer("hidden", s.get("hidden"), minimum=1)
    K = s["seq_len"] = checks.integer("seq_len", s.get("seq_len"), minimum=1)
    check_corpus(s.get("corpus"), K)
    corpus, vocab = s["corpus"], s.get("vocab")
    if vocab != "".join(sorted(set(corpus))):
        raise ValueError("the vocabulary stored does not match the corpus stored with it "
                         f"({len(vocab) if isinstance(vocab, str) else vocab!r} characters stored, "
                         f"{len(set(corpus))} distinct in the corpus)")
    V = len(vocab)
    N = len(corpus)
    B = s["batch"] = checks.integer("batch", s.get("batch", 1), minimum=1, maximum=MAX_BATCH)
    if B > N - K:
        raise ValueError(f"batch = {B} streams need a corpus of at least seq_len + batch = {K + B} "
                         f"characters, got {N}")
    s["lr"] = checks.number("lr", s.get("lr"), minimum=0, strict_min=True)
    s["clip"] = checks.number("clip", s.get("clip"), minimum=0, strict_min=True, allow_inf=True)
    s["seed"] = checks.integer("seed", s.get("seed"), minimum=0)
    steps = s["steps"] = checks.integer("steps", s.get("steps"), minimum=0)
    if B == 1:
        pos = s["position"] = checks.integer("position", s.get("position"), minimum=0, maximum=N - 1)
        if pos % K:
            raise ValueError(f"position must be a multiple of seq_len = {K}, got {pos}")
    else:
        s["position"] = _positions(s.get("position"), B, N, K)
    if not isinstance(s.get("diverged"), (bool, np.bool_)):
        raise ValueError(f"diverged must be true or false, got {s.get('diverged')!r}")
    s["diverged"] = bool(s["diverged"])
    s["lr_history"] = _lr_history(s.get("lr_history"), steps, s["lr"])
    s["sample_rng"] = _sample_rng(s.get("sample_rng"))
    last = s.get("last_loss")
    if isinstance(last, np.ndarray) and last.shape == () and last.dtype == np.float64:
        last = float(last)
    if not isinstance(last, float):
        raise ValueError(f"last_loss must be one float64 number, got {type(last).__name__}")
    s["last_loss"] = last
    shapes = gm.shapes(V, H)
    for group, low in (("params", -math.inf), ("memory", 0.0)):
        arrays = s.get(group)
        if not isinstance(arrays, dict) or set(arrays) != set(gm.NAMES):
            raise ValueError(f"{group} must hold exactly {', '.join(gm.NAMES)}")
        s[group] = {n: _array(f"{group}.{n}", arrays[n], shapes[n], low=low) for n in gm.NAMES}
    # |h| <= 1: each step mixes the old state with tanh of something (the state starts at 0)
    s["h"] = _array("h", s.get("h"), (H,) if B == 1 else (B, H), -1.0 - 1e-12, 1.0 + 1e-12)
    # the gates of the last chunk computed: a refused one's may have overflowed to NaN
    s["gates"] = _array("gates", s.get("gates"), (K, 2 * H), 0.0, 1.0, nan_ok=s["diverged"])
    return s


def _positions(positions, B, N, K):
    """B data pointers, stream b's on its own K-grid (≡ s_b = ⌊b·(N − K)/B⌋ mod K), or ValueError."""
    if not isinstance(positions, (list, tuple)) or len(positions) != B:
        raise ValueError(f"position must be a list of batch = {B} data pointers, got {positions!r:.60}")
    out = []
    for b, pos in enumerate(positions):
        pos = checks.integer(f"position of stream {b}", pos, minimum=0, maximum=N - 1)
        start = b * (N - K) // B
        if pos % K != start % K:
            raise ValueError(f"position of stream {b} must be {start % K} plus a multiple of seq_len = {K}, "
                             f"got {pos}")
        out.append(pos)
    return out


def _lr_history(history, steps, lr):
    """[(steps, lr), ...]: starting at 0, strictly increasing steps up to `steps`, ending at `lr`."""
    try:
        entries = [(checks.integer("lr_history step", a, minimum=0, maximum=steps),
                    checks.number("lr_history lr", b, minimum=0, strict_min=True)) for a, b in history]
    except (TypeError, ValueError) as e:
        raise ValueError(f"lr_history must be [[steps, lr], ...] with steps in [0, {steps}] and "
                         f"lr > 0 ({e})") from None
    if not entries or entries[0][0] != 0 or any(a[0] >= b[0] for a, b in zip(entries, entries[1:])):
        raise ValueError("lr_history must start at step 0 and go up one change at a time")
    if entries[-1][1] != lr:
        raise ValueError(f"lr_history ends at lr = {entries[-1][1]:g}, but lr is {lr:g}")
    return entries
