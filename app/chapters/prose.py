"""A chapter that is prose only for now: its title, its text, and a note about the widget to come."""
from app.chapters.base import ChapterViewer
from app.widgets.page import note

NOTE = "The interactive part of this chapter is not built yet; the text and its numbers are complete."


class ProseChapter(ChapterViewer):
    """A prose-only chapter; the interactive part is announced, not faked (the research labs'
    own text says they are not built)."""

    def widget(self):
        return note(NOTE) if self.chapter_id.isdigit() else None
