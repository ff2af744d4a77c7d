#!/bin/sh
# Runs a test program (CTest calls it through this: the CROSSCOMPILING_EMULATOR of every
# executable under tests/) with a fresh device root of its own in the build tree, removed
# afterwards. A root the test's ENVIRONMENT property names is kept; outside CTest (gtest's test
# discovery at build time) the program just runs.
if [ -z "${NNEMU_TEST_SCRATCH:-}" ] || [ -n "${NNEMU_ROOT:-}" ]; then
  exec "$@"
fi
dir=$(mktemp -d "$NNEMU_TEST_SCRATCH/tmp/root.XXXXXX") || exit 1
NNEMU_ROOT="$dir/device-root"
export NNEMU_ROOT
mkdir -p "$NNEMU_ROOT"
"$@"
status=$?
chmod -R u+rwx "$dir" 2>/dev/null
rm -rf "$dir"
exit "$status"
