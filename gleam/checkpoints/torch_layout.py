"""A PyTorch recurrent classifier as a gleam model: one `torch.nn.GRU`, `LSTM` or `RNN` (tanh)
layer over one-hot characters, and a `torch.nn.Linear` read-out of its last hidden state.

Its tensors carry PyTorch's names, under any prefix (`rnn.weight_ih_l0`, `head.weight`, ...):

    weight_ih_l0 (k·n, d)   weight_hh_l0 (k·n, n)   bias_ih_l0 (k·n,)   bias_hh_l0 (k·n,)
    weight (n_out, n)       bias (n_out,)           the read-out

k is the layer's number of blocks: GRU 3 (r, z, n), LSTM 4 (i, f, g, o), RNN 1 (tanh), stacked
in rows exactly as gleam's "gru_torch" and "lstm" cells keep them; an RNN becomes the "elman"
cell with b = bias_ih + bias_hh. Its vocabulary is a small JSON object:

    {"alphabet": ["0", "1", "+"],    one character per input column, in column order (d of them)
     "classes": ["0", "1", ...],     optional: a name per read-out row (default "0", "1", ...)
     "layer": "GRU",                 optional: "GRU", "LSTM" or "RNN"; checked against the shapes
     "nonlinearity": "tanh",         optional, an RNN's: only "tanh"
     "task": "...",                  optional: the gleam task it was trained on, shown as given
     "description": "..."}           optional

    checkpoint(tensors, vocab) -> Checkpoint      from {name: array} and the vocabulary
    from_torch(rnn, readout, vocab) -> Checkpoint from live modules (needs torch only to exist)

Each refusal is a ValueError whose sentence names the tensor or the entry that is wrong.
"""
import re
from typing import NamedTuple

import numpy as np

from gleam.seqmodel import SeqModel, SeqModelConfig

__all__ = ["LAYERS", "Checkpoint", "checkpoint", "check_vocab", "from_torch"]

# PyTorch's layer -> (gleam's cell, blocks stacked in its matrices)
LAYERS = {"GRU": ("gru_torch", 3), "LSTM": ("lstm", 4), "RNN": ("elman", 1)}
_BY_BLOCKS = {k: layer for layer, (_, k) in LAYERS.items()}
_RECURRENT = re.compile(r"^(?P<prefix>(?:.*\.)?)(?:weight|bias)_(?P<which>ih|hh|hr)"
                        r"_l(?P<layer>\d+)(?P<reverse>_reverse)?$")
_OWN = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
_VOCAB_KEYS = ("alphabet", "classes", "layer", "nonlinearity", "task", "description")


