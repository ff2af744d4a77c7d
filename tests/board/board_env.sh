# Sourced by the board scripts after they set $work and $board (android or yocto): a fresh device
# root in $work/root with the board's environment, $S its statistics folder, and the helpers
# fail, expect and bench. $T prefixes every command that could hang (e.g. "timeout 120"); empty
# by default.
T=${T-}
rm -rf "$work"
mkdir -p "$work/root"
export NNEMU_ROOT="$work/root"
unset SYNAP_CACHE_PATH SYNAP_CACHE_CAPACITY SYNAP_NB_LOG_LEVEL NNEMU_LOG
if [ "$board" = yocto ]; then
  export NNEMU_BOARD=yocto
  S=$NNEMU_ROOT/sys/class/misc/synap/statistics
else
  unset NNEMU_BOARD
  S=$NNEMU_ROOT/sys/class/misc/synap/device/misc/synap/statistics
fi
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect FILE TEXT: the file reads exactly TEXT and a newline
  printf '%s\n' "$2" > "$work/expected"
  $T cat "$S/$1" > "$work/actual" || fail "cannot read $1"
  cmp -s "$work/actual" "$work/expected" || fail "$1 reads '$(cat "$work/actual")', expected '$2'"
}
bench() {  # bench DEVICE RUNS: benchmark_model ($benchmark) on $work/model.tflite
  $T "$benchmark" --graph="$work/model.tflite" --use_nnapi=true --nnapi_accelerator_name="$1" \
      --num_runs="$2" --warmup_runs=1 --min_secs=0 --warmup_min_secs=0 > "$work/bench.log" 2>&1 ||
    { cat "$work/bench.log" >&2; fail "benchmark_model on $1"; }
}
