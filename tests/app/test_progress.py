"""app.widgets.progress: the places a learner left, read strictly from what their browser stored,
and offered on the index only (never in an embed) as links that the page writes itself."""
import json

from gleam_lab.app.lab import Lab
from gleam_lab.app.widgets.progress import MAX_SHOWN, MAX_STORE, read_places


def store(*places):
    return json.dumps({"places": [{"chapter": c, "query": q} for c, q in places]})


def test_a_store_is_read_strictly():
    text = store(("3", "?chapter=3&rho=1.2&bogus=1&embed=1"), ("9", "?chapter=9&z1=0.7"), ("nope", "?chapter=nope"),
                 ("3", "?chapter=3"), ("1", "?chapter=2"))
    assert read_places(text) == [("3", [("chapter", "3"), ("rho", "1.2")]), ("9", [("chapter", "9"), ("z1", "0.7")])]
    for bad in ("", "nonsense", "[1, 2]", '{"places": 3}', '{"places": [3, {"chapter": 4}]}',
                store(("3", "?chapter=3")).ljust(MAX_STORE + 1)):
        assert read_places(bad) == [], bad[:40]


def test_the_index_offers_the_places_and_nothing_else_does():
    lab = Lab(chapter="0")
    p = lab.progress
    assert not p.box.visible and not p.forget.visible                 # nothing stored
    p.state.value = store(("9", "?chapter=9&z1=<b>0.7</b>"), ("3", "?chapter=3"), *[(str(i), f"?chapter={i}") for i in range(4, 9)])
    assert p.box.visible and p.forget.visible
    html = p.box.object
    assert html.count("gl-resume-link") == MAX_SHOWN
    assert 'href="?chapter=9&amp;z1=%3Cb%3E0.7%3C%2Fb%3E"' in html and "<b>0.7" not in html   # text, never HTML
    assert html.index("Chapter 9") < html.index("Chapter 3")          # most recent first
    assert "as you left it" in html.split("Chapter 3")[0] and "as you left it" not in html.split("Chapter 3")[1].split("</li>")[0]
    p.forget.clicks += 1                                               # Forget my progress
    assert not p.box.visible and p.places() == []
    p.state.value = store(("3", "?chapter=3"))
    assert p.box.visible
    lab.chapter = "3"
    assert not p.box.visible                                           # the index as the page opens only
    lab.chapter = "0"
    assert not p.box.visible


def test_an_embed_never_offers_them():
    lab = Lab(chapter="0", embed=True)
    lab.progress.state.value = store(("3", "?chapter=3"))
    assert not lab.progress.box.visible
