#!/usr/bin/env bash
# One line after CTest: how many tests were skipped and why, the missing test data (../shared,
# or NNEMU_TEST_DATA=<dir>) counted apart from other reasons. Reads CTest's console output (the
# "(Skipped)" list) and its log of the last run (each skipped test's reason).
# usage: scripts/skipped-summary.sh BUILD_DIR CTEST_OUTPUT_FILE
set -euo pipefail
build=$1 output=$2
log="$build/Testing/Temporary/LastTest.log"
data=$(sed -n 's/^NNEMU_SHARED_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
mapfile -t skipped < <(sed -n 's/^[[:space:]]*[0-9]\+ - \(.*\) (Skipped)$/\1/p' "$output")
if [ ${#skipped[@]} -eq 0 ]; then
  echo "== skipped tests: none"
  exit 0
fi
# name<TAB>reason for every test in the log that gave a reason for skipping.
reasons=$(awk '
  /^[0-9]+\/[0-9]+ Test: / { sub(/^[0-9]+\/[0-9]+ Test: /, ""); name = $0; next }
  next_is_reason { print name "\t" $0; next_is_reason = 0; next }
  /: Skipped$/ { next_is_reason = 1; next }
  /^SKIPPED: |: skipped \(/ { print name "\t" $0 }
' "$log" 2>/dev/null || true)
missing=0 other=0 why=""
for name in "${skipped[@]}"; do
  reason=$(printf '%s\n' "$reasons" | awk -F '\t' -v n="$name" '$1 == n { print $2; exit }')
  if printf '%s' "$reason" | grep -qiE 'shared|NNEMU_SHARED_DIR|vectors at|models folder|test data'; then
    missing=$((missing + 1))
  else
    other=$((other + 1))
    case "$why" in *"${reason:-no reason given}"*) ;; *) why="${why:+$why; }${reason:-no reason given}" ;; esac
  fi
done
line="== skipped tests: ${#skipped[@]}"
[ "$missing" -eq 0 ] || line+=", $missing because the test data is missing (${data:-../shared} not found; set NNEMU_TEST_DATA=<dir>, see docs/testing.md \"Test data\")"
[ "$other" -eq 0 ] || line+=", $other for other reasons ($why)"
echo "$line"
