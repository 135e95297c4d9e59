"""Keyboard, assistive technology and phone layout, in both modes, over every chapter of the
registry (app.widgets.a11y, app.lab):

- axe-core (npm, pinned; read from the build cache, never fetched here) on every chapter in the
  light and the dark theme (one per mode, the other in the other mode): no serious or critical
  violation (the minor and moderate ones counted and printed);
- keyboard only (each chapter in one mode, alternating): the skip link moves focus to the
  chapter; Tab reaches a slider of every chapter that has one, with a visible focus ring and a
  name; an arrow key moves it and its shown value changes; Tab back to Reset to defaults, Enter
  (or Space) puts it back;
- a phone (390 x 844, a mobile browser's context per mode): the page is laid out at device width,
  the skip link is the first Tab stop (in the static site on the pre-rendered page, before Python
  runs, which is no wider than the phone either), the contents are folded behind a button with
  aria-expanded and open with it; on every chapter, in one theme per mode and the other in the
  other mode (switched in place), once its
  formulas are typeset and its figures drawn: the layout viewport stays 390 px (a mobile browser
  widens it, zooming out, for a page wider than the device), no figure leaves the page, and no
  figure's title, legend or axis label is cut at its canvas's edge.
"""
import os
from pathlib import Path

import pytest

from gleam_lab.app import chapters
from gleam_lab.app.widgets import theme
from buildtools.axe import axe_script
from helpers import (ACTION_TIMEOUT, BOOT_TIMEOUT, Guard, Lab, clipped_figure_text, layout_width, run_local_script,
                     wait_until)

pytestmark = pytest.mark.ui

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or ROOT / "build-cache").resolve()
SERIOUS = ("serious", "critical")
PHONE = {"width": 390, "height": 844}
MAX_TABS = 120                       # Tab presses to reach a control before giving up

# The focused element, through shadow roots, and the css classes of it and of every host above it.
FOCUSED_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body) return null;
  const classes = [];
  for (let e = el; e; ) {
    classes.push(...e.classList);
    const root = e.getRootNode();
    e = e.parentElement || (root && root.host) || null;
  }
  const style = getComputedStyle(el);
  return {tag: el.tagName, cls: [...el.classList], chain: classes, label: el.getAttribute('aria-label'),
          role: el.getAttribute('role'), outline: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth),
          title: el.closest('.bk-slider-title, .noUi-target') && el.getRootNode().querySelector('.bk-slider-title')
                 ? el.getRootNode().querySelector('.bk-slider-title').textContent : null};
}"""

# What axe does not check: landmarks, the current chapter, figures, toggles, slider handles, formulas.
FACTS_JS = """() => {
  const all = [];
  const walk = root => root.querySelectorAll('*').forEach(e => { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); });
  walk(document);
  const host = e => { const r = e.getRootNode(); return r && r.host ? r.host : null; };
  const shown = e => e.checkVisibility();
  return {
    nav: all.filter(e => e.getAttribute('role') === 'navigation' && e.classList.contains('gl-toc')).length,
    main: all.filter(e => e.getAttribute('role') === 'main').length,
    current: all.filter(e => e.getAttribute('aria-current') === 'page')
                .map(e => [...(host(e) || e).classList].find(c => c.startsWith('gl-nav-'))),
    figures: all.filter(e => e.classList.contains('bk-Figure') && shown(e))
                .filter(e => e.getAttribute('role') !== 'img' || !(e.getAttribute('aria-label') || '').trim())
                .map(e => e.className),
    toggles: all.filter(e => e.tagName === 'BUTTON' && host(e) && host(e).classList.contains('bk-Toggle'))
                .filter(e => !e.hasAttribute('aria-pressed') && !e.hasAttribute('aria-expanded')).length,
    handles: all.filter(e => e.classList.contains('noUi-handle') && !(e.getAttribute('aria-label') || '').trim()).length,
    formulas: all.filter(e => e.classList.contains('gl-math'))
                 .filter(e => e.getAttribute('role') !== 'img' || !(e.getAttribute('aria-label') || '').trim()
                              || [...e.querySelectorAll('svg')].some(s => s.getAttribute('aria-hidden') !== 'true')).length,
    math: all.filter(e => e.classList.contains('gl-math')).length,
  };
}"""

AXE_JS = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
                                 where: v.nodes.slice(0, 3).map(n => JSON.stringify(n.target))}));
}"""


