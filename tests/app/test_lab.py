"""The lab's frame: `?embed=1` shows one chapter without the table of contents."""
import sys
import types

import pytest

from app.lab import Lab, embedded


@pytest.fixture
def no_hints(monkeypatch):
    monkeypatch.delenv("GLEAM_CHAPTER", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")


def _toc(lab):
    return next(o for o in lab._layout.objects if "gl-toc" in o.css_classes)


def test_the_table_of_contents_shows_by_default(no_hints):
    lab = Lab(chapter="4")
    assert not lab.embed and _toc(lab).visible


def test_embed_hides_the_table_of_contents(no_hints):
    lab = Lab(chapter="4", embed=True)
    assert _toc(lab).visible is False
    assert list(lab._views) == ["4"] and len(lab._main.objects) == 1


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
