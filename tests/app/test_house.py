"""The shape of the house (STYLE.md): small chapter modules on one pattern, colours only in the
theme, the page layout done once, and a core that never imports the UI."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
CHAPTERS = sorted((APP / "chapters").glob("*.py"))
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|(?<![-\w])(?:white|black)(?![-\w])|\b(?:rgba?|hsla?)\(", re.I)


def lines(path):
    return len(path.read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_a_chapter_is_a_page_or_two(path):
    assert lines(path) <= 250


@pytest.mark.parametrize("path", sorted(APP.rglob("*.py")), ids=lambda p: str(p.relative_to(APP)))
def test_no_app_file_is_long(path):
    assert lines(path) <= 300


@pytest.mark.parametrize("path", sorted(APP.rglob("*.py")), ids=lambda p: str(p.relative_to(APP)))
def test_colours_are_named_only_in_the_theme(path):
    if path.name == "theme.py":
        return
    found = [(n + 1, m.group(0)) for n, line in enumerate(path.read_text(encoding="utf-8").splitlines())
             for m in COLOUR.finditer(line)]
    assert not found, f"colour literals in {path.relative_to(ROOT)}: {found}"


def test_the_page_layout_is_done_once():
    users = [p.relative_to(APP).as_posix() for p in APP.rglob("*.py")
             if "chapter_page(" in p.read_text(encoding="utf-8")]
    assert sorted(users) == ["chapters/base.py", "widgets/page.py"]
    for path in CHAPTERS:
        if path.name == "base.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(title_pane|prose_pane|chapter_page)\(", text), path.name


def test_only_the_registry_and_the_content_list_chapters():
    ids = re.compile(r"""["']extrapolation["']""")
    listing = [p.relative_to(ROOT).as_posix() for d in ("app", "content") for p in (ROOT / d).rglob("*.py")
               if ids.search(p.read_text(encoding="utf-8"))]
    # the registry, the content list, and the chapter's own package (its id, its lab's results)
    assert sorted(listing) == ["app/chapters/__init__.py", "app/chapters/extrapolation_lab/__init__.py",
                               "app/chapters/extrapolation_lab/retrain.py", "content/chapters.py"]


def test_no_app_module_imports_another_modules_private_names():
    # the core's own checks (and that the core never imports the UI): tests/core/test_layout.py
    from tests.core.test_layout import private_imports
    assert private_imports(APP) == []


def test_every_chapter_builds_without_what_the_static_site_leaves_out(monkeypatch):
    """The static site ships no nh3 (Panel's HTML sanitiser: pn.FlexBox and sanitize_html=True
    need it): every chapter's page must build its Bokeh models without it."""
    import sys

    from bokeh.document import Document

    from gleam_lab.app import chapters
    monkeypatch.setitem(sys.modules, "nh3", None)          # an import of it now fails
    for cid in chapters.chapter_ids():
        chapters.make_viewer(cid).__panel__().get_root(Document())
