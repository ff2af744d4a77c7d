#!/usr/bin/env bash
# Whole models on the tools' CPU path (benchmark_model without a delegate) against real TensorFlow
# Lite's default (XNNPACK), both as a user types them first: `benchmark_model --graph=M` with run
# counts only (each tool then runs one thread); issue 26's seven models (tests/bench/issue26_models.sh).
# THREADS=n gives both tools --num_threads=n (TFLite's kernels and nnemu's CPU kernels share each
# node's work among n threads).
# Passes alternate between the tools; each cell is the median of the passes' steady-state averages
# (microseconds). Prints a Markdown table (BENCHMARKS.md, "The CPU path on whole models"); with
# BASE_BUILD_DIR (an earlier build) a column for it too, measured in the same passes.
#
#   [MODELS=regex] [BUSY=n] [THREADS=n] bash tests/bench/cpu_path_models_vs_tflite.sh [BUILD_DIR] [PASSES] [BASE_BUILD_DIR]
#
# BUSY=n runs n busy loops (`yes > /dev/null`) for the whole measurement: a loaded machine.
set -euo pipefail
build=${1:-build}
passes=${2:-3}
base=${3:-}
source "$(dirname "$0")/tflite_peer.sh"
work=$(mktemp -d)
busy=()
trap 'rm -rf "$work"; for p in "${busy[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
source "$here/issue26_models.sh"
for ((i = 0; i < ${BUSY:-0}; ++i)); do
    yes > /dev/null &
    busy+=($!)
done
runs=(--num_runs=20 --min_secs=0.3 --warmup_runs=2 --warmup_min_secs=0)
[[ -n ${THREADS:-} ]] && runs+=(--num_threads="$THREADS")
declare -A cells
for ((pass = 0; pass < passes; ++pass)); do
    for m in "${models[@]}"; do
        name=$(basename "$m" .tflite)
        [[ -n $base ]] && cells[$name,base]+="$(inferenceAverage "$base/bin/benchmark_model" --graph="$m" "${runs[@]}") "
        cells[$name,ours]+="$(inferenceAverage "$build/bin/benchmark_model" --graph="$m" "${runs[@]}") "
        cells[$name,tflite]+="$(inferenceAverage "$tflite" --graph="$m" "${runs[@]}") "
    done
done
cell() { tr ' ' '\n' <<< "${cells[$1]}" | grep -v '^$' | median; }
if [[ -n $base ]]; then
    echo "| model | nnemu before (us) | nnemu (us) | TFLite (us) | ratio before | ratio |"
    echo "|---|---|---|---|---|---|"
else
    echo "| model | nnemu (us) | TFLite (us) | ratio |"
    echo "|---|---|---|---|"
fi
for m in "${models[@]}"; do
    name=$(basename "$m" .tflite)
    ours=$(cell "$name,ours")
    theirs=$(cell "$name,tflite")
    ratio=$(awk -v a="$ours" -v b="$theirs" 'BEGIN {printf "%.2f", a / b}')
    if [[ -n $base ]]; then
        before=$(cell "$name,base")
        echo "| $name | ${before%.*} | ${ours%.*} | ${theirs%.*} | $(awk -v a="$before" -v b="$theirs" 'BEGIN {printf "%.2f", a / b}') | **$ratio** |"
    else
        echo "| $name | ${ours%.*} | ${theirs%.*} | **$ratio** |"
    fi
done
