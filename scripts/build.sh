#!/usr/bin/env bash
# Configures and builds nnemu into build/ (executables in build/bin, libraries in build/lib).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
