#!/usr/bin/env bash
# Regenerates the seed corpus of tflite_loader_fuzz from nnemu_modelgen's small models and the
# one-operator models the loader's tests build (CPU kernels, lowering rules).
# usage: tests/fuzz/make_corpus.sh [path/to/nnemu_modelgen [path/to/nnemu_tflite_tests]]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
modelgen="${1:-$here/../../build/bin/nnemu_modelgen}"
tests="${2:-$(dirname "$modelgen")/nnemu_tflite_tests}"
corpus="$here/corpus/tflite"
rm -rf "$corpus"
mkdir -p "$corpus"
# Every small model: the full-size networks would make the corpus megabytes. Of the detector and
# the segmenter, the uint8 flavour (their float weights are 4x larger and add no operator).
"$modelgen" --list | awk '{print $1}' | grep -v -E '^mobilenet_|^(ssd_detector|segmenter)(_raw|_logits)?_float$' |
while read -r name; do
  "$modelgen" "$name" "$corpus/$name.tflite" >/dev/null
done
NNEMU_TEST_MODEL_DUMP_DIR="$corpus" "$tests" --gtest_filter='*Kernel*:OpLowering*:SignedInt8*' >/dev/null
du -sh "$corpus"
