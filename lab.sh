#!/usr/bin/env bash
# Sets everything up, builds the static site and opens the lab at http://127.0.0.1:8000/
# (`./lab.sh serve` runs the same lab live under `panel serve app/` instead).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
if [ "${1:-}" = "serve" ]; then
  exec .venv/bin/panel serve app/ --address 127.0.0.1 --port 5006 --show
fi
exec .venv/bin/python build.py --serve --open --port 8000
