"""Every chapter loads in both modes (served and static): prose shown, math typeset (by MathJax
under panel serve, by KaTeX when the static site is built),
nothing fetched from anywhere but 127.0.0.1, no console error; a deep link opens its chapter;
and moving between chapters inside one page swaps the content without starting Python again."""
import re

import pytest

from gleam_lab import content
from helpers import BOOT_TIMEOUT, CHAPTER_IDS, wait_until

pytestmark = pytest.mark.ui

MATH = re.compile(r"\$\$|\\\(")


def has_math(chapter_id):
    return bool(MATH.search(content.render(chapter_id)))


def test_chapter_list_matches_content():
    assert tuple(content.chapter_ids()) == CHAPTER_IDS
    assert any(has_math(c) for c in CHAPTER_IDS), "no chapter has $$ math to check rendering on"


@pytest.mark.parametrize("chapter", ("7", "memory"))
def test_a_deep_link_opens_its_chapter(shared_lab, chapter):
    """A full load of the chapter's URL (the static site boots Python again) lands on it."""
    lab = shared_lab
    lab.open(chapter)
    assert lab.chapter_in_url() == chapter and lab.shows_chapter(chapter)


@pytest.mark.parametrize("chapter", CHAPTER_IDS)
def test_chapter_loads(shared_lab, chapter):
    lab = shared_lab
    lab.show(chapter)
    prose = lab.page.locator(".gl-prose").first
    assert prose.is_visible()
    wait_until(lambda: len(lab.prose_text().strip()) > 200, page=lab.page,
               message=f"for chapter {chapter}'s prose")
    text = lab.prose_text()
    assert "{{" not in text and "{%" not in text, f"chapter {chapter}: an unfilled placeholder"
    assert lab.page.locator(".gl-nav").count() == len(CHAPTER_IDS)
    if has_math(chapter):
        # BokehJS's MathJax typesets $$...$$ into <mjx-container> (SVG) inside the pane; the
        # static site's prose comes typeset by KaTeX, with no MathJax on the page at all
        wait_until(lambda: lab.math_count() > 0, timeout=30, page=lab.page,
                   message=f"for typeset math in chapter {chapter}")
        if lab.mode == "static":
            assert lab.page.locator(".gl-prose mjx-container").count() == 0
            assert lab.page.evaluate("() => window.MathJax === undefined")
        wait_until(lambda: "$$" not in lab.prose_text() and "\\(" not in lab.prose_text(),
                   timeout=30, page=lab.page, message=f"for raw TeX to disappear in chapter {chapter}")


NAV_ROUTE = ("1", "4", "7", "memory", "extrapolation", "0", "9")


def test_navigation_stays_in_one_page(pages, site):
    lab = pages.new(site)
    lab.open("0")
    page = lab.page
    page.evaluate("() => { window.__gl_same_page = true; }")
    previous = lab.prose_text()
    for chapter in NAV_ROUTE:
        lab.click(f"gl-nav-{chapter}")
        wait_until(lambda: lab.chapter_in_url() == chapter and lab.shows_chapter(chapter), page=page,
                   message=f"for chapter {chapter} in the URL and on screen")
        wait_until(lambda: lab.prose_text() != previous and len(lab.prose_text()) > 200, page=page,
                   message=f"for the prose of chapter {chapter}")
        previous = lab.prose_text()
        assert page.locator(".gl-prose").count() >= 1
    # the same document all along: no reload
    assert page.evaluate("() => window.__gl_same_page === true")
    if site.mode == "static":
        assert lab.guard.count(r"pyodide\.asm\.wasm(\?|$)") == 1, \
            [u for u in lab.guard.requests if "pyodide" in u]
        assert len(lab.guard.workers) == 1, lab.guard.workers
    else:
        assert lab.guard.count(r"/app(\?|$)") == 1
        assert lab.guard.count(r"^ws://") == 1


