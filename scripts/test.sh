#!/usr/bin/env bash
# The test command: installs what is missing, builds, fuzzes the .tflite loader briefly, and runs
# every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
# The loader's libFuzzer target (clang, ASan + UBSan) for half a minute over its seed corpus and
# regression inputs; longer runs: see tests/fuzz/CMakeLists.txt.
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DNNEMU_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-fuzz -j"$(nproc)" --target tflite_loader_fuzz
ctest --test-dir build-fuzz -R tflite_loader_fuzz_short --output-on-failure
ctest --test-dir build --output-on-failure -j"$(nproc)"
