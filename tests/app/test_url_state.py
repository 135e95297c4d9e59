"""Shareable state without a browser, for every chapter of the registry that has controls: a
changed control goes into the URL and comes back exactly on a fresh viewer, defaults stay out,
a malformed value is refused and changes nothing, Reset to defaults restores every default;
and the Lab's side: the query it writes, Back/Forward, embeds, hidden controls, the links.

Values come from each control's declaration (tests/url_examples.py), never from a chapter's name.
"""
import html
import re
from pathlib import Path

from gleam_lab import content
import param
import pytest
from panel.io.location import Location

from gleam_lab.app import chapters
from gleam_lab.app.lab import Lab
from gleam_lab.app.widgets import url_state
from surface import click, find, shown
from tests.url_examples import changed_value, changed_viewer, chapters_with_controls, malformed_texts, move, widget_of

WITH_CONTROLS = chapters_with_controls()
CONTROLS = [(cid, name) for cid, names in WITH_CONTROLS.items() for name in names]


def state(viewer):
    return {name: getattr(viewer, name) for name in viewer.url_controls()}


def fresh(cid):
    viewer = chapters.make_viewer(cid)
    viewer.__panel__()
    return viewer


def test_some_chapters_have_controls_and_their_names_are_usable():
    assert len(WITH_CONTROLS) >= 5
    for cid, names in WITH_CONTROLS.items():
        assert not set(names.values()) & set(url_state.RESERVED), cid
        assert all(key.replace("_", "").isalnum() for key in names.values()), names


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_defaults_put_nothing_in_the_url(cid):
    viewer = fresh(cid)
    assert viewer.url_query() == []
    assert Lab(chapter=cid, location=Location()).url_pairs() == [("chapter", cid)]


@pytest.mark.parametrize("cid, name", CONTROLS, ids=[f"{c}-{n}" for c, n in CONTROLS])
def test_a_changed_control_comes_back_exactly(cid, name):
    viewer = fresh(cid)
    value = changed_value(viewer.param[name], viewer.defaults()[name])
    move(viewer, name, value)
    assert getattr(viewer, name) == value
    pairs = viewer.url_query()
    key = viewer.url_controls()[name]
    assert (key, url_state.format_value(viewer.param[name], value)) in pairs
    other = fresh(cid)
    assert other.apply_url(pairs) == []
    assert state(other) == state(viewer)
    assert other.values() == viewer.values()          # and the page shows the same
    assert other.url_query() == pairs


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_every_control_changed_comes_back(cid):
    viewer = changed_viewer(cid)
    pairs = viewer.url_query()
    other = fresh(cid)
    assert other.apply_url(pairs) == []
    assert state(other) == state(viewer) and other.values() == viewer.values()


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_a_malformed_value_is_refused_and_changes_nothing(cid):
    viewer = fresh(cid)
    before, shown_before = state(viewer), viewer.values()
    for name, key in viewer.url_controls().items():
        for text, why in malformed_texts(viewer.param[name]):
            refused = viewer.apply_url([(key, text)])
            assert len(refused) == 1 and refused[0].startswith(f"{key}=") and why in refused[0], (text, refused)
            assert state(viewer) == before and viewer.values() == shown_before, (name, text)


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_an_unknown_name_is_refused_the_others_apply(cid):
    viewer = fresh(cid)
    name, key = next(iter(viewer.url_controls().items()))
    value = changed_value(viewer.param[name], viewer.defaults()[name])
    refused = viewer.apply_url([("no_such", "1"), (key, url_state.format_value(viewer.param[name], value))])
    assert refused == ["no_such=1 (no such control in this chapter)"]
    assert getattr(viewer, name) == value


@pytest.mark.parametrize("cid", list(WITH_CONTROLS))
def test_reset_to_defaults_restores_every_default(cid):
    viewer, untouched = changed_viewer(cid), fresh(cid)
    assert viewer.url_query()
    click(viewer, f"gl-ch{cid}-defaults")
    assert state(viewer) == state(untouched) == viewer.defaults()
    assert viewer.url_query() == []


# ---------------------------------------------------------------- the Lab and its URL

CID = next(iter(WITH_CONTROLS))             # a chapter with controls, and another one
OTHER = list(WITH_CONTROLS)[1]


def first_control(cid):
    viewer = fresh(cid)
    name, key = next(iter(viewer.url_controls().items()))
    value = changed_value(viewer.param[name], viewer.defaults()[name])
    return name, key, value, url_state.format_value(viewer.param[name], value)


def test_the_lab_mirrors_controls_and_follows_back_and_forward():
    name, key, value, text = first_control(CID)
    loc = Location()
    lab = Lab(chapter=CID, location=loc)
    assert loc.search == f"?chapter={CID}"
    move(lab.view(CID), name, value)
    assert loc.search == f"?chapter={CID}&{key}={text}"
    click(lab, f"gl-nav-{OTHER}")
    assert loc.search == f"?chapter={OTHER}"
    loc.search = f"?chapter={CID}"                    # Back to an entry without the change
    assert lab.chapter == CID and getattr(lab.view(CID), name) == lab.view(CID).defaults()[name]
    loc.search = f"?chapter={CID}&{key}={text}"       # Forward again
    assert lab.chapter == CID and getattr(lab.view(CID), name) == value
    assert lab.built_chapters() == [CID, OTHER]


