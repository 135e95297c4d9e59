"""The chapter list: ids in reading order, titles, and each chapter's Markdown source.

The files are read with importlib.resources, so this works from a wheel inside Pyodide.
"""
import html
import importlib.resources
import re

CHAPTERS = {
    "0": "One number of memory",
    "1": "The vanilla (Elman) RNN cell",
    "2": "Unrolling and backpropagation through time",
    "3": "Vanishing and exploding gradients",
    "4": "Gates: the GRU cell",
    "5": "GRU vs LSTM",
    "6": "Training a character-level GRU",
    "7": "The live lab",
    "8": "Beyond the cell",
    "9": "Cheat sheet and self-test",
    "memory": "Memory lab: what gates actually buy",
    "extrapolation": "Extrapolation lab: what a small GRU learns about mathematics",
    "inspector": "Model inspector: one network, one input, taken apart",
}


def chapter_ids():
    """Chapter ids in reading order: "0" … "9", "memory", "extrapolation", "inspector"."""
    return list(CHAPTERS)


def check(chapter_id):
    """The id as a str, or ValueError naming the known ids."""
    chapter_id = str(chapter_id)
    if chapter_id not in CHAPTERS:
        raise ValueError(f"unknown chapter {chapter_id!r}; known: {', '.join(CHAPTERS)}")
    return chapter_id


def title(chapter_id):
    return CHAPTERS[check(chapter_id)]


def titles():
    return dict(CHAPTERS)


def heading(chapter_id):
    """The chapter's heading: "Chapter 4 — Gates: the GRU cell"; the labs' titles stand alone."""
    chapter_id = check(chapter_id)
    return (f"Chapter {chapter_id} — " if chapter_id.isdigit() else "") + CHAPTERS[chapter_id]


def filename(chapter_id):
    chapter_id = check(chapter_id)
    return f"ch{chapter_id}.md" if chapter_id.isdigit() else f"{chapter_id}.md"


def start_source():
    """The Markdown of the lab's first screen (start.md: what the lab is, for whom, where to start,
    a line per chapter), shown above chapter 0, which is the site's index. No numbers in it."""
    return importlib.resources.files(__package__).joinpath("start.md").read_text(encoding="utf-8")


SITE_TITLE = "Recurrent networks — a lab"


def page_title(chapter_id):
    """What a browser's tab says on a chapter: "Chapter 4 — Gates: the GRU cell · Recurrent networks — a lab"."""
    return f"{heading(chapter_id)} · {SITE_TITLE}"


SITE_DESCRIPTION = ("An interactive lab on how recurrent neural networks work: small Elman, GRU and "
                    "LSTM networks taken apart and trained in the browser, every number computed there.")


def title_and_description(chapter_id):
    """A page's title and description, as a link preview shows them: the chapter's heading and its
    summary on the first screen, or the lab's (None, or an id that is not a chapter's)."""
    if chapter_id not in CHAPTERS:
        return SITE_TITLE, SITE_DESCRIPTION
    summary = summaries()[chapter_id]
    return page_title(chapter_id), summary[0].upper() + summary[1:]


def preview_tags(chapter_id):
    """The <meta> tags a link preview reads (the description, Open Graph's type, title and
    description), escaped; for the static site's pages and for `panel serve`'s alike."""
    title, description = (html.escape(t, quote=True) for t in title_and_description(chapter_id))
    return (f'<meta name="description" content="{description}">\n'
            f'<meta property="og:type" content="website">\n'
            f'<meta property="og:title" content="{title}">\n'
            f'<meta property="og:description" content="{description}">\n')


def summaries():
    """Chapter id -> its one-line summary, as the first screen (start.md) lists it."""
    return {cid: text for cid, text in re.findall(r"^- \[[^\]]+\]\(\?chapter=([\w-]+)\): (.+)$",
                                                  start_source(), re.M)}


def source(chapter_id):
    """The raw Markdown template of a chapter."""
    return importlib.resources.files(__package__).joinpath(filename(chapter_id)).read_text(encoding="utf-8")
