"""The two palettes: WCAG contrast of every text/background pair the CSS uses, both palettes in
the CSS (light by default, dark by the system's preference or the root's attribute), and the
figures of every chapter recoloured to the palette on screen and back."""
import re

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import Axis, CategoricalColorMapper, GlyphRenderer, Plot

from gleam_lab.app import chapters
from gleam_lab.app.lab import Lab
from gleam_lab.app.widgets import dark, theme
from gleam_lab.app.widgets.theme import DARK, GRAPHIC_PAIRS, PALETTE, PALETTES, TEXT_PAIRS

ROOT_VAR = re.compile(r"--gl-root-([\w-]+):\s*(#[0-9a-f]{6})")


def luminance(colour):
    """WCAG 2.x relative luminance of an sRGB colour "#rrggbb"."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_function_gives_the_wcag_numbers():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)     # the classic near miss
    assert contrast("#ffffff", "#ffffff") == pytest.approx(1.0)


@pytest.mark.parametrize("name", list(PALETTES))
@pytest.mark.parametrize("pairs, minimum", [(TEXT_PAIRS, 4.5), (GRAPHIC_PAIRS, 3.0)], ids=["text", "graphics"])
def test_every_pair_meets_wcag_aa(name, pairs, minimum):
    palette = PALETTES[name]
    low = {(fg, bg): round(contrast(getattr(palette, fg), getattr(palette, bg)), 2) for fg, bg in pairs
           if contrast(getattr(palette, fg), getattr(palette, bg)) < minimum}
    assert not low, f"{name}: below {minimum}:1: {low}"


def css_colour_pairs():
    """(foreground, background) names that a CSS rule of the app sets together: `color:
    var(--gl-X)` with `background: var(--gl-Y)` (else the page, or the card's surface)."""
    from pathlib import Path

    from gleam_lab.app.widgets import page
    texts = [p.read_text(encoding="utf-8") for p in Path(chapters.__file__).parents[1].rglob("*.py")]
    pairs = set()
    for text in texts + [page.PANEL_CSS, page.PROSE_CSS]:
        for rule in re.findall(r"\{([^{}]*)\}", text):
            fg = re.search(r"(?<![-\w])color:\s*var\(--gl-([\w-]+)\)", rule)
            bg = re.search(r"background(?:-color)?:\s*var\(--gl-([\w-]+)\)", rule)
            if fg and not fg.group(1).startswith("root-"):
                for back in ([bg.group(1)] if bg else ["page", "surface"]):
                    pairs.add((fg.group(1).replace("-", "_"), back.replace("-", "_")))
    return pairs


def test_the_pairs_checked_include_every_pair_the_css_sets():
    found = css_colour_pairs()
    assert ("on_accent", "positive") in found and ("muted", "page") in found     # the scan sees them
    assert found <= set(TEXT_PAIRS), f"pairs the CSS uses but TEXT_PAIRS does not check: {found - set(TEXT_PAIRS)}"


def test_the_palettes_name_the_same_colours():
    assert set(theme.css_names(PALETTE)) == set(theme.css_names(DARK))
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for p in PALETTES.values() for c in theme.css_names(p).values())


def root_values(css):
    return dict(ROOT_VAR.findall(css))


def test_the_root_css_carries_both_palettes():
    css = theme.root_css()
    blocks = re.split(r"\n", css)
    light = root_values(blocks[0])
    system = next(b for b in blocks if "prefers-color-scheme: dark" in b)
    toggled = next(b for b in blocks if b.startswith(":root[data-gl-theme=dark]"))
    expect = lambda p: {k.replace("_", "-"): v for k, v in theme.css_names(p).items()}
    assert light == expect(PALETTE)
    assert root_values(system) == root_values(toggled) == expect(DARK)
    assert ":root:not([data-gl-theme=light])" in system        # the toggle's "light" wins over the system
    assert "background-color: var(--gl-root-page)" in css


def test_each_shadow_root_takes_the_page_choice():
    css = theme.variables_css()
    for name, colour in theme.css_names(PALETTE).items():
        var = name.replace("_", "-")
        assert f"--gl-{var}: var(--gl-root-{var}, {colour});" in css
    assert "@media (prefers-color-scheme: dark)" in css and DARK.page in css


def test_the_static_head_sets_the_root_before_the_page_draws():
    head = dark.head_html()
    assert theme.root_css() in head and dark.STORAGE_KEY in head
    assert 'setAttribute("data-gl-theme"' in head and "prefers-color-scheme: dark" in head
    assert f'"{PALETTE.positive}": "{DARK.positive}"' in head        # the pre-rendered figures' colours
    assert f'"Figure": {{"background_fill_color": "{DARK.page}"' in head  # and those left at Bokeh's defaults


