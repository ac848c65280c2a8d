#!/usr/bin/env bash
# Installs what is missing, builds and tests: the default suite, then ASan+UBSan, TSan and a short fuzz run.
#   scripts/test.sh            everything (what CI runs)
#   scripts/test.sh PRESET     one preset only: release, asan, tsan or fuzz
set -euo pipefail
cd "$(dirname "$0")/.."

run() {
  local preset=$1
  echo "=== $preset ==="
  local start=$SECONDS
  scripts/build.sh "$preset"
  ctest --preset "$preset"
  echo "=== $preset passed in $((SECONDS - start)) s ==="
}

if [ $# -gt 0 ]; then
  run "$1"
  exit 0
fi
run release  # The default suite: everything but `slow`, `bench` and `fuzz`.
run asan     # The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
run tsan     # The rpc and storage concurrency tests under ThreadSanitizer.
run fuzz     # Each libFuzzer target for RAILYARD_FUZZ_SECONDS (20 s) from its seeds.
