#!/usr/bin/env bash
# Installs the Debian 12 packages nnemu builds with; does nothing when they are all present.
set -euo pipefail
packages=(
  cmake g++ make pkg-config
  libflatbuffers-dev flatbuffers-compiler libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
  libsqlite3-dev nlohmann-json3-dev libstb-dev libmd-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  libfuse3-dev fuse3
  valgrind
  python3
)
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
# apt's progress goes to a log, shown only when it fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
