"""The lab: a table of contents and one chapter area that swaps chapters in place.

The chapters are app.chapters' registry. Each chapter's Viewer is built the first time it is
visited and kept, so chapter 7's model and its training state survive a visit elsewhere. The
current chapter is mirrored in the URL query (`?chapter=4`), so a deep link opens a chapter and
the back button of the page stays meaningful.

The chapter a Lab opens on is known before anything is built (see `initial_chapter`), so a deep
link builds and renders its chapter once, not chapter 0 first.
"""
import os
import sys
import urllib.parse
from functools import partial

import panel as pn
import param

import content
from app import chapters
from app.widgets.theme import variables_css

TOC_CSS = """
:host { width: 100%; }
.bk-btn { text-align: left !important; white-space: normal; justify-content: flex-start; }
"""
TOC_STYLES = {"background": "var(--gl-sunken)", "border-right": "1px solid var(--gl-border)",
              "height": "100vh", "position": "sticky", "top": "0", "overflow-y": "auto"}
MASTHEAD = ("<b>Recurrent networks</b><br>"
            "<span style='color: var(--gl-muted)'>an interactive lab</span>")


def _query_value(search, key):
    """The `key` value of a query string such as "?chapter=7&embed=1" (None if absent)."""
    values = urllib.parse.parse_qs((search or "").lstrip("?")).get(key)
    return values[0] if values else None


def _page_query(location):
    """The page's query string: pn.state.location's, else (Pyodide) the worker's own URL's."""
    search = getattr(location, "search", "") if location is not None else ""
    if not search and sys.platform == "emscripten":
        import js  # Pyodide only: the global scope (the worker's, in the static site)
        search = str(getattr(js.location, "search", "") or "")
    return search


def embedded(location=None):
    """True for `?embed=1`: the chapter alone, without the table of contents (for a course
    page that shows one chapter in an iframe)."""
    return _query_value(_page_query(location), "embed") in ("1", "true", "yes")


def initial_chapter(location=None):
    """The chapter a new Lab opens on; an unknown id gives "0".

    In order: the page's `?chapter=` as pn.state.location has it (panel serve fills it from the
    request); in Pyodide, the worker's own URL (the static site's page starts its worker as
    `main.js?chapter=7`, because pn.state.location only learns the page's URL after the first
    render); the environment variable GLEAM_CHAPTER (build.py pre-renders each chapter's page
    this way); else "0".
    """
    wanted = _query_value(_page_query(location), "chapter")
    if wanted is None:
        wanted = os.environ.get("GLEAM_CHAPTER") or None
    return wanted if wanted in chapters.chapter_ids() else "0"


def _nav_label(chapter_id):
    prefix = f"{chapter_id}. " if chapter_id.isdigit() else ""
    return prefix + content.title(chapter_id)


class Lab(pn.viewable.Viewer):
    """Table of contents + the current chapter; one Lab per session."""

    chapter = param.Selector(default="0", objects=chapters.chapter_ids(), doc="""
        The chapter shown (an id of app.chapters.REGISTRY); synced to ?chapter=.""")

    embed = param.Boolean(default=False, doc="""
        Show the chapter alone, without the table of contents (`?embed=1`).""")

    def __init__(self, **params):
        location = pn.state.location if pn.state.curdoc is not None else None
        if "chapter" not in params:
            params["chapter"] = initial_chapter(location)
        if "embed" not in params:
            params["embed"] = embedded(location)
        super().__init__(**params)
        self._views = {}
        self._nav = {}
        for cid in chapters.chapter_ids():
            button = pn.widgets.Button(label=_nav_label(cid), css_classes=["gl-nav", f"gl-nav-{cid}"],
                                       color="light", stylesheets=[TOC_CSS],
                                       sizing_mode="stretch_width", margin=(1, 12, 1, 4))
            button.on_click(partial(self._go, cid))
            self._nav[cid] = button
        toc = pn.Column(pn.pane.HTML(MASTHEAD, margin=(10, 10, 6, 10)), *self._nav.values(), width=250,
                        css_classes=["gl-toc"], visible=not self.embed, styles=TOC_STYLES)
        self._main = pn.Column(sizing_mode="stretch_width", margin=(0, 24), css_classes=["gl-main"])
        self._layout = pn.Row(toc, self._main, sizing_mode="stretch_width", stylesheets=[variables_css()])
        self._location = location
        if self._location is not None:  # later changes of ?chapter= (the page's URL) switch chapters
            self._location.param.watch(self._from_url, "search")
        self._show()                    # builds the initial chapter, once

    # ------------------------------------------------------------ navigation
    def _go(self, chapter_id, event=None):
        self.chapter = chapter_id

    def built_chapters(self):
        """The ids of the chapters built so far, in the order they were first shown."""
        return list(self._views)

    def view(self, chapter_id):
        """The (cached) Viewer of a chapter, built on first use."""
        if chapter_id not in self._views:
            self._views[chapter_id] = chapters.make_viewer(chapter_id)
        return self._views[chapter_id]

    @param.depends("chapter", watch=True)
    def _show(self):
        for cid, view in self._views.items():
            if cid != self.chapter:
                view.leave()
        for cid, button in self._nav.items():
            button.color = "primary" if cid == self.chapter else "light"
        self._main.objects = [self.view(self.chapter)]
        self._to_url()

    # ------------------------------------------------------------ URL query
    def _from_url(self, event=None):
        wanted = _query_value(self._location.search, "chapter")
        if wanted in self.param.chapter.objects and wanted != self.chapter:
            self.chapter = wanted

    def _to_url(self):
        if self._location is None:
            return
        query = urllib.parse.parse_qs((self._location.search or "").lstrip("?"))
        if query.get("chapter", [None])[0] != self.chapter:
            query["chapter"] = [self.chapter]
            self._location.search = "?" + urllib.parse.urlencode(query, doseq=True)

    def __panel__(self):
        return self._layout
