#!/usr/bin/env bash
# The reading side of `caplab tune` on a real GPU (observe only: no limit, clock or setting is changed).
# Each job runs under `caplab throughput --follow` (a pty, its rate read live as tune reads it) while tee writes
# the log independently of CapLab; `caplab throughput` then reads the finished log. Writes $OUT/tune-follow.json.
# Run from the checkout that carries the bundle: bash .device-tune/bench/gpu/tune-follow.sh .device-tune
set -uo pipefail
B=${1:-.device-tune}
OUT=${OUT:-/tmp/tune-follow}
mkdir -p "$OUT"
[ -x "$B/node" ] || xz -dc "$B/node.xz" > "$B/node" && chmod +x "$B/node"
export CAPLAB_DATA_DIR=$(mktemp -d) CAPLAB_BUNDLED=1
caplab() { "$B/node" "$B/caplab.mjs" "$@"; }
nvidia-smi --query-gpu=name,power.limit,power.default_limit --format=csv | tee "$OUT/limits-before.csv"
run() { # name adapter argv...
  local name=$1 adapter=$2; shift 2
  caplab throughput --follow --every 5 --adapter "$adapter" --json -- /bin/sh -c "$* | tee $OUT/$name.log" > "$OUT/$name.live.json" 2> "$OUT/$name.stderr"
  caplab throughput "$OUT/$name.log" --adapter "$adapter" --json > "$OUT/$name.file.json"
}
run vision-protocol protocol python3 "$B/resources/workloads/python/vision.py" --model resnet50 --precision bf16 --channels-last --batch-size 128 --steps 300 --warmup-steps 30
run torch-ratelines rate-lines python3 "$B/bench/gpu/tune_follow_job.py" --epochs 4 --steps 60 --batch-size 128
run torch-hpcai hpcai-vision python3 "$B/bench/gpu/tune_follow_job.py" --epochs 4 --steps 60 --batch-size 128
nvidia-smi --query-gpu=name,power.limit,power.default_limit --format=csv | tee "$OUT/limits-after.csv"
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
res = {}
for name in ["vision-protocol", "torch-ratelines", "torch-hpcai"]:
    try:
        live = json.load(open(os.path.join(out, name + ".live.json")))
        fin = json.load(open(os.path.join(out, name + ".file.json")))
        res[name] = {"live_rate": live["rate"], "live_adapter_rate": live["adapter_rate"], "file_rate": fin["rate"], "adapter": fin["adapter"],
                     "rel_diff": (live["rate"] - fin["rate"]) / fin["rate"], "live_readings": [r["rate"] for r in live["readings"]], "lines": live["lines"], "exit_code": live["exit_code"]}
    except Exception as e:
        res[name] = {"error": repr(e)}
json.dump(res, open(os.path.join(out, "tune-follow.json"), "w"), indent=2)
print(json.dumps(res, indent=2))
PY
