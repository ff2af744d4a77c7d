#!/usr/bin/env bash
# Memory of several processes running one model, against real TensorFlow Lite with its weight
# cache: the PSS sum (smaps_rollup) of 1 and of N processes, each a benchmark_model running the
# model (an inference every 20 ms, one thread), warm: nnemu on the NNAPI path with the SyNAP cache
# filled (a cold run, then the first hit that writes the program file), TFLite with XNNPACK and
# --xnnpack_weight_cache_file_path filled by a first run. Prints a Markdown table of the growth per
# extra process, (PSS of N - PSS of 1) / (N - 1), and the ratio nnemu / TFLite (BENCHMARKS.md,
# "Memory against TFLite"). With DETAIL=1 also the largest private mappings of one process of each.
#
#   [MODELS=regex] bash tests/bench/memory_vs_tflite.sh [BUILD_DIR] [N]   (issue 26's seven models by default)
set -euo pipefail
build=${1:-build}
count=${2:-4}
source "$(dirname "$0")/tflite_peer.sh"
work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
settle=${SETTLE:-6}
source "$here/issue26_models.sh"
sleep 2  # a model file changed in the last two seconds is hashed, not known by its identity

common=(--num_threads=1)
steady=(--num_runs=1000000 --min_secs=0 --max_secs=600 --run_delay=0.02)
once=(--num_runs=1 --min_secs=0 --warmup_runs=0)
# Each becomes the benchmark_model process (callers run it in a subshell or in the background).
ours() { NNEMU_ROOT=$work/root NNEMU_NPU_THREADS=1 exec "$build/bin/benchmark_model" --graph="$model" --use_nnapi=true \
             --nnapi_accelerator_name=synap-npu "${common[@]}" "$@" > /dev/null 2>&1; }
theirs() { exec "$tflite" --graph="$model" --use_xnnpack=true --xnnpack_weight_cache_file_path="$work/xnn.cache" \
               "${common[@]}" "$@" > /dev/null 2>&1; }
pssSum() {
    local sum=0 p
    for p in "${pids[@]}"; do sum=$((sum + $(awk '$1 == "Pss:" {print $2}' "/proc/$p/smaps_rollup"))); done
    echo "$sum"
}
detail() {
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6 ? $6 : "[anon]") }
         /^Private_(Clean|Dirty):/ { private[name] += $2 }
         END { for (n in private) if (private[n] >= 256) print "    " private[n] " kB " n }' "/proc/$1/smaps" | sort -rn >&2
}
stopAll() {
    for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
    wait 2> /dev/null || true
    pids=()
}
# Growth per extra process in KiB, for the tool function $1.
growth() {
    local tool=$1 one many i
    ("$tool" "${once[@]}")
    ("$tool" "${once[@]}")
    "$tool" "${steady[@]}" & pids+=($!)
    sleep "$settle"
    one=$(pssSum)
    [[ ${DETAIL:-0} == 1 ]] && { echo "  $tool $(basename "$model"), one process:" >&2; detail "${pids[0]}"; }
    stopAll
    for ((i = 0; i < count; ++i)); do "$tool" "${steady[@]}" & pids+=($!); done
    sleep "$settle"
    many=$(pssSum)
    stopAll
    echo $(((many - one) / (count - 1)))
}

echo "| model | TFLite + weight cache, KiB per extra process | nnemu, KiB per extra process | ratio |"
echo "|---|---|---|---|"
for model in "${models[@]}"; do
    rm -rf "$work/root" "$work/xnn.cache"
    t=$(growth theirs)
    o=$(growth ours)
    awk -v m="$(basename "$model" .tflite)" -v t="$t" -v o="$o" 'BEGIN {printf "| %s | %d | %d | **%.2f** |\n", m, t, o, o / t}'
done
