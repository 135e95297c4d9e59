"""Shareable state in a real browser, both modes: a shared URL reopens every chapter with each
changed control at its shared value; an embed shows only the widget, with hidden controls absent
and their values applied (and, in the static site, never the table of contents while Python
starts); Back and Forward change the chapter and its controls while a slider adds no history
entry; a malformed parameter is named in a message and the page stays usable; Reset to defaults
and Copy link.

Which chapters, controls and values: app.chapters' registry and each control's declaration
(tests/url_examples.py), computed in Python the same way the app tests do.
"""
import functools
from urllib.parse import urlsplit

import pytest
from bokeh.document import Document

from gleam_lab.app import chapters
from gleam_lab.app.widgets import url_state
from helpers import hold, release, wait_until
from tests.url_examples import changed_value, changed_viewer, chapters_with_controls, move, widget_of

pytestmark = pytest.mark.ui

WITH_CONTROLS = chapters_with_controls()


def model_state(viewer):
    """css class -> (Bokeh property, value) of each control's widget, as Panel makes its model
    for the value the viewer holds (what the page's model must hold too)."""
    out = {}
    for name, key in viewer.url_controls().items():
        widget = widget_of(viewer, name)
        if widget is None:
            continue
        model = widget.get_root(Document())
        attr = "value" if "value" in model.properties() else "active"
        out[f"gl-ch{viewer.chapter_id}-{key}"] = (attr, getattr(model, attr))
    return out


def page_model_state(lab, expected):
    return {cls: (attr, lab.model_value(cls, attr)) for cls, (attr, _) in expected.items()}


@functools.lru_cache(maxsize=None)
def sliders(cid):
    """(parameter name, URL name) of the chapter's controls that are sliders."""
    viewer = chapters.make_viewer(cid)
    return tuple((n, k) for n, k in viewer.url_controls().items()
                 if widget_of(viewer, n) is not None and "value_throttled" in widget_of(viewer, n).param)


WITH_SLIDERS = [cid for cid in WITH_CONTROLS if sliders(cid)]


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_a_shared_url_reopens_every_changed_control(request, site, cid):
    """Served: a page load per chapter. Static: one boot of Python for them all -- the shared
    page follows each URL in place, as Back/Forward do (a fresh load of a URL with controls is
    the embed's and the malformed link's test below)."""
    viewer = changed_viewer(cid)
    query = url_state.query_string([("chapter", cid)] + viewer.url_query())
    expected, values = model_state(viewer), viewer.values()
    if site.mode == "serve":
        lab = request.getfixturevalue("pages").new(site)
        lab.open_query(query, cid)
    else:      # what earlier tests did there stays (a gradient check run): compare what the controls change
        untouched = chapters.make_viewer(cid).values()
        values = {k: v for k, v in values.items() if untouched.get(k) != v}
        lab = request.getfixturevalue("shared_lab")
        lab.show(cid)
        lab.follow(query, cid)
    wait_until(lambda: page_model_state(lab, expected) == expected, page=lab.page,
               message=f"for chapter {cid}'s controls at their shared values")
    shown = lab.shown_values()
    assert {k: v for k, v in shown.items() if k in values} == values
    assert lab.query() == query and lab.text("lab.message") == ""
    lab.click(f"gl-ch{cid}-defaults")               # the shared page as the next test expects it
    wait_until(lambda: lab.query() == f"?chapter={cid}", page=lab.page, message="for Reset to defaults")


def test_an_embed_shows_the_widget_alone_with_hidden_controls_applied(pages, site):
    cid = next(c for c, names in WITH_CONTROLS.items() if len(names) >= 2)
    (hidden, hidden_key), (shown_name, shown_key) = list(WITH_CONTROLS[cid].items())[:2]
    viewer = chapters.make_viewer(cid)
    viewer.__panel__()
    for name in (hidden, shown_name):
        move(viewer, name, changed_value(viewer.param[name], viewer.defaults()[name]))
    query = url_state.query_string([("chapter", cid), ("embed", "widget"), ("hide", hidden_key)]
                                   + viewer.url_query())
    lab = pages.new(site)
    lab.page.add_init_script(SEEN_SCRIPT)
    held = hold(lab.page) if site.mode == "static" else None      # Python waits for the check
    lab.open_query(query, cid, ready=False)
    if site.mode == "static":         # while Python starts: the pre-rendered page hides them too
        want = {"gl-toc": False, "gl-title": False, "gl-prose": False, f"gl-ch{cid}-link": False,
                f"gl-ch{cid}-{hidden_key}": False, f"gl-ch{cid}-{shown_key}": True, f"gl-ch{cid}-defaults": True}
        wait_until(lambda: lab.page.evaluate(PRERENDERED_JS, list(want)) is not None, page=lab.page)
        prerendered = lab.page.evaluate(PRERENDERED_JS, list(want))
        assert lab.page.locator("body.pn-loading").count() == 1, "Python started before the check"
        assert prerendered == want
        assert lab.page.locator("#gl-static").is_hidden()        # the static article, like the prose
        release(lab.page, held)
    wait_until(lambda: lab.page.locator(".pn-loading").count() == 0 and lab.query() == query, page=lab.page,
               timeout=120, message="for the embed to start")
    values = viewer.values()
    wait_until(lambda: {k: v for k, v in lab.shown_values().items() if k in values} == values, page=lab.page,
               message="for the embed's values")
    visible = lambda cls: any(e.is_visible() for e in lab.page.locator(f".{cls}").all())  # noqa: E731
    assert visible(f"gl-ch{cid}-{shown_key}") and not visible(f"gl-ch{cid}-{hidden_key}")
    for part in ("gl-toc", "gl-nav", "gl-title", "gl-prose", f"gl-ch{cid}-link"):
        assert not visible(part), part
    assert visible(f"gl-ch{cid}-defaults")
    assert lab.page.evaluate("() => window.__glSeen") == [], "shown during the load, then hidden"


