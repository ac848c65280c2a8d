#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds one CMake preset (default: release) after making sure the packages are installed.
#   scripts/build.sh [PRESET [TARGET...]]   the preset's targets, or only TARGET... and what they need
# RAILYARD_WERROR=ON in the environment makes Railyard's own warnings errors (scripts/test.sh sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
targets=("${@:2}")
scripts/install-deps.sh
# ccache (when CMake found it): paths below the checkout are hashed relative to it, so a fresh clone
# elsewhere on the same machine reuses what an earlier one compiled.
# The precompiled headers (cmake/PrecompiledHeaders.cmake) are cached like any object: with this
# sloppiness a fresh clone gets the same bytes back, so the files built on them hit the cache too.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
start=$SECONDS
cmake --preset "$preset" -DRAILYARD_WERROR="${RAILYARD_WERROR:-OFF}"
cmake --build --preset "$preset" -j "$(nproc)" ${targets[@]+--target "${targets[@]}"}
echo "build.sh: $preset built in $((SECONDS - start)) s"
