#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures the source tree with the console and the tests off and builds railyard_storage in a
# temporary folder, then checks that nothing looked for Qt (no Qt6*_DIR in the cache).
#   storage_without_qt.sh SOURCE_DIR WORK_PARENT [CMAKE_ARGS...]
# The temporary source is a folder of links to SOURCE_DIR's entries, two levels above the build
# folder as in build/<preset>, so that ccache (with CCACHE_BASEDIR set to it) finds what the
# preset's build compiled: same flags, same relative paths.
set -euo pipefail
source_dir=$1 work_parent=$2
shift 2
work=$(mktemp -d "$work_parent/storage-without-qt.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/src"
for entry in "$source_dir"/*; do
  [ "$(basename "$entry")" = build ] || ln -s "$entry" "$work/src/"
done
. "$(dirname "$0")/ccache_under.sh" "$work/src"
build="$work/src/build/storage"
cmake -S "$work/src" -B "$build" -G Ninja "$@" \
  -DRAILYARD_BUILD_TESTS=OFF -DRAILYARD_BUILD_CONSOLE=OFF -DRAILYARD_BUILD_BENCH=OFF \
  -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON -DCMAKE_DISABLE_FIND_PACKAGE_QCustomPlotQt6=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_Qt6Keychain=ON >"$work/configure.log" || {
  cat "$work/configure.log"; exit 1; }
if grep -E '^(Qt6|QCustomPlotQt6|Qt6Keychain)[A-Za-z]*_DIR' "$build/CMakeCache.txt"; then
  echo "FAIL: the configure looked for Qt (above: its cache entries)" >&2
  exit 1
fi
cmake --build "$build" --target railyard_storage -j 2
test -f "$build/lib/librailyard_storage.a"
echo "PASS: railyard_storage configured and built without looking for Qt"
