#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds and tests: the default suite, then ASan+UBSan, TSan and a short fuzz run.
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh PRESET...    those stages only: release, asan, tsan, fuzz
#   scripts/test.sh slow         the slow checks alone (ctest label `slow`, release build), one at
#                                a time: the crash loop, the policy comparison as shipped, the
#                                2,000-point power-loss run, the Prometheus scrape and the others
# First checks the C++ format and the include rules (scripts/check-format.sh, check_includes.py).
# Every stage builds with warnings as errors; the clang stage (fuzz) also checks the thread-safety
# annotations (-Wthread-safety).
# Ends with each stage's build and test wall times and its slowest tests with the share of their
# timeout used (scripts/stage_report.py), also when a stage fails. Expected times: README, "Testing".
set -euo pipefail
cd "$(dirname "$0")/.."

export RAILYARD_WERROR=ON  # scripts/build.sh passes it to CMake.

summary=()
print_summary() {
  [ ${#summary[@]} -gt 0 ] || return 0
  printf '%s\n' "=== stage times (total $((SECONDS / 60)) min $((SECONDS % 60)) s) ===" "${summary[@]}"
}
trap print_summary EXIT

run() {
  local stage=$1 start=$SECONDS
  local preset=$stage
  [ "$stage" != slow ] || preset=release  # The slow checks run from the release build.
  echo "=== $stage ==="
  scripts/build.sh "$preset"
  local built=$SECONDS junit="$PWD/build/$preset/ctest-junit-$stage.xml" status=0
  rm -f "$junit"
  if [ "$stage" = slow ]; then
    # One at a time: they are long and some of them load the machine on purpose.
    ctest --test-dir build/release -L slow --output-on-failure --no-tests=error \
      --output-junit "$junit" || status=$?
  else
    ctest --preset "$preset" --output-junit "$junit" || status=$?
  fi
  [ "$stage" != release ] || ctest --test-dir build/release -L package --output-on-failure || status=$?  # The .debs.
  summary+=("$stage: $((SECONDS - start)) s (build $((built - start)) s, tests $((SECONDS - built)) s)$([ $status -eq 0 ] || echo ', FAILED')")
  if [ -f "$junit" ]; then
    summary+=("$(scripts/stage_report.py "build/$preset" "$junit" || true)")
  fi
  [ $status -eq 0 ] || exit $status
  echo "=== $stage passed in $((SECONDS - start)) s ==="
}

scripts/install-deps.sh
scripts/check-format.sh
scripts/check_includes.py

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(
  release  # The default suite: everything but `slow`, `bench` and `fuzz`.
  asan     # The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
  tsan     # The rpc and storage concurrency tests under ThreadSanitizer.
  fuzz     # Each libFuzzer target for RAILYARD_FUZZ_SECONDS (20 s) from its seeds.
)
for stage in "${stages[@]}"; do run "$stage"; done
