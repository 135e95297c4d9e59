"""The lab's one theme: a named palette, fonts and widths, and the CSS custom properties that
carry them into every pane's stylesheet.

HTML and CSS refer to colours only as `var(--gl-<name>)`; Bokeh draws on a canvas, so figures
take the same colours from `PALETTE` in Python. A dark theme is a second Palette (and a second
`variables_css`), not a search through the chapters.
"""
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Palette:
    text: str = "#1f2328"         # body text
    muted: str = "#57606a"        # notes, secondary labels, the zero line
    faint: str = "#8c959f"        # dashed guides; characters not read yet
    quote: str = "#444444"        # blockquoted text
    border: str = "#d0d7de"       # card and table borders, reference rules
    rule: str = "#e5e7eb"         # table rows; characters already read
    surface: str = "#fafbfc"      # cards
    sunken: str = "#f6f8fa"       # the table of contents, the sampled-text box
    code: str = "#f3f4f6"         # inline code
    page: str = "#ffffff"         # the page itself
    on_accent: str = "#ffffff"    # text on a `positive` background
    positive: str = "#2f6fbf"     # values >= 0; a main series; the current character
    negative: str = "#d1495b"     # values < 0; the chance line
    secondary: str = "#e07b00"    # a second series: the GRU's candidate, the unigram line
    pale: str = "#9ecae1"         # a raw series drawn under its smoothed line
    good: str = "#1a7f37"         # training; carry meters
    error: str = "#b42318"        # refused input, divergence
    heatmap: str = "Viridis256"   # Bokeh palette of [0, 1] heatmaps (gate values)


PALETTE = Palette()

MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
PROSE_MAX_WIDTH = 760             # px: the measure of a line of prose
CARD_MAX_WIDTH = 1150             # px: a chapter's interactive card


def variables_css(palette=PALETTE):
    """`:host { --gl-text: …; … }`: the palette as CSS custom properties. Custom properties
    inherit through shadow roots, so setting them on a chapter's outer layout reaches every
    pane inside it."""
    names = "".join(f" --gl-{k.replace('_', '-')}: {v};" for k, v in asdict(palette).items()
                    if k != "heatmap")
    return f":host {{{names} --gl-mono: {MONO}; }}"
