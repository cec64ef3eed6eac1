#!/usr/bin/env bash
# Compute paper-scale records from a clean worktree of HEAD, so that their manifests name a commit and say
# "clean", while this checkout stays free for editing. One torch thread per process: on two cores, run two of
# these side by side (a third slows both); two of the same chapter share its missing parts (each part is
# claimed while it is computed: credalbook.book.runner.claim_part). Records land in this checkout's results/
# (commit them, with `python -m credalbook.book reproduce`); the worktree lives under .cache/worktrees/<commit>.
#
# Usage: bash scripts/compute_parts.sh CHAPTER [PART ...]
#   CHAPTER (its stem or number, e.g. 02) with a plan of parts (01, 02, 04, 05): the PARTs named, or without any every missing or stale one;
#   CHAPTER=... --chapter: afterwards also execute the chapter at that scale (its chapter record);
#   a chapter without parts (00, 03) is executed whole.
# Environment: SCALE (default paper), CREDALBOOK_RECORDS_DIR (default <checkout>/results), PYTHON (default
# <checkout>/.venv/bin/python), DEVICE (default auto).
# The whole script is one block, read before it runs: a checkout that changes this file meanwhile (a commit, a pull)
# cannot make a running copy fail half-way.
{
set -eu
root=$(git rev-parse --show-toplevel)
cd "$root"
if [ -n "$(git status --porcelain --untracked-files=no -- . ':!results')" ]; then
  echo "compute_parts: commit first (the tracked files have changes; records would not say clean)" >&2
  exit 2
fi
[ $# -ge 1 ] || { echo "usage: bash scripts/compute_parts.sh CHAPTER [PART ...] [--chapter]" >&2; exit 2; }
chapter=$1; shift
sha=$(git rev-parse HEAD)
wt="$root/.cache/worktrees/$sha"
[ -d "$wt" ] || git worktree add --detach "$wt" "$sha" >/dev/null
py=${PYTHON:-$root/.venv/bin/python}
export CREDALBOOK_RECORDS_DIR="${CREDALBOOK_RECORDS_DIR:-$root/results}"
export CREDALBOOK_CACHE_DIR="${CREDALBOOK_CACHE_DIR:-$root/.cache/credalbook}"
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH="$wt" PYTHONUNBUFFERED=1
scale=${SCALE:-paper}
cd "$wt"
parts=() run_chapter=0
for a in "$@"; do
  if [ "$a" = "--chapter" ]; then run_chapter=1; else parts+=(--part "$a"); fi
done
chapter=$("$py" -c "import sys; from credalbook.book.chapters import chapter_paths; print(chapter_paths([sys.argv[1]])[0].stem)" "$chapter")
if "$py" -c "import sys; from credalbook.papers.plans import PLANS; sys.exit(0 if sys.argv[1] in PLANS else 1)" "$chapter"; then
  [ ${#parts[@]} -gt 0 ] || parts=(--part missing)
  echo "[compute_parts] $chapter $scale at $sha: ${parts[*]}"
  "$py" -m credalbook.book run --scale "$scale" -c "$chapter" "${parts[@]}" -p device "${DEVICE:-auto}" --no-progress
else
  run_chapter=1
fi
if [ "$run_chapter" = 1 ]; then
  echo "[compute_parts] executing $chapter at $scale at $sha"
  "$py" -m credalbook.book run --scale "$scale" -c "$chapter" -p device "${DEVICE:-auto}" --no-progress
fi
exit
}
