"""How the build fails: loudly, naming what it expected and did not find."""
from __future__ import annotations

import re


class BuildError(RuntimeError):
    """A build step failed in a way the user must see (bad hash, missing file, ...)."""


def sub_once(pattern: str, repl, text: str, what: str, flags: int = 0) -> str:
    """re.sub that must match exactly once: an upstream upgrade that changes the text stops the
    build instead of leaving it half rewritten."""
    new, n = re.subn(pattern, repl, text, count=0, flags=flags)
    if n != 1:
        raise BuildError(f"rewriting {what}: expected exactly one match of {pattern!r}, found {n}")
    return new
