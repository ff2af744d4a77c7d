#!/bin/sh
# An application that used synap-npu passes `valgrind --leak-check=full --error-exitcode=1`: at
# exit nnemu joins and frees the NPU thread pool and closes the SyNAP cache's connections, so
# nothing of nnemu's is left "possibly lost" or "definitely lost". Two runs on a fresh device
# root: the first compiles and stores the program (a process that keeps its cache connection),
# the second finds it in the cache. The pool has two threads whatever the machine has.
# Skipped (77) without valgrind.
# usage: valgrind_exit.sh NNAPI_EXAMPLE WORKDIR
set -eu
example=$1 work=$2 board=android
if ! command -v valgrind > /dev/null 2>&1; then
  echo "SKIP: valgrind is not installed (scripts/install-deps.sh installs it)"
  exit 77
fi
. "$(dirname "$0")/board_env.sh"
export NNEMU_NPU_THREADS=2
for run in store hit; do
  if ! valgrind -q --leak-check=full --error-exitcode=1 "$example" --device synap-npu > "$work/$run.log" 2>&1; then
    cat "$work/$run.log" >&2
    fail "valgrind reports errors or leaks in the $run run"
  fi
done
[ -f "$NNEMU_ROOT/data/vendor/synap/nnhal.cache" ] || fail "the first run stored nothing in the SyNAP cache"
expect inference_count 2
echo "valgrind: no errors or leaks in either run"
