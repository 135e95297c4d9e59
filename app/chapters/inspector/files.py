"""The inspector's files: your own model, a PyTorch checkpoint (safetensors or .npz with PyTorch's
parameter names) and its vocabulary (a small JSON file), read with NumPy alone by gleam.checkpoints.

Either file may come first; the model is read once both are there; the vocabulary stays for the
next model file until another vocabulary comes. A file over the page's limit (LIMITS: what one
message to `panel serve` carries, whose websocket takes at most 20 MB, as base64) is refused in the
browser before any of it is read (app.widgets.file_pick). A refused file is said in
`inspector.error` with gleam's own sentence, and the model in use stays.
"""
import html
from functools import partial

from gleam import checkpoints
from gleam.labs import subjects
from gleam_lab.app.widgets.file_pick import FilePick
from gleam_lab.app.widgets.page import html_pane

LIMITS = {"weights": 12 * 2 ** 20, "vocab": 2 ** 20}       # bytes (under checkpoints.MAX_BYTES)
NOTE = (f"Your own model: a single-layer torch.nn.GRU, LSTM or RNN (tanh) with a linear read-out, saved "
        f"as .safetensors or .npz with PyTorch's parameter names (at most {LIMITS['weights'] // 2 ** 20} MB), "
        "and its vocabulary, a JSON file such as {\"alphabet\": [\"a\", \"b\"], \"classes\": [\"reject\", \"accept\"]} "
        f"(add \"task\": one of {', '.join(subjects.TASKS)} to get that task's test sets and probes).")
KINDS = {"weights": ".safetensors,.npz", "vocab": ".json"}


class InspectorFiles:
    """The two file inputs of an InspectorChapter, and what they do to it."""

    def __init__(self, chapter):
        self.chapter = chapter
        self._got = {}                  # kind -> (bytes, name) arrived and not yet read
        self._inputs = {kind: FilePick(label, KINDS[kind], LIMITS[kind], f"gl-chinspector-{kind}",
                                       partial(self._arrived, kind), partial(self._refused, kind))
                        for kind, label in (("weights", "Choose a model file…"), ("vocab", "Choose its vocabulary…"))}

    def controls(self):
        note = lambda text: html_pane(f"<span class='gl-note'>{text}</span>", sizing_mode="fixed", width=290)  # noqa: E731
        return [note(html.escape(NOTE)), self._inputs["weights"].panel(), self._inputs["vocab"].panel()]

    def _refused(self, kind, name, size):
        self.chapter.say(error=f"File {name!r} not loaded: it is {size:,} bytes, over the page's limit of "
                               f"{LIMITS[kind]:,} ({LIMITS[kind] // 2 ** 20} MB) for a "
                               f"{'model' if kind == 'weights' else 'vocabulary'} file; none of it was read. "
                               "The model in use stays.")

    def _arrived(self, kind, name, data):
        self._got[kind] = (data, name)
        if len(self._got) < len(KINDS):
            missing = "the vocabulary (.json)" if "vocab" not in self._got else "the model file"
            self.chapter.say(file=f"Got {self._got[kind][1]!r}; now {missing}.")
            return
        self.read(*self._got["weights"], *self._got["vocab"])

    def read(self, data, name, vocab, vocab_name):
        """Load a model from a file's bytes and its vocabulary's; refused: said, nothing changes
        (the vocabulary is kept for the next model file)."""
        self._got.pop("weights", None)
        try:
            subject = subjects.from_checkpoint(checkpoints.load(data, vocab))
        except ValueError as e:
            self.chapter.say(error=f"File {name!r} not loaded: {e}. The model in use stays.")
            return None
        self.chapter.install_file(subject)
        self.chapter.say(file=f"Loaded {name!r} with {vocab_name!r}: {subject.title}.")
        return subject
