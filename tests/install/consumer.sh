#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dev component of BUILD_DIR into a temporary prefix, then builds and runs
# CONSUMER_DIR's program against it twice: as a CMake project (find_package(Railyard 0.1)) and as
# one file compiled with `pkg-config --cflags --libs railyard`. Also compiles every installed
# header of Railyard's in one file, so a header that includes one not installed fails here.
#   consumer.sh BUILD_DIR CONSUMER_DIR WORK_PARENT CXX [EXTRA_FLAGS]
set -euo pipefail
build_dir=$1 consumer_dir=$2 work_parent=$3 cxx=$4 extra_flags=${5:-}
work=$(mktemp -d "$work_parent/consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
launcher=()
if command -v ccache >/dev/null; then launcher=(ccache); fi

echo "--- install (component dev) into $prefix"
cmake --install "$build_dir" --prefix "$prefix" --component dev >"$work/install.log" || {
  cat "$work/install.log"; exit 1; }
test -f "$prefix/include/railyard/storage/docstore.h"
test -f "$prefix/include/railyard/version.h"
if [ -e "$prefix/include/storage" ] || [ -e "$prefix/include/core" ]; then
  echo "FAIL: headers installed outside include/railyard/" >&2; exit 1
fi
if grep -rqE '#include "(storage|core)/' "$prefix/include/railyard"; then
  echo "FAIL: an installed header includes a path that only the source tree has:" >&2
  grep -rnE '#include "(storage|core)/' "$prefix/include/railyard" >&2; exit 1
fi

echo "--- find_package(Railyard 0.1) in a separate CMake project"
cmake -S "$consumer_dir" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER="${launcher[*]}" \
  -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >"$work/configure.log" || {
  cat "$work/configure.log"; exit 1; }
cmake --build "$work/cmake-build"
"$work/cmake-build/railyard_consumer" "$work/store-cmake"

echo "--- pkg-config railyard"
pc_dir=$(dirname "$(find "$prefix" -name railyard.pc)")
export PKG_CONFIG_PATH="$pc_dir"
test "$(pkg-config --modversion railyard)" = "$(grep -o '"[0-9.]*"' "$prefix/include/railyard/version.h" | tr -d '"')"
# shellcheck disable=SC2046,SC2086  # Word splitting of the flags is meant.
"${launcher[@]}" "$cxx" -std=c++20 $extra_flags -o "$work/railyard_consumer_pc" "$consumer_dir/main.cc" \
  $(pkg-config --cflags --libs railyard)
"$work/railyard_consumer_pc" "$work/store-pc"

echo "--- every installed header, in one file"
(cd "$prefix/include" && find railyard -name '*.h' | sort | sed 's/.*/#include <&>/') >"$work/all_headers.cc"
# shellcheck disable=SC2046,SC2086
"$cxx" -std=c++20 -fsyntax-only $(pkg-config --cflags railyard) "$work/all_headers.cc"
echo "PASS: $(wc -l <"$work/all_headers.cc") installed headers; the program ran built both ways"
