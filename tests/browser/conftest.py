"""Fixtures of the browser tests: Debian's chromium through Playwright, the lab under
`panel serve app/`, the static Pyodide site (built once if missing or stale, served by
`python build.py --serve --no-build`), and a guarded `Lab` page per test.

Tests run in both modes through the session-scoped, parametrised `site` fixture; pytest groups
them by mode, so each server starts once and only when a test needs it.
These tests are not optional: a missing chromium, a server that does not start or a build
that fails is a test failure, never a skip.

Besides what each test asserts, every test fails on: a request for any host but 127.0.0.1,
a console error in a page or a worker, an uncaught page error (see helpers.Guard), and a
traceback, ERROR line or 4xx/5xx response in the log of the server it used.
GLEAM_SITE_AS_IS=1 serves site/ without rebuilding it even if it looks stale; GLEAM_SITE_DIR and
GLEAM_BUILD_CACHE put the built site and build.py's cache elsewhere (default site/, build-cache/),
so that two checkouts or two engineers can run the browser tests side by side.

One page per mode serves the whole session (`shared_lab`): the static site boots Python once and
the tests move between chapters in place (`Lab.show`), as a learner does.
"""
import fcntl
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import BOOT_TIMEOUT, Guard, Lab, wait_until
from tests.suite import browser_mode, fixture_mode

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ.get("GLEAM_SITE_DIR") or ROOT / "site").resolve()
BUILD_CACHE = Path(os.environ.get("GLEAM_BUILD_CACHE") or ROOT / "build-cache").resolve()
STATIC_PAGE = "index.html"          # the lab's page in site/
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
MODES = ("serve", "static")
SERVER_START_TIMEOUT = 90.0
SERVER_ERROR = re.compile(r"Traceback|\bERROR\b|\" [45]\d\d ")
# Tornado's log of a message written to a page's websocket just as the page left (a reload, a
# full load of another URL): the browser's doing, not the server's; any other traceback counts.
CLOSED_SOCKET = re.compile(
    r"Traceback \(most recent call last\):\n(?:  .*\n)+tornado\.iostream\.StreamClosedError: Stream is closed\n"
    r"\nDuring handling of the above exception, another exception occurred:\n\n"
    r"Traceback \(most recent call last\):\n(?:  .*\n)+tornado\.websocket\.WebSocketClosedError\n")
BUILD_TIMEOUT = 1800.0
# What the site is built from: a newer file here than everything in site/ means a rebuild.
SITE_SOURCES = ("build.py", "buildtools", "pyproject.toml", "app", "content", "gleam", "gleam_lab")


# ---------------------------------------------------------------- two workers (tests/suite.py)

def pytest_runtest_setup(item):
    """A browser test's mode, as the two-process scheduler reads it from the test's id, must be the
    mode its fixtures use (tests/suite.py): else a worker would start a server it does not need."""
    if "browser" in item.path.parts and fixture_mode(item) != browser_mode(item.nodeid):
        pytest.fail(f"{item.nodeid} uses {fixture_mode(item)}, but its id says {browser_mode(item.nodeid)} "
                    "(tests/suite.py reads a browser test's mode from its id)", pytrace=False)


# ---------------------------------------------------------------- processes

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path, lines=40):
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class Server:
    """A subprocess serving HTTP on 127.0.0.1:port, in its own process group."""

    def __init__(self, name, cmd, port, probe_path, log_path, cwd=ROOT, env=None):
        self.name, self.cmd, self.port, self.log_path = name, cmd, port, log_path
        self.probe = f"http://127.0.0.1:{port}{probe_path}"
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)

    def wait(self):
        def up():
            if self.proc.poll() is not None:
                pytest.fail(f"{self.name} exited with code {self.proc.returncode} before serving "
                            f"{self.probe}\ncommand: {' '.join(self.cmd)}\n{_tail(self.log_path)}")
            try:
                with urllib.request.urlopen(self.probe, timeout=5) as r:
                    return r.status == 200
            except (urllib.error.URLError, OSError):
                return False

        try:
            wait_until(up, timeout=SERVER_START_TIMEOUT, interval=0.25)
        except TimeoutError:
            self.stop()
            pytest.fail(f"{self.name} did not answer 200 at {self.probe} within "
                        f"{SERVER_START_TIMEOUT:.0f} s\n{_tail(self.log_path)}")

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()


