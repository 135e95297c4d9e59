"""Recurrent models trained elsewhere, in gleam: PyTorch checkpoints read with NumPy alone.

    load(data, vocab) -> Checkpoint     a safetensors or .npz file's bytes and its vocabulary
                                        (a dict, or the JSON file's bytes or text)
    from_torch(rnn, readout, vocab)     live torch.nn modules (where torch is installed)
    read_safetensors / write_safetensors, read_npz / write_npz   the two file formats

What a checkpoint holds and how it maps onto gleam's cells: gleam.checkpoints.torch_layout.
"""
import io
import json
import zipfile

import numpy as np

from gleam.checkpoints.safetensors import MAX_BYTES, file_bytes, read_safetensors, write_safetensors
from gleam.checkpoints.torch_layout import LAYERS, Checkpoint, check_vocab, checkpoint, from_torch

__all__ = ["load", "read_npz", "write_npz", "read_vocab", "read_safetensors", "write_safetensors",
           "checkpoint", "check_vocab", "from_torch", "Checkpoint", "LAYERS", "MAX_BYTES"]

_ZIP = b"PK\x03\x04"


def read_npz(data):
    """{name: array} from a NumPy .npz file's bytes (no pickles), or ValueError."""
    data = file_bytes(data)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as f:
            if not isinstance(f, np.lib.npyio.NpzFile):
                raise ValueError("data: a single .npy array, not an .npz file of named arrays")
            return {name: f[name] for name in f.files}
    except ValueError as e:
        if str(e).startswith("data:"):
            raise
        raise ValueError(f"data: an .npz entry cannot be read without pickles, or is not an "
                         f"array ({e})") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as e:
        raise ValueError(f"data: not a readable .npz file: truncated or damaged ({e})") from None


def write_npz(tensors):
    """The bytes of an .npz file of `tensors` ({name: array})."""
    if not isinstance(tensors, dict) or not all(isinstance(k, str) for k in tensors):
        raise ValueError("tensors must be a dict of arrays keyed by name")
    out = io.BytesIO()
    np.savez(out, **{k: np.asarray(v) for k, v in tensors.items()})
    return out.getvalue()


def read_vocab(vocab):
    """The vocabulary as a dict, from a dict or a JSON file's bytes or text; ValueError if the
    JSON does not parse (its entries are checked by `checkpoint`)."""
    if isinstance(vocab, dict):
        return vocab
    if isinstance(vocab, (bytes, bytearray)):
        try:
            vocab = bytes(vocab).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("vocab: the file is not UTF-8 text") from None
    if not isinstance(vocab, str):
        raise ValueError(f"vocab must be a dict or a JSON file's text, got {type(vocab).__name__}")
    try:
        return json.loads(vocab)
    except ValueError as e:
        raise ValueError(f"vocab: the file is not JSON ({e})") from None


def load(data, vocab):
    """A Checkpoint from a safetensors or .npz file's bytes (told apart by their first bytes)
    and its vocabulary; ValueError naming what is wrong with either."""
    data = file_bytes(data)
    vocab = read_vocab(vocab)
    if data[:4] == _ZIP:
        tensors = read_npz(data)
    else:
        tensors, _ = read_safetensors(data)
    return checkpoint(tensors, vocab)
