"""Page parts every chapter uses: the title, the prose, the card that holds a widget, value
spans and tables, and a fast HTML box for values that change many times a second.

Everything that reaches the page as HTML goes through `html.escape` here (a learner's text, a
model's sample and an error message quoting either are text, never markup).
"""
import html

import panel as pn
from panel.io.document import unlocked
from panel.models import HTML as HTMLModel

from gleam_lab import content
from gleam_lab.app.widgets.theme import CARD_MAX_WIDTH, PROSE_MAX_WIDTH, variables_css

PROSE_CSS = """
:host { max-width: %dpx; }
.gl-prose-body { font-size: 16px; line-height: 1.6; color: var(--gl-text); }
.gl-prose-body h1 { font-size: 1.7em; margin: 0.2em 0 0.6em; }
.gl-prose-body h2 { font-size: 1.25em; margin: 1.4em 0 0.4em; }
.gl-prose-body code { background: var(--gl-code); padding: 0 0.25em; border-radius: 3px; font-size: 0.9em; }
.gl-prose-body table { border-collapse: collapse; margin: 0.6em 0; }
.gl-prose-body th, .gl-prose-body td { border: 1px solid var(--gl-border); padding: 0.2em 0.6em; text-align: left; }
.gl-prose-body blockquote { border-left: 3px solid var(--gl-border); margin: 0.8em 0; padding: 0 0.9em; color: var(--gl-quote); }
.gl-prose-body mjx-container[display="true"], .gl-prose-body svg { max-width: 100%%; }
.gl-prose-body { overflow-wrap: anywhere; }
.gl-prose-body a { color: var(--gl-positive); text-decoration: underline; }
.gl-prose-body table, .gl-prose-body pre, .gl-prose-body mjx-container[display="true"] { display: block; overflow-x: auto; max-width: 100%%; }
.gl-prose-body .katex-display { display: block; max-width: 100%%; overflow-x: auto; overflow-y: hidden; padding: 0.1em 0; }
""" % PROSE_MAX_WIDTH

PANEL_CSS = """
.gl-card { border: 1px solid var(--gl-border); border-radius: 6px; padding: 0.5em 0.8em; background: var(--gl-surface); }
.gl-table { border-collapse: collapse; font-variant-numeric: tabular-nums; display: block; overflow-x: auto; max-width: 100%; }
.gl-table th, .gl-table td { padding: 0.15em 0.7em; text-align: right; border-bottom: 1px solid var(--gl-rule); }
.gl-table th:first-child, .gl-table td:first-child { text-align: left; }
.gv { font-family: var(--gl-mono); }
.gl-note { color: var(--gl-muted); font-size: 0.9em; }
.gl-error { color: var(--gl-error); font-weight: 600; }
.gl-status-diverged { color: var(--gl-error); font-weight: 700; }
.gl-status-training { color: var(--gl-good); font-weight: 700; }
"""

# What a text box lets through before the browser cuts a paste (Panel's default is 5,000): far
# above every limit the lab checks, so that a long paste arrives whole and is refused with its
# length and the limit (by gleam, where the work happens) instead of being cut without a word.
PASTE_LIMIT = 2_000_000

TITLE_CSS = "h1 { font-size: 1.8em; margin: 0.3em 0 0.2em; }"
START_CSS = """
.gl-start-body { border: 1px solid var(--gl-border); border-radius: 6px; background: var(--gl-surface);
                 padding: 0.2em 1em; margin: 0.2em 0 0.6em; }
.gl-start-body ul { padding-left: 1.2em; margin: 0.4em 0; }
.gl-start-body li { margin: 0.2em 0; }
"""
PAGER_CSS = """
.gl-pager-body { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 0.6em 2em;
                 border-top: 1px solid var(--gl-border); padding: 0.8em 0 0.4em; font-size: 15px; }
.gl-pager-body a, .gl-full-lab-body a { color: var(--gl-positive); text-decoration: underline; }
.gl-pager-body .gl-next { margin-left: auto; text-align: right; }
.gl-full-lab-body { font-size: 14px; text-align: right; }
"""
CARD_STYLES = {"border": "1px solid var(--gl-border)", "border-radius": "6px", "padding": "6px"}


