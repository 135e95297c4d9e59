#!/usr/bin/env bash
# Sets up and runs every test: the core on numpy 2.0.2 (the browser's version) and on the
# current release, the app without a browser, and the browser tests (Debian chromium through
# Playwright) against both `panel serve app/` and the built static site.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --tests

echo "== the core on numpy 2.0.2"
.venv-np202/bin/python -c "import numpy; assert numpy.__version__ == '2.0.2', numpy.__version__"
.venv-np202/bin/python -m pytest tests/core -q -p no:cacheprovider

echo "== building the static site"
.venv/bin/python build.py

echo "== every test (current numpy, app, browser)"
.venv/bin/python -m pytest -q -rs "$@"
