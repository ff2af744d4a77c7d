#!/usr/bin/env bash
# The main job: builds nnemu and runs an NNAPI model through the runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/bin/nnapi_example
