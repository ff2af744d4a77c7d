#!/usr/bin/env bash
# The sanitizer part of the test command: builds the tests that need it with clang in build
# directories of their own and runs them; any report fails.
#  - build-asan (ASan + UBSan): the unit, API (both libraries), cache and synap-npu (statistics
#    included) tests, the TFLite CPU kernels' tests and their quantized sweep's extremes; then
#    (fuzz) the libFuzzer targets, built there too (NNEMU_FUZZ=ON: one sanitized build of the
#    libraries serves both), each for half a minute;
#  - build-tsan (TSan): the concurrency tests: threads sharing one compilation, fenced executions,
#    objects freed while computations that use them run, several processes on one device root
#    (caches, statistics), a warm start's background lookup and load (synap-npu's prefetch), the
#    banded layers on two threads.
# Clang, because GCC's -fsanitize=null stops taking the address of an extern function for a
# constant, which LayerKinds.cpp's table check needs.
# The tests' output goes to build-asan/tests.log and build-tsan/tests.log (shown when they fail:
# a death test's expected sanitizer report is in them too).
# usage: scripts/sanitize.sh [asan|fuzz|tsan]...   (all three when none is named)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh
jobs="$(nproc)"

# Line tables only: the sanitizers' reports need file, line and inlined frames, not variables
# and types (clang compiles the sanitized tests 7-15 % faster and its objects are half the size).
configure() {  # build directory, sanitizers, more CMake arguments
  local flags="-O2 -gline-tables-only -DNDEBUG"
  cmake -S . -B "$1" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
      -DNNEMU_SANITIZE="$2" "${@:3}" >/dev/null
}