class Checkpoint(NamedTuple):
    """A loaded model: `model` (a gleam SeqModel, many-to-one classify, float64), the PyTorch
    `layer` it came from, its `alphabet` and `classes`, the file's float `dtype`, and the
    vocabulary's optional `task` and `description` (None where absent)."""
    model: SeqModel
    layer: str
    alphabet: tuple
    classes: tuple
    dtype: str
    task: str = None
    description: str = None

    def encode(self, text):
        """Token ids (T, 1) of `text`, a character per step; ValueError naming the characters
        outside the alphabet."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"text must be a non-empty string, got {text!r:.60}")
        index = {c: i for i, c in enumerate(self.alphabet)}
        unknown = sorted({c for c in text if c not in index})
        if unknown:
            raise ValueError(f"text has {', '.join(map(repr, unknown))}, outside this model's "
                             f"alphabet {''.join(self.alphabet)!r}")
        return np.array([[index[c]] for c in text], dtype=np.int64)


def _strings(name, value, allow_empty=False):
    if not (isinstance(value, list) and (value or allow_empty)
            and all(isinstance(v, str) and v for v in value)):
        raise ValueError(f"vocab[{name!r}] must be a list of non-empty strings, got {value!r:.80}")
    if len(set(value)) != len(value):
        twice = sorted({v for v in value if value.count(v) > 1})
        raise ValueError(f"vocab[{name!r}] lists {', '.join(map(repr, twice))} more than once")
    return tuple(value)


def check_vocab(vocab):
    """The vocabulary as a dict of checked entries, or ValueError naming the entry."""
    if not isinstance(vocab, dict):
        raise ValueError(f"vocab must be a JSON object, got {type(vocab).__name__}")
    extra = sorted(set(vocab) - set(_VOCAB_KEYS))
    if extra:
        raise ValueError(f"vocab has {', '.join(map(repr, extra))}, which it does not know "
                         f"(it knows {', '.join(_VOCAB_KEYS)})")
    if "alphabet" not in vocab:
        raise ValueError("vocab lacks 'alphabet', the characters in input-column order")
    out = {"alphabet": _strings("alphabet", vocab["alphabet"])}
    long = [c for c in out["alphabet"] if len(c) != 1]
    if long:
        raise ValueError(f"vocab['alphabet'] must hold single characters, got {long[0]!r}")
    if "classes" in vocab:
        out["classes"] = _strings("classes", vocab["classes"])
    layer = vocab.get("layer")
    if layer is not None and layer not in LAYERS:
        raise ValueError(f"vocab['layer'] must be one of {', '.join(LAYERS)}, got {layer!r:.40}")
    out["layer"] = layer
    nonlinearity = vocab.get("nonlinearity", "tanh")
    if nonlinearity != "tanh":
        raise ValueError(f"vocab['nonlinearity'] is {nonlinearity!r:.40}: only a tanh RNN is "
                         "supported (a relu one is not yet)")
    for key in ("task", "description"):
        if vocab.get(key) is not None and not isinstance(vocab[key], str):
            raise ValueError(f"vocab[{key!r}] must be a string, got {vocab[key]!r:.40}")
        out[key] = vocab.get(key)
    return out


def _split(tensors):
    """(recurrent {own name: array}, read-out {"weight"/"bias": array}) by PyTorch's names."""
    recurrent, readout, prefixes = {}, {}, set()
    for name in tensors:
        if not isinstance(name, str):
            raise ValueError(f"tensors: a tensor's name must be a string, got {name!r}")
        m = _RECURRENT.match(name)
        if m and m["reverse"]:
            raise ValueError(f"tensors: {name!r} is a reverse direction's: bidirectional models "
                             "are not supported yet")
        if m and m["layer"] != "0":
            raise ValueError(f"tensors: {name!r} is layer {m['layer']}'s: multi-layer models are "
                             "not supported yet (one layer, l0)")
        if m and m["which"] == "hr":
            raise ValueError(f"tensors: {name!r} is an LSTM projection's (proj_size): not "
                             "supported yet")
        if m:
            prefixes.add(("rnn", m["prefix"]))
            recurrent[name[len(m["prefix"]):]] = tensors[name]
            continue
        head, _, last = name.rpartition(".")
        if last not in ("weight", "bias"):
            raise ValueError(f"tensors: extra tensor {name!r}: a checkpoint holds one recurrent "
                             "layer (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0) and a "
                             "linear read-out (weight, bias)")
        if last in readout:
            raise ValueError(f"tensors: {name!r} is a second read-out {last}: a checkpoint holds "
                             "one linear read-out")
        prefixes.add(("readout", head))
        readout[last] = tensors[name]
    for kind in ("rnn", "readout"):
        mine = sorted(p for k, p in prefixes if k == kind)
        if len(mine) > 1:
            raise ValueError(f"tensors: the {kind} tensors are under more than one prefix "
                             f"({', '.join(map(repr, mine))})")
    missing = [n for n in _OWN if n not in recurrent] + [
        f"the read-out's {n}" for n in ("weight", "bias") if n not in readout]
    if missing:
        raise ValueError(f"tensors: missing {', '.join(missing)} (a layer made with bias=False "
                         "can be saved with zero biases)")
    return recurrent, readout


