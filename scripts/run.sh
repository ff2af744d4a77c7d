#!/usr/bin/env bash
# The main job: builds what it runs (the model generator and benchmark_model, with the library),
# generates a MobileNet and runs it through NNAPI on synap-npu with benchmark_model, as the board
# documentation does; then shows the NPU statistics it left.
set -euo pipefail
cd "$(dirname "$0")/.."
export NNEMU_JOB=run.sh
source scripts/phases.sh
bash scripts/build.sh nnemu_modelgen benchmark_model
export NNEMU_ROOT="${NNEMU_ROOT:-$PWD/build/device-root}"
echo "device root: $NNEMU_ROOT"
main() {
  mkdir -p build/models
  build/bin/nnemu_modelgen mobilenet_v1_0.25_224_quant build/models/mobilenet_v1_0.25_224_quant.tflite
  build/bin/benchmark_model --graph=build/models/mobilenet_v1_0.25_224_quant.tflite \
      --use_nnapi=true --nnapi_accelerator_name=synap-npu
  local stats="$NNEMU_ROOT/sys/class/misc/synap/statistics"
  echo "NPU statistics ($stats): inference_count=$(cat "$stats/inference_count") inference_time=$(cat "$stats/inference_time") us"
}
phase running main
