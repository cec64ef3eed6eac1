#!/usr/bin/env bash
# Set up everything the book and the tests need, idempotently:
#   .venv/ (PyTorch 2.13.0 CPU first, then credalbook with its book and test tooling),
#   Debian packages dataset-fashion-mnist and chromium (when apt-get is available),
#   MathJax 3 from npm into book/_vendor/mathjax (so the HTML renders math offline).
# A second run only checks and returns in seconds.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
VENV=${CREDALBOOK_VENV:-.venv}
log() { printf '[setup] %s\n' "$*"; }

"$PYTHON" - <<'PY' || { echo "[setup] Python >= 3.10 is required (3.11 recommended); set PYTHON=/path/to/python3.11" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 10) else 1)
PY

if [ ! -x "$VENV/bin/python" ]; then
  log "creating virtual environment $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check)

# PyTorch first and explicitly: a plain "torch" requirement would pull the multi-GB CUDA build.
if ! "$VENV/bin/python" -c "import torch, sys; sys.exit(not torch.__version__.startswith('2.13.0'))" 2>/dev/null; then
  log "installing torch==2.13.0"
  "${PIP[@]}" install -q torch==2.13.0
fi

stamp="$VENV/.credalbook-deps"
want=$(cat pyproject.toml | sha256sum | cut -c1-64)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  log "installing credalbook (editable) with its dependencies"
  "${PIP[@]}" install -q -e ".[all,test]"
  echo "$want" > "$stamp"
fi

# Debian packages: the Fashion-MNIST files and a headless browser for the site check.
need=()
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || need+=(dataset-fashion-mnist)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    log "installing Debian packages: ${need[*]}"
    # Wait for another apt/dpkg run (a second setup, unattended upgrades) instead of failing on its lock:
    # DPkg::Lock::Timeout covers install's dpkg lock; update's lists lock is retried for up to a minute.
    APT=($SUDO env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)
    apt_log=$(mktemp)
    apt_update() {
      local try
      for try in 1 2 3 4 5 6; do
        "${APT[@]}" update >>"$apt_log" 2>&1 && return 0
        sleep 10
      done
      return 1
    }
    if ! { apt_update && "${APT[@]}" install -y "${need[@]}" >>"$apt_log" 2>&1; }; then
      tail -n 5 "$apt_log" | sed 's/^/[setup] apt-get: /' >&2
      log "WARNING: could not install ${need[*]} with apt-get; see book/reproduce.md"
    fi
    rm -f "$apt_log"
  else
    log "WARNING: apt-get not found; install ${need[*]} yourself (see book/reproduce.md)"
  fi
fi

# MathJax 3, served from the built site (Sphinx's default loads it from a CDN).
mj=book/_vendor/mathjax
if [ ! -f "$mj/tex-mml-chtml.js" ]; then
  log "installing MathJax 3 from npm into $mj"
  tmp=$(mktemp -d)
  npm install --prefix "$tmp" --no-audit --no-fund --silent mathjax@3 >/dev/null
  es5="$tmp/node_modules/mathjax/es5"
  mkdir -p "$mj/output/chtml" "$mj/input/tex"
  cp "$es5/tex-mml-chtml.js" "$mj/"
  cp -r "$es5/output/chtml/fonts" "$mj/output/chtml/"
  cp -r "$es5/input/tex/extensions" "$mj/input/tex/"
  cp -r "$es5/ui" "$es5/a11y" "$mj/"
  cp "$tmp/node_modules/mathjax/LICENSE" "$mj/LICENSE"
  rm -rf "$tmp"
fi
log "environment ready: $VENV"
