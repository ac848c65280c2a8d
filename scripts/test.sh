#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what is missing, builds and tests: the default suite, then ASan+UBSan, a short fuzz run and TSan.
#   scripts/test.sh              everything (what CI runs)
#   scripts/test.sh PRESET...    those stages only: release, asan, tsan, fuzz
#   scripts/test.sh slow         the slow checks alone (ctest label `slow`, release build), one at
#                                a time: the crash loop, the policy comparison as shipped, the
#                                2,000-point power-loss run, the Prometheus scrape and the others
# First checks the C++ format and the include rules (scripts/check-format.sh, check_includes.py).
# Every stage builds with warnings as errors; the clang stage (fuzz) also checks the thread-safety
# annotations (-Wthread-safety).
# Each stage's tests run in the background while the next stage builds (their output is printed
# when they end). Ends with each stage's build and test wall times and its slowest tests with the
# share of their timeout used (scripts/stage_report.py), also when a stage fails. Expected times:
# docs/guide.md, "Testing".
set -euo pipefail
cd "$(dirname "$0")/.."

export RAILYARD_WERROR=ON  # scripts/build.sh passes it to CMake.

summary=()
print_summary() {
  [ ${#summary[@]} -gt 0 ] || return 0
  printf '%s\n' "=== stage times (total $((SECONDS / 60)) min $((SECONDS % 60)) s) ===" "${summary[@]}"
}
trap print_summary EXIT

preset_of() { if [ "$1" = slow ]; then echo release; else echo "$1"; fi; }  # slow: release build.

# One stage's tests, in the background: output to build/PRESET/tests-STAGE.log, then "STATUS
# SECONDS" to build/PRESET/tests-STAGE.status.
run_tests() {
  local stage=$1 preset start=$SECONDS status=0
  preset=$(preset_of "$1")
  local junit="$PWD/build/$preset/ctest-junit-$stage.xml" log="$PWD/build/$preset/tests-$stage.log"
  rm -f "$junit"
  {
    if [ "$stage" = slow ]; then
      # One at a time: they are long and some of them load the machine on purpose.
      ctest --test-dir "build/$preset" -L slow --output-on-failure --no-tests=error \
        --output-junit "$junit" || status=$?
    else
      ctest --preset "$preset" --output-junit "$junit" || status=$?
    fi
    # The .debs.
    [ "$stage" != release ] || ctest --test-dir build/release -L package --output-on-failure || status=$?
  } > "$log" 2>&1 < /dev/null
  echo "$status $((SECONDS - start))" > "build/$preset/tests-$stage.status"
}

# Waits for the stage whose tests run in the background, prints their output and its times, and
# exits if they failed.
pending="" pending_pid="" pending_build=0
finish_pending() {
  [ -n "$pending" ] || return 0
  local stage=$pending preset status=1 took=0
  preset=$(preset_of "$stage")
  wait "$pending_pid" || true
  pending=""
  [ ! -f "build/$preset/tests-$stage.status" ] || read -r status took < "build/$preset/tests-$stage.status"
  echo "=== $stage: tests ==="
  cat "build/$preset/tests-$stage.log"
  summary+=("$stage: build $pending_build s, tests $took s$([ "$status" -eq 0 ] || echo ', FAILED')")
  local junit="build/$preset/ctest-junit-$stage.xml"
  [ ! -f "$junit" ] || summary+=("$(scripts/stage_report.py "build/$preset" "$junit" || true)")
  [ "$status" -eq 0 ] || exit "$status"
  echo "=== $stage passed ==="
}

scripts/install-deps.sh
scripts/check-format.sh
scripts/check_includes.py

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(
  release  # The default suite: everything but `slow`, `bench` and `fuzz`.
  asan     # The same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
  fuzz     # Each libFuzzer target for RAILYARD_FUZZ_SECONDS (20 s) from its seeds.
  tsan     # The rpc and storage concurrency tests under ThreadSanitizer: last, since its tests
           # are the shortest and nothing builds beside the last stage's tests.
)
# Each stage's tests run while the next stage builds: the suites spend most of their time waiting
# on sockets, processes and timers, so the compiler keeps the cores busy, and every test waits
# for conditions under deadlines, so it passes on a machine loaded like this (docs/guide.md, "Testing").
for stage in "${stages[@]}"; do
  echo "=== $stage: build ==="
  build_start=$SECONDS
  if ! scripts/build.sh "$(preset_of "$stage")"; then
    summary+=("$stage: build FAILED after $((SECONDS - build_start)) s")
    finish_pending
    exit 1
  fi
  build_took=$((SECONDS - build_start))
  finish_pending
  run_tests "$stage" &
  pending=$stage pending_pid=$! pending_build=$build_took
done
finish_pending
