#!/usr/bin/env bash
# Sets everything up, builds the static site and opens the lab at http://127.0.0.1:8000/
# (`./lab.sh serve` runs the same lab live under `panel serve` instead: `gleam-lab serve`).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
if [ "${1:-}" = "serve" ]; then
  exec .venv/bin/gleam-lab serve --port 5006 --show
fi
exec .venv/bin/python build.py --serve --open --port 8000
