"""python -m buildtools.patches [--upstream NAME]: every change the build makes to an upstream,
by upstream, with the version it was written against and the version the build has now; the
checklist for an upgrade. Exit status 1 if any needs rechecking."""
from __future__ import annotations

import argparse
import sys

from . import MODULE, PATCHES, select, versions


def report(upstream: str | None = None) -> tuple[str, int]:
    """The listing, and how many patches meet another version than their record's."""
    have = versions()
    lines, stale = [], 0
    chosen = select(upstream)
    for up in dict.fromkeys(p.upstream for p in chosen):
        found = have.get(up, {})
        now = ", ".join(f"{v} {where}" for where, v in found.items()) or "checked where applied"
        lines.append(f"{up} (the build has: {now})")
        for p in (p for p in chosen if p.upstream == up):
            ok = all(v == p.version for v in found.values())
            stale += not ok
            lines += [f"  {p.name}  [written against {p.upstream} {p.version}]" + ("" if ok else "  RECHECK"),
                      f"      target: {p.target}",
                      f"      what:   {p.what}",
                      f"      why:    {p.why}",
                      f"      test:   {p.test}",
                      f"      code:   {p.code}  (record: buildtools/patches/{MODULE[p.name]}.py)"]
            if p.issue:
                lines.append(f"      issue:  {p.issue}")
        lines.append("")
    lines.append(f"{len(chosen)} patch(es)" + (f", {stale} to recheck" if stale else ", all at their versions"))
    return "\n".join(lines), stale


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m buildtools.patches", description=__doc__)
    ap.add_argument("--upstream", choices=sorted({p.upstream for p in PATCHES.values()}),
                    help="only the patches of this upstream")
    args = ap.parse_args(argv)
    text, stale = report(args.upstream)
    print(text)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
