#!/usr/bin/env bash
# What one whole warm process costs (a root whose SyNAP cache already holds the model; one NPU
# thread; --num_runs=1 --warmup_runs=0), nnemu on the NNAPI path with the SyNAP cache against real
# TensorFlow Lite with its XNNPACK weight cache file: system calls (strace -f -c of one process),
# page faults, CPU time and wall time from start to exit (perf stat -r 10). With BASE_BUILD_DIR
# (an earlier build) its columns come first. Prints Markdown rows (BENCHMARKS.md, "Warm start").
#
#   bash tests/bench/warm_process_counts.sh [BUILD_DIR] [BASE_BUILD_DIR]
set -euo pipefail
build=${1:-build}
base=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
shared=${NNEMU_SHARED_DIR:-$here/../../../shared}
tflite=$shared/tflite/bin/benchmark_model
for tool in strace perf; do
    command -v $tool > /dev/null || { echo "warm_process_counts: $tool not found" >&2; exit 2; }
done
[[ -x $tflite ]] || { echo "warm_process_counts: real TensorFlow Lite not found at $tflite" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_NPU_THREADS=1
one=(--num_threads=1 --num_runs=1 --warmup_runs=0 --min_secs=0 --warmup_min_secs=0)
"$build/bin/nnemu_modelgen" mobilenet_v1_1.0_224_float "$work/mobilenet_v1_1.0_224_float.tflite" > /dev/null
sleep 2  # a model file changed in the last two seconds is hashed, not known by its identity
models=("$shared/models/models/mobilenet_v1_0.25_128_quant.tflite" "$shared/models/models/mobilenet_v2_1.0_224_quant.tflite"
        "$shared/models/models/tf2_mobilenet_v2_1.0_224_ptq.tflite" "$work/mobilenet_v1_1.0_224_float.tflite")

# "calls | page faults | CPU ms | wall ms" of the command.
measure() {
    strace -f -c -o "$work/strace" "$@" > /dev/null 2>&1
    local calls
    calls=$(awk '$NF == "total" {print $4}' "$work/strace")
    perf stat -r 10 -e page-faults,task-clock "$@" 2>&1 > /dev/null |
        awk -v calls="$calls" '/page-faults/ {pf = $1} /task-clock/ {tc = $1} /time elapsed/ {el = $1 * 1000}
                               END {gsub(",", "", pf); printf "%s | %s | %.1f | %.1f", calls, pf, tc, el}'
}

echo "| model |${base:+ base: system calls | page faults | CPU (ms) | wall (ms) |} system calls | page faults | CPU (ms) | wall (ms) | TFLite: system calls | page faults | CPU (ms) | wall (ms) |"
echo "|---|${base:+---|---|---|---|}---|---|---|---|---|---|---|---|"
for model in "${models[@]}"; do
    name=$(basename "$model" .tflite)
    row="| $name |"
    side=0
    for dir in $base $build; do
        root=$work/root.$((side++)).$name
        ours=("$dir/bin/benchmark_model" --graph="$model" --use_nnapi=true --nnapi_accelerator_name=synap-npu "${one[@]}")
        NNEMU_ROOT=$root "${ours[@]}" > /dev/null 2>&1  # compiles and stores
        row="$row $(NNEMU_ROOT=$root measure "${ours[@]}") |"
    done
    theirs=("$tflite" --graph="$model" --use_xnnpack=true --xnnpack_weight_cache_file_path="$work/xnn.$name" "${one[@]}")
    "${theirs[@]}" > /dev/null 2>&1  # packs and writes the weight cache
    row="$row $(measure "${theirs[@]}") |"
    echo "$row"
done