def test_guard_sees_offsite_requests_and_errors(pages, serve_site):
    """The guard every test relies on: an off-site fetch is blocked and recorded, a console
    error in the page or in a worker is recorded."""
    lab = pages.new(serve_site)
    lab.open("0")
    outcome = lab.page.evaluate("""async () => {
        const w = new Worker(URL.createObjectURL(new Blob(["console.error('gl-worker-error')"])));
        console.error('gl-page-error');
        try { await fetch('http://example.com/gl-probe'); return 'fetched'; }
        catch (e) { return 'blocked'; }
    }""")
    assert outcome == "blocked"
    wait_until(lambda: any("gl-worker-error" in e for e in lab.guard.errors), page=lab.page)
    assert any("gl-page-error" in e for e in lab.guard.errors)
    assert "http://example.com/gl-probe" in lab.guard.offsite
    lab.page.wait_for_timeout(300)      # the blocked load's own console message, if any
    lab.guard.forget_errors()


# Three embeds on one course page, as an instructor puts them: two `embed=widget` frames of
# 700 x 600 at the top, and an `embed=1` frame far below the fold.
EMBEDS = (("widget4", "4", "widget", ".gl-ch4-lines"), ("widget7", "7", "widget", ".gl-ch7-loss"),
          ("page4", "4", "1", ".gl-ch4-lines"))
INSTRUCTOR_TOOLS = ("share-toggle", "share-tools", "link", "embed", "embed-hide")
THEMED = {"page4": "&theme=dark"}       # the course page is dark: that embed follows it, not the visitor


def test_embeds_show_the_lesson_in_a_course_page(pages, site):
    """In a 700 x 600 iframe, `embed=widget` shows the figure that answers the controls within
    the frame's first 600 px (chapters 4 and 7), with no sideways scroll; no embed shows the
    instructor's tools or the contents; a frame below the fold builds without being scrolled to
    (a browser gives a frame off screen no animation frames). `theme=dark` darkens its frame alone
    (test_theme: it is not remembered as the visitor's choice); each frame links to the full lab,
    in a new tab, at the chapter it shows."""
    lab = pages.new(site)
    frames = "".join(
        f'<iframe id="{name}" title="{name}" src="{site.url(cid)}&embed={mode}{THEMED.get(name, "")}" '
        f'width="700" height="600" '
        f'style="border:0;display:block"></iframe>' + ('<div style="height:2400px"></div>' if name == "widget7" else "")
        for name, cid, mode, _ in EMBEDS)
    lab.page.set_viewport_size({"width": 1000, "height": 1300})
    lab.page.set_content(f"<!doctype html><html><body style='margin:0'>{frames}</body></html>")
    for name, cid, mode, figure in EMBEDS:
        frame = lab.page.frame_locator(f"#{name}")
        fig = frame.locator(figure).first
        wait_until(lambda: fig.count() and fig.is_visible() and frame.locator(".pn-loading").count() == 0
                   and frame.locator("#gl-boot:visible").count() == 0,
                   timeout=BOOT_TIMEOUT, page=lab.page, message=f"for the {name} embed to be live")
        top = fig.bounding_box()["y"] - lab.page.locator(f"#{name}").bounding_box()["y"]
        if mode == "widget":
            assert 0 <= top < 600, f"{name}: the answering figure starts {top:.0f} px down the frame"
        else:
            assert frame.locator(".gl-prose").first.is_visible()
        widths = frame.locator("html").evaluate("e => [e.scrollWidth, e.clientWidth]")
        assert widths[0] <= widths[1], f"{name}: the frame scrolls sideways ({widths})"
        shown = [tool for tool in INSTRUCTOR_TOOLS
                 if any(t.is_visible() for t in frame.locator(f".gl-ch{cid}-{tool}").all())]
        assert shown == [], f"{name} shows the instructor's tools {shown}"
        assert not any(n.is_visible() for n in frame.locator(".gl-nav").all()), f"{name} shows the contents"
        theme = frame.locator("html").evaluate("e => e.getAttribute('data-gl-theme')")
        assert theme == ("dark" if name in THEMED else None), f"{name}: data-gl-theme {theme!r}"
        if name != "page4":         # (below the fold: drawn once scrolled to, at the end)
            full_lab_link(lab, frame, name)
        assert not frame.locator(".gl-pager").is_visible()
    link = lab.page.frame_locator("#widget4").locator(".gl-full-lab-link")
    with lab.page.context.expect_page() as opened:
        link.click()
    full = opened.value
    full.wait_for_url(re.compile(r"[?&]chapter=4"), wait_until="commit")
    query = full.url.split("?", 1)[1]
    full.close()
    assert "embed" not in query and query.startswith("chapter=4"), full.url
    below = lab.page.locator("#page4").bounding_box()["y"]
    assert below > 1300 and lab.page.evaluate("() => window.scrollY") == 0     # never scrolled to
    lab.page.locator("#page4").scroll_into_view_if_needed()
    full_lab_link(lab, lab.page.frame_locator("#page4"), "page4")


