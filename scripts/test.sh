#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test with CTest, then the
# sanitizer builds' tests and the fuzzers briefly. Each phase prints one line with its duration.
set -euo pipefail
cd "$(dirname "$0")/.."
export NNEMU_JOB=test.sh
source scripts/phases.sh
jobs="$(nproc)"
bash scripts/build.sh
status=0
# CTest's output goes to build/ctest-output.txt; printed without the lines of tests that passed or
# were skipped (the failures with their output, the totals).
phase "running ctest" logged build/ctest-output.txt ctest --test-dir build --output-on-failure -j"$jobs" ||
  status=$?
grep -vE '^ *Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(Passed|\*\*\*Skipped|\*\*\*Not Run \(Disabled\)) +[0-9.]+ sec$|^[[:space:]]*[0-9]+ - .* \((Skipped|Disabled)\)$|^The following tests did not run:$|^Test project |^Internal ctest changing into directory|^$' \
  build/ctest-output.txt || true
bash scripts/skipped-summary.sh build build/ctest-output.txt
[ "$status" -eq 0 ] || exit "$status"
# The sanitizer builds' tests (ASan + UBSan: the unit, API, cache and synap-npu tests; TSan: the
# concurrency tests) and the libFuzzer targets (the .tflite loader, stored NPU programs, models
# through the C API; built in the ASan build) for half a minute each over their seed corpora and
# regression inputs; longer runs: see tests/fuzz/CMakeLists.txt.
bash scripts/sanitize.sh
