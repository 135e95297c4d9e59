"""The suite's scheduler in two processes (tests/suite.py)."""
from collections import OrderedDict

import pytest

from tests.suite import scope


class _BrowserLast(OrderedDict):
    """xdist's queue of units of work, which hands out every other unit before a browser test's:
    Playwright's sync API leaves an event loop running in its worker until the session ends, and
    a test after it could not start one of its own (as in one process, where tests/app and
    tests/core run before tests/browser)."""

    def popitem(self, last=True):
        if not last:
            for key in self:
                if not key.startswith("browser-"):
                    return key, self.pop(key)
        return super().popitem(last)


@pytest.hookimpl(optionalhook=True)       # (a hook of pytest-xdist: none without it)
def pytest_xdist_make_scheduler(config, log):
    """With `--dist loadscope`: xdist's scopes, made of each mode's browser tests and of every
    other test on its own (tests/suite.py), the browser tests' last."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByMode(LoadScopeScheduling):
        def __init__(self, config, log=None):
            super().__init__(config, log)
            self.workqueue = _BrowserLast()

        def _split_scope(self, nodeid):
            return scope(nodeid)
    return ByMode(config, log)
