#!/usr/bin/env bash
# nnemu's CPU path (benchmark_model without a delegate) against TensorFlow Lite's builtin kernels
# (../shared/tflite/bin/benchmark_model --use_xnnpack=false; nnemu's with --use_xnnpack=false too, the same
# semantics), one operator per model at the shapes
# of today's published models (nnemu_bench_cpu_path_models), one thread each. Passes alternate
# between the two tools; each cell is the median over the passes of benchmark_model's steady-state
# average. Prints a Markdown table (BENCHMARKS.md, "CPU path per operator").
#
#   bash tests/bench/cpu_path_vs_tflite.sh [BUILD_DIR] [PASSES] [MODEL_NAME_REGEX]
set -euo pipefail
build=${1:-build}
passes=${2:-3}
filter=${3:-.}
source "$(dirname "$0")/tflite_peer.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_ROOT=$work/root
"$build/bin/nnemu_bench_cpu_path_models" "$work/models" > /dev/null

common=(--num_threads=1 --num_runs=30 --min_secs=0.3 --warmup_runs=2 --warmup_min_secs=0)

echo "| operator model | nnemu CPU path (ms) | TFLite builtin kernels (ms) | ratio |"
echo "|---|---|---|---|"
for model in "$work"/models/*.tflite; do
    name=$(basename "$model" .tflite)
    [[ $name =~ $filter ]] || continue
    : > "$work/ours" && : > "$work/theirs"
    for ((pass = 0; pass < passes; ++pass)); do
        inferenceAverage "$build/bin/benchmark_model" --graph="$model" --use_xnnpack=false "${common[@]}" >> "$work/ours"
        inferenceAverage "$tflite" --graph="$model" --use_xnnpack=false "${common[@]}" >> "$work/theirs"
    done
    ours=$(median < "$work/ours")
    theirs=$(median < "$work/theirs")
    if [[ -z $ours || -z $theirs ]]; then
        echo "| $name | ${ours:-failed} | ${theirs:-failed} | - |"
        continue
    fi
    awk -v n="$name" -v a="$ours" -v b="$theirs" 'BEGIN {printf "| %s | %.3f | %.3f | %.2f |\n", n, a / 1000, b / 1000, a / b}'
done
