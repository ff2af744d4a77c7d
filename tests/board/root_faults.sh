#!/bin/sh
# A device root that cannot be written says so once per cause and the run goes on: on a
# read-only root and on a full one, nnapi_example on synap-npu succeeds, each warning names the
# cause ("Read-only file system", "No space left on device"), the statistics and the SyNAP cache
# each say it at most once, nothing advises `synap_cache --clear` (nothing is damaged), and a
# cache filled before the root turned read-only or full still serves its program (a hit, no compile).
# The faults are real: a read-only bind mount and a small full tmpfs, in a mount namespace of the
# test's own (unshare -m), so nothing is left mounted. Skipped (77) where mounts are not allowed.
# usage: root_faults.sh NNAPI_EXAMPLE WORKDIR
set -eu
example=$1 work=$2 board=android
. "$(dirname "$0")/board_env.sh"
if ! unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$work/root'" 2>/dev/null; then
  echo "SKIP: this machine does not allow a private mount namespace with mounts (unshare -m, mount)"
  exit 77
fi
export NNEMU_LOG=info  # shows the cache's hits and stores (info) besides the warnings

# run NAME SETUP: nnapi_example in a mount namespace prepared by the shell commands SETUP.
run() {
  unshare -m sh -ec "$2
    exec \"\$0\" --device synap-npu" "$example" > "$work/$1.log" 2>&1 || { cat "$work/$1.log" >&2; fail "$1: the run failed"; }
  grep -q '^OK$' "$work/$1.log" || fail "$1: wrong result"
  grep -E '^W:|WARNING' "$work/$1.log" > "$work/$1.warnings" || true
}
# check NAME CAUSE: every warning names CAUSE, at most one from the statistics and one from the cache.
check() {
  while IFS= read -r line; do
    case $line in *"$2"*) ;; *) fail "$1: a warning does not name the cause ($2): $line";; esac
  done < "$work/$1.warnings"
  [ "$(grep 'W:SyNAP' "$work/$1.warnings" | grep -vc 'SyNAP cache')" -le 1 ] || fail "$1: more than one statistics warning: $(cat "$work/$1.warnings")"
  [ "$(grep -c 'SyNAP cache' "$work/$1.warnings")" -le 1 ] || fail "$1: more than one cache warning: $(cat "$work/$1.warnings")"
  [ "$(wc -l < "$work/$1.warnings")" -le 2 ] || fail "$1: more than two warnings: $(cat "$work/$1.warnings")"
  ! grep -q -- '--clear' "$work/$1.log" || fail "$1: advises clearing a cache that is not damaged"
}
readonly_root='mount --bind "$NNEMU_ROOT" "$NNEMU_ROOT" && mount -o remount,bind,ro "$NNEMU_ROOT"'

# A read-only root with a filled cache: the program comes from the cache.
run fill ""
grep -q 'stored .* in the SyNAP cache' "$work/fill.log" || fail "fill: nothing stored"
[ ! -s "$work/fill.warnings" ] || fail "fill: warnings on a writable root: $(cat "$work/fill.warnings")"
expect inference_count 1
run readonly-filled "$readonly_root"
check readonly-filled "Read-only file system"
grep -q 'SyNAP cache hit' "$work/readonly-filled.log" || fail "readonly-filled: no cache hit: $(cat "$work/readonly-filled.log")"
! grep -q 'stored .* in the SyNAP cache' "$work/readonly-filled.log" || fail "readonly-filled: compiled and stored again"
[ "$(grep 'W:SyNAP' "$work/readonly-filled.warnings" | grep -vc 'SyNAP cache')" -eq 1 ] || fail "readonly-filled: the statistics did not say why they stopped"
expect inference_count 1  # unchanged: nothing could be written

# A full root holding the filled cache: the program still comes from the cache.
cp -a "$NNEMU_ROOT" "$work/filled"
run full-filled 'mount -t tmpfs -o size=1m tmpfs "$NNEMU_ROOT" && cp -a "$NNEMU_ROOT/../filled/." "$NNEMU_ROOT/" &&
    { cat /dev/zero > "$NNEMU_ROOT/filler" 2>/dev/null || true; }'
check full-filled "No space left on device"
grep -q 'SyNAP cache hit' "$work/full-filled.log" || fail "full-filled: no cache hit: $(cat "$work/full-filled.log")"

# A read-only root that has nothing yet: the cache cannot be created, the statistics not written.
rm -rf "$NNEMU_ROOT" && mkdir -p "$NNEMU_ROOT"
run readonly-empty "$readonly_root"
check readonly-empty "Read-only file system"
[ "$(grep 'W:SyNAP' "$work/readonly-empty.warnings" | grep -vc 'SyNAP cache')" -eq 1 ] || fail "readonly-empty: no statistics warning"
[ "$(grep -c 'SyNAP cache' "$work/readonly-empty.warnings")" -eq 1 ] || fail "readonly-empty: no cache warning"

# A full root (a 64 KiB tmpfs filled up): nothing fits, the run goes on.
run full 'mount -t tmpfs -o size=64k tmpfs "$NNEMU_ROOT" && { cat /dev/zero > "$NNEMU_ROOT/filler" 2>/dev/null || true; }'
check full "No space left on device"
[ "$(grep 'W:SyNAP' "$work/full.warnings" | grep -vc 'SyNAP cache')" -eq 1 ] || fail "full: no statistics warning"
[ "$(grep -c 'SyNAP cache' "$work/full.warnings")" -eq 1 ] || fail "full: no cache warning"
echo "read-only and full device roots: one warning per cause, no --clear advice, cached programs served"
