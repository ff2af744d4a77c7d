#!/usr/bin/env bash
# Issue 26's steady-state table: both tools' benchmark_model on each model, one thread each
# (nnemu on synap-npu through NNAPI with NNEMU_NPU_THREADS=1, TFLite on XNNPACK), then nnemu's
# default threads against TFLite's --num_threads=2, and for float models nnemu on one thread with
# relaxed computation allowed (--nnapi_allow_fp16=true) against TFLite's float32. Each model runs
# once on the device root before the passes (the root is warm: no compilation is timed); the
# passes interleave the tools; each cell is the median over the passes of the steady-state
# average (Inference (avg)), the ratio nnemu / TFLite with its range over the passes. Prints a
# Markdown table (BENCHMARKS.md, "Against real TensorFlow Lite in the same run").
#
#   [MODELS=regex] [RUNS=n] bash tests/bench/steady_vs_tflite.sh [BUILD_DIR] [PASSES]   (issue 26's seven models by default)
set -euo pipefail
build=${1:-build}
passes=${2:-3}
source "$(dirname "$0")/tflite_peer.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$here/issue26_models.sh"
export NNEMU_ROOT=$work/root
runs=(--num_runs=${RUNS:-30})

# The steady-state average in ms of one benchmark_model run.
avg() { inferenceAverage "$@" | awk '{printf "%.4f\n", $1 / 1000}'; }
ours() { avg "$build/bin/benchmark_model" --graph="$1" --use_nnapi=true --nnapi_accelerator_name=synap-npu "${@:2}" "${runs[@]}"; }
theirs() { avg "$tflite" --graph="$1" "${@:2}" "${runs[@]}"; }
isFloat() { [[ $(basename "$1") == *float* ]]; }

for model in "${models[@]}"; do ours "$model" > /dev/null; done
for ((pass = 0; pass < passes; ++pass)); do
    for model in "${models[@]}"; do
        n=$work/$(basename "$model" .tflite)
        theirs "$model" --num_threads=1 >> "$n.t1"
        NNEMU_NPU_THREADS=1 ours "$model" --num_threads=1 >> "$n.o1"
        theirs "$model" --num_threads=2 >> "$n.t2"
        ours "$model" >> "$n.od"
        if isFloat "$model"; then NNEMU_NPU_THREADS=1 ours "$model" --num_threads=1 --nnapi_allow_fp16=true >> "$n.or"; fi
    done
done

# "median (min-max)" of the per-pass ratios of files $1 / $2.
ratio() {
    paste "$1" "$2" | awk '{print $1 / $2}' > "$work/r"
    printf '%.2f (%.2f-%.2f)' "$(median < "$work/r")" "$(sort -g "$work/r" | head -1)" "$(sort -g "$work/r" | tail -1)"
}
echo "| model | TFLite 1 thread | nnemu 1 thread | ratio | TFLite 2 threads | nnemu default | ratio | nnemu relaxed, 1 thread | ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
for model in "${models[@]}"; do
    n=$work/$(basename "$model" .tflite)
    relaxed="| |"
    if isFloat "$model"; then relaxed="| $(median < "$n.or") ms | $(ratio "$n.or" "$n.t1")"; fi
    echo "| $(basename "$model" .tflite) | $(median < "$n.t1") ms | $(median < "$n.o1") ms | $(ratio "$n.o1" "$n.t1")" \
         "| $(median < "$n.t2") ms | $(median < "$n.od") ms | $(ratio "$n.od" "$n.t2") $relaxed |"
done