# Runs one gtest binary (with its arguments; NAME=VALUE settings first, if any) under a device
# root of its own, inside its build directory (as CTest does: see tests/TestEnvironment.cmake.in),
# with none of the caller's NNEMU_*/SYNAP_* settings and HOME/TMPDIR in the build tree.
run() {
  local scratch status=0 settings=()
  while [[ $1 == *=* ]]; do settings+=("$1"); shift; done
  scratch="$(mktemp -d "$PWD/${1%%/*}/test-run.XXXXXX")" || return 1
  mkdir -p "$scratch/root" "$scratch/home" "$scratch/tmp" || return 1
  echo "== ${settings[*]} $*"
  env $(env | sed -n 's/^\(\(NNEMU\|SYNAP\)_[A-Za-z0-9_]*\)=.*/-u \1/p') \
      HOME="$scratch/home" TMPDIR="$scratch/tmp" XDG_STATE_HOME="$scratch/home/.local/state" \
      NNEMU_ROOT="$scratch/root" "${settings[@]}" "$@" --gtest_brief=1 || status=$?
  chmod -R u+rwx "$scratch"
  rm -rf "$scratch"
  return "$status"
}

asan_tests() {
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  # (Each status kept by hand: under `logged`, a caller that tests the status, errexit is off.)
  local status=0
  run build-asan/bin/nnemu_unit_tests || status=1
  run build-asan/bin/nnemu_api_tests || status=1
  run build-asan/bin/nnemu_api_next_tests || status=1
  run build-asan/bin/nnemu_cache_tests || status=1
  run build-asan/bin/nnemu_synap_tests || status=1
  # The TFLite CPU kernels on quantization scales far outside a converter's (every quantized
  # builtin's sweep) and on the fuzzers' regression inputs: undefined behaviour there fails here.
  run build-asan/bin/nnemu_tflite_sweep_tests --gtest_filter='*ExtremeScales*:*FuzzRegressions*' || status=1
  # The CPU kernels' own tests (random shapes, every path of the 8-bit convolutions, threads).
  run build-asan/bin/nnemu_tflite_kernel_tests || status=1
  return "$status"
}

asan() {
  phase "configuring build-asan" configure build-asan address,undefined -DNNEMU_FUZZ=ON
  phase "building build-asan" logged build-asan/build.log cmake --build build-asan -j"$jobs" --target nnemu_unit_tests nnemu_api_tests \
      nnemu_api_next_tests nnemu_cache_tests nnemu_synap_tests nnemu_tflite_sweep_tests nnemu_tflite_kernel_tests
  phase "running build-asan tests" logged build-asan/tests.log asan_tests
}

fuzz() {
  phase "configuring build-asan" configure build-asan address,undefined -DNNEMU_FUZZ=ON
  phase "building the fuzzers" logged build-asan/build-fuzz.log cmake --build build-asan -j"$jobs" \
      --target tflite_loader_fuzz npu_program_fuzz nnapi_model_fuzz
  local status=0
  phase "running fuzzers" logged build-asan/fuzz.log ctest --test-dir build-asan -R '_fuzz_short$' \
      --output-on-failure -j"$jobs" || status=$?
  [ "$status" -eq 0 ] || fuzz_findings >&2
  return "$status"
}

# After a failed fuzz run, last (where an excerpt of the output's end shows it): each fuzzer's
# seed and report lines, and every input it wrote (crash, timeout, out-of-memory, leak) in
# base64, so that a finding on a machine that is gone can be replayed:
#   base64 -d > input; build-asan/bin/<target>_fuzz input
fuzz_findings() {
  echo "-- the fuzzers' seeds and reports (build-asan/fuzz.log):"
  grep -E 'Running: |INFO: Seed: |ERROR: |SUMMARY: |Test unit written to|^ *#[0-9]+ 0x' build-asan/fuzz.log | head -60 || true
  local input
  for input in build-asan/tests/fuzz/*{crash,timeout,oom,leak,slow-unit}-*; do
    [ -f "$input" ] || continue
    echo "-- $input ($(stat -c %s "$input") bytes), base64 (first 16 KB):"
    base64 -w 0 "$input" | head -c 16384
    echo
  done
}

tsan_tests() {
  # No suppressions needed: Debian's XNNPACK and pthreadpool are not instrumented and their
  # threads run only their code, so TSan records no access of those threads to report; the core's
  # own pool (CorePool) is instrumented, and its tests and the own layers cut over it run here.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  local status=0
  run build-tsan/bin/nnemu_api_tests --gtest_filter='*Concurrent*' || status=1
  run build-tsan/bin/nnemu_api_next_tests --gtest_filter='FencedExecution*:ReusableExecution*:Lifetime*' || status=1
  run build-tsan/bin/nnemu_synap_tests --gtest_filter='SharedCompilation.*:Statistics*:CoreThreads*:CorePool*:OwnSlicing*:PageTouches.Threads*' ||
    status=1
  # Banded layers on two threads whatever the machine's load (runs of bands, and small images
  # side by side in one buffer).
  run NNEMU_NPU_THREADS=2 build-tsan/bin/nnemu_synap_tests --gtest_filter='*/BandedPair.*:*/BandedMobileNet.*' || status=1
  run build-tsan/bin/nnemu_cache_tests --gtest_filter='MultiProcessTest.*:DriverSynapCacheTest.AWarmCompilation*:NnapiCacheTest.ALargeHit*' || status=1
  return "$status"
}

tsan() {
  phase "configuring build-tsan" configure build-tsan thread
  phase "building build-tsan" logged build-tsan/build.log cmake --build build-tsan -j"$jobs" --target nnemu_api_tests nnemu_api_next_tests \
      nnemu_cache_tests nnemu_synap_tests
  phase "running build-tsan tests" logged build-tsan/tests.log tsan_tests
}

steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(asan fuzz tsan)
for step in "${steps[@]}"; do
  case "$step" in
    asan | fuzz | tsan) "$step" ;;
    *) echo "usage: $0 [asan|fuzz|tsan]..." >&2; exit 2 ;;
  esac
done