def axe_path():
    path = axe_script(CACHE)
    if not path.is_file():
        pytest.fail(f"axe-core is not in the build cache ({path}): run scripts/setup.sh --tests "
                    f"or `python -m buildtools.axe {CACHE}` once (the tests never fetch it)")
    return path


def focused(lab):
    return lab.page.evaluate(FOCUSED_JS)


def tab_until(lab, predicate, key="Tab", what=""):
    """Press `key` until the focused element satisfies `predicate`; returns it."""
    for _ in range(MAX_TABS):
        lab.page.keyboard.press(key)
        el = focused(lab)
        if el is not None and predicate(el):
            return el
    raise AssertionError(f"{key} x {MAX_TABS} never reached {what} (last focused: {focused(lab)})")


def move(lab, cid):
    """Show a chapter in place without a new history entry (Chromium keeps at most 50, and the
    session's shared page serves many tests): as Back/Forward do, once the lab is loaded."""
    if lab.site.serves(lab.page.url) and lab.page.locator(".gl-toc").count():
        lab.follow(f"?chapter={cid}", cid)
    else:
        lab.show(cid)


def control_class(chain, cid):
    """The `gl-ch{id}-{URL name}` class of the control the focus is in."""
    names = set(chapters.make_viewer(cid).url_controls().values())
    return next((c for c in chain if c.startswith(f"gl-ch{cid}-") and c[len(f"gl-ch{cid}-"):] in names), None)


# ---------------------------------------------------------------- axe in both themes

def set_scheme(lab, scheme):
    """Emulate the reader's colour scheme and wait until the chapter shows that palette (when the
    theme has one for it)."""
    lab.page.emulate_media(color_scheme=scheme)
    palette = getattr(theme, "PALETTES", {}).get(scheme)
    if palette is None:
        return
    area = lab.page.locator(".gl-chapter-area").first
    read = "el => getComputedStyle(el).getPropertyValue('--gl-text').trim().toLowerCase()"
    wait_until(lambda: area.evaluate(read) == palette.text.lower(), page=lab.page,
               message=f"for the {scheme} theme's text colour")


def test_axe_every_chapter_both_themes(shared_lab):
    """Each chapter in one theme per mode, the other theme in the other mode (the page and its CSS
    are the same in both): every chapter meets axe in both themes over a session, at half the cost."""
    lab = shared_lab
    script, counts, serious = axe_path(), {}, []
    try:
        for i, cid in enumerate(chapters.chapter_ids()):
            move(lab, cid)
            want = {"nav": 1, "main": 1, "current": [f"gl-nav-{cid}"], "figures": [], "toggles": 0, "handles": 0,
                    "formulas": 0}
            wait_until(lambda: {k: v for k, v in lab.page.evaluate(FACTS_JS).items() if k in want} == want,
                       page=lab.page, message=f"chapter {cid}: landmarks, aria-current, figure, toggle, "
                                              f"slider and formula names: {lab.page.evaluate(FACTS_JS)}")
            for scheme in [("light", "dark")[(i + (lab.mode == "serve")) % 2]]:
                set_scheme(lab, scheme)
                if not lab.page.evaluate("() => !!window.axe"):
                    run_local_script(lab.page, script)
                for v in lab.page.evaluate(AXE_JS):
                    if v["impact"] in SERIOUS:
                        serious.append(f"chapter {cid}, {scheme}: {v['impact']} {v['id']} ({v['help']}) "
                                       f"x{v['nodes']} at {', '.join(v['where'])}")
                    else:
                        key = (v["impact"], v["id"])
                        counts[key] = counts.get(key, 0) + v["nodes"]
    finally:
        lab.page.emulate_media(color_scheme="light")
    summary = ", ".join(f"{impact} {rule}: {n}" for (impact, rule), n in sorted(counts.items())) or "none"
    print(f"\n[{lab.mode}] axe minor/moderate violations over every chapter (one theme each): {summary}")
    assert not serious, "\n".join(serious)


