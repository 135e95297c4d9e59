"""The dark theme in a real browser, both modes (app.widgets.dark): a reader whose system prefers
dark gets the dark palette on the page, the prose, its math and every figure on screen; the
toggle switches it either way, wins over the system, and is remembered across a reload (in the
static site already on the pre-rendered page, before Python runs); axe's color-contrast rule
passes in the dark theme (on every chapter: tests/browser/test_a11y.py).
"""
import os
from pathlib import Path

import panel as pn
import pytest
from bokeh.models import Plot
from helpers import hold, release, run_local_script, wait_until

from gleam_lab import content
from gleam_lab.app import chapters
from gleam_lab.app.widgets.dark import CHOICES
from gleam_lab.app.widgets.theme import DARK, PALETTE, css_names
from buildtools.axe import axe_script

pytestmark = pytest.mark.ui

CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or Path(__file__).resolve().parents[2] / "build-cache").resolve()
LABELS = {value: label for label, value in CHOICES.items()}


def _has_figure(cid):
    return any(isinstance(m, Plot) for pane in chapters.make_viewer(cid).__panel__().select(pn.pane.Bokeh)
               if pane.object is not None for m in pane.object.references())


def _has_math(cid):
    html = content.render_html(cid)
    return "$$" in html or "\\(" in html


FIGURE_CHAPTER = next(cid for cid in chapters.chapter_ids() if _has_figure(cid) and _has_math(cid))

# What the page shows, read in one go: the root's attribute, the page's background, the prose's
# text colour and its math's, and the background of every figure on screen.
LOOK_JS = """(others) => {
  const rgb = (hex) => "rgb(" + [1, 3, 5].map(i => parseInt(hex.slice(i, i + 2), 16)).join(", ") + ")";
  const deep = (sel, root = document) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*"))
      if (el.shadowRoot) { const found = deep(sel, el.shadowRoot); if (found) return found; }
    return null;
  };
  const prose = deep(".gl-prose-body:not(.gl-start-body)");   // the chapter's prose, not the index's first screen
  const svg = prose && prose.querySelector("mjx-container svg g"), katex = prose && prose.querySelector(".katex");
  const plots = [], left = [];
  const roots = window.Bokeh && Bokeh.index ? Object.values(Bokeh.index) : [];
  for (const doc of new Set(roots.map(v => v.model.document)))
    for (const m of doc._all_models.values()) {
      if (!roots.some(v => v.owner && v.owner.find_one(m))) continue;
      if (["Figure", "Plot"].includes(m.constructor.__name__)) plots.push(m.background_fill_color);
      for (const [name, v] of Object.entries(m.attributes || {}))       // the other palette's colours
        if (/color$/.test(name) && others.includes(typeof v === "string" ? v : v && v.value))
          left.push(m.constructor.__name__ + "." + name);
    }
  return {attr: document.documentElement.getAttribute("data-gl-theme"),
          page: getComputedStyle(document.body).backgroundColor,
          prose: prose ? getComputedStyle(prose).color : null,
          math: svg ? getComputedStyle(svg).fill : katex ? getComputedStyle(katex).color : null,
          plots: [...new Set(plots)].map(c => c.startsWith("#") ? rgb(c) : c), left: [...new Set(left)]};
}"""


def rgb(colour):
    return "rgb(" + ", ".join(str(int(colour[i:i + 2], 16)) for i in (1, 3, 5)) + ")"


def only_in(palette):
    """The colours of `palette` that the other palette does not have too."""
    other = DARK if palette is PALETTE else PALETTE
    return sorted(set(css_names(palette).values()) - set(css_names(other).values()))


def expected(palette, attr):
    return {"attr": attr, "page": rgb(palette.page), "prose": rgb(palette.text), "math": rgb(palette.text),
            "plots": [rgb(palette.page)], "left": []}


def look(lab, palette):
    """What the page shows; `left`: figure parts still in the other palette's colours."""
    return lab.page.evaluate(LOOK_JS, only_in(DARK if palette is PALETTE else PALETTE))


def wait_look(lab, palette, attr, what):
    want, seen = expected(palette, attr), []

    def same():
        seen[:] = [look(lab, palette)]
        return seen[0] == want

    try:
        wait_until(same, page=lab.page)
    except TimeoutError:
        raise AssertionError(f"{what} ({lab.mode}): the page shows {seen[-1] if seen else None}, "
                             f"not {want}") from None


AXE_CONTRAST_JS = """async () => {
  const r = await axe.run(document, {runOnly: ["color-contrast"], resultTypes: ["violations"]});
  return r.violations.flatMap(v => v.nodes.map(n => JSON.stringify(n.target) + ": " + n.failureSummary));
}"""


def choose(lab, value):
    lab.page.locator(".gl-theme-choice select").select_option(label=LABELS[value])
    wait_until(lambda: lab.model_value("gl-theme-choice") == value, page=lab.page,
               message=f"for the theme toggle to say {value}")


