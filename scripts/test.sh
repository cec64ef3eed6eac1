#!/usr/bin/env bash
# Set up the same environment as the book build and run the whole test suite (unit tests,
# doctests, chapter smoke runs at tiny scale, a book build checked in headless Chromium).
# Extra arguments go to pytest, e.g. -m "not slow" or -k metrics.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest "$@"