# an element of these classes on screen at any moment of the load (checked every 100 ms)
SEEN_SCRIPT = """
window.__glSeen = [];
const glDeep = (root, out) => {
  for (const e of root.querySelectorAll('.gl-toc, .gl-title, .gl-prose')) out.push(e);
  for (const e of root.querySelectorAll('*')) if (e.shadowRoot) glDeep(e.shadowRoot, out);
  return out;
};
setInterval(() => {
  for (const e of glDeep(document, []))
    if (e.checkVisibility() && e.getBoundingClientRect().height > 0)
      for (const c of ['gl-toc', 'gl-title', 'gl-prose'])
        if (e.classList.contains(c) && !window.__glSeen.includes(c)) window.__glSeen.push(c);
}, 100);
"""
# the pre-rendered document's `visible` of the models carrying each class (null before it is there)
PRERENDERED_JS = """(classes) => {
  if (!window.Bokeh || !Bokeh.documents.length) return null;
  const out = {};
  for (const m of Bokeh.documents[0]._all_models.values())
    for (const c of m.css_classes || [])
      if (classes.includes(c)) out[c] = m.visible;
  return out;
}"""


def test_back_and_forward_change_the_chapter_and_its_controls(shared_lab):
    lab = shared_lab
    a, b = WITH_SLIDERS[:2]
    (name, key), = sliders(a)[:1]
    slider = f"gl-ch{a}-{key}"
    lab.show(a)
    lab.click(f"gl-ch{a}-defaults")
    wait_until(lambda: lab.query() == f"?chapter={a}", page=lab.page)
    start = lab.pushes()
    lab.slider_keys(slider, "ArrowRight", "ArrowRight", "ArrowRight")    # three moves, no entry
    wait_until(lambda: f"&{key}=" in lab.query(), page=lab.page, message="for the slider in the URL")
    moved = lab.model_value(slider)
    written = repr(round(moved, 12))      # the step's grid point (three steps may add a float error)
    wait_until(lambda: lab.query() == f"?chapter={a}&{key}={written}", page=lab.page)
    assert lab.pushes() == start
    lab.show(b)                                                          # a chapter: one entry
    assert lab.pushes() == start + 1
    if lab.mode == "static":              # the URL names the page of the chapter it shows
        assert urlsplit(lab.page.url).path.endswith(f"/chapter-{b}.html"), lab.page.url
    lab.click(f"gl-nav-{a}")                                             # and back by the contents
    wait_until(lambda: lab.chapter_in_url() == a and lab.shows_chapter(a), page=lab.page)
    lab.click(f"gl-ch{a}-defaults")                                      # replaces that entry
    wait_until(lambda: lab.query() == f"?chapter={a}", page=lab.page)
    assert lab.pushes() == start + 2
    lab.page.go_back()                                                   # b
    wait_until(lambda: lab.chapter_in_url() == b and lab.shows_chapter(b), page=lab.page,
               message="for Back to show the previous chapter")
    lab.page.go_back()                                                   # a, as it was then
    wait_until(lambda: lab.shows_chapter(a) and abs(lab.model_value(slider) - moved) < 1e-12, page=lab.page,
               message="for Back to restore the entry's controls")
    assert lab.query() == f"?chapter={a}&{key}={written}"
    if lab.mode == "static":
        assert urlsplit(lab.page.url).path.endswith(f"/chapter-{a}.html"), lab.page.url
    lab.page.go_forward()
    wait_until(lambda: lab.shows_chapter(b), page=lab.page, message="for Forward")
    lab.page.go_forward()
    wait_until(lambda: lab.shows_chapter(a) and lab.model_value(slider) != moved, page=lab.page)
    assert lab.query() == f"?chapter={a}" and lab.pushes() == start + 2


