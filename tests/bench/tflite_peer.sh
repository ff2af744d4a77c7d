# Sourced by the *_vs_tflite.sh scripts (after `set -euo pipefail`): sets `here` (tests/bench),
# `shared` (../shared, or NNEMU_SHARED_DIR) and `tflite` (real TensorFlow Lite's
# benchmark_model there), or exits 2 naming the script when TFLite is not there; defines
# `median` and `inferenceAverage`.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
shared=${NNEMU_SHARED_DIR:-$here/../../../shared}
tflite=$shared/tflite/bin/benchmark_model
if [[ ! -x $tflite ]]; then
    echo "$(basename "${BASH_SOURCE[1]}" .sh): real TensorFlow Lite not found at $tflite (../shared/tflite; set NNEMU_SHARED_DIR)" >&2
    exit 2
fi

# The median of the numbers on stdin (nothing for none).
median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# The steady-state average in microseconds of a benchmark_model command (its last "Inference
# (avg)" line).
inferenceAverage() {
    "$@" 2>&1 | sed -n 's/.*Inference (avg): \([0-9.e+]*\).*/\1/p' | tail -1
}