def test_a_link_opens_with_its_values_and_refuses_the_rest():
    name, key, value, text = first_control(CID)
    evil = "<script>alert(1)</script>"
    loc = Location(search=f"?chapter={CID}&{key}={text}&zz={evil}&hide=nope")
    lab = Lab(location=loc)
    assert lab.chapter == CID and getattr(lab.view(CID), name) == value
    message = shown(lab)["lab.message"]
    assert "zz=" in message and evil in message and "hide=nope" in message
    assert evil not in find(lab, "gl-lab-message").object        # shown escaped
    assert html.escape(evil) in find(lab, "gl-lab-message").object
    assert loc.search == f"?chapter={CID}&{key}={text}"           # rewritten without them


def test_a_query_beyond_the_cap_applies_no_control():
    name, key, value, text = first_control(CID)
    loc = Location(search=f"?chapter={CID}&{key}={text}&pad={'x' * url_state.MAX_QUERY}")
    lab = Lab(location=loc)
    assert lab.chapter == CID and getattr(lab.view(CID), name) == lab.view(CID).defaults()[name]
    assert "characters long" in lab.message and loc.search == f"?chapter={CID}"


def test_embed_widget_shows_only_the_widget_with_hidden_controls_fixed():
    name, key, value, text = first_control(CID)
    loc = Location(search=f"?chapter={CID}&embed=widget&hide={key}&{key}={text}")
    lab = Lab(location=loc)
    viewer = lab.view(CID)
    assert lab.embed and lab.widget_only and not find(lab, "gl-toc").visible
    assert not find(viewer, "gl-title").visible and not find(viewer, "gl-prose").visible
    assert widget_of(viewer, name).visible is False and getattr(viewer, name) == value
    assert not find(viewer, f"gl-ch{CID}-share-toggle").visible and not find(viewer, f"gl-ch{CID}-share-tools").visible
    assert find(viewer, f"gl-ch{CID}-defaults").visible
    others = [n for n in viewer.url_controls() if n != name]
    for other in others:
        move(viewer, other, changed_value(viewer.param[other], viewer.defaults()[other]))
    click(viewer, f"gl-ch{CID}-defaults")                 # Reset keeps what the embed holds fixed
    assert getattr(viewer, name) == value
    assert all(getattr(viewer, o) == viewer.defaults()[o] for o in others)
    assert loc.search == f"?chapter={CID}&embed=widget&hide={key}&{key}={text}"


def test_copy_link_and_embed_snippet_describe_the_state_now():
    name, key, value, text = first_control(CID)
    loc = Location(search=f"?chapter={CID}")
    lab = Lab(location=loc)
    viewer = lab.view(CID)
    move(viewer, name, value)
    link, snippet = find(viewer, f"gl-ch{CID}-link-text"), find(viewer, f"gl-ch{CID}-embed-text")
    tools, toggle = find(viewer, f"gl-ch{CID}-share-tools"), find(viewer, f"gl-ch{CID}-share-toggle")
    assert not tools.visible and toggle.visible            # the first screen is the lesson
    click(viewer, f"gl-ch{CID}-share-toggle")
    assert tools.visible and link.value == f"?chapter={CID}&{key}={text}"
    find(viewer, f"gl-ch{CID}-embed-hide").value = [key]
    src = html.escape(f"?chapter={CID}&embed=widget&hide={key}&{key}={text}", quote=True)
    assert snippet.value.startswith(f'<iframe src="{src}" title="') and 'loading="lazy"' in snippet.value
    assert 'allow="clipboard-write"' in snippet.value
    # the script that sizes the frame ends it, as the README gives it for a course page
    from gleam_lab.app.widgets.share import SNIPPET_SCRIPT
    assert snippet.value.endswith("</iframe>" + SNIPPET_SCRIPT) and snippet.value.count("<script>") == 1
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert SNIPPET_SCRIPT in readme.replace("\n", "")


def test_an_unknown_chapter_opens_the_first_and_says_so():
    name, key, value, text = first_control(CID)
    loc = Location(search=f"?chapter=no-such&{key}={text}")
    lab = Lab(location=loc)
    assert lab.chapter == chapters.chapter_ids()[0] and loc.search == f"?chapter={lab.chapter}"
    assert "chapter=no-such (no such chapter: pick one in the contents)" in lab.message


def test_an_unknown_chapter_in_an_embed_offers_the_contents():
    """An embed has no contents to pick another chapter from; with a chapter that does not exist
    it shows them (and says so) rather than leave the reader on chapter 0 with no way on."""
    toc = lambda lab: lab.__panel__().select(lambda o: "gl-toc" in (getattr(o, "css_classes", None) or []))[0]
    lab = Lab(location=Location(search="?chapter=no-such&embed=1"))
    assert lab.embed and toc(lab).visible and "pick one in the contents" in lab.message
    assert not toc(Lab(location=Location(search=f"?chapter={CID}&embed=1"))).visible


