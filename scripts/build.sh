#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release) after making sure the packages are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/install-deps.sh
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
