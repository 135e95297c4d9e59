"""Chapter 7's Undo. A change that throws a trained model away — another hidden size, seed or
corpus, another number of parallel streams B, an experiment, Reset, Reset to defaults, an uploaded text, a loaded file — sets it aside
instead, with its loss curve, and the Undo button under the controls brings it back with its
settings, to continue exactly where it was. One model is kept, the last one set aside; bringing it
back sets aside the one it replaces, so a second Undo returns to that. A model that has not trained
a step is not kept (nothing would be lost).
"""
import panel as pn


def settings(model):
    """What tells two kept models apart: H, B (when not 1) and the seed."""
    return f"H = {model.H}{'' if model.B == 1 else f', B = {model.B}'}, seed {model.seed}"


UNDO_CSS = ".bk-btn { white-space: normal; height: auto; text-align: left; line-height: 1.3; }"


class SetAside:
    """The last trained model a LiveLabChapter replaced, and the button that brings it back."""

    def __init__(self, chapter):
        self.chapter = chapter
        self.kept = None
        # its label says which model it brings back: wrapped inside the button, never past its edge
        self.button = pn.widgets.Button(label="Undo", css_classes=["gl-ch7-undo"], visible=False,
                                        color="warning", width=300, stylesheets=[UNDO_CSS])
        self.button.on_click(lambda event: self.bring_back())

    def keep(self, model):
        """`model` is about to be replaced (or re-initialised: pass a copy, e.g. CharGRU.from_bytes(model.to_bytes()) — a deepcopy may share buffers): keep it and what the
        page shows of it."""
        if model.steps == 0:
            return
        chapter = self.chapter
        chapter._push_curve(final=True)          # the points trained but not yet drawn
        self.kept = {"model": model, "curve": chapter._curve.snapshot(), "ema": chapter.loop.ema}
        self.button.label = f"Undo: back to the model of {model.steps:,} steps ({settings(model)})"
        self.button.visible = True

    def bring_back(self):
        kept, self.kept = self.kept, None
        self.button.visible = False
        if kept is None:
            return
        chapter, model = self.chapter, kept["model"]
        chapter.install(model, show_settings=True)      # (sets aside the model in use, if trained)
        chapter._curve.restore(kept["curve"])
        chapter.loop.ema = kept["ema"]
        if chapter.loop.status == "ready":           # (it has trained: paused, as it was)
            chapter.loop.status = "paused"
        chapter.say(file=f"Brought back the model trained for {model.steps:,} steps "
                         f"({settings(model)}); it continues where it was.")
