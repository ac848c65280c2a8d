#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dev and lib components of BUILD_DIR into a temporary prefix and builds and runs
# CONSUMER_DIR's programs against it: a CMake project (find_package(Railyard 0.1)) with a program
# of the runtime and the docstore and a typed service of its own (echo.proto, through the
# installed railyard_generate_boxcar() and protoc-gen-boxcar), and the first program again as
# one file compiled with pkg-config.
#   SCOPE full (a build with the shared libraries): the CMake project with the shared libraries
#     (its static build runs in the sanitizer stages, and tst_install_example builds a static
#     program beside this one), pkg-config railyard (shared) and railyard-static, each SONAME, and
#     every installed header compiled on its own with the macros a service owner's build may
#     define (RELEASE, GUARDED_BY...), so a header that includes one not installed, is not
#     self-contained or uses an unprefixed macro fails here.
#   SCOPE static (a sanitizer build, without shared libraries): the static builds only, which is
#     what runs under the sanitizer; the headers' check compiles nothing a sanitizer looks at.
#   consumer.sh BUILD_DIR CONSUMER_DIR WORK_PARENT CXX [EXTRA_FLAGS] [SCOPE]
set -euo pipefail
build_dir=$1 consumer_dir=$2 work_parent=$3 cxx=$4 extra_flags=${5:-} scope=${6:-full}
linkages=(static)
pcs=(railyard-static)
if [ "$scope" = full ]; then
  linkages=(shared)
  pcs=(railyard railyard-static)
fi
work=$(mktemp -d "$work_parent/consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
. "$(dirname "$0")/ccache_under.sh" "$work"
# The consumer's sources are copied in, so that no compile names a path of this clone.
cp -r "$consumer_dir" "$work/consumer"
consumer_dir=$work/consumer

echo "--- install (components dev and lib) into $prefix"
for component in dev lib; do
  cmake --install "$build_dir" --prefix "$prefix" --component $component >"$work/install.log" || {
    cat "$work/install.log"; exit 1; }
done
test -f "$prefix/include/railyard/storage/docstore.h"
test -f "$prefix/include/railyard/version.h"
if [ -e "$prefix/include/storage" ] || [ -e "$prefix/include/core" ]; then
  echo "FAIL: headers installed outside include/railyard/" >&2; exit 1
fi
if grep -rqE '#include "(storage|core)/' "$prefix/include/railyard"; then
  echo "FAIL: an installed header includes a path that only the source tree has:" >&2
  grep -rnE '#include "(storage|core)/' "$prefix/include/railyard" >&2; exit 1
fi

needed() { readelf -d "$1" | grep -c 'NEEDED.*librailyard_' || true; }
for linkage in "${linkages[@]}"; do
  echo "--- find_package(Railyard 0.1) in a separate CMake project, $linkage libraries"
  shared=OFF
  [ $linkage = shared ] && shared=ON
  cmake -S "$consumer_dir" -B "$work/cmake-$linkage" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DRAILYARD_CONSUMER_SHARED=$shared \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER="${launcher[*]}" \
    -DCMAKE_CXX_FLAGS="$extra_flags" -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >"$work/configure.log" || {
    cat "$work/configure.log"; exit 1; }
  cmake --build "$work/cmake-$linkage"
  program="$work/cmake-$linkage/railyard_consumer"
  if [ $linkage = shared ]; then
    [ "$(needed "$program")" -ge 2 ] || { echo "FAIL: not linked with the shared libraries" >&2; exit 1; }
  else
    [ "$(needed "$program")" -eq 0 ] || { echo "FAIL: the static build needs a shared library" >&2; exit 1; }
  fi
  "$program" "$work/store-cmake-$linkage"
  "$work/cmake-$linkage/railyard_typed_echo"
done

version_h="$prefix/include/railyard/version.h"
if [ "$scope" = full ]; then
  echo "--- the shared libraries: SONAME and version"
  soversion=$(sed -n 's/^#define RAILYARD_SOVERSION "\(.*\)"$/\1/p' "$version_h")
  [ -n "$soversion" ] || { echo "FAIL: no RAILYARD_SOVERSION in version.h" >&2; exit 1; }
  for library in rpc balance base proto storage admin http cluster services trace; do
    lib=$(find "$prefix" -name "librailyard_$library.so.$soversion.*" | head -1)
    [ -n "$lib" ] || { echo "FAIL: no librailyard_$library.so.$soversion.*" >&2; exit 1; }
    readelf -d "$lib" | grep -q "SONAME.*\[librailyard_$library.so.$soversion\]" ||
      { echo "FAIL: $lib has no SONAME librailyard_$library.so.$soversion" >&2; exit 1; }
  done
fi

pc_dir=$(dirname "$(find "$prefix" -name railyard-static.pc)")
export PKG_CONFIG_PATH="$pc_dir"
version=$(sed -n 's/^#define RAILYARD_VERSION_STRING "\(.*\)"$/\1/p' "$version_h")
for pc in "${pcs[@]}"; do
  [ "$(pkg-config --modversion $pc)" = "$version" ] || { echo "FAIL: $pc.pc is not $version" >&2; exit 1; }
done
for pc in "${pcs[@]}"; do
  echo "--- pkg-config $pc"
  # shellcheck disable=SC2046,SC2086  # Word splitting of the flags is meant.
  # Compiled, then linked: ccache caches the one, not a compile and link in one command. From
  # $work, so that the paths it sees are the same each run.
  (cd "$work" && "${launcher[@]}" "$cxx" -std=c++20 $extra_flags -c -o "consumer-$pc.o" \
    consumer/main.cc $(pkg-config --cflags $pc))
  "$cxx" $extra_flags -o "$work/consumer-$pc" "$work/consumer-$pc.o" $(pkg-config --libs $pc)
  LD_LIBRARY_PATH="$(dirname "$(find "$prefix" -name 'librailyard_rpc.so' | head -1)")" \
    "$work/consumer-$pc" "$work/store-$pc"
done

if [ "$scope" != full ]; then
  echo "PASS: the programs ran built with the static libraries (CMake and pkg-config)"
  exit 0
fi

echo "--- every installed header on its own, beside a service owner's macros"
# Names a program may well define for itself; no installed header may depend on them.
# shellcheck disable=SC2046,SC2086
flags="-std=c++20 -fsyntax-only -Wall -Wextra -Werror -DRELEASE=1 -DGUARDED_BY=x -DREQUIRES=x
  -DEXCLUDES=x -DACQUIRE=x -DCAPABILITY=x -DSCOPED_CAPABILITY=x -DDEBUG=1 $(pkg-config --cflags railyard)"
mkdir -p "$work/headers"
(cd "$prefix/include" && find railyard -name '*.h' | sort) >"$work/headers.txt"
count=$(wc -l <"$work/headers.txt")
# Two at a time, as the machine has two cores; the first that fails is named. From $work, through
# ccache (which caches -fsyntax-only, diagnostics included).
# shellcheck disable=SC2016
(cd "$work" && xargs -P 2 -I{} sh -c 'f="headers/$(echo "$1" | tr / _).cc"; echo "#include <$1>" >"$f";
  $2 $3 "$f" || { echo "FAIL: <$1> does not compile on its own" >&2; exit 255; }' \
  sh {} "${launcher[*]} $cxx" "$flags" <headers.txt)
echo "PASS: $count installed headers each compile alone; the programs ran built every way"
