#!/usr/bin/env bash
# Sets up and runs every test: the core on numpy 2.0.2 (the browser's version; its printed numbers
# and PyTorch parity on the current release too), the app without a browser, and the browser tests
# (Debian chromium through Playwright) against both `panel serve app/` and the built static site.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh --tests
echo "== set up after ${SECONDS} s"

echo "== the core on numpy 2.0.2, beside the build of the static site"
.venv-np202/bin/python -c "import numpy; assert numpy.__version__ == '2.0.2', numpy.__version__"
np202_log=$(mktemp)
.venv-np202/bin/python -m pytest tests/core -q -p no:cacheprovider > "$np202_log" 2>&1 &
np202=$!
.venv/bin/python build.py || { kill "$np202" 2>/dev/null; exit 1; }
np202_status=0; wait "$np202" || np202_status=$?
echo "== the core on numpy 2.0.2 (built and tested after ${SECONDS} s):"; cat "$np202_log"; rm -f "$np202_log"
[ "$np202_status" -eq 0 ] || exit "$np202_status"

echo "== every other test (current numpy, app, browser), in two workers"
# A worker takes the browser tests of one mode, the rest are shared out around them (tests/suite.py).
# Of the core's tests, only the numbers the learner reads and the parity with PyTorch run again on
# the current numpy (tests/core/conftest.py).
status=0; .venv/bin/python -m pytest -q -rs -n 2 --dist loadscope -m "not core_once" "$@" || status=$?
echo "== done after ${SECONDS} s"
exit "$status"
