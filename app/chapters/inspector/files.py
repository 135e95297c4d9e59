"""The inspector's files: your own model, a PyTorch checkpoint (safetensors or .npz with PyTorch's
parameter names) and its vocabulary (a small JSON file), read with NumPy alone by gleam.checkpoints.

Either file may come first; the model is read once both are there. Each input is made new once its
file has arrived (as chapter 7's are: the next file, even one of the same name, is news); the
vocabulary stays for the next model file until another vocabulary comes. A refused file is
said in `inspector.error` with gleam's own sentence, and the model in use stays.
"""
import html

import panel as pn

from gleam import checkpoints
from gleam.labs import subjects
from gleam_lab.app.widgets.page import html_pane

NOTE = (f"Your own model: a single-layer torch.nn.GRU, LSTM or RNN (tanh) with a linear read-out, saved "
        f"as .safetensors or .npz with PyTorch's parameter names (at most {checkpoints.MAX_BYTES // 2 ** 20} MB), "
        "and its vocabulary, a JSON file such as {\"alphabet\": [\"a\", \"b\"], \"classes\": [\"reject\", \"accept\"]} "
        f"(add \"task\": one of {', '.join(subjects.TASKS)} to get that task's test sets and probes).")
KINDS = {"weights": ".safetensors,.npz", "vocab": ".json"}


class InspectorFiles:
    """The two file inputs of an InspectorChapter, and what they do to it."""

    def __init__(self, chapter):
        self.chapter = chapter
        self._boxes = {kind: pn.Column(sizing_mode="fixed", width=300, margin=0) for kind in KINDS}
        self._got = {}                  # kind -> (bytes, name) arrived and not yet read
        for kind in KINDS:
            self._new_input(kind)

    def controls(self):
        note = lambda text: html_pane(f"<span class='gl-note'>{text}</span>", sizing_mode="fixed", width=290)  # noqa: E731
        return [note(html.escape(NOTE)), note("Model file:"), self._boxes["weights"],
                note("Vocabulary (.json):"), self._boxes["vocab"]]

    def _new_input(self, kind):
        widget = pn.widgets.FileInput(accept=KINDS[kind], css_classes=[f"gl-chinspector-{kind}"], width=290)
        widget.param.watch(lambda *events: self._arrived(widget, kind), ["value", "filename"])
        self._boxes[kind][:] = [widget]

    def _arrived(self, widget, kind):
        if widget.value is None or not widget.filename or widget not in self._boxes[kind]:
            return
        self._got[kind] = (widget.value, str(widget.filename))
        self._new_input(kind)
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
