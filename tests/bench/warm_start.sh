#!/bin/sh
# First inference with a warm SyNAP cache, across processes, as an application sees it: one
# benchmark_model run fills the cache and writes the program's file (cold), one more records the
# stand-in key of a model file changed less than two seconds before the cold run (first hit),
# then RUNS processes each start warm. Prints, per warm process, the first inference and the
# steady average (benchmark_model's numbers) and the JIT's steps from the --nnemu_trace
# timeline (file identity or model digest at compilation, key, entry index or cache open, mapping,
# the hit logged or counted, core load). Usage:
#   tests/bench/warm_start.sh MODEL.tflite [RUNS]      (build/bin must hold benchmark_model)
set -eu
model=$1
runs=${2:-3}
bin=$(dirname "$0")/../../build/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_ROOT="$work/root" NNEMU_NPU_THREADS="${NNEMU_NPU_THREADS:-1}"
run() {
    "$bin/benchmark_model" --graph="$model" --use_nnapi=true --nnapi_accelerator_name=synap-npu \
        --num_runs=30 --warmup_runs=1 "$@" 2>&1 |
        sed -n 's/.*First inference: \([0-9.]*\),.*Inference (avg): \([0-9.]*\).*/first_us=\1 steady_us=\2/p'
}
echo "cold:      $(run)"
echo "first hit: $(run)"
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    trace="$work/trace$i.json"
    line=$(run --nnemu_trace="$trace")
    steps=$(python3 - "$trace" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
wanted = ("synap cache file identity", "synap cache model digest", "synap cache key", "cache index", "cache open", "map program file",
          "log hit", "count hit", "fold hit log", "core load", "jit")
print(" ".join("%s=%.1fms" % (e["name"].replace(" ", "_"), e["dur"] / 1000)
               for e in events if e.get("ph") == "X" and e["name"] in wanted))
PY
)
    echo "warm:      $line $steps"
done
