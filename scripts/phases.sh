# Sourced by the scripts. `phase NAME COMMAND...` runs the command (a shell function included,
# in a subshell with errexit on, so its first failing step fails it) and then prints one line:
# the phase's name and how long it took, or that it failed and after how long.
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