# ---------------------------------------------------------------- keyboard only

def test_keyboard_only(shared_lab):
    """Every other chapter in each mode, the others in the other mode (as axe and the phone: the
    page is the same in both), so that every chapter with a slider is tried over a session."""
    lab, tried = shared_lab, []
    for i, cid in enumerate(chapters.chapter_ids()):
        if (i + (lab.mode == "serve")) % 2:
            continue
        move(lab, cid)
        if lab.page.locator(".gl-chapter-area .noUi-handle").count() == 0:
            continue                       # no slider in this chapter
        tried.append(cid)
        # the skip link (the first stop of Tab, test_phone) moves focus to the chapter
        lab.page.locator(".gl-skip").focus()
        lab.page.keyboard.press("Enter")
        wait_until(lambda: "gl-chapter-area" in (focused(lab) or {}).get("chain", []), page=lab.page,
                   message=f"chapter {cid}: for the skip link to move focus to the chapter")
        handle = tab_until(lab, lambda el: "noUi-handle" in el["cls"], what=f"a slider of chapter {cid}")
        assert handle["outline"] not in ("none", "") and handle["outlineWidth"] >= 2, \
            f"chapter {cid}: no visible focus ring on the focused slider: {handle}"
        cls = control_class(handle["chain"], cid)
        assert cls, f"chapter {cid}: the focused slider is no control of the chapter: {handle['chain']}"
        title = lab.model_value(cls, "title")
        assert handle["role"] == "slider" and handle["label"] and handle["label"].startswith(title.strip() or "?"), \
            f"chapter {cid}: slider {cls} is not named after its title {title!r}: {handle}"
        start, shown = lab.model_value(cls), handle["title"]
        key = "ArrowLeft" if start >= lab.model_value(cls, "end") else "ArrowRight"
        lab.page.keyboard.press(key)
        step = lab.model_value(cls, "step")
        wait_until(lambda: abs(lab.model_value(cls) - start) > 1e-9, page=lab.page,
                   message=f"chapter {cid}: for {key} to move {cls}")
        wait_until(lambda: focused(lab)["title"] != shown, page=lab.page,
                   message=f"chapter {cid}: for {cls}'s shown value to change from {shown!r}")
        assert abs(lab.model_value(cls) - start) <= step * 1.01 + 1e-12, "one key, one step"
        # back to Reset to defaults: Enter or Space puts the slider back where it opened
        tab_until(lab, lambda el: f"gl-ch{cid}-defaults" in el["chain"] and el["tag"] == "BUTTON",
                  key="Shift+Tab", what=f"chapter {cid}'s Reset to defaults")
        lab.page.keyboard.press("Enter" if len(tried) % 2 else "Space")
        wait_until(lambda: abs(lab.model_value(cls) - start) < 1e-9, page=lab.page,
                   message=f"chapter {cid}: for Reset to defaults to put {cls} back at {start}")
        wait_until(lambda: lab.chapter_in_url() == cid and "&" not in lab.query(), page=lab.page,
                   message="for the URL to drop the reset control")
    assert len(tried) >= 2, f"sliders found in chapters {tried} only"


# ---------------------------------------------------------------- phone

@pytest.fixture
def phone(browser, site):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    context.set_default_timeout(BOOT_TIMEOUT * 1000)
    guard, mark = Guard(context, label=f"{site.mode} phone"), site.log_mark()
    lab = Lab(context.new_page(), guard, site)
    yield lab
    problems = guard.problems() + site.log_errors(mark)
    context.close()
    assert not problems, "\n".join(problems)


def nav_visible(lab, cid):
    return lab.page.locator(f".gl-nav-{cid} button").is_visible()


