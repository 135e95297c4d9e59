"""The static article of each chapter (buildtools.static_prose) and the KaTeX it is typeset with
(buildtools.katex): same words and numbers as the live prose, every formula typeset (display as
display), refusals named, the pinned tarball checked, the site's CSS naming only files it holds.

Needs the pinned KaTeX tarball in the build cache (GLEAM_BUILD_CACHE, default build-cache/), where
the build fetches it; fetched with npm here if missing. No network or npm: these tests fail.
"""
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gleam_lab import content
from buildtools import katex, pins, static_prose
from buildtools.errors import BuildError

ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or ROOT / "build-cache").resolve()


@pytest.fixture(scope="module")
def katex_dir():
    return katex.fetch_katex(CACHE)


@pytest.fixture(scope="module")
def sources():
    return {cid: content.render_html(cid) for cid in content.chapter_ids()}


@pytest.fixture(scope="module")
def articles(katex_dir):
    return static_prose.articles(content.chapter_ids(), katex_dir)


class Reading(HTMLParser):
    """The text outside the formulas (and outside the h1, kept apart), and for each .gl-math span
    its label, its inner text and the classes found inside it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.text, self.title, self.maths = [], [], []
        self.depth = 0          # span depth inside the current formula (0: outside any)
        self.in_h1 = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.depth:
            self.depth += tag == "span"
            self.maths[-1]["classes"].update((attrs.get("class") or "").split())
        elif tag == "span" and attrs.get("class") == "gl-math":
            self.depth = 1
            self.maths.append({"role": attrs.get("role"), "label": attrs.get("aria-label"),
                               "inner": [], "classes": set()})
        self.in_h1 = self.in_h1 or tag == "h1"

    def handle_endtag(self, tag):
        if self.depth and tag == "span":
            self.depth -= 1
        self.in_h1 = self.in_h1 and tag != "h1"

    def handle_data(self, data):
        if self.depth:
            self.maths[-1]["inner"].append(data)
        else:
            (self.title if self.in_h1 else self.text).append(data)


def read(markup):
    r = Reading()
    r.feed(markup)
    r.close()
    assert r.depth == 0
    return r


def words(parts):
    return " ".join("".join(parts).split())


@pytest.mark.parametrize("cid", content.chapter_ids())
def test_article_has_the_prose_words_numbers_and_formulas(cid, articles, sources):
    art, src = read(articles[cid]), read(sources[cid])
    assert words(art.title) == content.heading(cid)
    start = read(content.start_html()).text if cid == "0" else []   # the index opens with the first screen
    assert words(art.text) == words(start + src.text)
    assert len(art.maths) == len(src.maths) > 0
    for a, s in zip(art.maths, src.maths):
        assert (a["role"], a["label"]) == ("img", s["label"])
        assert "katex" in a["classes"] and "katex-html" in a["classes"]
        tex = "".join(s["inner"]).strip()
        assert ("katex-display" in a["classes"]) == tex.startswith("$$"), tex
    assert 'class="katex"' in articles[cid]
    text = "".join(art.text) + "".join(x for m in art.maths for x in m["inner"])
    for delim in ("$$", "\\(", "\\)"):
        assert delim not in text
    assert articles[cid].startswith('<article class="gl-static gl-prose" id="gl-static" aria-labelledby="')


def test_display_math_is_display_and_inline_is_not(katex_dir):
    inline, display = katex.render([("x_t = \\tanh(a)", False), ("h \\lt 1", True)], katex_dir)
    assert "katex-display" not in inline and 'class="katex"' in inline
    assert display.startswith('<span class="katex-display">')


def test_a_tex_katex_refuses_fails_the_build_naming_it(katex_dir):
    with pytest.raises(BuildError, match=re.escape(r"\frac{") + ".*KaTeX parse error"):
        katex.render([("x", False), ("\\frac{", True)], katex_dir)
    with pytest.raises(BuildError, match=re.escape(r"\notamacro")):
        katex.render([("\\notamacro x", False)], katex_dir)


def test_a_delimiter_left_in_the_prose_fails_the_build(katex_dir, monkeypatch):
    monkeypatch.setattr(content, "render_html", lambda cid: "<p>cost $$x^2$$ here</p>")
    with pytest.raises(BuildError, match=re.escape("'$$'")):
        static_prose.article("4", katex_dir)


def test_the_heading_is_escaped(katex_dir, monkeypatch):
    monkeypatch.setattr(content, "heading", lambda cid: '<script>alert(1)</script> & "x"')
    monkeypatch.setattr(content, "render_html", lambda cid: content.markdown_to_html("Hi \\(a < b\\)."))
    page = static_prose.article("4", katex_dir)
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp;" in page
    assert words(read(page).title) == '<script>alert(1)</script> & "x"'
    assert read(page).maths[0]["label"] == "a < b" and 'class="katex"' in page


def test_a_tampered_tarball_is_refused(tmp_path, katex_dir):
    name = f"katex-{pins.KATEX_VERSION}.tgz"
    data = bytearray((CACHE / "npm" / name).read_bytes())
    data[len(data) // 2] ^= 0x01
    (tmp_path / "npm").mkdir()
    (tmp_path / "npm" / name).write_bytes(bytes(data))
    with pytest.raises(BuildError, match=re.escape(name) + ".*integrity mismatch"):
        katex.fetch_katex(tmp_path)
    assert not (tmp_path / "npm" / f"katex-{pins.KATEX_VERSION}").exists()


def test_copy_assets_writes_css_whose_every_url_is_a_written_woff2(tmp_path, katex_dir):
    written = katex.copy_assets(katex_dir, tmp_path)
    on_disk = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    folder = tmp_path / "katex" / pins.KATEX_VERSION          # the version in the path
    css_rel = f"katex/{pins.KATEX_VERSION}/katex.min.css"
    assert sorted(written) == on_disk and written[0] == css_rel
    css = (tmp_path / css_rel).read_text()
    urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", css)
    assert urls and css.count("@font-face") == len(urls)
    for url in urls:
        assert url.endswith(".woff2") and (folder / url).is_file(), url
    assert not re.search(r"\.woff(?!2)|\.ttf|\.eot|truetype|format\(\"woff\"\)", css)
    assert all(p == css_rel or p.endswith(".woff2") for p in written)


def test_static_css_is_scoped_and_themed():
    css = static_prose.STATIC_CSS
    body = re.sub(r"\{[^}]*\}", "{}", css)
    selectors = [s.strip() for rule in body.split("{}") for s in rule.split(",") if s.strip()]
    assert selectors and all(s.startswith(".gl-static") for s in selectors), selectors
    assert not re.search(r"#[0-9a-fA-F]{3,8}\b|rgb|hsl", css)
    colours = re.findall(r"(?<![a-z-])(?:color|background|border|border-left)\s*:\s*([^;}]*)", css)
    assert colours and all("var(--gl-root-" in c or c.strip() == "inherit" for c in colours), colours
    for part in ("table", "pre", "katex-display"):
        assert re.search(r"\.gl-static [^{]*" + part + r"[^{]*\{[^}]*overflow-x: auto", css), part
