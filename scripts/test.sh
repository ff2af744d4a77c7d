#!/usr/bin/env bash
# The test command: installs what is missing, builds, fuzzes briefly, runs every test with CTest,
# then the sanitizer builds' tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The libFuzzer targets (clang, ASan + UBSan: the .tflite loader, stored NPU programs, models
# through the C API) for half a minute each over their seed corpora and regression inputs;
# longer runs: see tests/fuzz/CMakeLists.txt.
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DNNEMU_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-fuzz -j"$(nproc)" --target tflite_loader_fuzz npu_program_fuzz nnapi_model_fuzz
ctest --test-dir build-fuzz -R '_fuzz_short$' --output-on-failure -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The unit, API, cache and synap-npu tests under ASan + UBSan, the concurrency tests under TSan.
bash scripts/sanitize.sh
