"""The one pattern every chapter follows.

A chapter is a `ChapterViewer`: its id as a class attribute, its parameters and handlers, a
`widget()` that lays out its interactive part, and `values()`, the texts of the value spans the
page shows (the surface the tests read, in Python and in the browser). The page around the
widget — title, card, prose — is laid out once, here, the first time the chapter is shown.
"""
import panel as pn

from app.widgets.page import chapter_page


class ChapterViewer(pn.viewable.Viewer):
    """One chapter of the lab: title, interactive part, prose."""

    chapter_id = ""    # the chapter's id ("1", "memory", ...); "" for a class that serves several

    def __init__(self, chapter_id=None, **params):
        own = type(self).chapter_id
        if own and chapter_id not in (None, own):
            raise ValueError(f"{type(self).__name__} is chapter {own!r}, not {chapter_id!r}")
        if not (own or chapter_id):
            raise ValueError(f"{type(self).__name__} serves several chapters: say which (chapter_id=...)")
        super().__init__(**params)
        self.chapter_id = own or chapter_id
        self._page = None

    def widget(self):
        """The chapter's interactive part (None: the chapter is prose only)."""
        return None

    def values(self):
        """Value key -> the text its span shows on the page (`span.gv[data-key=...]`)."""
        return {}

    def leave(self):
        """The learner moved to another chapter: stop anything running in the background."""

    def __panel__(self):
        if self._page is None:
            self._page = chapter_page(self.chapter_id, self.widget())
        return self._page
