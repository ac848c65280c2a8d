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
# when they end); the fuzzers also beside the next stage's suite. Ends with each stage's build and
# test wall times and its slowest tests with the share of their timeout used
# (scripts/stage_report.py), also when a stage fails. Expected times: docs/guide.md, "Testing".
set -euo pipefail
cd "$(dirname "$0")/.."

export RAILYARD_WERROR=ON  # scripts/build.sh passes it to CMake.

summary=()
print_summary() {
  [ ${#summary[@]} -gt 0 ] || return 0
  printf '%s\n' "=== stage times (total $((SECONDS / 60)) min $((SECONDS % 60)) s) ===" "${summary[@]}"
  # Tests that depend on the machine (its free disk fires the disk alert rules) are read with it.
  # The share is what those rules see: available over the file system's size (df's "Use%" leaves
  # the blocks reserved for root out, and reads 75% used where 9.6% is free).
  df -P "${TMPDIR:-/tmp}" . 2>/dev/null | awk -v cores="$(nproc)" 'NR > 1 && !seen[$6]++ {
    printf "machine: %s cores; %s: %.1f GB free, %.1f%% of %.0f GB\n", cores, $6, $4 / 1048576,
           100 * $4 / $2, $2 / 1048576 }'
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
    elif [ "$stage" = release ]; then
      # The preset's suite and the .debs (label `package`, left out of the preset so that the
      # sanitizer presets, which inherit its filter, skip it), two at a time in one run.
      ctest --preset release --label-exclude 'slow|bench' --output-junit "$junit" || status=$?
    else
      ctest --preset "$preset" --output-junit "$junit" || status=$?
    fi
  } > "$log" 2>&1 < /dev/null
  echo "$status $((SECONDS - start))" > "build/$preset/tests-$stage.status"
}

# The stages whose tests run in the background, their test PIDs and build times.
in_flight=()
declare -A test_pid=() build_time=()

# Waits for STAGE's tests, prints their output and its times, and exits if they failed.
finish_stage() {
  local stage=$1 preset status=1 took=0 s
  preset=$(preset_of "$stage")
  wait "${test_pid[$stage]}" || true
  local left=()
  for s in "${in_flight[@]}"; do [ "$s" = "$stage" ] || left+=("$s"); done
  in_flight=(${left[@]+"${left[@]}"})
  [ ! -f "build/$preset/tests-$stage.status" ] || read -r status took < "build/$preset/tests-$stage.status"
  echo "=== $stage: tests ==="
  cat "build/$preset/tests-$stage.log"
  summary+=("$stage: build ${build_time[$stage]} s, tests $took s$([ "$status" -eq 0 ] || echo ', FAILED')")
  local junit="build/$preset/ctest-junit-$stage.xml"
  [ ! -f "$junit" ] || summary+=("$(scripts/stage_report.py "build/$preset" "$junit" || true)")
  [ "$status" -eq 0 ] || exit "$status"
  echo "=== $stage passed ==="
}

# Waits for the suites in flight, but not the fuzzers. The fuzzers start without waiting either:
# they are time-bounded and CPU-bound, so beside a suite they take no longer and load the machine
# as a build beside it does (every cold run has the sanitizer suites beside a build); a warm run,
# whose builds take seconds, ends about a minute sooner. One at a time (the fuzz preset's jobs):
# two fuzzers beside the TSan build and the ASan suite's two tests put the suite's CPU-bound tests
# at a quarter of their timeouts, and one at a time still ends well within that suite.
finish_suites() {
  local s
  for s in ${in_flight[@]+"${in_flight[@]}"}; do [ "$s" = fuzz ] || finish_stage "$s"; done
}
finish_all() {
  local s
  for s in ${in_flight[@]+"${in_flight[@]}"}; do finish_stage "$s"; done
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
    finish_all
    exit 1
  fi
  build_time[$stage]=$((SECONDS - build_start))
  [ "$stage" = fuzz ] || finish_suites
  run_tests "$stage" &
  test_pid[$stage]=$!
  in_flight+=("$stage")
done
finish_all
