#!/bin/sh
# usage: install_check.sh CMAKE BUILD_DIR SCRATCH LIBDIR PKG_CONFIG CC SOURCE
set -eu
cmake=$1 build=$2 scratch=$3 libdir=$4 pkgconfig=$5 cc=$6 source=$7
rm -rf "$scratch"
mkdir -p "$scratch"
"$cmake" --install "$build" --prefix "$scratch/prefix" >/dev/null
# A relocatable package works wherever the tree ends up.
mv "$scratch/prefix" "$scratch/moved"
export PKG_CONFIG_PATH="$scratch/moved/$libdir/pkgconfig"
installed_libdir=$("$pkgconfig" --variable=libdir neuralnetworks)
[ "$(cd "$installed_libdir" && pwd -P)" = "$(cd "$scratch/moved/$libdir" && pwd -P)" ] ||
  { echo "pkg-config libdir $installed_libdir is not in the moved prefix"; exit 1; }
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into arguments
"$cc" -o "$scratch/app" "$source" $("$pkgconfig" --cflags --libs neuralnetworks)
# shellcheck disable=SC2046
"$cc" -o "$scratch/app-rpath" "$source" $("$pkgconfig" --cflags --libs neuralnetworks) \
  -Wl,-rpath,"$installed_libdir"
export NNEMU_ROOT="$scratch/device-root"
LD_LIBRARY_PATH="$installed_libdir" "$scratch/app"
env -u LD_LIBRARY_PATH "$scratch/app-rpath"
