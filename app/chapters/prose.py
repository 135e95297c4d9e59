"""A chapter that is prose only for now: its title, its text, and a note about the widget to come;
and a chapter that cannot be built, in its place: its title and why."""
import html

from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.widgets.page import html_pane, note

NOTE = "The interactive part of this chapter is not built yet; the text and its numbers are complete."


class ProseChapter(ChapterViewer):
    """A prose-only chapter; the interactive part is announced, not faked (the research labs'
    own text says they are not built)."""

    def widget(self):
        return note(NOTE) if self.chapter_id.isdigit() else None


class UnavailableChapter(ChapterViewer):
    """What the lab shows for a chapter it could not build — e.g. a research lab whose shipped
    results file is missing or unreadable under `panel serve` — instead of a blank page: the
    chapter's title and the reason, as text (no prose: its numbers may be what is missing)."""

    has_prose = False

    def __init__(self, chapter_id, why):
        super().__init__(chapter_id=chapter_id)
        self.why = str(why)

    def widget(self):
        return html_pane("<div class='gl-error'>This chapter cannot be shown here: "
                         f"{html.escape(self.why)}</div>", css_classes=["gl-unavailable"])
