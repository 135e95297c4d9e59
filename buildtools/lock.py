"""The site's pyodide-lock.json: exactly the packages the site ships, nothing else.

micropip looks in the lock first (with its default index setting), and Pyodide fetches
each file from indexURL + file_name with the lock's sha256 as subresource integrity. So a
lock holding every package the app needs means no package index is ever asked, and a
lock holding nothing else means nothing can point at a file the site does not have.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import patches, pins
from .errors import BuildError
from .fetch import sha256_file
from .wheels import WheelInfo


# The upstreams whose declared dependencies pins.DROPPED leaves out, and their records.
DROPPED_PATCHES = {"panel": "panel.dropped-dependencies", "bokeh": "bokeh.dropped-dependencies"}


def pure_entry(info: WheelInfo, sha256: str) -> dict:
    if info.key in DROPPED_PATCHES and set(info.requires) & set(pins.DROPPED):
        patches.applies(DROPPED_PATCHES[info.key], info.version, info.path.name)
    return {
        "name": info.name,
        "version": info.version,
        "file_name": info.path.name,
        "install_dir": "site",
        "sha256": sha256,
        "package_type": "package",
        "imports": info.imports,
        "depends": [d for d in info.requires if d not in pins.DROPPED],
        "unvendored_tests": False,
    }


def build_lock(official: dict, compiled: list[str], pure: list[WheelInfo],
               shipped: dict[str, Path] | None = None) -> dict:
    """official: the npm package's lock; compiled: official names shipped; pure: our wheels;
    shipped: the file the site ships for an official package it rewrote (slimmed, compiled to
    bytecode), whose sha256 replaces the official one; everything else in its entry stays."""
    packages: dict[str, dict] = {}
    for name in compiled:
        packages[name] = dict(official["packages"][name])
        if shipped and name in shipped:
            if shipped[name].name != packages[name]["file_name"]:
                raise BuildError(f"{shipped[name].name}: not the file name of official {name}")
            packages[name]["sha256"] = sha256_file(shipped[name])
    for info in pure:
        if info.key in packages:
            raise BuildError(f"{info.path.name}: {info.key} is already an official package of the site")
        packages[info.key] = pure_entry(info, sha256_file(info.path))
    for key, entry in packages.items():
        missing = [d for d in entry["depends"] if d not in packages]
        if missing:
            raise BuildError(
                f"{key} depends on {missing}, which the site does not ship. Add them to "
                "buildtools/pins.py (PURE_WHEELS or COMPILED_PACKAGES), or to DROPPED with a reason."
            )
    shipped_dropped = sorted(set(packages) & set(pins.DROPPED))
    if shipped_dropped:
        raise BuildError(f"packages listed as dropped are in the lock: {shipped_dropped}")
    return {"info": dict(official["info"]), "packages": dict(sorted(packages.items()))}


def verify_lock(lock_path: Path) -> list[str]:
    """Every lock entry names a file beside the lock whose sha256 matches. Returns problems."""
    lock = json.loads(lock_path.read_text())
    problems = []
    for key, entry in lock["packages"].items():
        f = lock_path.parent / entry["file_name"]
        if "/" in entry["file_name"] or ":" in entry["file_name"]:
            problems.append(f"{key}: file_name {entry['file_name']!r} is not a plain file name")
        elif not f.is_file():
            problems.append(f"{key}: {entry['file_name']} is missing from the site")
        elif sha256_file(f) != entry["sha256"]:
            problems.append(f"{key}: {entry['file_name']} does not match its sha256 in the lock")
        for dep in entry["depends"]:
            if dep not in lock["packages"]:
                problems.append(f"{key}: depends on {dep}, which is not in the lock")
        if key in pins.DROPPED:
            problems.append(f"{key}: is in the lock but should have been left out ({pins.DROPPED[key]})")
    return problems


def resolve_closure(lock: dict, names: list[str]) -> set[str]:
    """All lock keys that installing `names` loads (what micropip/loadPackage will fetch)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        if n not in lock["packages"]:
            raise BuildError(f"the worker installs {n!r}, which is not in the site's lock")
        seen.add(n)
        todo.extend(lock["packages"][n]["depends"])
    return seen