def axe_contrast(lab):
    """axe's color-contrast rule on the page as it is: the elements that fail it."""
    path = axe_script(CACHE)
    if not path.is_file():
        pytest.fail(f"axe-core is not in the build cache ({path}): run `python -m buildtools.axe {CACHE}` once")
    if not lab.page.evaluate("() => !!window.axe"):
        run_local_script(lab.page, path)
    return lab.page.evaluate(AXE_CONTRAST_JS)


def test_a_dark_system_gets_the_dark_palette(shared_lab):
    """(test_a11y.py runs all of axe on every chapter in both themes; here its contrast rule runs on
    the chapter this test looks at, in dark, whatever the other file does.)"""
    lab = shared_lab
    lab.show(FIGURE_CHAPTER)
    wait_look(lab, PALETTE, None, "a light system")
    try:
        lab.page.emulate_media(color_scheme="dark")
        wait_look(lab, DARK, None, "a system that prefers dark")
        assert lab.model_value("gl-theme-choice") == "system"
        failures = axe_contrast(lab)
        assert not failures, "\n".join(failures[:20])
    finally:
        lab.page.emulate_media(color_scheme="light")
    wait_look(lab, PALETTE, None, "the system back to light")


def test_the_toggle_switches_wins_over_the_system_and_is_remembered(pages, site):
    lab = pages.new(site)
    lab.open(FIGURE_CHAPTER)
    choose(lab, "dark")
    wait_look(lab, DARK, "dark", "the toggle at dark on a light system")
    assert lab.page.evaluate("() => localStorage.getItem('gl-theme')") == "dark"

    held = hold(lab.page) if site.mode == "static" else None    # Python waits for the check
    lab.page.reload(wait_until="domcontentloaded")
    if site.mode == "static":       # the pre-rendered page, while Python starts, is dark already
        first = lab.page.evaluate("""() => [document.documentElement.getAttribute("data-gl-theme"),
                                           getComputedStyle(document.body).backgroundColor]""")
        assert first == ["dark", rgb(DARK.page)], f"the reloaded page does not open dark: {first}"
        wait_look(lab, DARK, "dark", "the pre-rendered page")
        assert lab.page.locator("body.pn-loading").count() == 1, "Python started before the check"
        release(lab.page, held)
    lab.wait_ready(FIGURE_CHAPTER)
    wait_until(lambda: lab.model_value("gl-theme-choice") == "dark", page=lab.page,
               message="for the toggle to show the stored choice")
    wait_look(lab, DARK, "dark", "the reloaded page")

    lab.page.emulate_media(color_scheme="dark")
    choose(lab, "light")
    wait_look(lab, PALETTE, "light", "the toggle at light on a dark system")
    choose(lab, "system")
    wait_look(lab, DARK, None, "the toggle back at following a dark system")
    assert lab.page.evaluate("() => localStorage.getItem('gl-theme')") == "system"

    # a link's theme= (an embed matching its course page) wins for that page and is not remembered
    lab.open_query(f"?chapter={FIGURE_CHAPTER}&theme=light", FIGURE_CHAPTER)
    wait_look(lab, PALETTE, "light", "theme=light in the link, on a dark system")
    wait_until(lambda: lab.model_value("gl-theme-choice") == "light", page=lab.page,
               message="for the toggle to show the link's theme")
    assert lab.page.evaluate("() => localStorage.getItem('gl-theme')") == "system"
    assert "theme=light" in lab.query()


# Chapter 7's file buttons (app.widgets.file_pick): their text and background colours.
FILE_BUTTONS_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.tagName === "BUTTON" && el.getRootNode().host &&
          ["gl-ch7-upload", "gl-ch7-load"].some((c) => el.getRootNode().host.classList.contains(c))) {
        const s = getComputedStyle(el);
        out.push([s.color, s.backgroundColor]);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""


def contrast(a, b):
    """WCAG contrast ratio of two "rgb(r, g, b)" colours."""
    def lum(c):
        r, g, b = (int(x) / 255 for x in c[c.index("(") + 1:c.index(")")].split(",")[:3])
        f = lambda v: v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4  # noqa: E731
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_choose_file_buttons_are_readable_in_both_themes(shared_lab):
    """Chapter 7's corpus upload and model load: their Choose File buttons were white with
    near-white text in the dark theme (when they were file inputs)."""
    lab = shared_lab
    lab.show("7")
    try:
        for scheme in ("dark", "light"):
            lab.page.emulate_media(color_scheme=scheme)
            wait_look(lab, DARK if scheme == "dark" else PALETTE, None, f"a {scheme} system")
            buttons = lab.page.evaluate(FILE_BUTTONS_JS)
            assert len(buttons) == 2, f"chapter 7's two file buttons not found: {buttons}"
            for text, background in buttons:
                assert contrast(text, background) >= 4.5, f"{scheme}: Choose File is {text} on {background}"
    finally:
        lab.page.emulate_media(color_scheme="light")
