"""Small helpers every chapter Viewer shares: the `gv` value spans the browser tests read,
number formatting (the same functions the prose's Jinja filters use), and the prose pane.

Everything that reaches the page as HTML goes through `html.escape` here.
"""
import html
import re

import panel as pn

import content
from content import fmt_fixed, fmt_gate  # noqa: F401  (re-exported for the chapters)

# Widths shared by the chapters' layouts (px).
PROSE_MAX_WIDTH = 760

PROSE_CSS = """
:host { max-width: %dpx; }
.gl-prose-body { font-size: 16px; line-height: 1.6; color: #1f2328; }
.gl-prose-body h1 { font-size: 1.7em; margin: 0.2em 0 0.6em; }
.gl-prose-body h2 { font-size: 1.25em; margin: 1.4em 0 0.4em; }
.gl-prose-body code { background: #f3f4f6; padding: 0 0.25em; border-radius: 3px; font-size: 0.9em; }
.gl-prose-body table { border-collapse: collapse; margin: 0.6em 0; }
.gl-prose-body th, .gl-prose-body td { border: 1px solid #d0d7de; padding: 0.2em 0.6em; text-align: left; }
.gl-prose-body blockquote { border-left: 3px solid #d0d7de; margin: 0.8em 0; padding: 0 0.9em; color: #444; }
.gl-prose-body mjx-container[display="true"], .gl-prose-body svg { max-width: 100%%; }
""" % PROSE_MAX_WIDTH

PANEL_CSS = """
.gl-card { border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5em 0.8em; background: #fafbfc; }
.gl-table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
.gl-table th, .gl-table td { padding: 0.15em 0.7em; text-align: right; border-bottom: 1px solid #e5e7eb; }
.gl-table th:first-child, .gl-table td:first-child { text-align: left; }
.gv { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.gl-note { color: #57606a; font-size: 0.9em; }
.gl-error { color: #b42318; font-weight: 600; }
.gl-status-diverged { color: #b42318; font-weight: 700; }
.gl-status-training { color: #1a7f37; font-weight: 700; }
"""

# Display math $$…$$ (may span lines) and inline math \( … \), kept away from the Markdown
# parser (which would eat the backslashes and read _ and * as emphasis).
_MATH = re.compile(r"\$\$.+?\$\$|\\\(.+?\\\)", re.S)


def gv(key, text, cls=""):
    """`<span class="gv" data-key="KEY">TEXT</span>`, both escaped: the browser tests' hook."""
    extra = f" {html.escape(cls, quote=True)}" if cls else ""
    return (f'<span class="gv{extra}" data-key="{html.escape(key, quote=True)}">'
            f"{html.escape(str(text))}</span>")


def markdown_to_html(text):
    """Markdown with $$…$$ and \\(…\\) math -> HTML in which the math is left for MathJax."""
    from markdown_it import MarkdownIt

    maths = []

    def stash(m):
        maths.append(m.group(0))
        return f"GLMATH{len(maths) - 1}X"

    body = _MATH.sub(stash, text)
    rendered = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table").render(body)
    # MathJax reads the math from the HTML source as is: keep & (alignment) raw, spell < and >
    # as TeX commands so that no tag can be formed.
    def restore(m):
        tex = maths[int(m.group(1))]
        return tex.replace("<", r"\lt ").replace(">", r"\gt ")

    return re.sub(r"GLMATH(\d+)X", restore, rendered)


def prose_pane(chapter_id, **kwargs):
    """The chapter's rendered prose (numbers filled from gleam) in a pane of class gl-prose."""
    body = markdown_to_html(content.render(chapter_id))
    return pn.pane.HTML(f'<div class="gl-prose-body">{body}</div>', css_classes=["gl-prose"],
                        disable_math=False, stylesheets=[PROSE_CSS], sizing_mode="stretch_width",
                        **kwargs)


def title_pane(chapter_id):
    """The chapter's heading, e.g. "Chapter 4 — Gates: the GRU cell"."""
    label = f"Chapter {chapter_id} — " if str(chapter_id).isdigit() else ""
    return pn.pane.HTML(f"<h1>{html.escape(label + content.title(chapter_id))}</h1>",
                        css_classes=["gl-title"], sizing_mode="stretch_width",
                        stylesheets=["h1 { font-size: 1.8em; margin: 0.3em 0 0.2em; }"])


def html_pane(text="", **kwargs):
    """An HTML pane for values built with `gv` (math off: the values are plain text)."""
    kwargs.setdefault("sizing_mode", "stretch_width")
    kwargs["stylesheets"] = [PANEL_CSS, *kwargs.get("stylesheets", [])]
    return pn.pane.HTML(text, **kwargs)


CARD_STYLES = {"border": "1px solid #d0d7de", "border-radius": "6px", "padding": "6px"}


def widget_card(*objects, layout=pn.Row, max_width=1150):
    """The bordered box that holds a chapter's interactive part."""
    return layout(*objects, css_classes=["gl-widget"], sizing_mode="stretch_width",
                  max_width=max_width, styles=CARD_STYLES)


def chapter_layout(chapter_id, widget):
    """Title, the interactive card, then the prose: every chapter with widgets looks like this."""
    return pn.Column(title_pane(chapter_id), widget, prose_pane(chapter_id), sizing_mode="stretch_width")


def table(header, rows):
    """A small HTML table; `header` cells are escaped, row cells are trusted HTML built by gv()."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="gl-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
