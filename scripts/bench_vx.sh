#!/bin/sh
# vx path (libvx_delegate.so) against the NNAPI path (--use_nnapi, synap-npu) on the same models
# (generated MobileNets and the shared corpus), alternating the paths in the same run so all see
# the same machine load. A third path, vxcache, is the vx path loading its compiled graph from
# cache_file_path (written once beforehand), to show what allowed_cache_mode saves at the first
# inference. Usage: scripts/bench_vx.sh [build dir] [rounds] [shared dir]. Prints one line per
# model and path: the medians over the rounds of benchmark_model's "First inference" and
# "Inference (avg)" (us).
set -eu
build=${1:-build}
rounds=${2:-5}
shared=${3:-../shared}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_NPU_THREADS=${NNEMU_NPU_THREADS:-1}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
# One benchmark_model run in a fresh device root (a cold SyNAP cache): "first avg" in us.
run() {
    root=$(mktemp -d "$work/root.XXXXXX")
    NNEMU_ROOT="$root" "$build/bin/benchmark_model" --graph="$1" --num_runs=100 --min_secs=0 "$2" "$3" 2>&1 |
        grep 'Inference timings' | sed -E 's/.*First inference: ([0-9.e+]+).*Inference \(avg\): ([0-9.e+]+).*/\1 \2/'
    rm -rf "$root"
}
models=""
for name in mobilenet_v1_1.0_224_quant mobilenet_v1_1.0_224_int8 mobilenet_v1_0.25_224_quant mobilenet_v2_1.0_224_quant; do
    # "gen-": the shared corpus has a mobilenet_v2_1.0_224_quant too.
    "$build/bin/nnemu_modelgen" "$name" "$work/gen-$name.tflite" >/dev/null
    models="$models $work/gen-$name.tflite"
done
for file in "$shared"/models/models/*.tflite; do
    [ -f "$file" ] && models="$models $file"
done
vx=--external_delegate_path=libvx_delegate.so
for model in $models; do
    name=$(basename "$model" .tflite)
    cache="$work/$name.nbg"
    run "$model" "$vx" "--external_delegate_options=allowed_cache_mode:1;cache_file_path:$cache" >/dev/null
    for round in $(seq "$rounds"); do
        run "$model" --use_nnapi=true --nnapi_accelerator_name=synap-npu >> "$work/$name.nnapi"
        run "$model" "$vx" --verbose=false >> "$work/$name.vx"
        run "$model" "$vx" "--external_delegate_options=allowed_cache_mode:1;cache_file_path:$cache" >> "$work/$name.vxcache"
    done
    for path in nnapi vx vxcache; do
        first=$(cut -d' ' -f1 "$work/$name.$path" | median)
        avg=$(cut -d' ' -f2 "$work/$name.$path" | median)
        echo "$name $path first_us=$first avg_us=$avg"
    done
done
