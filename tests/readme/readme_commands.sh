#!/usr/bin/env bash
# Runs one document's command blocks (README.md or a chapter of docs/): every ```sh block
# preceded by the line "<!-- readme-test -->", in order, each with bash -euo pipefail, from a
# working directory that looks like the repository root (build/bin and build/lib of this build,
# ../shared when present), under a fresh device root. Everything the commands write stays in SCRATCH: /tmp/ in a block
# becomes SCRATCH/tmp/ (the only change made to a command). A block that needs ../shared is
# skipped when the test data is absent, and the test then reports itself skipped (exit 77).
# A block may rely on what an earlier block of the same document wrote, never on another document.
# usage: readme_commands.sh DOCUMENT BUILD_DIR SHARED_DIR SCRATCH
set -euo pipefail
readme=$1 build=$2 shared=$3 scratch=$4
# The document as named in messages: its path from the repository root (docs/npu.md).
root=$(cd "$(dirname "$0")/../.." && pwd)
name=$(realpath --relative-to="$root" "$readme")

rm -rf "$scratch"
mkdir -p "$scratch/repo/build" "$scratch/tmp" "$scratch/blocks"
ln -s "$build/bin" "$scratch/repo/build/bin"
ln -s "$build/lib" "$scratch/repo/build/lib"
[ -d "$shared" ] && ln -s "$shared" "$scratch/shared"
export NNEMU_ROOT="$scratch/device-root"
unset SYNAP_CACHE_PATH SYNAP_CACHE_CAPACITY NNEMU_LOG

# Writes block-<line>.sh for each marked block.
awk -v out="$scratch/blocks" '
  /^<!-- readme-test -->$/ { marked = 1; next }
  marked && /^```sh$/ { file = sprintf("%s/block-%04d.sh", out, NR); inblock = 1; marked = 0; next }
  inblock && /^```$/ { inblock = 0; close(file); next }
  inblock { print > file; next }
  { marked = 0 }
' "$readme"

ran=0 skipped=0
for block in "$scratch"/blocks/block-*.sh; do
  [ -e "$block" ] || { echo "no marked command blocks in $readme"; exit 1; }
  line=${block##*block-}; line=$((10#${line%.sh} + 1))
  if grep -q '\.\./shared' "$block" && [ ! -d "$shared" ]; then
    echo "$name:$line: skipped (needs ../shared, not found at $shared)"
    skipped=$((skipped + 1))
    continue
  fi
  sed -i "s#/tmp/#$scratch/tmp/#g" "$block"
  if ! (cd "$scratch/repo" && bash -euo pipefail "$block" >"$block.log" 2>&1); then
    echo "$name:$line: FAILED; the block:"
    cat "$block"
    echo "its output:"
    tail -n 40 "$block.log"
    exit 1
  fi
  echo "$name:$line: ok"
  ran=$((ran + 1))
done
echo "$name: $ran command blocks ran, $skipped skipped"
[ "$skipped" -eq 0 ] || exit 77
