"""The lab's one theme: a named palette, fonts and widths, and the CSS custom properties that
carry them into every pane's stylesheet.

HTML and CSS refer to colours only as `var(--gl-<name>)`; Bokeh draws on a canvas, so figures
take the same colours from `PALETTE` in Python. The dark theme is a second Palette, `DARK`, with
the same names: `root_css()` sets the page's choice of palette on the root element (light by
default; dark under `prefers-color-scheme: dark` unless the root says `data-gl-theme="light"`,
and whenever it says `data-gl-theme="dark"`), and `variables_css()` hands it into each shadow
root. Figures keep being built from PALETTE (the light names); app.widgets.dark recolours them
to the palette on screen.

Contrast (WCAG 2.x, checked in tests/app/test_palettes.py for each pair in TEXT_PAIRS and
GRAPHIC_PAIRS, in both palettes): text at least 4.5:1 on the backgrounds it is shown on, series,
guides and controls' borders at least 3:1 against the page.
"""
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Palette:
    text: str = "#1f2328"         # body text
    muted: str = "#57606a"        # notes, secondary labels, the zero line
    faint: str = "#697179"        # dashed guides; characters not read yet
    quote: str = "#444444"        # blockquoted text
    border: str = "#d0d7de"       # card and table borders, reference rules
    rule: str = "#e5e7eb"         # table rows; characters already read
    surface: str = "#fafbfc"      # cards
    sunken: str = "#f6f8fa"       # the table of contents, the sampled-text box
    code: str = "#f3f4f6"         # inline code
    page: str = "#ffffff"         # the page itself
    on_accent: str = "#ffffff"    # text on a `positive` background
    positive: str = "#2f6fbf"     # values >= 0; a main series; the current character
    negative: str = "#c93c4e"     # values < 0; the chance line
    secondary: str = "#cc6d00"    # a second series: the GRU's candidate, the unigram line
    pale: str = "#9ecae1"         # a raw series drawn under its smoothed line
    good: str = "#1a7f37"         # training; carry meters
    error: str = "#b42318"        # refused input, divergence
    focus: str = "#0b57d0"        # the focus ring around whatever has keyboard focus
    control: str = "#767d86"      # borders of inputs, selects and buttons
    heatmap: str = "Viridis256"   # Bokeh palette of [0, 1] heatmaps (gate values)


PALETTE = Palette()             # the light theme (and the names figures are built with)
DARK = Palette(
    text="#e6edf3", muted="#9198a1", faint="#7d8590", quote="#c9d1d9", border="#3d444d",
    rule="#2a313c", surface="#161b22", sunken="#151b23", code="#262c36", page="#0d1117",
    on_accent="#0d1117", positive="#4493f8", negative="#f47067", secondary="#f0883e",
    pale="#2d4f73", good="#3fb950", error="#ff7b72", focus="#6cb6ff", control="#7d8590",
    heatmap="Viridis256")
PALETTES = {"light": PALETTE, "dark": DARK}

# (foreground, background) pairs the CSS shows as text: at least 4.5:1 in both palettes
TEXT_PAIRS = [(fg, bg) for bg in ("page", "surface", "sunken") for fg in ("text", "muted")] + [
    (fg, bg) for bg in ("page", "surface") for fg in ("quote", "faint", "error", "good", "positive", "negative")] + [
    ("text", "code"), ("text", "rule"), ("on_accent", "positive"), ("on_accent", "good"), ("on_accent", "error")]
# figure series, guides and controls against the page: at least 3:1 (a raw series drawn pale under
# its smoothed line, and card and table rules, are decoration and not held to it)
GRAPHIC_PAIRS = [(fg, bg) for bg in ("page", "surface", "sunken")
                 for fg in ("positive", "negative", "secondary", "good", "muted", "faint", "control", "focus")]

MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
PROSE_MAX_WIDTH = 760             # px: the measure of a line of prose
CARD_MAX_WIDTH = 1150             # px: a chapter's interactive card


def css_names(palette=PALETTE):
    """Field name -> colour of the palette's CSS colours (all but the heatmap's Bokeh palette)."""
    return {f.name: getattr(palette, f.name) for f in fields(palette) if f.name != "heatmap"}


def _declarations(prefix, palette, fallback=None):
    return "".join(f" --gl-{prefix}{k.replace('_', '-')}: "
                   + (f"var(--gl-root-{k.replace('_', '-')}, {v});" if fallback else f"{v};")
                   for k, v in css_names(palette).items())


def variables_css(palette=PALETTE):
    """`:host { --gl-text: …; … }`: the palette as CSS custom properties, set on a layout and
    inherited by every pane inside it. Each takes the page's choice (`--gl-root-text`, set by
    `root_css` on the root element) where there is one; else (a chapter shown on its own) the
    palette given, or the dark one when the reader's system prefers dark."""
    light, dark = _declarations("", palette, True), _declarations("", DARK, True)
    return (f":host {{{light} --gl-mono: {MONO}; --bokeh-icon-color: var(--gl-muted); }}\n"
            f"@media (prefers-color-scheme: dark) {{ :host {{{dark} }} }}")


def root_css():
    """The page's theme on its root element (`html`): the light palette, the dark one under
    `prefers-color-scheme: dark` unless the root says `data-gl-theme="light"`, and the dark one
    whenever it says `data-gl-theme="dark"` (the lab's toggle). The page itself follows, and so
    does Panel's text and background in every shadow root (its `--design-…` variables inherit);
    `--gl-text` etc. on the root itself are the same colours, for CSS and scripts of the page."""
    light, dark = _declarations("root-", PALETTE), _declarations("root-", DARK)
    panel = ("--design-background-color: var(--gl-root-page); --design-background-text-color: var(--gl-root-text);"
             " --design-surface-color: var(--gl-root-surface); --design-surface-text-color: var(--gl-root-text);")
    panel += "".join(f" --gl-{k.replace('_', '-')}: var(--gl-root-{k.replace('_', '-')});" for k in css_names())
    return (f":root {{{light} color-scheme: light; {panel} }}\n"
            f"@media (prefers-color-scheme: dark) {{ :root:not([data-gl-theme=light]) {{{dark} color-scheme: dark; }} }}\n"
            f":root[data-gl-theme=dark] {{{dark} color-scheme: dark; }}\n"
            "html, body { background-color: var(--gl-root-page); color: var(--gl-root-text); }")