def test_a_malformed_parameter_shows_a_message_and_the_page_stays_usable(pages, site):
    cid = WITH_SLIDERS[0]
    (name, key), = sliders(cid)[:1]
    others = [(n, k) for n, k in WITH_CONTROLS[cid].items() if n != name]
    viewer = chapters.make_viewer(cid)
    viewer.__panel__()
    other, other_key = others[0]
    move(viewer, other, changed_value(viewer.param[other], viewer.defaults()[other]))
    good = viewer.url_query()
    evil = "<img src=x onerror=window.__glXss=1>"
    query = url_state.query_string([("chapter", cid), (key, "not-a-number"), ("zz", evil)] + good)
    lab = pages.new(site)
    lab.open_query(query, cid, ready=False)
    lab.wait_ready(cid)
    message = lab.wait_text("lab.message", lambda t: t != "", what="a message")
    assert f"{key}=not-a-number (not a number)" in message and f"zz={evil}" in message
    assert lab.page.evaluate("() => window.__glXss") is None
    wait_until(lambda: lab.query() == url_state.query_string([("chapter", cid)] + good), page=lab.page,
               message="for the URL without the refused parameters")
    values = viewer.values()
    assert {k: v for k, v in lab.shown_values().items() if k in values} == values   # the good one applied
    before = lab.shown_values()
    lab.slider_keys(f"gl-ch{cid}-{key}", "ArrowRight")                   # still usable
    wait_until(lambda: lab.shown_values() != before and f"&{key}=" in lab.query(), page=lab.page)


def test_an_embed_of_an_unknown_chapter_says_so_and_offers_the_contents(pages, site):
    lab = pages.new(site)
    lab.open_query("?chapter=nope&embed=1", "0", ready=False)
    lab.wait_ready("0")
    message = lab.wait_text("lab.message", lambda t: t != "", what="a message")
    assert "chapter=nope (no such chapter: pick one in the contents)" in message
    toc = lab.page.locator(".gl-toc").first
    wait_until(lambda: toc.is_visible(), page=lab.page, message="for the contents in the embed")
    lab.click("gl-nav-4")
    lab.wait_ready("4")
    assert lab.chapter_in_url() == "4"


def test_reset_and_copy_link(shared_lab):
    lab = shared_lab
    cid = WITH_SLIDERS[0]
    (name, key), = sliders(cid)[:1]
    lab.show(cid)
    lab.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    before = lab.shown_values()
    lab.slider_keys(f"gl-ch{cid}-{key}", "ArrowRight", "ArrowRight")
    wait_until(lambda: f"&{key}=" in lab.query(), page=lab.page)
    field = lab.page.locator(f".gl-ch{cid}-link-text input")
    assert not field.is_visible()                               # the first screen is the lesson
    lab.click(f"gl-ch{cid}-share-toggle")
    wait_until(lambda: field.is_visible() and field.input_value() == lab.page.url, page=lab.page,
               message="for the link field")
    top = field.bounding_box()["y"]
    lab.click(f"gl-ch{cid}-link")
    button = lab.page.locator(f".gl-ch{cid}-link button")
    wait_until(lambda: "Copied" in button.inner_text(), page=lab.page, message="for the copy to be confirmed")
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == lab.page.url
    assert field.bounding_box()["y"] == top                     # a copy shifts nothing
    wait_until(lambda: button.inner_text().strip() == "Copy link", page=lab.page, message="for the label to return")
    lab.click(f"gl-ch{cid}-embed")
    snippet = lab.page.locator(f".gl-ch{cid}-embed-text textarea")
    wait_until(lambda: snippet.is_visible() and "embed=widget" in snippet.input_value(), page=lab.page)
    text = snippet.input_value()
    assert text.startswith('<iframe src="') and 'height="900"' not in text and "&amp;" in text
    assert lab.page.evaluate("() => navigator.clipboard.readText()") == text
    lab.click(f"gl-ch{cid}-defaults")
    wait_until(lambda: lab.query() == f"?chapter={cid}" and lab.shown_values() == before, page=lab.page,
               message="for Reset to defaults")
    lab.click(f"gl-ch{cid}-share-toggle")
    wait_until(lambda: not field.is_visible(), page=lab.page, message="for Share to fold away")


def test_panel_serve_gives_each_chapters_page_its_link_preview(panel_server):
    """Under panel serve the page a link opens already names its chapter: the <title>, and the
    description and Open Graph tags a link preview reads (the chapter's line on the first screen),
    once each; a page for an unknown chapter opens the index, and says so."""
    import html as htmllib
    import urllib.request

    from gleam_lab import content

    def page(query):
        with urllib.request.urlopen(f"http://127.0.0.1:{panel_server.port}/app{query}", timeout=60) as r:
            return r.read().decode("utf-8")

    for cid, query in (("4", "?chapter=4"), ("memory", "?chapter=memory&delay=30"), ("0", ""), ("0", "?chapter=42")):
        text = page(query)
        title, description = content.title_and_description(cid)
        assert f"<title>{htmllib.escape(title)}</title>" in text, query
        assert f'<meta name="description" content="{htmllib.escape(description, quote=True)}">' in text, query
        assert text.count('property="og:title"') == 1 and text.count('name="viewport"') == 1, query
