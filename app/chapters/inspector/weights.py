"""The labs' trained weights where the inspector runs. An installed lab (panel serve, a wheel) has
them in gleam/data; the static site ships them beside its pages (data/<lab>.weights.npz, not in its
wheel, so that no other chapter loads them) and the worker fetches a lab's file from its own
origin, once, the first time the inspector needs it, into the same place in its file system."""
import sys

from gleam import pretrained


def ensure(lab):
    """Make gleam.pretrained.weights(lab, ...) readable here; ValueError if it cannot be."""
    path = pretrained.data_folder().joinpath(f"{lab}.weights.npz")
    if sys.platform != "emscripten" or path.is_file():
        return
    from js import Uint8Array, XMLHttpRequest        # (Pyodide: a worker may read synchronously)
    request = XMLHttpRequest.new()
    request.open("GET", f"data/{lab}.weights.npz", False)
    request.responseType = "arraybuffer"
    request.send(None)
    if request.status != 200:
        raise ValueError(f"the trained weights (data/{lab}.weights.npz) could not be read from this site: "
                         f"HTTP {request.status}")
    with open(str(path), "wb") as f:
        f.write(Uint8Array.new(request.response).to_bytes())
