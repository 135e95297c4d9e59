"""Where a cold load's worker spends its time: the site's worker script (main.js) as Playwright
hands it to the page, with a time mark at each phase boundary (benchmarks/floor.py --phases).

A load's total moves by ±0.3 s between runs on this machine, more than most changes to the start
are worth; the worker's own phases (loading Pyodide, unpacking, the prelude, importing Panel, the
lab's import, Lab(), servable and the document) move far less, so an A/B of two builds can be
read phase by phase. Each mark is a console line `GLMARK <name> <epoch ms>` from the worker; a
phase's duration is the time from the mark before it. The served files are not changed: the
route fetches main.js from the site and fulfils the request with the marked copy (a round trip
through Playwright that the sites compared pay alike).

Each anchor is a line of the worker that buildtools/convert.py writes (or Panel's template that it
keeps) and must be found exactly once: tests/test_build.py checks them on the built worker, so a
change there shows up as a failing test rather than as a silently missing phase.
"""
import re
import statistics

# A mark in the worker's Python source (a JS string with "\n" escapes) calls glMark through js.
PY_MARK = "import js as _gl_js\\n_gl_js.glMark('{name}')\\n"
# Each phase, in order: (name, regular expression of the anchor, the mark "before" or "after" it,
# "js": a JS statement, or "py": lines of the worker's Python). A phase ends at its mark.
ANCHORS = [
    ("pyodide.js loaded", r'importScripts\("\./pyodide/[^"]+/pyodide\.js"\);\n', "after", "js"),
    ("loadPyodide", r"  \{\n    const sitePackages", "before", "js"),
    ("wheels unpacked", r' if f is not None\]"\);\n  \}\n', "after", "js"),
    ("prelude", r'  self\.pyodide\.globals\.set\("sendPatch", sendPatch\);', "before", "js"),
    ("Python starts the app", r"\\nfrom panel\.io\.pyodide import init_doc, write_doc\\n", "before", "py"),
    ("import panel", r"\\nfrom panel\.io\.pyodide import init_doc, write_doc\\n", "after", "py"),
    ("import gleam_lab.app.lab", r"from gleam_lab\.app\.lab import Lab  # noqa: E402\\n\\n", "after", "py"),
    ("Lab().servable", r"\\n\\nawait write_doc\(\)", "before", "py"),
    ("write_doc", r"    self\.postMessage\(\{\n      type: 'render',", "before", "js"),
]
HEAD = ("function glMark(n) { console.log('GLMARK ' + n + ' ' + (performance.timeOrigin + performance.now())"
        ".toFixed(1)); }\nglMark('worker started');\n")


def instrument_worker(js):
    """The worker script with a mark at every anchor; ValueError naming an anchor not found once."""
    for name, pattern, where, kind in ANCHORS:
        found = list(re.finditer(pattern, js))
        if len(found) != 1:
            raise ValueError(f"phase mark {name!r}: its anchor {pattern!r} is in the worker {len(found)} times, "
                             "expected once (buildtools/convert.py or Panel's worker template changed?)")
        mark = PY_MARK.format(name=name) if kind == "py" else f"glMark('{name}');\n"
        if kind == "py" and where == "before":
            mark = "\\n" + mark
        at = found[0].end() if where == "after" else found[0].start()
        js = js[:at] + mark + js[at:]
    return HEAD + js


def route_marks(context):
    """Serve every worker script (main.js) of `context` marked; returns the list its marks go to,
    (name, epoch seconds) in order (cleared by the caller between loads)."""
    marks = []

    def fulfil(route):
        response = route.fetch()
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length")}
        route.fulfill(status=response.status, headers=headers, body=instrument_worker(response.text()))

    def on_console(message):
        if message.text.startswith("GLMARK "):
            _, name_and_time = message.text.split(" ", 1)
            name, t = name_and_time.rsplit(" ", 1)
            marks.append((name, float(t) / 1000))

    context.route(re.compile(r"/main\.js(\?.*)?$"), fulfil)
    context.on("console", on_console)
    return marks


def durations(marks):
    """{phase: seconds since the mark before it} of one load's marks (first mark: the start)."""
    return {name: round(t - marks[i - 1][1], 3) for i, (name, t) in enumerate(marks) if i}


def median_durations(loads):
    """{phase: median seconds} over loads (each a durations() dict), phases in the first's order."""
    return {name: round(statistics.median(d[name] for d in loads if name in d), 3) for name in loads[0]}
