"""What a shared link and an installed site say of a page: each static page's title and
description (a link preview shows them: `<meta name="description">` and Open Graph's title and
description), and the site's web app manifest with its icon.

A chapter's description is its line on the lab's first screen (content/start.md); the index
describes the lab. No preview image: Open Graph wants an absolute address, and the site does not
know where it will be hosted.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

import content
from app.widgets.theme import PALETTE

from .errors import sub_once

SITE_TITLE = content.SITE_TITLE
SITE_DESCRIPTION = ("An interactive lab on how recurrent neural networks work: small Elman, GRU and "
                    "LSTM networks taken apart and trained in the browser, every number computed there.")
MANIFEST = "manifest.webmanifest"
ICON = "icon.svg"

# a loop: a state fed back into itself, the lab's one idea
ICON_SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="12" fill="{PALETTE.positive}"/>
<circle cx="32" cy="34" r="15" fill="none" stroke="{PALETTE.on_accent}" stroke-width="6"/>
<path d="M38 12 L50 20 L37 27 Z" fill="{PALETTE.on_accent}"/>
</svg>
"""


def title_and_description(chapter_id: str | None) -> tuple[str, str]:
    """A page's title and description: the chapter's heading and summary, or the lab's (None, or
    a page that is not one of content's chapters)."""
    if chapter_id not in content.chapter_ids():
        return SITE_TITLE, SITE_DESCRIPTION
    summary = content.chapters.summaries()[chapter_id]
    return content.page_title(chapter_id), summary[0].upper() + summary[1:]


def add_meta(page: str, chapter_id: str | None) -> str:
    """The page with its own <title>, description, Open Graph tags and the manifest's link."""
    title, description = (html.escape(t, quote=True) for t in title_and_description(chapter_id))
    tags = (f'<meta name="description" content="{description}">\n'
            f'<meta property="og:type" content="website">\n'
            f'<meta property="og:title" content="{title}">\n'
            f'<meta property="og:description" content="{description}">\n'
            f'<meta name="theme-color" content="{PALETTE.positive}">\n'
            f'<link rel="manifest" href="./{MANIFEST}">\n'
            f'<link rel="icon" type="image/svg+xml" href="./{ICON}">\n')
    return sub_once(r"<title>[^<]*</title>", lambda m: f"<title>{title}</title>\n{tags}", page, "<title>")


def write_manifest(site: Path) -> list[str]:
    """manifest.webmanifest and its icon in site/ -> the files written."""
    manifest = {"name": SITE_TITLE, "short_name": "RNN lab", "description": SITE_DESCRIPTION,
                "start_url": "./index.html", "scope": "./", "display": "standalone",
                "background_color": PALETTE.page, "theme_color": PALETTE.positive,
                "icons": [{"src": f"./{ICON}", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}]}
    (site / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (site / ICON).write_text(ICON_SVG, encoding="utf-8")
    return [MANIFEST, ICON]