@pytest.fixture(scope="session")
def panel_server(tmp_path_factory):
    """`panel serve app/` (the venv's panel) on a free port; the lab is at /app."""
    port = free_port()
    cmd = [sys.executable, "-m", "panel", "serve", "app/", "--port", str(port),
           "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{port}"]
    server = Server("panel serve", cmd, port, "/app", tmp_path_factory.mktemp("logs") / "panel.log")
    server.wait()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def two_process_site(tmp_path_factory):
    """`panel serve app/ --num-procs 2` (a class on one machine), its log lines carrying the PID
    of the worker process that wrote them."""
    port = free_port()
    cmd = [sys.executable, "-m", "panel", "serve", "app/", "--port", str(port), "--num-procs", "2",
           "--address", "127.0.0.1", f"--allow-websocket-origin=127.0.0.1:{port}",
           "--log-format", "%(process)d %(message)s"]
    server = Server("panel serve --num-procs 2", cmd, port, "/app",
                    tmp_path_factory.mktemp("logs") / "panel-2.log")
    server.wait()
    yield Site("serve", f"http://127.0.0.1:{port}/app", server.log_path)
    server.stop()


def _newest_mtime(paths):
    newest = 0.0
    for path in paths:
        if path.is_file():
            newest = max(newest, path.stat().st_mtime)
        elif path.is_dir():
            for f in path.rglob("*"):
                if f.is_file() and "__pycache__" not in f.parts:
                    newest = max(newest, f.stat().st_mtime)
    return newest


def site_is_stale():
    if not (SITE / STATIC_PAGE).is_file():
        return True
    return _newest_mtime([ROOT / s for s in SITE_SOURCES]) > _newest_mtime([SITE])


@pytest.fixture(scope="session")
def static_server(tmp_path_factory):
    """site/ (rebuilt first if missing or older than its sources), served by build.py.
    GLEAM_SITE_AS_IS=1 serves site/ as it is (e.g. while it is being worked on elsewhere)."""
    logs = tmp_path_factory.mktemp("logs")
    if not (ROOT / "build.py").is_file():
        pytest.fail(f"{ROOT / 'build.py'} is missing: the static site cannot be built")
    BUILD_CACHE.mkdir(parents=True, exist_ok=True)
    with open(BUILD_CACHE / "site-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # one build at a time (another worker, another checkout)
        _build_if_stale(logs)
    port = free_port()
    cmd = [sys.executable, "build.py", "--serve", "--no-build", "--site", str(SITE), "--port", str(port)]
    server = Server("build.py --serve", cmd, port, f"/{STATIC_PAGE}", logs / "static.log")
    server.wait()
    yield server
    server.stop()


def _build_if_stale(logs):
    if site_is_stale() and not os.environ.get("GLEAM_SITE_AS_IS"):
        log = logs / "build.log"
        with open(log, "w") as out:
            try:
                rc = subprocess.run([sys.executable, "build.py", "--site", str(SITE), "--cache", str(BUILD_CACHE)],
                                    cwd=ROOT, stdout=out,
                                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    timeout=BUILD_TIMEOUT).returncode
            except subprocess.TimeoutExpired:
                pytest.fail(f"python build.py took more than {BUILD_TIMEOUT:.0f} s\n{_tail(log)}")
        if rc != 0 or not (SITE / STATIC_PAGE).is_file():
            pytest.fail(f"python build.py failed (exit {rc}) or wrote no site/{STATIC_PAGE}\n{_tail(log)}")


@dataclass(frozen=True)
class Site:
    """Where one mode serves the lab; `url(chapter)` deep-links a chapter."""
    mode: str
    base: str
    log: Path = None

    def url(self, chapter):
        return f"{self.base}?chapter={chapter}"

    def serves(self, url):
        """Whether `url` is a page of the lab: the app's address, or on the static site index.html
        or any chapter's page (moving in place, the address names the page of the chapter shown)."""
        if self.mode != "static":
            return url.startswith(self.base)
        root = re.escape(self.base.rsplit("/", 1)[0] + "/")
        return re.match(root + r"(index|chapter-[\w-]+)\.html([?#]|$)", url) is not None

    def log_tail(self, lines=30):
        return f"-- last lines of {self.log}:\n{_tail(self.log, lines)}" if self.log else ""

    def log_mark(self):
        """Where the server's log ends now (see `log_errors`)."""
        return self.log.stat().st_size if self.log and self.log.exists() else 0

    def log_errors(self, since):
        """What the server logged as an error after `since`: a traceback or an ERROR line
        (a Python callback that failed under panel serve), or a 4xx/5xx response."""
        if not self.log or not self.log.exists():
            return []
        with open(self.log, "rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")
        text = CLOSED_SOCKET.sub("", text)
        m = SERVER_ERROR.search(text)
        if not m:
            return []
        lines = text[text.rfind("\n", 0, m.start()) + 1:].splitlines()
        shown = lines if len(lines) <= 30 else lines[:12] + ["   ..."] + lines[-12:]
        return [f"{self.mode} server logged an error:\n" + "\n".join(shown)]


@pytest.fixture(scope="session", params=MODES)
def site(request):
    if request.param == "serve":
        server = request.getfixturevalue("panel_server")
        return Site("serve", f"http://127.0.0.1:{server.port}/app", server.log_path)
    server = request.getfixturevalue("static_server")
    return Site("static", f"http://127.0.0.1:{server.port}/{STATIC_PAGE}", server.log_path)


@pytest.fixture(scope="session")
def serve_site(panel_server):
    return Site("serve", f"http://127.0.0.1:{panel_server.port}/app", panel_server.log_path)


# ---------------------------------------------------------------- the browser

@pytest.fixture(scope="session")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"Debian chromium is required at {CHROMIUM} for the browser tests "
                    "(apt-get install chromium); `playwright install` is not used here.")
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:
        pw.stop()
        pytest.fail(f"could not launch {CHROMIUM}: {exc}")
    yield b
    b.close()
    pw.stop()


