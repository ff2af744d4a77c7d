#!/bin/sh
# The board's documented reset sequence with the real tools, in a fresh device root:
#   setprop vendor.NNAPI_SYNAP_DISABLE 1; echo > .../inference_count; benchmark_model ...;
#   cat .../inference_count; cat .../inference_time
# prints 0 and 0: benchmark_model applies the reset when it loads the library, even though the
# NPU runs nothing. Then the counters count again from 0, exactly.
# usage: reset_sequence.sh SETPROP BENCHMARK_MODEL MODELGEN WORKDIR [android|yocto]
set -eu
setprop=$1 benchmark=$2 modelgen=$3 work=$4 board=${5:-android}
rm -rf "$work"
mkdir -p "$work/root"
export NNEMU_ROOT="$work/root"
unset SYNAP_CACHE_PATH SYNAP_CACHE_CAPACITY SYNAP_NB_LOG_LEVEL NNEMU_LOG
if [ "$board" = yocto ]; then
  export NNEMU_BOARD=yocto
  S=$NNEMU_ROOT/sys/class/misc/synap/statistics
else
  unset NNEMU_BOARD
  S=$NNEMU_ROOT/sys/class/misc/synap/device/misc/synap/statistics
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect FILE TEXT: the file holds exactly TEXT and a newline
  printf '%s\n' "$2" > "$work/expected"
  cmp -s "$S/$1" "$work/expected" || fail "$1 holds '$(cat "$S/$1")', expected '$2'"
}
disable() {  # Yocto has no property service: the NPU is left out by naming the CPU device instead
  if [ "$board" = android ]; then "$setprop" vendor.NNAPI_SYNAP_DISABLE "$1"; fi
}
bench() {  # bench DEVICE RUNS
  "$benchmark" --graph="$work/model.tflite" --use_nnapi=true --nnapi_accelerator_name="$1" \
      --num_runs="$2" --warmup_runs=1 --min_secs=0 --warmup_min_secs=0 > "$work/bench.log" 2>&1 ||
    { cat "$work/bench.log" >&2; fail "benchmark_model on $1"; }
}
"$modelgen" conv_quant "$work/model.tflite" > /dev/null

# Some NPU work first, so that there is something to reset.
bench synap-npu 3
expect inference_count 4      # one warm-up and three runs
[ "$(cat "$S/inference_time")" -gt 0 ] || fail "inference_time is 0 after NPU work"

# The board's sequence.
disable 1
echo > "$S/inference_count"
if [ "$board" = android ]; then bench synap-npu 2; else bench nnapi-reference 2; fi
expect inference_count 0
expect inference_time 0

# A reset through inference_time, and a deleted file, applied by a process that does no NPU work.
disable 0
bench synap-npu 2
expect inference_count 3
echo 5 > "$S/inference_time"
rm "$S/inference_count"
bench nnapi-reference 1
expect inference_count 0
expect inference_time 0

# Counting goes on exactly from 0.
bench synap-npu 4
expect inference_count 5
echo "reset sequence ($board): ok"
