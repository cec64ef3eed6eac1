#!/usr/bin/env bash
# Install everything, execute every chapter with papermill (default: quick scale) and build the
# static book into book/_build/html. Extra arguments go to the runner, e.g. --scale paper,
# -c 00_calibration_primer, --force, --jobs 1 (one chapter at a time).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/python -m credalbook.book build --jobs 2 "$@"   # two chapters side by side, one core each
