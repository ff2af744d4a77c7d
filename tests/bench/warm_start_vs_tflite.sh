#!/usr/bin/env bash
# Warm start against real TensorFlow Lite with its weight cache: Init + First inference (as
# benchmark_model reports them) of the second and of the third process running a model, nnemu on
# the NNAPI path with the SyNAP cache (a fresh device root per pass) and, on another fresh root,
# with the NNAPI compilation cache too (vendor.npu.cache.model=1, --delegate_serialize_dir and
# _token: a hit prepares from the cache file and never opens the SyNAP cache), TFLite with
# XNNPACK and --xnnpack_weight_cache_file_path (a fresh cache file per pass); the first process
# of each fills the caches. One thread each; with THREADS=default, nnemu's default threads against
# TFLite's --num_threads=2. Passes alternate between the tools; each cell is the
# median over the passes. Prints a Markdown table (BENCHMARKS.md, "Warm start"); with
# BASE_BUILD_DIR (an earlier build) two columns for it too (SyNAP cache, and NNAPI cache on a root
# of its own), measured in the same passes.
#
# A second table gives each cell's minimum over the passes (on a loaded machine the median
# mostly measures the other processes).
#
#   [MODELS=regex] [THREADS=default] [RUNS=n] bash tests/bench/warm_start_vs_tflite.sh [BUILD_DIR] [PASSES] [BASE_BUILD_DIR]   (issue 26's seven models by default)
set -euo pipefail
build=${1:-build}
passes=${2:-3}
base=${3:-}
source "$(dirname "$0")/tflite_peer.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
threads=1
if [[ ${THREADS:-1} == default ]]; then
    unset NNEMU_NPU_THREADS
    threads=2
else
    export NNEMU_NPU_THREADS=1
fi
source "$here/issue26_models.sh"
sleep 2  # a model file changed in the last two seconds is hashed, not known by its identity

common=(--num_threads=$threads --num_runs=${RUNS:-5} --min_secs=0 --warmup_runs=1 --warmup_min_secs=0)
# "init_us first_us steady_us" of one benchmark_model run.
start() {
    "$@" 2>&1 | sed -n 's/.*Init: \([0-9.e+]*\), First inference: \([0-9.e+]*\),.*Inference (avg): \([0-9.e+]*\).*/\1 \2 \3/p' | tail -1
}
ours() { NNEMU_ROOT=$root start "${bin:-$build}/bin/benchmark_model" --graph="$1" --use_nnapi=true --nnapi_accelerator_name=synap-npu "${common[@]}" "${nnapi[@]}"; }
theirs() { start "$tflite" --graph="$1" --use_xnnpack=true --xnnpack_weight_cache_file_path="$cache" "${common[@]}"; }
# The median (or with stat=minimum the minimum) of the numbers on stdin.
summary() {
    if [[ $stat == minimum ]]; then sort -g | head -1; return; fi
    median
}

for ((pass = 0; pass < passes; ++pass)); do
    for model in "${models[@]}"; do
        name=$(basename "$model" .tflite)
        root=$work/root.$pass.$name
        cache=$work/xnn.$pass.$name
        serialize=$work/serialize.$pass.$name
        mkdir -p "$serialize"
        NNEMU_ROOT=$work/nnapi.$pass.$name "$build/bin/setprop" vendor.npu.cache.model 1
        nnapi=()
        ours "$model" > /dev/null       # cold: compiles and stores
        theirs "$model" > /dev/null     # cold: packs and writes the weight cache
        nnapi=(--delegate_serialize_dir="$serialize" --delegate_serialize_token="$name")
        root=$work/nnapi.$pass.$name ours "$model" > /dev/null
        for run in second third; do
            nnapi=()
            ours "$model" >> "$work/$name.ours.$run"
            theirs "$model" >> "$work/$name.theirs.$run"
            nnapi=(--delegate_serialize_dir="$serialize" --delegate_serialize_token="$name")
            root=$work/nnapi.$pass.$name ours "$model" >> "$work/$name.nnapi.$run"
        done
        nnapi=()
        if [[ -n $base ]]; then
            root=$work/base.$pass.$name bin=$base
            ours "$model" > /dev/null
            for run in second third; do ours "$model" >> "$work/$name.base.$run"; done
            # The base build with the NNAPI compilation cache too, on a root of its own.
            root=$work/basennapi.$pass.$name
            mkdir -p "$serialize.base"
            NNEMU_ROOT=$root "$base/bin/setprop" vendor.npu.cache.model 1
            nnapi=(--delegate_serialize_dir="$serialize.base" --delegate_serialize_token="$name")
            ours "$model" > /dev/null
            for run in second third; do ours "$model" >> "$work/$name.basennapi.$run"; done
            nnapi=() bin=
        fi
    done
done

# Init + First inference in ms, and the steady state, over the passes.
warm() { awk '{printf "%.3f\n", ($1 + $2) / 1000}' "$1" | summary; }
steady() { awk '{printf "%.3f\n", $3 / 1000}' "$1" | summary; }
# First inference alone over the same run's steady state (issue 26: within 1.5x).
firstratio() { awk '$3 > 0 {printf "%.3f\n", $2 / $3}' "$1" | summary; }
for stat in median minimum; do
    echo
    echo "$stat over $passes passes:"
    echo
    echo "| model | run | nnemu Init + first (ms) | nnemu + NNAPI cache (ms) | TFLite + weight cache Init + first (ms) | ratio | ratio NNAPI cache | nnemu steady (ms) | TFLite steady (ms) | first ÷ steady: nnemu | nnemu + NNAPI cache | TFLite |${base:+ base build Init + first (ms) | base + NNAPI cache (ms) |}"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|${base:+---|---|}"
    for model in "${models[@]}"; do
        name=$(basename "$model" .tflite)
        for run in second third; do
            a=$(warm "$work/$name.ours.$run"); b=$(warm "$work/$name.theirs.$run"); d=$(warm "$work/$name.nnapi.$run")
            sa=$(steady "$work/$name.ours.$run"); sb=$(steady "$work/$name.theirs.$run")
            if [[ -z $a || -z $b || -z $d ]]; then
                echo "| $name | $run | ${a:-failed} | ${d:-failed} | ${b:-failed} | - | - | | | | | |"
                continue
            fi
            fa=$(firstratio "$work/$name.ours.$run"); fd=$(firstratio "$work/$name.nnapi.$run"); fb=$(firstratio "$work/$name.theirs.$run")
            c=; [[ -n $base ]] && c=" $(warm "$work/$name.base.$run") | $(warm "$work/$name.basennapi.$run") |"
            awk -v n="$name" -v r="$run" -v a="$a" -v b="$b" -v d="$d" -v sa="$sa" -v sb="$sb" -v c="$c" \
                -v fa="${fa:-0}" -v fd="${fd:-0}" -v fb="${fb:-0}" \
                'BEGIN {printf "| %s | %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |%s\n", n, r, a, d, b, a / b, d / b, sa, sb, fa, fd, fb, c}'
        done
    done
done
