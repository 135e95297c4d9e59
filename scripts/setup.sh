#!/usr/bin/env bash
# Sets up what the lab needs (`scripts/setup.sh`) or what it and its tests need (`--tests`), idempotently:
#   .venv         the project (editable) with the app extra (panel, bokeh, param, …); with --tests also
#                 the test and research extras (torch, playwright; joblib, dask for gleam.sweep)
#   .venv-np202   the core alone on numpy 2.0.2, the version Pyodide runs in the browser (--tests)
#   chromium      Debian's, for the browser tests (Playwright never downloads a browser here)
#   axe-core      npm's, pinned, into build-cache/npm/ for the accessibility tests (--tests)
#   wheelhouse    the lab's dependencies as wheels, in build-cache/wheelhouse/, for the test that
#                 installs the lab's wheel into a fresh virtualenv with no network (--tests)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# .venv-np202 (--tests) is made beside .venv, in the background: each installs torch, and the two
# downloads and unpackings overlap
if [ "${1:-}" = "--tests" ]; then
  np202_log=$(mktemp)
  (
    set -e
    if [ ! -x .venv-np202/bin/python ]; then
      echo "== creating .venv-np202"
      "$PY" -m venv .venv-np202
    fi
    echo "== installing the core on numpy 2.0.2 into .venv-np202"
    .venv-np202/bin/python -m pip install -q --upgrade pip
    .venv-np202/bin/python -m pip install -q "numpy==2.0.2" "pytest>=8" "hypothesis>=6.100" "torch==2.13.0" \
      "safetensors>=0.4"
  ) > "$np202_log" 2>&1 &
  np202=$!
  trap 'kill "$np202" 2>/dev/null || true' EXIT
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
echo "== installing the project into .venv"
.venv/bin/python -m pip install -q --upgrade pip
if [ "${1:-}" = "--tests" ]; then EXTRAS=app,test,research; else EXTRAS=app; fi
.venv/bin/python -m pip install -q -e ".[$EXTRAS]"

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
apt_install() {  # Debian packages, only when missing
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
# build.py fetches Pyodide's core as its npm package; the JS reference check runs under node.
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "== installing Debian's nodejs and npm"
  apt_install nodejs npm
fi

if [ "${1:-}" = "--tests" ]; then
  echo "== waiting for .venv-np202 (made beside .venv)"
  np202_status=0; wait "$np202" || np202_status=$?
  cat "$np202_log"; rm -f "$np202_log"
  [ "$np202_status" -eq 0 ] || { echo "setting up .venv-np202 failed" >&2; exit "$np202_status"; }
  # (the project itself once .venv's is in: two editable installs at once share its egg-info)
  .venv-np202/bin/python -m pip install -q --no-deps -e .

  echo "== downloading the lab's dependencies as wheels (tests/test_packaging.py installs the lab offline)"
  .venv/bin/python scripts/wheelhouse.py "${GLEAM_BUILD_CACHE:-build-cache}/wheelhouse"

  echo "== fetching axe-core (pinned, hash-checked) for the accessibility tests"
  .venv/bin/python -m buildtools.axe "${GLEAM_BUILD_CACHE:-build-cache}" >/dev/null

  if [ ! -x /usr/bin/chromium ]; then
    echo "== installing Debian's chromium"
    apt_install chromium
  fi
fi