class Pages:
    """Makes guarded pages; closes them and checks their guards at the end."""

    def __init__(self, browser):
        self.browser = browser
        self.opened = []

    def new(self, site, label="", service_workers="block"):
        """A guarded page in a context of its own. Service workers are blocked unless asked for
        (tests/browser/test_loading.py): routes, which the guard and some tests rely on, do not
        see what a service worker answers."""
        context = self.browser.new_context(viewport={"width": 1400, "height": 1000},
                                           service_workers=service_workers)
        context.set_default_timeout(BOOT_TIMEOUT * 1000)
        guard = Guard(context, label=label or site.mode)
        page = context.new_page()
        lab = Lab(page, guard, site)
        self.opened.append((context, lab, site.log_mark()))
        return lab

    def close(self, check=True):
        problems = []
        for context, lab, mark in self.opened:
            problems += [f"[{lab.guard.label}] {p}" for p in lab.guard.problems()]
            problems += lab.site.log_errors(mark)
            context.close()
        self.opened.clear()
        if check and problems:
            pytest.fail("browser guard:\n" + "\n".join(problems), pytrace=False)


@pytest.fixture
def pages(browser):
    """Factory of guarded pages for one test (several contexts at once if needed)."""
    p = Pages(browser)
    yield p
    p.close()


@pytest.fixture(scope="session")
def session_pages(browser):
    """Pages kept across the session (one load of the static site per mode)."""
    p = Pages(browser)
    yield p
    p.close(check=False)     # each test checked its own share (see `shared_lab`)


@pytest.fixture(scope="session")
def _shared_labs(session_pages):
    return {}


@pytest.fixture
def shared_lab(site, session_pages, _shared_labs):
    """One page per mode reused by every test that asks for it (move with `lab.show(chapter)`);
    each test is held to the guard for what happened during it."""
    lab = _shared_labs.get(site.mode)
    if lab is None:
        lab = _shared_labs[site.mode] = session_pages.new(site)
    lab.guard.forget_errors()
    mark = site.log_mark()
    yield lab
    lab.guard.assert_clean()
    problems = site.log_errors(mark)
    assert not problems, "\n".join(problems)
