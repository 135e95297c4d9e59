"""Rendering a chapter: its Markdown template filled from `gleam.examples`, then HTML.

A template names the numbers it needs by the gleam.examples function that computes them:
`{% set e = chapter1_hand_example %}` gives the function's result (called with its defaults, as
plain lists, dicts and floats) and `{{ e.states[0][0] | f4 }}` prints one entry with one of the
formatters of content.formatting. The context holds data only — no module, nothing callable —
so a template can pick numbers but not compute them; an unknown name fails loudly.
"""
import functools
import html
import re

from gleam_lab.content.chapters import source
from gleam_lab.content.formatting import FILTERS


def environment():
    import jinja2
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(FILTERS)
    return env


def context(env, template_source):
    """name -> value for every name the template uses that gleam.examples computes."""
    import jinja2.meta
    from gleam import examples

    names = jinja2.meta.find_undeclared_variables(env.parse(template_source))
    return {name: examples.plain(getattr(examples, name)()) for name in sorted(names)
            if not name.startswith("_") and callable(getattr(examples, name, None))}


def render(chapter_id):
    """The chapter's Markdown with every placeholder filled from gleam.examples."""
    env = environment()
    text = source(chapter_id)
    return env.from_string(text).render(**context(env, text))


# Display math $$…$$ (may span lines) and inline math \( … \), kept away from the Markdown
# parser (which would eat the backslashes and read _ and * as emphasis).
_MATH = re.compile(r"\$\$.+?\$\$|\\\(.+?\\\)", re.S)


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
    # as TeX commands so that no tag can be formed. Each formula is wrapped in an element that
    # says it as its TeX source (role=img, aria-label): MathJax's SVG carries no text of its own
    # (the page hides the SVG from assistive technology, app.widgets.a11y).
    def restore(m):
        tex = maths[int(m.group(1))]
        return (f'<span class="gl-math" role="img" aria-label="{math_label(tex)}">'
                + tex.replace("<", r"\lt ").replace(">", r"\gt ") + "</span>")

    return re.sub(r"GLMATH(\d+)X", restore, rendered)


def math_label(tex):
    """A formula's text alternative: its TeX without the delimiters, on one line, escaped for an
    attribute ("h_t = \\tanh(a h_{t-1})")."""
    body = tex[2:-2] if tex.startswith(("$$", "\\(")) else tex
    return html.escape(" ".join(body.split()), quote=True)


def start_html():
    """The lab's first screen (content/start.md) as HTML."""
    from gleam_lab.content.chapters import start_source
    return markdown_to_html(start_source())


@functools.lru_cache(maxsize=32)
def render_html(chapter_id):
    """The chapter's prose as HTML (math left for MathJax). Kept once made: it is the same text for
    every reader (a function of the sources and of gleam.examples' defaults), and making it takes
    ~0.5 s (the examples, Jinja's compile, Markdown) each time a chapter is built under panel serve."""
    return markdown_to_html(render(chapter_id))


# The static site's prose, typeset when the site is built (buildtools.static_prose: KaTeX HTML,
# no TeX left for MathJax): {"css": KaTeX's stylesheet (site-relative), "chapters": {id: HTML}},
# shipped as content/typeset.json in the site's wheel, or named by GLEAM_TYPESET while the build
# pre-renders its pages. There is none under `panel serve`: MathJax typesets the prose there.
TYPESET_FILE = "typeset.json"


def typeset():
    """The typeset prose as described above, or None."""
    import os
    return _typeset(os.environ.get("GLEAM_TYPESET") or None)


@functools.lru_cache(maxsize=4)
def _typeset(path):
    import importlib.resources
    import json
    try:
        if path:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        return json.loads(importlib.resources.files("gleam_lab.content").joinpath(TYPESET_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def typeset_html(chapter_id):
    """The chapter's prose with its math typeset at build time, or None where there is none."""
    data = typeset()
    return None if data is None else data["chapters"].get(str(chapter_id))
