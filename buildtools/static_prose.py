"""A chapter's title, prose and math as plain HTML, for the static page to show before any script.

    articles(ids, katex_dir)    chapter id -> `<article class="gl-static gl-prose">`: the escaped
                                heading, then content.render_html with each formula typeset by
                                KaTeX (all chapters' formulas in one node run)
    article(id, katex_dir)      the same for one chapter
    STATIC_CSS                  its look, scoped to .gl-static and themed by the --gl-root-* colours

Each formula keeps its `.gl-math` span (role=img, the TeX as its aria-label, content.render):
KaTeX's HTML-only output inside it carries no text of its own for assistive technology.
"""
from __future__ import annotations

import html
import re
from pathlib import Path

from .errors import BuildError
from .katex import render

# The prose's measure (app.widgets.theme.PROSE_MAX_WIDTH; not imported: the build stays off the app).
MAX_WIDTH = 760

# Mirrors the live prose (app.widgets.page PROSE_CSS and TITLE_CSS), for the page rather than a
# shadow root: every rule under .gl-static, colours only from --gl-root-*. On a phone nothing is
# wider than the article: long words wrap, tables, code blocks and display math scroll inside.
STATIC_CSS = """
.gl-static { box-sizing: border-box; max-width: %dpx; min-width: 0; margin: 0; padding: 0 10px;
  font-family: var(--bokeh-base-font, Helvetica, Arial, sans-serif); font-size: 16px; line-height: 1.6;
  color: var(--gl-root-text); background: var(--gl-root-page); overflow-wrap: anywhere; }
.gl-static *, .gl-static *::before, .gl-static *::after { box-sizing: inherit; }
.gl-static h1 { font-size: 1.8em; line-height: 1.25; margin: 0.3em 0 0.2em; }
.gl-static h2 { font-size: 1.25em; line-height: 1.3; margin: 1.4em 0 0.4em; }
.gl-static p, .gl-static ul, .gl-static ol { margin: 0.8em 0; }
.gl-static a { color: var(--gl-root-positive); text-decoration: underline; }
.gl-static code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em;
  background: var(--gl-root-code); color: var(--gl-root-text); padding: 0 0.25em; border-radius: 3px; }
.gl-static pre { display: block; overflow-x: auto; max-width: 100%%; padding: 0.5em;
  background: var(--gl-root-code); }
.gl-static pre code { padding: 0; }
.gl-static table { display: block; overflow-x: auto; max-width: 100%%; border-collapse: collapse;
  margin: 0.6em 0; }
.gl-static th, .gl-static td { border: 1px solid var(--gl-root-border); padding: 0.2em 0.6em;
  text-align: left; }
.gl-static blockquote { border-left: 3px solid var(--gl-root-border); margin: 0.8em 0; padding: 0 0.9em;
  color: var(--gl-root-quote); }
.gl-static .gl-start { border: 1px solid var(--gl-root-border); border-radius: 6px; padding: 0.2em 1em;
  margin: 0.2em 0 0.6em; }
.gl-static .katex { color: inherit; }
.gl-static .katex-display { display: block; max-width: 100%%; overflow-x: auto; overflow-y: hidden;
  margin: 0.8em 0; padding: 0.1em 0; }
""" % MAX_WIDTH

# A formula as content.render writes it; group 2 is its TeX with the delimiters, as HTML source.
_MATH = re.compile(r'(<span class="gl-math" role="img" aria-label="[^"]*">)(.*?)(</span>)', re.DOTALL)


def split_tex(source: str) -> tuple[str, bool]:
    """"$$ x $$" -> ("x", True), "\\( x \\)" -> ("x", False): the TeX body and whether it is display.

    The span's HTML source is unescaped first (a browser's MathJax reads its text the same way);
    content.render spells < and > as \\lt and \\gt, which KaTeX knows."""
    tex = html.unescape(source).strip()
    if tex.startswith("$$") and tex.endswith("$$") and len(tex) >= 4:
        return tex[2:-2].strip(), True
    if tex.startswith("\\(") and tex.endswith("\\)") and len(tex) >= 4:
        return tex[2:-2].strip(), False
    raise BuildError(f"a gl-math span without $$…$$ or \\(…\\) delimiters: {source[:80]!r}")


def typeset(pages: dict[str, str], katex_dir: Path) -> dict[str, str]:
    """key -> HTML from content.render_html, with every gl-math span's TeX replaced by KaTeX's
    HTML (the span, role and label kept); one node run for all of them."""
    found = {key: list(_MATH.finditer(text)) for key, text in pages.items()}
    items = [split_tex(m.group(2)) for matches in found.values() for m in matches]
    rendered = iter(render(items, katex_dir))
    out = {}
    for key, text in pages.items():
        parts, last = [], 0
        for m in found[key]:
            parts += [text[last:m.start()], m.group(1), next(rendered), m.group(3)]
            last = m.end()
        out[key] = "".join(parts) + text[last:]
    return out


def check(key: str, article_html: str) -> None:
    """No TeX delimiter may remain in the article's text (a formula content.render did not wrap,
    or one left untypeset); attributes (the TeX labels) are not text and are not looked at."""
    text = html.unescape(re.sub(r"<[^>]*>", "", article_html))
    for delim in ("$$", "\\(", "\\)"):
        at = text.find(delim)
        if at >= 0:
            raise BuildError(f"static article {key}: a raw TeX delimiter {delim!r} remains "
                             f"(in {text[max(at - 60, 0):at + 60]!r})")


def wrap(chapter_id: str, heading: str, prose: str) -> str:
    """The article element around a chapter's typeset prose, its heading escaped."""
    title_id = f"gl-static-title-{re.sub(r'[^A-Za-z0-9_-]', '-', chapter_id)}"
    return (f'<article class="gl-static gl-prose" id="gl-static" aria-labelledby="{title_id}">\n'
            f'<h1 id="{title_id}">{html.escape(heading)}</h1>\n{prose}</article>\n')


def prose(chapter_ids, katex_dir: Path) -> dict[str, str]:
    """chapter id -> content.render_html with its math typeset (no TeX left), one node run for all."""
    from gleam_lab import content

    out = typeset({cid: content.render_html(cid) for cid in chapter_ids}, katex_dir)
    for cid, text in out.items():
        check(cid, text)
    return out


def articles(chapter_ids, katex_dir: Path, typeset_prose: dict[str, str] | None = None) -> dict[str, str]:
    """chapter id -> its static article (see the module's docstring), all typeset in one node run
    (or made from `typeset_prose`, what `prose` returned)."""
    from gleam_lab import content

    ids = list(chapter_ids)
    prose_of = typeset_prose if typeset_prose is not None else prose(ids, katex_dir)
    start = f'<div class="gl-start">{content.start_html()}</div>\n'     # chapter 0's page is the index
    out = {cid: wrap(cid, content.heading(cid), (start if cid == "0" else "") + prose_of[cid]) for cid in ids}
    for cid, text in out.items():
        check(cid, text)
    return out


def article(chapter_id: str, katex_dir: Path) -> str:
    """One chapter's static article."""
    return articles([chapter_id], katex_dir)[chapter_id]