def shown_models(lab, kind):
    return [m for pane in lab.__panel__().select(pn.pane.Bokeh) if pane.object is not None
            for m in pane.object.references() if isinstance(m, kind)]


@pytest.mark.parametrize("cid", chapters.chapter_ids())
def test_every_chapters_figures_follow_the_theme(cid):
    lab = Lab(chapter=cid)
    lab.theme.state.value = "dark"
    plots = shown_models(lab, Plot)
    assert {p.background_fill_color for p in plots} <= {DARK.page}
    assert {a.major_label_text_color for a in shown_models(lab, Axis)} <= {DARK.muted}
    light_only = set(theme.css_names(PALETTE).values()) - set(theme.css_names(DARK).values())
    for model in shown_models(lab, object):        # no colour of the light palette is left on a property
        for prop, value in model.properties_with_values(include_defaults=False).items():
            colour = getattr(value, "value", value)
            if prop.endswith("color") and isinstance(colour, str):
                assert colour not in light_only, f"{model}.{prop} = {value}"
    for glyph in [r.glyph for r in shown_models(lab, GlyphRenderer)]:
        for prop, value in glyph.properties_with_values(include_defaults=False).items():
            if prop.endswith("color") and hasattr(value, "field"):      # a column of colours: mapped
                assert isinstance(value.transform, CategoricalColorMapper)
                assert dict(zip(value.transform.factors, value.transform.palette))[PALETTE.positive] == DARK.positive
    lab.theme.state.value = "light"
    assert {p.background_fill_color for p in plots} <= {PALETTE.page}
    lab.__panel__().get_root(Document())          # still renders


def test_the_explicit_colours_are_those_bokeh_reports_of_every_figure():
    """recolour's fast read of a model's set colours agrees with Bokeh's own
    properties_with_values, also under a document theme (themed values count as set)."""
    from bokeh.themes import Theme
    lab, checked = Lab(chapter="0"), 0
    for cid in chapters.chapter_ids():
        lab.view(cid)
    for themed in (False, True):
        for cid in chapters.chapter_ids():
            for pane in lab.view(cid).__panel__().select(pn.pane.Bokeh):
                doc = None
                if themed and pane.object is not None:
                    doc = Document(theme=Theme(json={"attrs": {"Grid": {"band_fill_color": "#123456"},
                                                               "Title": {"background_fill_color": "#654321"}}}))
                    doc.add_root(pane.object)
                for model in pane.object.references() if pane.object is not None else ():
                    bokeh = {k: v for k, v in model.properties_with_values(include_defaults=False).items()
                             if k.endswith("color")}
                    assert dark._explicit_colours(model) == bokeh, (cid, model)
                    checked += 1
                if doc is not None:
                    doc.remove_root(pane.object)
    assert checked > 1000


def test_a_chapter_built_later_is_themed_before_it_is_shown():
    lab = Lab(chapter="0")
    lab.theme.state.value = "dark"
    later = [cid for cid in chapters.chapter_ids() if cid != "0"]
    for cid in later:                        # built, not shown yet: styled and coloured already
        page = lab.view(cid).__panel__()
        assert all(dark.WIDGET_CSS in w.stylesheets for w in page.select(pn.widgets.WidgetBase)), cid
        plots = [m for pane in page.select(pn.pane.Bokeh) for m in pane.object.references() if isinstance(m, Plot)]
        assert {p.background_fill_color for p in plots} <= {DARK.page}, cid
    lab.theme.state.value = "light"          # a switch recolours the chapters not on screen too
    plots = [m for cid in later for pane in lab.view(cid).__panel__().select(pn.pane.Bokeh)
             for m in pane.object.references() if isinstance(m, Plot)]
    assert plots and {p.background_fill_color for p in plots} == {PALETTE.page}


def test_the_toggle_is_a_labelled_choice_in_the_contents():
    lab = Lab()
    toc = lab.__panel__().select(lambda o: "gl-toc" in (getattr(o, "css_classes", None) or []))[0]
    choice = toc.select(pn.widgets.Select)
    assert [c.label for c in choice] == ["Theme"] and choice[0].value == "system"
    assert set(choice[0].options.values()) == {"system", "light", "dark"}
    widgets = lab.__panel__().select(pn.widgets.WidgetBase)
    assert widgets and all(dark.WIDGET_CSS in w.stylesheets for w in widgets)


def test_sessions_share_no_theme():
    a, b = Lab(chapter="3"), Lab(chapter="3")
    a.theme.state.value = "dark"
    assert {p.background_fill_color for p in shown_models(b, Plot)} == {PALETTE.page}
