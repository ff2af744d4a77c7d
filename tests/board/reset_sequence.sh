#!/bin/sh
# The board's documented reset sequence with the real tools, in a fresh device root:
#   setprop vendor.NNAPI_SYNAP_DISABLE 1; echo > .../inference_count; benchmark_model ...;
#   cat .../inference_count; cat .../inference_time
# prints 0 and 0: benchmark_model applies the reset when it loads the library, even though the
# NPU runs nothing. Then the counters count again from 0, exactly.
# usage: reset_sequence.sh SETPROP BENCHMARK_MODEL MODELGEN WORKDIR [android|yocto]
set -eu
setprop=$1 benchmark=$2 modelgen=$3 work=$4 board=${5:-android}
. "$(dirname "$0")/board_env.sh"
disable() {  # Yocto has no property service: the NPU is left out by naming the CPU device instead
  if [ "$board" = android ]; then "$setprop" vendor.NNAPI_SYNAP_DISABLE "$1"; fi
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
