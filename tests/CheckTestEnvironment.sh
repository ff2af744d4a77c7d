#!/bin/sh
# CTest's test_environment: what every test starts from (see TestEnvironment.cmake.in): none of
# the caller's NNEMU_*/SYNAP_* settings, HOME and TMPDIR inside the build tree.
# usage: CheckTestEnvironment.sh BUILD_DIR
build=$1 status=0
leaked=$(env | grep -E '^(NNEMU|SYNAP)_' | grep -v '^NNEMU_TEST_SCRATCH=')
[ -z "$leaked" ] || { echo "the caller's settings reach the tests: $leaked"; status=1; }
for name in HOME TMPDIR TEST_TMPDIR XDG_STATE_HOME; do
  eval "value=\${$name:-}"
  case "$value" in
    "$build"/*) ;;
    *) echo "$name=$value is outside the build tree $build"; status=1 ;;
  esac
done
exit "$status"
