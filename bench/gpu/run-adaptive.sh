#!/usr/bin/env bash
# On the GPU machine: the observe-only adaptive plan (bench/gpu/plans/h200-adaptive.yaml) through CapLab (NVML),
# then its analysis. Needs the device bundle (scripts/device-bundle.sh) in .device/. Writes into $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT" /tmp/caplab-node
xz -dc .device/node.xz > /tmp/caplab-node/node && chmod +x /tmp/caplab-node/node
export PATH=/tmp/caplab-node:$PATH CAPLAB_DATA_DIR=/tmp/caplab-data CAPLAB_DB=/tmp/caplab-data/h200.db PYTHONUNBUFFERED=1
{ date -u; nvidia-smi --query-gpu=index,name,power.limit,driver_version --format=csv; } > "$OUT/machine.txt" 2>&1
timeout 540 node .device/caplab.mjs sweep bench/gpu/plans/h200-adaptive.yaml --json > "$OUT/adaptive-sweep.json" 2> "$OUT/adaptive-sweep.log"
echo "adaptive sweep exit $?" >> "$OUT/adaptive-sweep.log"
node .device/caplab.mjs analyze 1 --json > "$OUT/adaptive-analyze.json" 2>> "$OUT/adaptive-sweep.log"
nvidia-smi --query-gpu=index,power.limit --format=csv >> "$OUT/machine.txt" 2>&1
