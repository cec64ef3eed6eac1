#!/usr/bin/env bash
# The one prepared call for a sitting that is lent a GPU (the workplace's `device` tool, 15 minutes of device
# time in all, at most 10 minutes a call). On the GPU machine, in a copy of this checkout (files only, no .git):
#   1. the CUDA-parametrised tests (their CUDA cases skip everywhere else);
#   2. one training step on the CPU and on the GPU (scripts/benchmark.py --only-step), recorded as
#      results/benchmark/step-gpu.json for book/reproduce.md;
#   3. the GPU-heavy paper-scale parts, one process at a time, until the time is up: the EU chapter's GP fits
#      (`--part missing -p device cuda`; the records already committed are skipped, a fit cut short is lost).
# Everything it records comes back as one tar of the new record files, $OUT/records.tar, with the logs.
#
# Use (from a committed, clean checkout):
#   device run, timeout_s 600, command:
#     CREDALBOOK_GIT_COMMIT=$(git rev-parse HEAD) CREDALBOOK_GIT_CLEAN=1 bash scripts/device_sitting.sh 540
#   (write the sha into the command: the command runs there, where git is not)
#   then here:  tar -xf <files_at>/records.tar -C results
#               python -m credalbook.book status -c 05_epistemic_uncertainty_gp && python -m credalbook.book reproduce
# and commit the records. Arguments: SECONDS (default 540) for the whole script; STEPS=0 skips step 2,
# TESTS=0 skips step 1; CHAPTER and PARTS (default 05_epistemic_uncertainty_gp and "missing") choose step 3,
# SCALE and DEVICE (default paper and cuda) its scale and device (tiny and cpu try the script out anywhere).
# The label-histogram chapter's networks are parts too: CHAPTER=03_mimori_label_histograms
# PARTS="network-mds-full-seed0 network-tta-seed0 network-seed0 network-seed1 network-seed2" (or "missing").
set -u
total=${1:-540}
out=${OUT:-/tmp/device-out}
mkdir -p "$out"
begin=$(date +%s)
left() { echo $(( total - ($(date +%s) - begin) )); }
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export CREDALBOOK_RECORDS_DIR="$PWD/results" CREDALBOOK_CACHE_DIR=/tmp/credalbook-device-cache
stamp=$(mktemp)
touch "$stamp"

(nvidia-smi -L || echo "no nvidia-smi") > "$out/gpu.txt" 2>&1
$PY - >> "$out/gpu.txt" 2>&1 <<'EOF'
import torch
print("torch", torch.__version__, "cuda available:", torch.cuda.is_available())
EOF

if [ "${TESTS:-1}" != 0 ]; then
  timeout $(( $(left) / 4 )) $PY -m pytest -q -p no:cacheprovider -k "cuda" \
    tests/gp tests/nn tests/metrics tests/stats tests/calibration tests/papers/mimori tests/papers/wu_gales \
    > "$out/cuda-tests.txt" 2>&1
  echo "cuda tests: exit $? (124: cut at the time limit)" >> "$out/cuda-tests.txt"
  tail -5 "$out/cuda-tests.txt"
fi

if [ "${STEPS:-1}" != 0 ]; then
  timeout $(( $(left) / 3 )) $PY scripts/benchmark.py --only-step --record step-gpu > "$out/step.txt" 2>&1
  echo "step timing: exit $?" >> "$out/step.txt"
  cat "$out/step.txt"
fi

chapter=${CHAPTER:-05_epistemic_uncertainty_gp}
parts=()
for p in ${PARTS:-missing}; do parts+=(--part "$p"); done
if [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) - 20 )) $PY -m credalbook.book run --scale "${SCALE:-paper}" -c "$chapter" "${parts[@]}" \
    -p device "${DEVICE:-cuda}" --no-progress > "$out/parts.txt" 2>&1
  echo "parts: exit $? (124: cut at the time limit; the parts recorded before stay)" >> "$out/parts.txt"
  grep -E "recorded in|exit" "$out/parts.txt"
fi

(cd results && find . -type f -newer "$stamp" -print0 | tar --null -T - -cf "$out/records.tar")
echo "records back: $(tar -tf "$out/records.tar" | wc -l) files"
