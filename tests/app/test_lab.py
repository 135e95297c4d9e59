"""The lab's frame: the registry of chapters, the table of contents, navigation that keeps each
chapter's state, sessions that share nothing, and `?embed=1`."""
import asyncio
import runpy
import sys
import types
from pathlib import Path

import panel as pn
import pytest

from gleam_lab import app
from gleam_lab import content
from gleam_lab.app import chapters
from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.prose import ProseChapter
from gleam_lab.app.lab import Lab, embedded
from surface import click, find


@pytest.fixture
def no_hints(monkeypatch):
    monkeypatch.delenv("GLEAM_CHAPTER", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def shown_chapter(lab):
    return find(lab, "gl-main").objects[0]


# ---------------------------------------------------------------- the registry

def test_the_registry_lists_every_chapter_in_reading_order():
    assert chapters.chapter_ids() == content.chapter_ids()


@pytest.mark.parametrize("cid", content.chapter_ids())
def test_every_registry_entry_makes_its_chapter(cid):
    cls = chapters.viewer_class(cid)
    assert issubclass(cls, ChapterViewer) and cls.chapter_id in ("", cid)
    viewer = chapters.make_viewer(cid)
    assert viewer.chapter_id == cid
    assert content.title(cid) in find(viewer, "gl-title").object
    prose = find(viewer, "gl-prose")
    assert len(prose.object) > 500


def test_a_chapter_knows_its_own_id():
    with pytest.raises(ValueError, match="is chapter '4', not '7'"):
        chapters.make_viewer("4").__class__(chapter_id="7")
    with pytest.raises(ValueError, match="say which"):
        ProseChapter()                       # it serves several chapters
    with pytest.raises(ValueError, match="unknown chapter"):
        chapters.viewer_class("42")


# ---------------------------------------------------------------- navigation

def test_navigation_caches_viewers():
    lab = Lab()
    assert lab.chapter == "0"
    assert all("gl-nav" in find(lab, f"gl-nav-{cid}").css_classes for cid in content.chapter_ids())
    click(lab, "gl-nav-7")                        # a click on the TOC
    assert lab.chapter == "7"
    ch7 = lab.view("7")
    assert shown_chapter(lab) is ch7.__panel__()
    click(ch7, "gl-ch7-step")
    lab.chapter = "4"
    assert shown_chapter(lab) is lab.view("4").__panel__()
    lab.chapter = "7"
    assert lab.view("7") is ch7 and ch7.values()["ch7.steps"] == "1"
    assert lab.built_chapters() == ["0", "7", "4"]


def test_leaving_a_chapter_stops_its_training():
    lab = Lab(chapter="7")
    ch7 = lab.view("7")

    async def run():
        click(ch7, "gl-ch7-train")
        await asyncio.sleep(0.3)
        assert ch7.values()["ch7.status"] == "training"
        lab.chapter = "1"
        await asyncio.sleep(0.1)

    asyncio.run(run())
    assert not find(ch7, "gl-ch7-train").value and ch7.values()["ch7.status"] == "paused"
    steps = ch7.values()["ch7.steps"]
    assert int(steps) > 0 and not ch7.loop.running


def test_two_labs_do_not_share_a_model():
    a, b = Lab(chapter="7"), Lab(chapter="7")
    assert a.view("7").model is not b.view("7").model
    click(a.view("7"), "gl-ch7-step")
    assert a.view("7").values()["ch7.steps"] == "1" and b.view("7").values()["ch7.steps"] == "0"


@pytest.mark.parametrize("cid", content.chapter_ids())
def test_every_chapter_builds_with_prose(cid):
    lab = Lab(chapter=cid)
    assert shown_chapter(lab) is lab.view(cid).__panel__()
    assert len(find(lab.view(cid), "gl-prose").object) > 500


def test_main_builds_a_lab():
    namespace = runpy.run_path(str(Path(app.__file__).parent / "main.py"))
    assert namespace["Lab"] is Lab
    assert "mathjax" in pn.extension._loaded_extensions


# ---------------------------------------------------------------- ?embed=1

def test_the_table_of_contents_shows_by_default(no_hints):
    lab = Lab(chapter="4")
    assert not lab.embed and find(lab, "gl-toc").visible


def test_embed_hides_the_table_of_contents(no_hints):
    lab = Lab(chapter="4", embed=True)
    assert find(lab, "gl-toc").visible is False
    assert lab.built_chapters() == ["4"] and len(find(lab, "gl-main").objects) == 1


@pytest.mark.parametrize("search, expected", [
    ("?chapter=4&embed=1", True), ("?embed=true", True), ("?chapter=4", False),
    ("", False), ("?embed=0", False)])
def test_embed_is_read_from_the_page_query(no_hints, search, expected):
    assert embedded(types.SimpleNamespace(search=search)) is expected


def test_in_pyodide_embed_comes_from_the_workers_url(monkeypatch):
    monkeypatch.setattr(sys, "platform", "emscripten")
    monkeypatch.setitem(sys.modules, "js", types.SimpleNamespace(
        location=types.SimpleNamespace(search="?chapter=7&embed=1")))
    assert embedded(types.SimpleNamespace(search="")) is True
    assert embedded(None) is True


@pytest.mark.parametrize("cid", content.chapter_ids())
def test_no_two_controls_of_a_chapter_share_a_name(cid):
    """A learner (or a screen reader) told "Recurrent weight u" twice cannot tell the two apart:
    chapter 2 had two such sliders, one per example, not linked."""
    viewer = chapters.make_viewer(cid)
    viewer.__panel__()
    names = [getattr(w, "label", None) or w.name for w in viewer._widgets.values()]
    names = [n for n in names if n]
    assert len(names) == len(set(names)), f"chapter {cid}: {sorted(n for n in names if names.count(n) > 1)}"


@pytest.mark.parametrize("cid", ["memory", "extrapolation"])
def test_a_research_lab_without_its_results_file_is_a_sentence_not_a_blank_page(cid, tmp_path, monkeypatch):
    """Under panel serve a results file may be missing or unreadable (an installation without
    gleam/data, another process replacing it): the chapter says so; the lab and its other chapters
    go on."""
    from gleam import pretrained
    from gleam.examples import extrapolation_lab, memory_lab

    def clear():
        for f in (pretrained._document, memory_lab._trained, extrapolation_lab._trained):
            f.cache_clear()
    (tmp_path / f"{cid}.json").write_text("{ not json", encoding="utf-8")        # unreadable
    monkeypatch.setenv("GLEAM_PRETRAINED", str(tmp_path))
    clear()
    try:
        lab = Lab()
        viewer = lab.view(cid)
        shown = find(viewer, "gl-unavailable").object
        assert "cannot be shown here" in shown and "{ not json" not in shown
        assert content.title(cid) in find(viewer, "gl-title").object
        other = lab.view("3")                                  # the rest of the lab is whole
        assert len(find(other, "gl-prose").object) > 500
        (tmp_path / f"{cid}.json").unlink()                    # missing
        clear()
        assert "cannot be shown here" in find(Lab().view(cid), "gl-unavailable").object
    finally:
        monkeypatch.delenv("GLEAM_PRETRAINED")
        clear()


def test_the_index_opens_with_the_first_screen_and_no_embed_shows_it(no_hints):
    """Chapter 0 (the site's index) opens with what the lab is and where to start, above its
    widget; no other chapter has it, and an embed of chapter 0 leaves it out."""
    viewer = Lab(chapter="0").view("0")
    classes = [(part.css_classes or [""])[0] for part in viewer.__panel__().objects]
    assert classes.index("gl-start") < classes.index("gl-widget")
    assert "Start here" in find(viewer, "gl-start").object and find(viewer, "gl-start").visible
    assert "gl-start" not in [(p.css_classes or [""])[0] for p in Lab(chapter="4").view("4").__panel__().objects]
    for widget_only in (False, True):
        embedded = Lab(chapter="0", embed=True, widget_only=widget_only).view("0")
        assert find(embedded, "gl-start").visible is False