def test_an_embedded_page_offers_no_share_tools_and_share_folds_away():
    """`embed=1` is a chapter for students: Reset, no Share; in the lab Share opens and closes."""
    lab = Lab(location=Location(search=f"?chapter={CID}&embed=1"))
    viewer = lab.view(CID)
    assert lab.embed and not lab.widget_only
    assert find(viewer, "gl-title").visible and find(viewer, "gl-prose").visible
    assert not find(viewer, f"gl-ch{CID}-share-toggle").visible and not find(viewer, f"gl-ch{CID}-share-tools").visible
    assert find(viewer, f"gl-ch{CID}-defaults").visible
    viewer = Lab(location=Location(search=f"?chapter={CID}")).view(CID)
    toggle, tools = find(viewer, f"gl-ch{CID}-share-toggle"), find(viewer, f"gl-ch{CID}-share-tools")
    click(viewer, f"gl-ch{CID}-share-toggle")
    assert tools.visible and toggle.label == "Share ▾"
    click(viewer, f"gl-ch{CID}-share-toggle")
    assert not tools.visible and toggle.label == "Share ▸"
    assert "`" not in find(viewer, f"gl-ch{CID}-embed").description     # a tooltip shows no raw Markdown


def test_a_value_reached_by_steps_is_written_as_its_grid_point():
    """1.0 + 5 × 0.05 is 1.2500000000000002 in floating point: the link says rho=1.25. A value off
    the grid on purpose, or off it by more than a float sum's error, is written exactly."""
    rho = param.Number(default=0.9, bounds=(0.0, 3.0), step=0.05)
    h0 = param.Number(default=0.5, bounds=(-3.0, 3.0), step=0.01)
    stepped = 1.0
    for _ in range(5):
        stepped += 0.05
    assert stepped != 1.25
    assert url_state.format_value(rho, stepped) == "1.25"
    assert url_state.format_value(h0, -0.07000000000000001) == "-0.07"
    assert url_state.format_value(rho, 3 * 0.05) == "0.15"
    for exact in (0.6748, 1.2500001, 0.9000000001, 1.25):
        assert float(url_state.format_value(rho, exact)) == exact
    assert url_state.format_value(param.Number(default=1.0), 0.1 + 0.2) == repr(0.1 + 0.2)  # no step


def test_a_link_names_the_page_of_its_chapter():
    """The static site has a page per chapter: a link to chapter 4 made on chapter 3's page (after
    moving by the contents) names chapter-4.html; under panel serve the address is the app's."""
    assert url_state.page_address("http://127.0.0.1:8000/lab/chapter-3.html", "4") == \
        "http://127.0.0.1:8000/lab/chapter-4.html"
    assert url_state.page_address("http://h/index.html", "memory") == "http://h/chapter-memory.html"
    assert url_state.page_address("http://h/app", "4") == "http://h/app"
    assert url_state.page_address("http://h/notes.html", "4") == "http://h/notes.html"



@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_links_theme_stays_in_the_url_and_another_value_is_refused_by_name(theme):
    """`theme=light|dark` (an embed matching its course page) is the Lab's: kept in the URL it
    writes, beside the controls; anything else is named in the message and dropped."""
    name, key, value, text = first_control(CID)
    loc = Location(search=f"?chapter={CID}&embed=1&theme={theme}&{key}={text}")
    lab = Lab(location=loc)
    assert lab.message == "" and getattr(lab.view(CID), name) == value
    assert loc.search == f"?chapter={CID}&embed=1&theme={theme}&{key}={text}"
    loc = Location(search=f"?chapter={CID}&theme=blue")
    lab = Lab(location=loc)
    assert "theme=blue (light or dark)" in lab.message and loc.search == f"?chapter={CID}"


def test_every_chapter_links_to_the_one_before_and_after_and_an_embed_to_the_full_lab():
    """Below each chapter: links to the previous and next chapter in reading order, by heading
    (none before the first, none after the last), hidden in any embed; an embed instead shows a
    link to the full lab, opening in a new tab."""
    ids, lab = chapters.chapter_ids(), Lab(location=Location())
    for i, cid in enumerate(ids):
        pager = find(lab.view(cid), "gl-pager")
        got = re.findall(r'class="gl-(prev|next)" rel="\1" href="\?chapter=([\w-]+)">([^<]+)</a>', pager.object)
        want = ([("prev", ids[i - 1], f"← {html.escape(content.heading(ids[i - 1]))}")] if i else []) + \
            ([("next", ids[i + 1], f"{html.escape(content.heading(ids[i + 1]))} →")] if i + 1 < len(ids) else [])
        assert got == want and pager.visible
        assert not find(lab.view(cid), "gl-full-lab").visible
    lab = Lab(location=Location(search=f"?chapter={CID}&embed=widget"))
    assert not find(lab.view(CID), "gl-pager").visible
    full = find(lab.view(CID), "gl-full-lab")
    assert full.visible and 'target="_blank"' in full.object and 'class="gl-full-lab-link"' in full.object
