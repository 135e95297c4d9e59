"""The lab: a table of contents and one chapter area that swaps chapters in place.

The chapters are app.chapters' registry. Each chapter's Viewer is built the first time it is
visited and kept, so chapter 7's model and its training state survive a visit elsewhere.

The page URL carries what is on screen: `?chapter=3&rho=1.2&gamma=0.6` — the chapter and every
control of it away from its default (app.widgets.url_state; URL names from the chapter), plus
`embed=1` (no table of contents) or `embed=widget` (the interactive part alone) and `hide=a,b`
(controls not shown, held at their values), and `theme=light|dark` (the page's theme, e.g. an
embed's matching its course page; app.widgets.dark). A control's change rewrites the query in place; a
change of chapter adds a history entry, and Back/Forward show the entry's chapter and controls
(app.widgets.navigation). What a link carries but cannot be used is named in one line above the
chapter (`lab.message`) and dropped from the URL.

The chapter a Lab opens on is known before anything is built (see `initial_chapter`), so a deep
link builds and renders its chapter once, not chapter 0 first.
"""
import os
import sys
import urllib.parse
from functools import partial

import panel as pn
import param

from gleam_lab import content
from gleam_lab.app import chapters
from gleam_lab.app.widgets import a11y, navigation, progress, saving, share, url_state
from gleam_lab.app.widgets.trained_here import TrainedHere
from gleam_lab.app.widgets import dark   # the light/dark theme: its toggle and the figures' colours
from gleam_lab.app.widgets.page import gv, html_pane, served
from gleam_lab.app.widgets.theme import variables_css

TOC_CSS = """
:host { width: 100%; }
.bk-btn { text-align: left !important; white-space: normal; justify-content: flex-start; }
"""
TOC_STYLES = {"background": "var(--gl-sunken)", "border-right": "1px solid var(--gl-border)",
              "height": "100vh", "position": "sticky", "top": "0", "overflow-y": "auto"}
MASTHEAD = ("<b>Recurrent networks</b><br>"
            "<span style='color: var(--gl-muted)'>an interactive lab</span>")
EMBED_MODES = {"1": "page", "true": "page", "yes": "page", "widget": "widget"}
THEMES = ("light", "dark")       # `theme=`: the page's theme, whatever the reader's stored choice


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


def embed_mode(location=None):
    """"" (the whole lab), "page" (`?embed=1`: the chapter without the table of contents) or
    "widget" (`?embed=widget`: the chapter's interactive part alone), for a course page's iframe."""
    return EMBED_MODES.get(_query_value(_page_query(location), "embed") or "", "")


def embedded(location=None):
    """True for an embed (`?embed=1` or `?embed=widget`): no table of contents."""
    return embed_mode(location) != ""


