"""The safetensors format with NumPy alone: a file is

    8 bytes    N, the header's length, an unsigned little-endian 64-bit integer
    N bytes    the header: a JSON object {name: {"dtype": "F32", "shape": [3, 4],
               "data_offsets": [begin, end]}, ..., "__metadata__": {str: str} (optional)}
    the rest   the tensors' bytes, little-endian, row-major; each tensor's [begin, end) counts
               from the start of this part, and the tensors fill it with no gap and no overlap

(the format of Hugging Face's `safetensors` package, which `tests/core/test_checkpoints.py` uses to
write the files this reads). No torch and no compiled code, so it reads in the static site too.

    read_safetensors(data) -> ({name: array}, metadata)   ValueError naming what is wrong
    write_safetensors(tensors, metadata=None) -> bytes
"""
import json
import math

import numpy as np

__all__ = ["read_safetensors", "write_safetensors", "file_bytes", "MAX_BYTES", "DTYPES"]

# the largest file read: a width-1024 LSTM over 256 symbols in float64 is about 42 MB
MAX_BYTES = 64 * 2 ** 20
# the format's names -> NumPy's; BF16 is read by widening to float32 (its top 16 bits)
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4",
          "I16": "<i2", "I8": "i1", "U8": "u1", "BOOL": "?"}
_NAMES = {np.dtype("<f8"): "F64", np.dtype("<f4"): "F32", np.dtype("<f2"): "F16"}


def file_bytes(data):
    """A file's bytes, or ValueError unless data is bytes of at most MAX_BYTES (both formats')."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"data must be the file's bytes, got {type(data).__name__}")
    if len(data) > MAX_BYTES:
        raise ValueError(f"data: the file is {len(data):,} bytes, over the limit of "
                         f"{MAX_BYTES:,} ({MAX_BYTES // 2 ** 20} MB)")
    return bytes(data)


def _header(data):
    """(header dict, body bytes) of a safetensors file, or ValueError."""
    if len(data) < 8:
        raise ValueError(f"data: the file is truncated: {len(data)} bytes, fewer than the 8 that "
                         "give a safetensors header's length")
    n = int.from_bytes(data[:8], "little")
    if n > len(data) - 8:
        raise ValueError(f"data: the file is truncated or not safetensors: its first 8 bytes "
                         f"announce a header of {n:,} bytes, and only {len(data) - 8:,} follow")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("data: the header is not JSON: the file is not safetensors, or is "
                         "damaged") from None
    if not isinstance(header, dict):
        raise ValueError(f"data: the header must be a JSON object, got {type(header).__name__}")
    return header, data[8 + n:]


def _entry(name, spec, body_size):
    """(dtype, shape, begin, end) of one header entry, or ValueError naming the tensor."""
    if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "data_offsets"}:
        raise ValueError(f"data: tensor {name!r}'s header entry must have exactly dtype, shape "
                         f"and data_offsets, got {spec!r:.120}")
    dtype, shape, offsets = spec["dtype"], spec["shape"], spec["data_offsets"]
    if not (isinstance(dtype, str) and dtype in DTYPES):
        raise ValueError(f"data: tensor {name!r} has dtype {dtype!r}, which this reader does not "
                         f"know (it reads {', '.join(DTYPES)})")

    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 0
    if not (isinstance(shape, list) and all(whole(s) for s in shape)):
        raise ValueError(f"data: tensor {name!r} has shape {shape!r}; a shape is a list of "
                         "integers >= 0")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(whole(o) for o in offsets)
            and offsets[0] <= offsets[1]):
        raise ValueError(f"data: tensor {name!r} has data_offsets {offsets!r}; they must be "
                         "[begin, end] with 0 <= begin <= end")
    begin, end = offsets
    size = math.prod(shape) * np.dtype(DTYPES[dtype]).itemsize
    if end - begin != size:
        raise ValueError(f"data: tensor {name!r} ({dtype}, shape {tuple(shape)}) needs {size:,} "
                         f"bytes, its data_offsets give {end - begin:,}")
    if end > body_size:
        raise ValueError(f"data: the file is truncated: tensor {name!r}'s data ends at byte "
                         f"{end:,} of the data, which has {body_size:,}")
    return dtype, tuple(shape), begin, end


def read_safetensors(data):
    """({name: array}, metadata) from a safetensors file's bytes.

    Arrays come in NumPy's native order with the file's dtype (BF16 widened to float32);
    metadata is the header's "__metadata__" ({} if none). Raises ValueError, naming the tensor
    where there is one, for a file that is truncated, too large, not safetensors, or whose
    entries do not describe its data exactly.
    """
    header, body = _header(file_bytes(data))
    metadata = header.pop("__metadata__", {})
    if not (isinstance(metadata, dict) and all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in metadata.items())):
        raise ValueError("data: the header's __metadata__ must map strings to strings")
    entries = {name: _entry(name, spec, len(body)) for name, spec in header.items()}
    spans = sorted((begin, end, name) for name, (_, _, begin, end) in entries.items())
    at = 0
    for begin, end, name in spans:
        if begin != at:
            raise ValueError(f"data: tensor {name!r} starts at byte {begin:,} of the data, where "
                             f"{'a gap' if begin > at else 'an overlap'} begins (expected {at:,})")
        at = end
    if at != len(body):
        raise ValueError(f"data: {len(body) - at:,} bytes follow the last tensor's data")
    tensors = {}
    for name, (dtype, shape, begin, end) in entries.items():
        a = np.frombuffer(body, DTYPES[dtype], count=math.prod(shape), offset=begin).reshape(shape)
        if dtype == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        tensors[name] = a.astype(a.dtype.newbyteorder("="))
    return tensors, dict(metadata)


def write_safetensors(tensors, metadata=None):
    """The bytes of a safetensors file holding `tensors` ({name: float array}, in name order)
    and `metadata` ({str: str}); F64, F32 and F16 only."""
    if not isinstance(tensors, dict):
        raise ValueError(f"tensors must be a dict of arrays, got {type(tensors).__name__}")
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise ValueError("metadata must be None or a dict of strings to strings")
    header, chunks, at = {}, [], 0
    for name in sorted(tensors):
        a = tensors[name]
        if not isinstance(name, str) or name == "__metadata__":
            raise ValueError(f"tensors: a tensor's name must be a string other than "
                             f"'__metadata__', got {name!r}")
        if not isinstance(a, np.ndarray) or a.dtype.newbyteorder("<") not in _NAMES:
            raise ValueError(f"tensors[{name!r}] must be a float64, float32 or float16 array, "
                             f"got {getattr(a, 'dtype', type(a).__name__)}")
        raw = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _NAMES[a.dtype.newbyteorder("<")], "shape": list(a.shape),
                        "data_offsets": [at, at + len(raw)]}
        chunks.append(raw)
        at += len(raw)
    if metadata:
        header["__metadata__"] = dict(metadata)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)   # the data then starts on an 8-byte boundary
    return len(text).to_bytes(8, "little") + text + b"".join(chunks)
