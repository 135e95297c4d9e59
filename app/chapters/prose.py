"""A chapter that is prose only for now: its title, its text, and a note about the widget to come;
and a chapter that cannot be built, in its place: its title and why."""
import html

import panel as pn

from app.chapters.base import ChapterViewer
from app.widgets.page import html_pane, note, title_pane

NOTE = "The interactive part of this chapter is not built yet; the text and its numbers are complete."


class ProseChapter(ChapterViewer):
    """A prose-only chapter; the interactive part is announced, not faked (the research labs'
    own text says they are not built)."""

    def widget(self):
        return note(NOTE) if self.chapter_id.isdigit() else None


class UnavailableChapter(ChapterViewer):
    """What the lab shows for a chapter it could not build — e.g. a research lab whose shipped
    results file is missing or unreadable under `panel serve` — instead of a blank page: the
    chapter's title and the reason, as text."""

    def __init__(self, chapter_id, why):
        super().__init__(chapter_id=chapter_id)
        self.why = str(why)

    def widget(self):
        return None

    def __panel__(self):
        if self._page is None:
            self._page = pn.Column(title_pane(self.chapter_id), html_pane(
                "<div class='gl-error'>This chapter cannot be shown here: "
                f"{html.escape(self.why)}</div>", css_classes=["gl-unavailable"]), sizing_mode="stretch_width")
        return self._page
