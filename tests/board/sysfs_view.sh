#!/bin/sh
# The nnemu-sysfs FUSE view in a fresh device root: reads computed from the shared counters,
# a write to inference_count or inference_time resets them at once with no process alive, the
# driver works through the view exactly, and a reset made through the view reaches the plain
# files after unmounting. Skips (exit 77) where FUSE cannot mount (no /dev/fuse, no privilege).
# Every command runs under `timeout`, and the view is always unmounted.
# usage: sysfs_view.sh NNEMU_SYSFS BENCHMARK_MODEL MODELGEN NPU_CLIENT WORKDIR [android|yocto]
set -eu
sysfs=$1 benchmark=$2 modelgen=$3 client=$4 work=$5 board=${6:-android}
skip() { echo "SKIP: $*"; exit 77; }
[ -c /dev/fuse ] || skip "no /dev/fuse here (a container or CI runner without FUSE)"
command -v fusermount3 > /dev/null || skip "fusermount3 is not installed (package fuse3)"
T="timeout 120"
. "$(dirname "$0")/board_env.sh"
daemon= held=
cleanup() {
  if [ -n "$held" ]; then kill "$held" 2> /dev/null || true; fi
  if grep -q " $S fuse" /proc/mounts 2> /dev/null; then fusermount3 -u "$S" 2> /dev/null || fusermount3 -u -z "$S" || true; fi
  if [ -n "$daemon" ]; then kill "$daemon" 2> /dev/null || true; fi
}
trap cleanup EXIT INT TERM
$T "$modelgen" conv_quant "$work/model.tflite" > /dev/null
bench synap-npu 3  # 4 NPU executions, published as plain files

$T "$sysfs" -f > "$work/sysfs.log" 2>&1 &
daemon=$!
tries=0
until grep -q " $S fuse" /proc/mounts; do
  if ! kill -0 "$daemon" 2> /dev/null; then
    daemon=
    skip "FUSE cannot mount here: $(cat "$work/sysfs.log")"
  fi
  tries=$((tries + 1))
  [ $tries -lt 600 ] || fail "nnemu-sysfs did not mount within a minute: $(cat "$work/sysfs.log")"
  sleep 0.1
done

# Reads are computed; no process is alive.
expect inference_count 4
[ "$($T cat "$S/inference_time")" -gt 0 ] || fail "inference_time is 0"
[ -z "$($T cat "$S/networks")" ] || fail "networks lists a network with no process alive"
# Writes reset both totals at once, whatever is written, with no process alive.
echo > "$S/inference_count"
expect inference_count 0
expect inference_time 0
# networks takes writes without resetting; network_profile takes none.
bench synap-npu 2
expect inference_count 3
echo 1 2 > "$S/networks"
expect inference_count 3
if (echo x > "$S/network_profile") 2> /dev/null; then fail "network_profile took a write"; fi
echo 123 > "$S/inference_time"
expect inference_time 0
expect inference_count 0
# The driver counts exactly through the view.
bench synap-npu 4
expect inference_count 5
ls -a "$S" | grep -q '^\.state$' || fail "the record is not visible through the view"

# A live process's network: its line, zeroed by a reset, counting again, gone when it exits.
readies() { grep -c READY "$work/client.out" || true; }
await() {  # await N: the held client has printed READY N times
  tries=0
  until [ "$(readies)" -ge "$1" ]; do
    kill -0 "$held" 2> /dev/null || fail "the held client died"
    tries=$((tries + 1))
    [ $tries -lt 1200 ] || fail "the held client is not ready after two minutes"
    sleep 0.1
  done
}
mkfifo "$work/control"
$T "$client" --runs 3 --hold < "$work/control" > "$work/client.out" 2> "$work/client.err" &
held=$!
exec 3> "$work/control"
await 1
networks=$($T cat "$S/networks")
case "$networks" in
  "pid: "*", nid: 1, inference_count: 3, "*", iobuf_count: 2, iobuf_size: 1280, layers: 0") ;;
  *) fail "networks reads '$networks'" ;;
esac
echo > "$S/inference_count"
networks=$($T cat "$S/networks")
case "$networks" in
  *", inference_count: 0, inference_time: 0, inference_last: 0, "*) ;;
  *) fail "after a reset networks reads '$networks'" ;;
esac
echo "run 2" >&3
await 2
expect inference_count 2
case "$($T cat "$S/networks")" in *", inference_count: 2, "*) ;; *) fail "the network did not count 2" ;; esac
exec 3>&-
wait "$held" || fail "the held client failed: $(cat "$work/client.err")"
held=
[ -z "$($T cat "$S/networks")" ] || fail "an exited process's network is still listed"

# A reset made through the view reaches the plain files after unmounting.
echo > "$S/inference_count"
$T fusermount3 -u "$S" || fail "fusermount3 -u failed"
wait "$daemon" || true
daemon=
bench nnapi-reference 1  # loads the library: applies the pending reset
expect inference_count 0
expect inference_time 0
echo "nnemu-sysfs view ($board): ok"