def initial_chapter(location=None):
    """The chapter a new Lab opens on; an unknown id gives "0".

    In order: the page's `?chapter=` as pn.state.location has it (panel serve fills it from the
    request); in Pyodide, the worker's own URL (the static site's page starts its worker as
    `main.js?chapter=7&…` with the page's whole query, because pn.state.location only learns the
    page's URL after the first render); the environment variable GLEAM_CHAPTER (build.py
    pre-renders each chapter's page this way); else "0".
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

    widget_only = param.Boolean(default=False, doc="""
        Show only the chapter's interactive part: no contents, title or prose (`?embed=widget`).""")

    message = param.String(default="", precedence=-1, doc="""
        What the page's URL asked for and could not be applied (shown above the chapter).""")

    def __init__(self, location=None, **params):
        """`location`: a panel Location (default: pn.state.location in a session)."""
        if location is None and pn.state.curdoc is not None:
            location = pn.state.location
        search = _page_query(location)
        if "chapter" not in params:
            params["chapter"] = initial_chapter(location)
        mode = embed_mode(location)
        params.setdefault("widget_only", mode == "widget")
        params.setdefault("embed", mode != "" or params["widget_only"])
        super().__init__(**params)
        self._views = {}
        self.on_build = []      # callables given each chapter viewer as soon as it is built
        self.trained_here = TrainedHere()     # what a lab's retrain trained, for the inspector
        self._nav = {}
        self._location = location
        self._applying = False       # controls are being set from the URL: write it once, after
        self._written = None         # the query this Lab wrote last
        self._hide = []              # the URL names hidden (the first chapter's, in an embed)
        self._theme = None           # the link's theme= (light or dark; the page script applies it)
        for cid in chapters.chapter_ids():
            button = pn.widgets.Button(label=_nav_label(cid), css_classes=["gl-nav", f"gl-nav-{cid}"],
                                       color="light", stylesheets=[TOC_CSS],
                                       sizing_mode="stretch_width", margin=(1, 12, 1, 4))
            button.on_click(partial(self._go, cid))
            self._nav[cid] = button
        # on a narrow page the contents fold away behind this button (app.widgets.a11y)
        self._fold = pn.widgets.Toggle(label="☰ Contents", value=False, css_classes=["gl-toc-toggle"],
                                       sizing_mode="stretch_width", margin=(2, 12, 6, 4))
        self._fold.param.watch(self._fold_toc, "value")
        self._toc = toc = pn.Column(
            a11y.skip_link(), pn.pane.HTML(MASTHEAD, margin=(10, 10, 6, 10)), self._fold, *self._nav.values(),
            width=250, css_classes=["gl-toc"], visible=not self.embed, styles=TOC_STYLES,
            stylesheets=[a11y.TOC_FOLD_CSS])
        self._message = html_pane(self._message_html(), css_classes=["gl-lab-message"], margin=(4, 34, 0, 34))
        self._main = pn.Column(sizing_mode="stretch_width", margin=(0, 24), css_classes=["gl-main"])
        area = pn.Column(self._message, self._main, sizing_mode="stretch_width",
                         css_classes=["gl-chapter-area"], stylesheets=[a11y.AREA_CSS])
        self._layout = pn.Row(toc, area, sizing_mode="stretch_width", stylesheets=[variables_css(), a11y.LAB_CSS])
        pairs, too_long = url_state.parse_query(search)
        self._apply(pairs, too_long, first=True)       # builds the initial chapter, once
        self.progress = progress.install(self, area)    # where the reader stopped, on the index
        self.theme = dark.install(self)                 # the theme toggle, and everything following it
        if self._location is not None:  # Back/Forward (and the page's own URL, once rendered)
            self._location.param.watch(self._from_url, "search")
            self._location.param.watch(lambda event: self._refresh_links(), "href")
        if pn.state.curdoc is not None:
            navigation.install_navigation(pn.state.curdoc)
            if self.embed:              # the snippet's frame follows the content's height
                share.install_embed_sizing(pn.state.curdoc)
            # under panel serve, the page's link preview: its chapter's description (the static
            # site's pages get theirs when built, buildtools.meta)
            a11y.install(pn.state.curdoc, head=content.preview_tags(self.chapter) if served() else "")

    # ------------------------------------------------------------ navigation
    def _go(self, chapter_id, event=None):
        self.message = ""
        self._fold.value = False           # a narrow page folds the contents once one is chosen
        self.chapter = chapter_id

    def _fold_toc(self, event):
        self._toc.css_classes = ["gl-toc"] + (["gl-toc-open"] if event.new else [])

    def built_chapters(self):
        """The ids of the chapters built so far, in the order they were first shown."""
        return list(self._views)

    def view(self, chapter_id):
        """The (cached) Viewer of a chapter, built on first use."""
        if chapter_id not in self._views:
            try:
                viewer = chapters.make_viewer(chapter_id)
                viewer.__panel__()
            except (ValueError, OSError) as e:    # e.g. a research lab's results file missing or unreadable
                from gleam_lab.app.chapters.prose import UnavailableChapter
                viewer = UnavailableChapter(chapter_id, e)
            self._views[chapter_id] = viewer
            viewer.show_widget_only(self.widget_only, self.embed)
            saving.add_save_buttons(chapter_id, viewer.__panel__())
            share_trained = getattr(viewer, "share_trained", None)
            if share_trained is not None:        # the labs' retrains and the inspector
                share_trained(self.trained_here)
            for hook in self.on_build:          # (the theme styles it before it is shown)
                hook(viewer)
            names = list(viewer.url_controls())
            if names:
                viewer.param.watch(partial(self._control_changed, chapter_id), names)
        return self._views[chapter_id]

    @param.depends("chapter", watch=True)
    def _show(self):
        for cid, view in self._views.items():
            if cid != self.chapter:
                view.leave()
        for cid, button in self._nav.items():
            button.color = "primary" if cid == self.chapter else "light"
        self._main.objects = [self.view(self.chapter)]
        if not self._applying:
            self._to_url()

    def _control_changed(self, chapter_id, *events):
        if not self._applying and chapter_id == self.chapter:
            self._to_url()

    # ------------------------------------------------------------ URL query
    def _apply(self, pairs, too_long="", first=False):
        """Show what a URL's query asks for: its chapter with its controls (the others at their
        defaults); say what was refused; write the URL back without it."""
        query, refused = dict(pairs), [too_long] if too_long else []
        wanted = query.get("chapter")
        if wanted is not None and wanted not in self.param.chapter.objects:
            refused.append(f"chapter={url_state.short(wanted)} (no such chapter: pick one in the contents)")
            self._toc.visible = True        # even in an embed, which has no other way to another chapter
        cid = wanted if wanted in self.param.chapter.objects and not first else self.chapter
        controls = [(k, v) for k, v in pairs if k not in url_state.RESERVED]
        if wanted not in (None, cid) and controls:        # they were meant for another chapter
            refused.append(f"{len(controls)} setting(s) of that chapter")
            controls = []
        self._applying = True
        try:
            viewer = self.view(cid)
            refused += viewer.apply_url(controls)
            if first and query.get("hide"):
                asked = [h for h in query["hide"].split(",") if h]
                unknown = viewer.hide_controls(asked)
                self._hide = [h for h in asked if h not in unknown]
                refused += [f"hide={url_state.short(h)} (no such control in this chapter)" for h in unknown]
            if first and query.get("theme") is not None:
                self._theme = query["theme"] if query["theme"] in THEMES else None
                refused += [] if self._theme else [f"theme={url_state.short(query['theme'])} (light or dark)"]
            if first:
                self._show()
            else:
                self.chapter = cid
        finally:
            self._applying = False
        self.message = f"Not applied from the link: {'; '.join(refused)}." if refused else ""
        self._to_url()

    def _from_url(self, event=None):
        search = self._location.search or ""
        if search != self._written:
            self._apply(*url_state.parse_query(search))

    def url_pairs(self):
        """The query of what is on screen, as (key, text) pairs."""
        pairs = [("chapter", self.chapter)]
        if self.embed:
            pairs.append(("embed", "widget" if self.widget_only else "1"))
        if self._hide and self.chapter in self._views and self.built_chapters()[0] == self.chapter:
            pairs.append(("hide", ",".join(self._hide)))
        if self._theme:
            pairs.append(("theme", self._theme))
        controls = self.view(self.chapter).url_query()
        while controls and len(url_state.query_string(pairs + controls)) > url_state.MAX_QUERY:
            controls.remove(max(controls, key=lambda kv: len(kv[1])))    # what cannot be read back
        return pairs + controls

    def _to_url(self):
        pairs = self.url_pairs()
        self._written = url_state.query_string(pairs)
        if self._location is not None and self._location.search != self._written:
            self._location.search = self._written
        self._refresh_links(pairs)

    def _refresh_links(self, pairs=None):
        viewer = self._views.get(self.chapter)
        if viewer is None or viewer.share is None:
            return
        loc = self._location
        href = (getattr(loc, "href", "") or "").split("#")[0].split("?")[0]
        href = url_state.page_address(href or getattr(loc, "pathname", "") or "", self.chapter)
        viewer.share.set_link(href, pairs or self.url_pairs())

    @param.depends("message", watch=True)
    def _show_message(self):
        self._message.object = self._message_html()

    def _message_html(self):
        return f'<div class="gl-error">{gv("lab.message", self.message)}</div>'

    def __panel__(self):
        return self._layout
