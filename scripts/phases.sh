# Sourced by the scripts. `phase NAME COMMAND...` runs the command (a shell function included,
# in a subshell with errexit on, so its first failing step fails it) and then prints one line:
# the phase's name and how long it took, or that it failed and after how long. The phases keep
# their tools' output in log files (`logged` below) and show it only when they fail.
phase() {
  local name=$1 start=$SECONDS status=0 flags=$-
  shift
  set +e
  (set -e; "$@")
  status=$?
  [[ $flags != *e* ]] || set -e
  if [ "$status" -eq 0 ]; then
    printf '== %s: %s (%d s)\n' "${NNEMU_JOB:-nnemu}" "$name" $((SECONDS - start))
  else
    printf '== %s: %s FAILED (exit %d, after %d s)\n' "${NNEMU_JOB:-nnemu}" "$name" "$status" $((SECONDS - start))
  fi
  return "$status"
}

# `logged LOG COMMAND...` runs the command with its output going to LOG (created, or replaced);
# when it fails, prints LOG's error lines and its last 40 lines, then fails with its status.
logged() {
  local log=$1 status=0
  shift
  mkdir -p "$(dirname "$log")"
  "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "-- failed: $*; its output: $log" >&2
    grep -E 'error|Error|ERROR|FAILED|undefined reference' "$log" | head -20 >&2 || true
    echo "-- the last 40 lines:" >&2
    tail -n 40 "$log" >&2
  fi
  return "$status"
}