def settled_layout(lab, cid, scheme):
    """The page's layout once it has settled (formulas typeset, figures drawn) and two readings
    half a second apart agree: (layout_width, clipped_figure_text)."""
    seen = []

    def same():
        a = (layout_width(lab.page), clipped_figure_text(lab.page))
        lab.page.wait_for_timeout(500)
        b = (layout_width(lab.page), clipped_figure_text(lab.page))
        seen[:] = [b]
        return a[0]["settled"] and a == b

    wait_until(same, page=lab.page, message=f"chapter {cid}, {scheme}: for formulas and figures to settle "
                                            f"({seen[-1] if seen else None})")
    return seen[0]


def test_phone(phone):
    lab, first = phone, chapters.chapter_ids()[0]
    lab.page.goto(lab.site.url(first), wait_until="domcontentloaded", timeout=BOOT_TIMEOUT * 1000)
    skip = lab.page.locator(".gl-skip")
    wait_until(lambda: skip.count() == 1 and skip.evaluate("e => !!e.glSkip"), timeout=BOOT_TIMEOUT,
               page=lab.page, message="for the page's accessibility script to wire the skip link")
    prerendered = lab.page.locator("body.pn-loading").count() == 1
    lab.page.keyboard.press("Tab")
    first_stop = focused(lab)
    assert first_stop and "gl-skip" in first_stop["cls"], f"the first Tab stop is not the skip link: {first_stop}"
    if lab.mode == "static":
        assert prerendered, "Python started before the pre-rendered page was checked"
        before = layout_width(lab.page)
        assert before["inner"] == PHONE["width"] and before["scroll"] <= PHONE["width"], \
            f"the pre-rendered page is wider than a phone: {before}"
    lab.wait_ready(first)
    size = lab.page.evaluate("() => [window.innerWidth, document.documentElement.clientWidth]")
    assert size == [PHONE["width"]] * 2, f"not laid out at device width: {size}"
    toggle = lab.page.locator(".gl-toc-toggle button")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert not nav_visible(lab, first), "the contents are not folded on a phone"
    widths, problems = {}, []
    try:
        for i, cid in enumerate(chapters.chapter_ids()):
            if cid != first:
                toggle.click()
                wait_until(lambda: toggle.get_attribute("aria-expanded") == "true" and nav_visible(lab, cid),
                           page=lab.page, message=f"for the contents to open (to go to chapter {cid})")
                lab.page.locator(f".gl-nav-{cid} button").click(timeout=ACTION_TIMEOUT * 1000)
                lab.wait_ready(cid)
                wait_until(lambda: toggle.get_attribute("aria-expanded") == "false" and not nav_visible(lab, cid),
                           page=lab.page, message="for the contents to fold once a chapter is chosen")
            # one theme per chapter in each mode, the other in the other mode, as axe does (the page
            # and its CSS are the same in both): every chapter in both themes over a session
            for scheme in [("light", "dark")[(i + (lab.mode == "serve")) % 2]]:
                set_scheme(lab, scheme)
                layout, clipped = settled_layout(lab, cid, scheme)
                widths[cid, scheme] = layout["inner"]
                if layout["inner"] > PHONE["width"] or layout["scroll"] > PHONE["width"]:
                    problems.append(f"chapter {cid}, {scheme}: the page is {layout['scroll']} px wide, its layout "
                                    f"viewport {layout['inner']} px (a phone's is {PHONE['width']}): it scrolls sideways")
                problems += [f"chapter {cid}, {scheme}: figure leaves the page: {f}" for f in layout["figures_out"]]
                problems += [f"chapter {cid}, {scheme}: cut at the canvas's edge: {c}" for c in clipped]
    finally:
        lab.page.emulate_media(color_scheme="light")
    print(f"\n[{lab.mode}] layout viewport on a 390 px phone: "
          + ", ".join(f"{cid} ({scheme}) {width}" for (cid, scheme), width in widths.items()))
    assert not problems, "\n".join(problems)