def full_lab_link(lab, frame, name):
    link = frame.locator(".gl-full-lab-link")
    wait_until(lambda: link.count() == 1 and link.is_visible(), page=lab.page, timeout=20,
               message=f"for {name}'s link to the full lab")


def test_the_index_says_what_the_lab_is_and_where_to_start(shared_lab):
    """The site's address (chapter 0) opens with the lab's first screen above chapter 0's widget:
    what it is, for whom, and a link per chapter that opens it."""
    lab = shared_lab
    lab.show("0")
    start = lab.page.locator(".gl-start").first
    wait_until(lambda: start.is_visible() and "Start here" in lab.pane_text("gl-start"), page=lab.page,
               message="for the first screen")
    widget = lab.page.locator(".gl-widget").first
    assert start.bounding_box()["y"] < widget.bounding_box()["y"]
    links = lab.page.locator(".gl-start a")
    assert links.count() == len(CHAPTER_IDS)
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == \
        [f"?chapter={cid}" for cid in CHAPTER_IDS]
    lab.page.evaluate("() => { window.__glSamePage = true; }")
    links.nth(4).click()                                    # in place, as the contents move
    wait_until(lambda: lab.chapter_in_url() == "4" and lab.shows_chapter("4"), page=lab.page,
               message="for the link to open chapter 4")
    assert lab.page.evaluate("() => window.__glSamePage === true"), "the link reloaded the page"
    if lab.mode == "static":
        assert "/chapter-4.html" in lab.page.url
    assert lab.page.locator(".gl-start").count() == 0 or not lab.page.locator(".gl-start").first.is_visible()
    lab.page.go_back()                                      # and Back returns to the index
    wait_until(lambda: lab.shows_chapter("0") and start.is_visible(), page=lab.page,
               message="for Back to show the index's first screen")
    lab.page.go_forward()                                   # (no entry left ahead for the next test)
    wait_until(lambda: lab.shows_chapter("4"), page=lab.page, message="for Forward to show chapter 4")
    assert lab.page.evaluate("() => window.__glSamePage === true")


def test_previous_and_next_move_in_place(shared_lab):
    """Below a chapter, links to the one before and after it, by heading; each moves in place (one
    history entry, no reload, as the contents do)."""
    lab = shared_lab
    lab.show("3")
    nxt, prev = lab.page.locator(".gl-pager a.gl-next"), lab.page.locator(".gl-pager a.gl-prev")
    wait_until(lambda: nxt.count() == 1 and prev.count() == 1, page=lab.page, message="for chapter 3's pager")
    assert nxt.text_content().strip() == f"{content.heading('4')} →"
    assert prev.text_content().strip() == f"← {content.heading('2')}"
    lab.page.evaluate("() => { window.__glSamePage = true; }")
    start = lab.pushes()
    nxt.click()
    wait_until(lambda: lab.chapter_in_url() == "4" and lab.shows_chapter("4"), page=lab.page,
               message="for Next to show chapter 4")
    wait_until(lambda: prev.count() == 1 and prev.text_content().strip() == f"← {content.heading('3')}",
               page=lab.page, message="for chapter 4's pager")
    assert lab.page.title() == content.page_title("4")          # the tab names the chapter shown
    prev.click()
    wait_until(lambda: lab.chapter_in_url() == "3" and lab.shows_chapter("3"), page=lab.page,
               message="for Previous to show chapter 3")
    assert lab.pushes() == start + 2 and lab.page.title() == content.page_title("3")
    assert lab.page.evaluate("() => window.__glSamePage === true"), "a link reloaded the page"
