"""How the suite is shared between two processes (test.sh: `pytest -n 2 --dist loadscope`, with
pytest-xdist): every browser test of one mode runs in the same worker, in the order pytest gives
them, so that each worker starts one server and boots the static site once, and the two modes run
side by side (but for a few files that share nothing with their mode's other tests, OWN_UNIT_FILES,
which go to whichever worker is free first). A browser test mostly waits on a round trip through Playwright's driver, chromium and
a server: one of them leaves a core idle, two fill both. The other tests are shared out one by one
around them (tests/conftest.py's scheduler).

The controller that shares the tests out sees only their node ids, so the mode is read from the id:
its `site` parameter, or the file, for a file whose tests all use the static site without it.
tests/browser/conftest.py checks every browser test against the fixtures it really uses.
"""
import re

STATIC_ONLY_FILES = ("tests/browser/test_loading.py",)
_SITE_PARAMETER = re.compile(r"^\[(serve|static)[-\]]")   # the site parameter comes first


def browser_mode(nodeid):
    """"serve" or "static" for a browser test's node id, None for any other test."""
    if not nodeid.startswith("tests/browser/"):
        return None
    if nodeid.split("::")[0] in STATIC_ONLY_FILES:
        return "static"
    parameters = _SITE_PARAMETER.match(nodeid[nodeid.find("["):]) if "[" in nodeid else None
    return parameters.group(1) if parameters else "serve"


def fixture_mode(item):
    """The mode a collected browser test really uses: its `site` parameter, else the static site's
    server if it asks for it, else panel serve (or a server of its own)."""
    mode = getattr(item, "callspec", None) and item.callspec.params.get("site")
    if mode is None:
        mode = "static" if "static_server" in item.fixturenames else "serve"
    return mode


# browser test files that need neither their mode's shared page nor its other tests: each is a unit
# of its own, taken by whichever worker is free first (the static mode's unit is the longer)
OWN_UNIT_FILES = ("tests/browser/test_loading.py", "tests/browser/test_installed.py")


def scope(nodeid):
    """The unit of work a test belongs to: its mode's (or its file's, for OWN_UNIT_FILES), for a
    browser test; its own, for the rest."""
    mode = browser_mode(nodeid)
    if mode is None:
        return nodeid
    file = nodeid.split("::")[0]
    return f"browser-{mode}:{file}" if file in OWN_UNIT_FILES else f"browser-{mode}"
