#!/usr/bin/env bash
# Installs what is missing, configures build/ once (Release; an existing configuration is kept,
# whoever made it, so the main job and the test command never reconfigure each other's build)
# and builds the given targets (all when none). Executables in build/bin, libraries in build/lib.
# usage: scripts/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/phases.sh

configure() {
  local args=()
  # NNEMU_TEST_DATA=<dir> names the test data folder (../shared by default).
  [ -z "${NNEMU_TEST_DATA:-}" ] || args+=("-DNNEMU_SHARED_DIR=$NNEMU_TEST_DATA")
  if [ -f build/CMakeCache.txt ]; then
    # The build re-runs CMake itself when a CMakeLists.txt changed; the build type stays.
    [ ${#args[@]} -eq 0 ] || cmake -S . -B build "${args[@]}" >/dev/null
    return 0
  fi
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${args[@]}" >/dev/null
}

targets=()
for target in "$@"; do targets+=(--target "$target"); done
phase installing bash scripts/install-deps.sh
phase configuring configure
# The compiler's output goes to build/build.log, shown when the build fails.
phase "building${*:+ $*}" logged build/build.log cmake --build build -j"$(nproc)" "${targets[@]}"
