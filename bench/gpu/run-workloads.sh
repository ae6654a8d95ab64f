#!/usr/bin/env bash
# On the GPU machine: every built-in workload through CapLab (observe-only, NVML), then llama_pretrain on 2 GPUs.
# Needs the device bundle (scripts/device-bundle.sh) in .device/. Writes into $OUT (or ./out).
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT" /tmp/caplab-node
xz -dc .device/node.xz > /tmp/caplab-node/node && chmod +x /tmp/caplab-node/node
export PATH=/tmp/caplab-node:$PATH CAPLAB_DATA_DIR=/tmp/caplab-data CAPLAB_DB=/tmp/caplab-data/h200.db PYTHONUNBUFFERED=1
cl() { node .device/caplab.mjs "$@"; }
{ date -u; nvidia-smi --query-gpu=index,name,power.limit,driver_version --format=csv; python3 -c 'import torch; print("torch", torch.__version__)'; } > "$OUT/machine.txt" 2>&1
cl devices --backend nvml --json > "$OUT/devices.json" 2> "$OUT/devices.log"
timeout 420 node .device/caplab.mjs sweep bench/gpu/plans/h200-workloads.yaml --json > "$OUT/workloads.json" 2> "$OUT/sweeps.log"
echo "workloads sweep exit $?" >> "$OUT/sweeps.log"
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then
  timeout 150 node .device/caplab.mjs sweep bench/gpu/plans/h200-llama-2gpu.yaml --json > "$OUT/llama-2gpu.json" 2>> "$OUT/sweeps.log"
  echo "2-GPU sweep exit $?" >> "$OUT/sweeps.log"
fi
cl analyze 1 --json > "$OUT/analyze-1.json" 2>> "$OUT/sweeps.log"
cl runs --json > "$OUT/runs.json" 2>> "$OUT/sweeps.log"
