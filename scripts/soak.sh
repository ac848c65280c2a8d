#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds release and runs the soak: 64 clients on 3 nodes with drains, restarts and compactions, then checks slots, descriptors and memory.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
Usage: scripts/soak.sh [--duration-s SECONDS] [--seed N]

Runs tst_e2e_soak (ctest label `slow`) from the release build for SECONDS (default 600) and prints
one JSON line per chaos event, per node (descriptors, memory, slots at the end) and for the run.
Exits non-zero if a bound is exceeded; the nodes' logs are then kept and their folder is named.
USAGE
}

duration=600
seed=20261123
while [[ $# -gt 0 ]]; do
  case "$1" in
    --duration-s) duration=${2:?--duration-s needs a value}; shift 2 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if ! [[ "$duration" =~ ^[0-9]+$ ]] || (( duration < 10 )); then
  echo "soak.sh: --duration-s must be a whole number of seconds, at least 10" >&2
  exit 2
fi
if ! [[ "$seed" =~ ^[0-9]+$ ]]; then
  echo "soak.sh: --seed must be a non-negative integer" >&2
  exit 2
fi

scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target tst_e2e_soak
RAILYARD_SOAK_SECONDS="$duration" RAILYARD_SOAK_SEED="$seed" QT_QPA_PLATFORM=offscreen \
  exec build/release/bin/tst_e2e_soak
