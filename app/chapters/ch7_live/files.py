"""Chapter 7's files: your own text from a file, the model saved and loaded, the run taken home as
a script.

gleam reads and checks every file (gleam.chargru.decode_corpus, CharGRU.from_bytes): a refused
one is said in `ch7.error`, the model in use stays, and nothing from the file reaches the page
but escaped text. The files are chosen with app.widgets.file_pick: a file over its limit (LIMITS)
is refused in the browser before any of it is read, so that under `panel serve` no file can be
larger than what one websocket message carries (20 MB, as base64: with Panel's FileInput, a
larger file closed the session); the same file chosen twice is read twice.
"""
import io
from functools import partial

import panel as pn

from gleam_lab.app.widgets.file_pick import FilePick
from gleam_lab.app.widgets.page import html_pane
from gleam_lab.app.chapters.ch7_live import limits
from gleam.chargru import MAX_CORPUS_CHARS, MAX_FILE_BYTES, MAX_VOCAB, CharGRU, decode_corpus, export_script

UPLOAD_NOTE = (f"…or your own text: a UTF-8 .txt file of at most {MAX_FILE_BYTES:,} bytes "
               f"(and {MAX_CORPUS_CHARS:,} characters, {MAX_VOCAB} distinct ones).")
# bytes of a chosen file: a corpus as gleam takes it; a saved model (the largest the page makes, H = 128
# and a corpus of MAX_VOCAB distinct characters, is ~3.2 MB) within one websocket message
LIMITS = {"upload": MAX_FILE_BYTES, "load": 12 * 2 ** 20}
MODEL_NOTE = ("Keep the model: Save writes everything needed to continue exactly (a NumPy .npz); "
              "Load continues from such a file; Export writes a Python + NumPy script that trains "
              "this run again.")


class ChapterFiles:
    """The file widgets of a LiveLabChapter, and what they do to it."""

    def __init__(self, chapter):
        self.chapter = chapter
        w = pn.widgets
        self._inputs = {kind: FilePick(label, accept, LIMITS[kind], f"gl-ch7-{kind}", partial(self._arrived, kind),
                                       partial(self._refused, kind), width=300)
                        for kind, label, accept in (("upload", "Choose a text file…", ".txt"),
                                                    ("load", "Choose a saved model…", ".npz"))}
        self.save = w.FileDownload(callback=self._save, filename="chargru.npz", label="Save model",
                                   css_classes=["gl-ch7-save"], width=145, margin=(5, 4, 5, 10))
        self.export = w.FileDownload(callback=self._export, filename="chargru.py", label="Export script",
                                     css_classes=["gl-ch7-export"], width=145, margin=(5, 4))

    def controls(self):
        """The widgets in the order the page shows them, each with a line saying what it takes."""
        note = lambda text: html_pane(f"<span class='gl-note'>{text}</span>", sizing_mode="fixed",  # noqa: E731
                                      width=300)
        return [note(UPLOAD_NOTE), self._inputs["upload"].panel(), note(MODEL_NOTE),
                pn.Row(self.save, self.export, sizing_mode="fixed", width=310),
                note("Load a saved model (.npz):"), self._inputs["load"].panel()]

    # ------------------------------------------------------------ reading a file
    def _arrived(self, kind, name, data):
        read = self._on_upload if kind == "upload" else self._on_load
        read(data, repr(name))                  # (the page shows the name escaped)

    def _refused(self, kind, name, size):
        what = (f"File {name!r} not used as the corpus" if kind == "upload" else f"File {name!r} not loaded")
        kept = "The previous model is kept" if kind == "upload" else "The current model is kept"
        self.chapter.say(error=f"{what}: the file is {size:,} bytes; the limit is {LIMITS[kind]:,} bytes "
                               f"(none of it was read). {kept}.")

    def _on_upload(self, data, name):
        refused = f"File {name} not used as the corpus"
        try:
            text = decode_corpus(data)
        except ValueError as e:
            self.chapter.say(error=f"{refused}: {e}. The previous model is kept.")
        else:
            model = self.chapter.replace_model(text, refused=refused, show_settings=True)
            if model is not None:
                self.chapter.say(file=f"Training on the text of {name}: {len(text):,} "
                                      f"characters, V = {model.V}.")

    def _on_load(self, data, name):
        what = f"File {name}"
        try:
            model = CharGRU.from_bytes(data)
            self._fits_the_page(model)
        except ValueError as e:
            self.chapter.say(error=f"{what} not loaded: {e}. The current model is kept.")
        else:
            self.chapter.install(model, show_settings=True)
            self.chapter.say(file=f"{what} loaded: the model after {model.steps:,} steps "
                                  f"(H = {model.H}, B = {model.B}, V = {model.V}, seed {model.seed}).")

    def _fits_the_page(self, model):
        """ValueError unless the page's controls can show the model's settings."""
        hidden, (low, high) = self.chapter.param.hidden.objects, self.chapter.param.seed.bounds
        if model.H not in hidden:
            raise ValueError(f"its H = {model.H}; this page trains H = {', '.join(map(str, hidden))}")
        streams = self.chapter.param.streams.objects
        if model.B not in streams:
            raise ValueError(f"its B = {model.B} parallel streams; this page trains B = {', '.join(map(str, streams))}")
        if not low <= model.seed <= high:
            raise ValueError(f"its seed {model.seed} is outside this page's {low} … {high:,}")
        if self.chapter.shared:
            limits.check(model)

    # ------------------------------------------------------------ writing a file
    def _save(self):
        model = self.chapter.model
        self.save.filename = f"chargru-{model.steps}-steps.npz"
        data = model.to_bytes()
        self.chapter.say(file=f"Saved the model after {model.steps:,} steps as {self.save.filename}.")
        return io.BytesIO(data)

    def _export(self):
        model = self.chapter.model
        self.export.filename = f"chargru_{model.steps}_steps.py"
        script = export_script(model, temperature=self.chapter.temperature)
        self.chapter.say(file=f"Exported {self.export.filename}: run it with Python and NumPy, it "
                              f"trains these {model.steps:,} steps again and prints the losses.")
        return io.BytesIO(script.encode("utf-8"))
