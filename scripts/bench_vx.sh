#!/bin/sh
# vx path (libvx_delegate.so) against the NNAPI path (--use_nnapi, synap-npu) on the same
# generated models, alternating the two in the same run so both see the same machine load.
# Usage: scripts/bench_vx.sh [build dir] [rounds]. Prints one line per model and path: the
# medians over the rounds of benchmark_model's "First inference" and "Inference (avg)" (us).
set -eu
build=${1:-build}
rounds=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NNEMU_NPU_THREADS=${NNEMU_NPU_THREADS:-1}
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
for model in mobilenet_v1_1.0_224_quant mobilenet_v1_1.0_224_int8 mobilenet_v1_0.25_224_quant mobilenet_v2_1.0_224_quant; do
    "$build/bin/nnemu_modelgen" "$model" "$work/$model.tflite" >/dev/null
    for round in $(seq "$rounds"); do
        for path in nnapi vx; do
            if [ "$path" = nnapi ]; then flags="--use_nnapi=true --nnapi_accelerator_name=synap-npu"
            else flags="--external_delegate_path=libvx_delegate.so"; fi
            root="$work/root-$path-$round"   # a fresh device root: a cold SyNAP cache each time
            mkdir -p "$root"
            # shellcheck disable=SC2086
            NNEMU_ROOT="$root" "$build/bin/benchmark_model" --graph="$work/$model.tflite" --num_runs=100 \
                --min_secs=0 $flags 2>&1 | grep 'Inference timings' |
                sed -E 's/.*First inference: ([0-9.e+]+).*Inference \(avg\): ([0-9.e+]+).*/\1 \2/' >> "$work/$model.$path"
        done
    done
    for path in nnapi vx; do
        first=$(cut -d' ' -f1 "$work/$model.$path" | median)
        avg=$(cut -d' ' -f2 "$work/$model.$path" | median)
        echo "$model $path first_us=$first avg_us=$avg"
    done
done