def _float64(name, a):
    if not (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
        raise ValueError(f"tensors: {name} must be a floating-point array, got "
                         f"{getattr(a, 'dtype', type(a).__name__)}")
    if not np.isfinite(a).all():
        raise ValueError(f"tensors: {name} holds NaN or infinite values")
    return np.array(a, dtype=np.float64)


def _shape(name, a, shape, why):
    if a.shape != shape:
        raise ValueError(f"tensors: {name} has shape {a.shape}, expected {shape} ({why})")


def checkpoint(tensors, vocab):
    """A Checkpoint from PyTorch-named tensors ({name: float array}) and a vocabulary (a dict,
    as in the module's docstring). ValueError naming what is missing, extra or misshapen."""
    if not isinstance(tensors, dict):
        raise ValueError(f"tensors must be a dict of arrays, got {type(tensors).__name__}")
    v = check_vocab(vocab)
    recurrent, readout = _split(tensors)
    dtypes = {np.dtype(a.dtype).name for a in (*recurrent.values(), *readout.values())
              if isinstance(a, np.ndarray)}
    W_ih, W_hh, b_ih, b_hh = (_float64(n, recurrent[n]) for n in _OWN)
    Wo, bo = _float64("the read-out's weight", readout["weight"]), \
        _float64("the read-out's bias", readout["bias"])
    if W_hh.ndim != 2 or W_hh.shape[1] == 0 or W_hh.shape[0] % W_hh.shape[1]:
        raise ValueError(f"tensors: weight_hh_l0 has shape {W_hh.shape}; a layer's is "
                         "(k·n, n) with k = 3 (GRU), 4 (LSTM) or 1 (RNN)")
    n = W_hh.shape[1]
    layer = _BY_BLOCKS.get(W_hh.shape[0] // n)
    if layer is None:
        raise ValueError(f"tensors: weight_hh_l0 has shape {W_hh.shape}, {W_hh.shape[0] // n} "
                         "blocks of n rows: not a GRU (3), LSTM (4) or RNN (1)")
    if v["layer"] is not None and v["layer"] != layer:
        raise ValueError(f"vocab['layer'] says {v['layer']}, and weight_hh_l0's shape "
                         f"{W_hh.shape} is a {layer}'s")
    cell, k = LAYERS[layer]
    d = len(v["alphabet"])
    _shape("weight_ih_l0", W_ih, (k * n, d), f"{k}·{n} rows, a column per character of the "
                                             f"{d}-character alphabet")
    for name, b in (("bias_ih_l0", b_ih), ("bias_hh_l0", b_hh)):
        _shape(name, b, (k * n,), f"{k}·{n}, as weight_hh_l0's rows")
    if Wo.ndim != 2:
        raise ValueError(f"tensors: the read-out's weight has shape {Wo.shape}, expected "
                         f"(classes, {n})")
    classes = v.get("classes") or tuple(str(i) for i in range(Wo.shape[0]))
    _shape("the read-out's weight", Wo, (len(classes), n),
           f"a row per class, a column per unit of the width-{n} state")
    _shape("the read-out's bias", bo, (len(classes),), "a value per class")
    if len(classes) < 2:
        raise ValueError("tensors: the read-out has one row: a classifier needs at least 2 classes")
    if cell == "elman":
        params = {"Wx": W_ih, "Wh": W_hh, "b": b_ih + b_hh}
    else:
        params = {"W_ih": W_ih, "W_hh": W_hh, "b_ih": b_ih, "b_hh": b_hh}
    model = SeqModel(SeqModelConfig(cell=cell, d=d, n=n, n_out=len(classes)),
                     params={**params, "Wo": Wo, "bo": bo})
    return Checkpoint(model, layer, v["alphabet"], classes, "/".join(sorted(dtypes)),
                      v["task"], v["description"])


def from_torch(rnn, readout, vocab):
    """A Checkpoint from a live single-layer `torch.nn.GRU`, `LSTM` or `RNN` (tanh) and its
    `torch.nn.Linear` read-out. gleam does not import torch: it reads the modules' state_dict."""
    kind = type(rnn).__name__
    if kind not in LAYERS:
        raise ValueError(f"rnn must be a torch.nn.GRU, LSTM or RNN, got {kind}")
    if getattr(rnn, "nonlinearity", "tanh") != "tanh":
        raise ValueError(f"rnn is an RNN with nonlinearity {rnn.nonlinearity!r}: only tanh is "
                         "supported (relu is not yet)")
    if type(readout).__name__ != "Linear":
        raise ValueError(f"readout must be a torch.nn.Linear, got {type(readout).__name__}")
    if not isinstance(vocab, dict):
        raise ValueError(f"vocab must be a dict (as a checkpoint's JSON), got {type(vocab).__name__}")
    tensors = {f"rnn.{k}": v.detach().cpu().numpy() for k, v in rnn.state_dict().items()}
    tensors.update({f"readout.{k}": v.detach().cpu().numpy()
                    for k, v in readout.state_dict().items()})
    # a layer made with bias=False has no bias tensors: its biases are zeros
    rows = tensors["rnn.weight_hh_l0"].shape[0] if "rnn.weight_hh_l0" in tensors else 0
    for name, size in (("rnn.bias_ih_l0", rows), ("rnn.bias_hh_l0", rows),
                       ("readout.bias", getattr(readout, "out_features", 0))):
        if name not in tensors:
            tensors[name] = np.zeros(size, dtype=tensors["readout.weight"].dtype)
    return checkpoint(tensors, {"layer": kind, **vocab})
