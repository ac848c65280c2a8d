#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Kills a railyard-node with SIGKILL under a verifying load, N rounds (default 20), and prints what was checked and lost.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
Usage: scripts/crash-loop.sh [--rounds N] [--seed N]

Runs tst_e2e_crash_loop (ctest label `slow`) from the release build: a railyard-node under
`railyardctl load --verify` is killed with SIGKILL at a random moment each round, restarted, and
every acknowledged document is read back. Prints a JSON line per round and a summary (checked,
lost). Exits non-zero if anything acknowledged was lost or read back wrong.
USAGE
}

rounds=20
seed=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
    --seed) seed=${2:?--seed needs a value}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "crash-loop.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done
if ! [[ "$rounds" =~ ^[0-9]+$ ]] || (( rounds < 1 )); then
  echo "crash-loop.sh: --rounds must be a whole number, at least 1" >&2
  exit 2
fi
if [[ -n "$seed" ]] && ! [[ "$seed" =~ ^[0-9]+$ ]]; then
  echo "crash-loop.sh: --seed must be a non-negative integer" >&2
  exit 2
fi

scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target tst_e2e_crash_loop railyard-node railyardctl
RAILYARD_CRASH_ROUNDS="$rounds" RAILYARD_CRASH_SEED="$seed" QT_QPA_PLATFORM=offscreen \
  exec build/release/bin/tst_e2e_crash_loop
