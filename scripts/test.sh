#!/usr/bin/env bash
# Installs what is missing, builds, and runs the default test suite (everything but `slow` and `bench`).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
scripts/build.sh "$preset"
ctest --preset "$preset"
