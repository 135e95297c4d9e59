"""Every change the build makes to an upstream's behaviour, as a managed set.

Each is a record (Patch): what it changes, in which upstream and version it was written against,
why, the test that holds it, and the upstream issue if there is one. The records live in one module
per upstream (bokeh, bokehjs, panel, jinja, pyodide, katex, sdists); the code that makes a change
stays where it is applied and names its record. Before applying a change the build calls
`applies(name)`, which fails the build, naming the patch, if the upstream it has is not the
version the patch was written against; `verify()` checks them all at once.

    python -m buildtools.patches [--upstream bokeh]   # the checklist for an upgrade
"""
from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass

from .. import pins
from ..errors import BuildError


@dataclass(frozen=True)
class Patch:
    name: str        # "<upstream>.<what>", as the code applying it names it
    upstream: str    # bokeh, bokehjs, panel, jinja2, pyodide, numpy, katex, markupsafe, pyyaml
    version: str     # the upstream's version it was written against (and last rechecked with)
    target: str      # what of the upstream it changes
    what: str        # what the change does
    why: str         # one line
    test: str        # the pytest node id that holds it
    code: str        # where the build makes the change
    issue: str | None = None   # the upstream issue or discussion, if any


class PatchError(BuildError):
    """A patch meets an upstream version other than the one it was written against."""


# The upstreams whose installed copy the build itself runs or copies from (distribution name).
HOST = {"bokeh": "bokeh", "bokehjs": "bokeh", "panel": "panel"}


UPSTREAM_MODULES = ("bokeh", "bokehjs", "panel", "jinja", "pyodide", "katex", "sdists")
MODULE: dict[str, str] = {}   # patch name -> the module of buildtools/patches/ that holds its record


def _records() -> dict[str, Patch]:
    import importlib
    found: dict[str, Patch] = {}
    for module in UPSTREAM_MODULES:
        for patch in importlib.import_module(f"{__name__}.{module}").PATCHES:
            if patch.name in found:
                raise BuildError(f"two patches named {patch.name!r}")
            found[patch.name] = patch
            MODULE[patch.name] = module
    return found


PATCHES: dict[str, Patch] = _records()


def get(name: str) -> Patch:
    try:
        return PATCHES[name]
    except KeyError:
        raise BuildError(f"no patch record named {name!r} in buildtools/patches/") from None


def versions() -> dict[str, dict[str, str]]:
    """upstream -> {where: version} as this build has it: pinned for the site (buildtools/pins.py),
    and installed on the host for what the build runs or copies from there (HOST)."""
    out: dict[str, dict[str, str]] = {}
    for spec in (*pins.PURE_WHEELS, *pins.SDIST_WHEELS):
        name, version = spec.split("==")
        out[name] = {"pinned": version}
    out["pyodide"] = {"pinned": pins.PYODIDE_VERSION}
    out["katex"] = {"pinned": pins.KATEX_VERSION}
    out["bokehjs"] = dict(out["bokeh"])
    for upstream, dist in HOST.items():
        try:
            out[upstream]["installed"] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[upstream]["installed"] = "(not installed)"
    return out


def _mismatch(patch: Patch, found: dict[str, str]) -> str | None:
    wrong = {where: v for where, v in found.items() if v != patch.version}
    if not found:
        return f"patch {patch.name!r}: the build knows no version of {patch.upstream} to check it against"
    if not wrong:
        return None
    has = ", ".join(f"{v} ({where})" for where, v in wrong.items())
    return (f"patch {patch.name!r} ({patch.target}) was written against {patch.upstream} {patch.version}, "
            f"but the build has {patch.upstream} {has}. Recheck it (its test: {patch.test}), then update "
            f"its record in buildtools/patches/{MODULE.get(patch.name, '?')}.py")


def applies(name: str, version: str | None = None, where: str = "given") -> Patch:
    """The record `name`, if the build's version of its upstream (`version`, or every version
    versions() knows of it) is the one the patch was written against; else a PatchError naming it."""
    patch = get(name)
    found = {where: version} if version is not None else versions().get(patch.upstream, {})
    problem = _mismatch(patch, found)
    if problem:
        raise PatchError(problem)
    return patch


def verify(found: dict[str, dict[str, str]] | None = None) -> list[Patch]:
    """Check every patch whose upstream's version the build knows (versions(), or `found`) at once;
    a PatchError lists every patch that needs rechecking. Returns the patches checked."""
    found = versions() if found is None else found
    checked, problems = [], []
    for patch in PATCHES.values():
        if patch.upstream not in found:
            continue            # (checked where it is applied: the numpy wheel's version is its file name's)
        checked.append(patch)
        problem = _mismatch(patch, found[patch.upstream])
        if problem:
            problems.append(problem)
    if problems:
        raise PatchError(f"{len(problems)} patch(es) meet another upstream version than they were written "
                         "against:\n  " + "\n  ".join(problems))
    return checked


def select(upstream: str | None = None) -> list[Patch]:
    return [p for p in PATCHES.values() if upstream is None or p.upstream == upstream]
