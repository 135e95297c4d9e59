"""What a shared link and an installed site say of a page: each static page's title and
description (a link preview shows them: `<meta name="description">` and Open Graph's title and
description), and the site's web app manifest with its icon.

A chapter's description is its line on the lab's first screen (content/start.md); the index
describes the lab. Each page also has a preview image, a card with its title and description
(previews/<chapter>.png, drawn with Pillow, which Bokeh already requires). Open Graph wants the
image's absolute address, and only whoever hosts the site knows it: `build.py --site-url URL` names
the image (and the page) in each page; without it the cards are made and not named.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from gleam_lab import content
from gleam_lab.app.widgets.theme import PALETTE

from .deeplinks import page_name
from .errors import sub_once

SITE_TITLE = content.SITE_TITLE
SITE_DESCRIPTION = content.SITE_DESCRIPTION
MANIFEST = "manifest.webmanifest"
ICON = "icon.svg"

# a loop: a state fed back into itself, the lab's one idea
ICON_SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="12" fill="{PALETTE.positive}"/>
<circle cx="32" cy="34" r="15" fill="none" stroke="{PALETTE.on_accent}" stroke-width="6"/>
<path d="M38 12 L50 20 L37 27 Z" fill="{PALETTE.on_accent}"/>
</svg>
"""


PREVIEWS = "previews"       # the preview cards' folder in site/
CARD = (1200, 630)          # the size link previews ask for (1.91 : 1)


def preview_file(chapter_id: str | None) -> str:
    return f"{PREVIEWS}/{'index' if chapter_id is None else chapter_id}.png"


def check_site_url(url: str) -> str:
    """The site's public address as given to --site-url, ending in "/"; ValueError if it is not an
    absolute http(s) address."""
    from urllib.parse import urlsplit
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"--site-url must be the site's absolute address, such as "
                         f"https://example.org/rnn-lab/, not {url!r}")
    return url if url.endswith("/") else url + "/"


def add_meta(page: str, chapter_id: str | None, site_url: str | None = None) -> str:
    """The page with its own <title>, its link preview's tags (content.preview_tags; with the site's
    address, also the page's and its preview card's), its colour and the manifest's link."""
    title = html.escape(content.title_and_description(chapter_id)[0], quote=True)
    tags = content.preview_tags(chapter_id)
    if site_url:
        here = "index.html" if chapter_id is None else page_name(chapter_id)
        page_url, card = (html.escape(site_url + f, quote=True) for f in (here, preview_file(chapter_id)))
        tags += (f'<meta property="og:url" content="{page_url}">\n'
                 f'<meta property="og:image" content="{card}">\n'
                 f'<meta property="og:image:width" content="{CARD[0]}">\n'
                 f'<meta property="og:image:height" content="{CARD[1]}">\n'
                 f'<meta name="twitter:card" content="summary_large_image">\n')
    tags += (f'<meta name="theme-color" content="{PALETTE.positive}">\n'
             f'<link rel="manifest" href="./{MANIFEST}">\n'
             f'<link rel="icon" type="image/svg+xml" href="./{ICON}">\n')
    return sub_once(r"<title>[^<]*</title>", lambda m: f"<title>{title}</title>\n{tags}", page, "<title>")


def _drawable(text: str, font) -> str:
    """`text` with each character the font has no glyph for (Pillow's own font lacks the dashes)
    replaced: a dash by a hyphen, anything else by its compatibility decomposition, or dropped."""
    import unicodedata

    def mask(ch):
        m = font.getmask(ch)
        return m.size, bytes(m)
    missing = mask("\uffff")
    out = []
    for ch in text:
        if ch.isascii() or mask(ch) != missing:
            out.append(ch)
        elif unicodedata.category(ch) == "Pd":
            out.append("-")
        else:
            out.append(unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode())
    return "".join(out)


def _wrap(draw, text: str, font, width: int) -> list[str]:
    text = _drawable(text, font)
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + ([line] if line else [])


def preview_card(chapter_id: str | None) -> bytes:
    """A page's preview card as PNG bytes: the lab's icon and name, the page's title and description
    in the light theme's colours."""
    import io

    from PIL import Image, ImageDraw, ImageFont
    description = content.title_and_description(chapter_id)[1]
    title = content.heading(chapter_id) if chapter_id in content.chapter_ids() else SITE_TITLE
    img = Image.new("RGB", CARD, PALETTE.page)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, CARD[0], 18), fill=PALETTE.positive)
    # the icon (ICON_SVG at 2.5 times its size): a state fed back into itself
    x, y, s = 80, 80, 2.5
    draw.rounded_rectangle((x, y, x + 64 * s, y + 64 * s), radius=12 * s, fill=PALETTE.positive)
    draw.ellipse((x + 17 * s, y + 19 * s, x + 47 * s, y + 49 * s), outline=PALETTE.on_accent, width=int(6 * s))
    draw.polygon([(x + 38 * s, y + 12 * s), (x + 50 * s, y + 20 * s), (x + 37 * s, y + 27 * s)], fill=PALETTE.on_accent)
    small, big, body = (ImageFont.load_default(size=n) for n in (34, 60, 36))
    left, width = 300, CARD[0] - 300 - 70
    draw.text((left, 92), _drawable(SITE_TITLE, small), font=small, fill=PALETTE.muted)
    y = 160
    for line in _wrap(draw, title, big, width)[:3]:
        draw.text((left, y), line, font=big, fill=PALETTE.text)
        y += 74
    y += 24
    for line in _wrap(draw, description, body, width)[:6]:
        draw.text((left, y), line, font=body, fill=PALETTE.muted)
        y += 48
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


def write_previews(site: Path, chapter_ids: list[str]) -> list[str]:
    """Each page's preview card in site/previews/ -> the files written."""
    (site / PREVIEWS).mkdir(exist_ok=True)
    written = []
    for cid in [None, *chapter_ids]:
        (site / preview_file(cid)).write_bytes(preview_card(cid))
        written.append(preview_file(cid))
    return written


def write_manifest(site: Path) -> list[str]:
    """manifest.webmanifest and its icon in site/ -> the files written."""
    manifest = {"name": SITE_TITLE, "short_name": "RNN lab", "description": SITE_DESCRIPTION,
                "start_url": "./index.html", "scope": "./", "display": "standalone",
                "background_color": PALETTE.page, "theme_color": PALETTE.positive,
                "icons": [{"src": f"./{ICON}", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}]}
    (site / MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (site / ICON).write_text(ICON_SVG, encoding="utf-8")
    return [MANIFEST, ICON]
