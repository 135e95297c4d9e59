"""What a learner and an instructor keep, in a real browser, both modes: a figure saved as a PNG
image (app.widgets.saving: its toolbar's one button saves the figure as it is on screen under its own
name, by a click and by Enter); an embed snippet whose frame takes its content's height
(app.widgets.share)."""
import pytest
from helpers import BOOT_TIMEOUT, wait_until

from gleam_lab.app.widgets.saving import DESCRIPTION
from gleam_lab.app.widgets.share import iframe

pytestmark = pytest.mark.ui

PNG = b"\x89PNG\r\n\x1a\n"


def _saved(lab, button, action):
    with lab.page.expect_download() as info:
        action(button)
    download = info.value
    with open(download.path(), "rb") as f:
        data = f.read()
    return download.suggested_filename, data


def test_a_figure_saves_as_a_png_by_click_and_by_enter(shared_lab):
    lab = shared_lab
    lab.show("3")
    button = lab.page.locator(f".gl-ch3-bound [title='{DESCRIPTION}']")
    button.wait_for()
    name, data = _saved(lab, button, lambda b: b.click())
    assert name == "rnn-lab-ch3-bound.png"
    assert data.startswith(PNG) and len(data) > 2000              # an image, not an empty canvas
    width = int.from_bytes(data[16:20], "big")                    # IHDR: the figure's size at least
    box = lab.page.locator(".gl-ch3-bound").first.bounding_box()
    assert width >= int(box["width"]) - 2

    def enter(b):
        b.focus()
        lab.page.keyboard.press("Enter")
    name, again = _saved(lab, button, enter)
    assert name == "rnn-lab-ch3-bound.png" and again.startswith(PNG)


def test_the_embed_snippet_sizes_its_frame_to_its_content(pages, site):
    """The snippet as Share gives it, put in a course page: its frame, 300 px high at first, takes
    the height of what it shows and keeps it (no growth from its own size); a second frame on the
    page is sized on its own."""
    lab = pages.new(site)
    lab.page.set_viewport_size({"width": 900, "height": 700})
    frames = iframe(site.url("4") + "&embed=widget", "chapter 4", height=300) + \
        iframe(site.url("0") + "&embed=widget", "chapter 0", height=300)
    lab.page.set_content(f"<!doctype html><html><body style='margin:0'>{frames}<p>after</p></body></html>")

    def sizes():
        out = []
        for i in range(2):
            frame = lab.page.frame_locator("iframe").nth(i)
            inner = frame.locator("body").evaluate(
                "b => Math.ceil(Math.max(0, ...Array.from(b.children, (e) => e.getBoundingClientRect().bottom + scrollY)))")
            out.append((lab.page.locator("iframe").nth(i).evaluate("f => f.clientHeight"), inner))
        return out

    def fitted():
        try:
            s = sizes()
        except Exception:                   # (a frame not loaded yet)
            return False
        return all(inner > 350 and abs(outer - inner) <= 3 for outer, inner in s)
    for i in range(2):
        fig = lab.page.frame_locator("iframe").nth(i).locator(".gl-ch4-lines, .gl-ch0-state").first
        wait_until(lambda: fig.count() and fig.is_visible(), timeout=BOOT_TIMEOUT, page=lab.page,
                   message=f"for embed {i} to be live")
    wait_until(fitted, timeout=30, page=lab.page, message="for each frame to take its content's height")

    def settled():        # a late layout of the content may still move it once; a frame that grows
        before = sizes()  # from its own size never settles
        lab.page.wait_for_timeout(1500)
        return sizes() == before and before
    first = wait_until(settled, timeout=30, page=lab.page, message="for the frames' heights to settle")
    lab.page.wait_for_timeout(1500)
    assert sizes() == first, "a frame's height kept changing"
    assert first[0][0] != first[1][0]            # each frame sized on its own


def test_the_index_offers_where_the_learner_stopped_and_forgets_it_on_request(pages, site):
    """A learner moves chapter 3's slider and the self-test's first answer, then comes back to the
    site's address (a new load): the index offers both places, most recent first; following one
    opens it in place as it was left; Forget my progress empties it, and the page stores nothing
    more (a reload would offer nothing)."""
    lab = pages.new(site)                       # (a fresh context: nothing stored)
    lab.open("3")
    lab.slider_keys("gl-ch3-rho", "ArrowRight")
    wait_until(lambda: "&rho=" in lab.query(), page=lab.page, message="for the slider in the address")
    left = lab.query()
    lab.page.wait_for_timeout(1300)             # (the page saves its address once a second)
    lab.show("9")                               # (in place)
    lab.fill("gl-ch9-z-1", "0.25")
    wait_until(lambda: "z1=0.25" in lab.query(), page=lab.page, message="for the answer in the address")
    lab.page.wait_for_timeout(1300)             # (the page saves its address once a second)
    lab.open("0")
    box = lab.page.locator(".gl-resume")
    links = lab.page.locator(".gl-resume a")
    wait_until(lambda: box.is_visible() and links.count() == 2, page=lab.page, message="for the places offered")
    assert [links.nth(i).inner_text() for i in range(2)] == ["Chapter 9 — Cheat sheet and self-test",
                                                             "Chapter 3 — Vanishing and exploding gradients"]
    lab.page.evaluate("() => { window.__glSamePage = true; }")
    links.nth(1).click()
    wait_until(lambda: lab.shows_chapter("3") and lab.query() == left, page=lab.page,
               message="for chapter 3 as it was left")
    assert lab.page.evaluate("() => window.__glSamePage === true"), "the link reloaded the page"
    lab.open("0")
    wait_until(lambda: box.is_visible(), page=lab.page, message="for the places offered again")
    lab.click("gl-resume-forget")
    wait_until(lambda: not box.is_visible(), page=lab.page, message="for the box to go")
    # what a reload would read: nothing, and still nothing after the page's next save (a second)
    lab.page.wait_for_timeout(1500)
    assert not box.is_visible() and lab.page.evaluate("() => localStorage.getItem('rnn-lab-progress')") is None