def served():
    """This page is one session of a real server (`panel serve`): a session with a server context.
    Not the static site's build or its browser worker, which run on Panel's mock session."""
    session = pn.state.curdoc.session_context if pn.state.curdoc is not None else None
    return session is not None and getattr(session, "server_context", None) is not None


def gv(key, text, cls="", exact=None):
    """`<span class="gv" data-key="KEY">TEXT</span>`, all escaped: the browser tests' hook. A value
    shown rounded can carry its `exact` digits too: in data-exact, and as the tooltip."""
    extra = f" {html.escape(cls, quote=True)}" if cls else ""
    digits = "" if exact is None else html.escape(exact, quote=True)
    more = f' data-exact="{digits}" title="{digits}"' if digits else ""
    return (f'<span class="gv{extra}" data-key="{html.escape(key, quote=True)}"{more}>'
            f"{html.escape(str(text))}</span>")


def table(header, rows):
    """A small HTML table; `header` cells are escaped, row cells are trusted HTML built by gv().
    An empty header cell (the corner above the row labels) is a plain cell, not a nameless header."""
    head = "".join(f"<th>{html.escape(h)}</th>" if h else "<td></td>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="gl-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def html_pane(text="", **kwargs):
    """An HTML pane for values built with `gv` (math off: the values are plain text)."""
    kwargs.setdefault("sizing_mode", "stretch_width")
    kwargs["stylesheets"] = [PANEL_CSS, *kwargs.get("stylesheets", [])]
    return pn.pane.HTML(text, **kwargs)


def note(text, max_width=PROSE_MAX_WIDTH):
    """A card with a short, plain-text note."""
    return html_pane(f'<div class="gl-card gl-note">{html.escape(text)}</div>', max_width=max_width)


def title_pane(chapter_id):
    """The chapter's heading, e.g. "Chapter 4 — Gates: the GRU cell"."""
    return pn.pane.HTML(f"<h1>{html.escape(content.heading(chapter_id))}</h1>",
                        css_classes=["gl-title"], sizing_mode="stretch_width", stylesheets=[TITLE_CSS])


START_CHAPTER = "0"        # the site's index: the lab's first screen is shown above it


def start_pane():
    """What the lab is, for whom, where to start, a line per chapter (content/start.md); any embed
    leaves it out."""
    body = f'<div class="gl-prose-body gl-start-body">{content.start_html()}</div>'
    return pn.pane.HTML(body, css_classes=["gl-start"], disable_math=True, stylesheets=[PROSE_CSS, START_CSS],
                        sizing_mode="stretch_width")


def pager_pane(chapter_id):
    """Links to the chapter before and after this one in reading order (none before the first,
    none after the last), below the prose; they move in place
    (app.widgets.navigation) and no embed shows them."""
    ids = content.chapter_ids()
    i = ids.index(chapter_id)
    links = []
    if i > 0:
        links.append(f'<a class="gl-prev" rel="prev" href="?chapter={html.escape(ids[i - 1], quote=True)}">'
                     f"← {html.escape(content.heading(ids[i - 1]))}</a>")
    if i + 1 < len(ids):
        links.append(f'<a class="gl-next" rel="next" href="?chapter={html.escape(ids[i + 1], quote=True)}">'
                     f"{html.escape(content.heading(ids[i + 1]))} →</a>")
    body = f'<nav class="gl-pager-body" aria-label="Previous and next chapter">{"".join(links)}</nav>'
    return pn.pane.HTML(body, css_classes=["gl-pager"], disable_math=True, stylesheets=[PAGER_CSS],
                        sizing_mode="stretch_width")


FULL_LAB_LINK = "gl-full-lab-link"      # its address is the page's, without embed and hide (app.widgets.navigation)


def full_lab_pane(chapter_id):
    """In an embed only: a link that opens this chapter, as the embed shows it, in the full lab
    (in a new tab: the course page stays)."""
    body = (f'<div class="gl-full-lab-body"><a class="{FULL_LAB_LINK}" href="?chapter='
            f'{html.escape(chapter_id, quote=True)}" target="_blank" rel="noopener">'
            "Open in the full lab ↗</a></div>")
    return pn.pane.HTML(body, css_classes=["gl-full-lab"], disable_math=True, stylesheets=[PAGER_CSS],
                        sizing_mode="stretch_width", visible=False, margin=(0, 10))


def prose_pane(chapter_id, **kwargs):
    """The chapter's rendered prose (numbers filled from gleam) in a pane of class gl-prose."""
    typeset = content.typeset_html(chapter_id)     # the static site: math typeset when it was built
    if typeset is not None:
        return pn.pane.HTML(f'<div class="gl-prose-body">{typeset}</div>', css_classes=["gl-prose"],
                            disable_math=True, stylesheets=[PROSE_CSS, "./" + content.typeset()["css"]],
                            sizing_mode="stretch_width", **kwargs)
    body = content.render_html(chapter_id)
    return pn.pane.HTML(f'<div class="gl-prose-body">{body}</div>', css_classes=["gl-prose"],
                        disable_math=False, stylesheets=[PROSE_CSS], sizing_mode="stretch_width",
                        **kwargs)


def card(*objects, layout=pn.Row, max_width=CARD_MAX_WIDTH):
    """The bordered box that holds a chapter's interactive part."""
    return layout(*objects, css_classes=["gl-widget"], sizing_mode="stretch_width",
                  max_width=max_width, styles=CARD_STYLES)


STRETCHING = ("stretch_width", "stretch_both", "scale_width", "scale_both")


def wrap_row(*parts, basis=320):
    """Parts side by side where the card is wide enough, one under the other where it is not.

    A Column laid out as a wrapping CSS flex row: Bokeh gives a Column the minimum width of its
    widest child, where a Row adds them up and widens the page instead of wrapping (pn.FlexBox
    would wrap, but its template needs nh3, which the static site does not ship). Parts that
    stretch grow from `basis` px; a part of fixed width keeps it. For the parts to wrap rather
    than overflow, nothing inside them may set a min_width wider than a phone.
    """
    for part in parts:
        if part.sizing_mode in STRETCHING:
            part.styles = {**part.styles, "flex": f"1 1 {basis}px", "min-width": "0"}
    return pn.Column(*parts, styles={"flex-direction": "row", "flex-wrap": "wrap", "min-width": "0"},
                     sizing_mode="stretch_width")


def beside(controls, *views, width=260):
    """A column of controls `width` px wide with the views beside it (below it on a narrow page)."""
    return wrap_row(pn.Column(*controls, width=width), pn.Column(*views, sizing_mode="stretch_width"))


def chapter_page(chapter_id, widget=None, tools=None, prose=True):
    """Title, the chapter's tools (Reset, Copy link, …), the interactive card (if any), the prose
    (unless `prose` is False), then the links to the chapters before and after: the layout of
    every chapter (above the title, the link to the full lab an embed shows)."""
    parts = [full_lab_pane(chapter_id), title_pane(chapter_id)]
    parts += [start_pane()] if chapter_id == START_CHAPTER else []
    parts += [part for part in (tools, widget) if part is not None]
    parts += [prose_pane(chapter_id)] if prose else []
    return pn.Column(*parts, pager_pane(chapter_id), sizing_mode="stretch_width", stylesheets=[variables_css()])


class HTMLBox:
    """Trusted HTML (built with html.escape / gv) in the lab's styles, without a Panel pane.

    `.object` reads and sets the HTML, like a Panel HTML pane's; `.pane` goes into the layout.
    For text that changes many times a second: the Bokeh model a Panel HTML pane renders
    (panel.models.HTML) is set directly, one property change, while the pane runs its whole
    update machinery for it (several times the worker time, measured in the Pyodide worker).
    Not a Bokeh Div: BokehJS re-lays out the page on every Div text change; Panel's model
    only swaps its innerHTML.
    """

    def __init__(self, min_height, css="", css_classes=()):
        self._html = ""
        # like pn.pane.HTML: the model's text is the escaped HTML, decoded in the browser
        self.model = HTMLModel(text="", disable_math=True, run_scripts=False, sizing_mode="stretch_width",
                               min_height=min_height, stylesheets=[PANEL_CSS + css], margin=(5, 10, 5, 10),
                               css_classes=list(css_classes))
        self.pane = pn.pane.Bokeh(self.model, sizing_mode="stretch_width")

    @property
    def object(self):
        return self._html

    @object.setter
    def object(self, text):
        if text != self._html:
            self._html = text
            with unlocked():     # a raw Bokeh change: dispatched whether or not we hold the lock
                self.model.text = html.escape(text)
