#!/bin/sh
# nnemu_conformance --skip-if-missing on a vectors folder that does not exist (../shared gone
# after configure): exits 77, CTest's skip, with a SKIPPED line that names the folder.
# usage: missing_vectors_skip.sh NNEMU_CONFORMANCE WORKDIR
set -u
runner=$1 work=$2
rm -rf "$work"
mkdir -p "$work"
status=0
"$runner" --vectors "$work/no-such-vectors" --skip-if-missing > "$work/out" 2>&1 || status=$?
cat "$work/out"
[ "$status" -eq 77 ] || { echo "FAIL: exit status $status, expected 77" >&2; exit 1; }
grep -q "^SKIPPED: conformance vectors not found at $work/no-such-vectors " "$work/out" ||
  { echo "FAIL: no SKIPPED line naming the folder" >&2; exit 1; }
# Without the flag a missing folder stays a usage error.
status=0
"$runner" --vectors "$work/no-such-vectors" > /dev/null 2>&1 || status=$?
[ "$status" -eq 2 ] || { echo "FAIL: without --skip-if-missing the exit status is $status, expected 2" >&2; exit 1; }
echo "missing vectors: skipped as expected"
