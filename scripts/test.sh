#!/usr/bin/env bash
# The test command: installs what is missing, builds, fuzzes briefly, runs every test with CTest,
# then the sanitizer builds' tests. Each phase prints one line with its duration.
set -euo pipefail
cd "$(dirname "$0")/.."
export NNEMU_JOB=test.sh
source scripts/phases.sh
jobs="$(nproc)"
bash scripts/build.sh
# The libFuzzer targets (clang, ASan + UBSan: the .tflite loader, stored NPU programs, models
# through the C API) for half a minute each over their seed corpora and regression inputs;
# longer runs: see tests/fuzz/CMakeLists.txt.
phase "configuring build-fuzz" cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DNNEMU_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
phase "building build-fuzz" cmake --build build-fuzz -j"$jobs" \
    --target tflite_loader_fuzz npu_program_fuzz nnapi_model_fuzz
phase "running fuzzers" ctest --test-dir build-fuzz -R '_fuzz_short$' --output-on-failure -j"$jobs"
status=0
phase "running ctest" ctest --test-dir build --output-on-failure -j"$jobs" | tee build/ctest-output.txt ||
  status=$?
bash scripts/skipped-summary.sh build build/ctest-output.txt
[ "$status" -eq 0 ] || exit "$status"
# The unit, API, cache and synap-npu tests under ASan + UBSan, the concurrency tests under TSan.
bash scripts/sanitize.sh
