#!/usr/bin/env bash
# Regenerates the seed corpora of nnapi_model_fuzz and npu_program_fuzz from the loader's corpus
# of .tflite models (make_corpus.sh): the NNAPI models the TFLite delegate builds from them, and
# the NPU programs synap-npu compiles from those.
# usage: tests/fuzz/make_fuzz_corpora.sh [path/to/nnemu_fuzz_corpus_generator]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
generator="${1:-$here/../../build/bin/nnemu_fuzz_corpus_generator}"
rm -rf "$here/corpus/nnapi_model" "$here/corpus/npu_program"
"$generator" "$here/corpus/tflite" "$here/corpus/nnapi_model" "$here/corpus/npu_program"
du -sh "$here/corpus/nnapi_model" "$here/corpus/npu_program"
