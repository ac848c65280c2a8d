#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The flight recorder's cost (docs/benchmarks.md): two railyard-nodes polled at 10 Hz by
# `railyardctl record`, one with the recorder (the default) and one with --flight-recorder-mib 0;
# each node's CPU over 60 s from /proc and its RSS, twice with the start order swapped. One JSON
# object per line. Needs a release build (scripts/build.sh release).
set -euo pipefail
B=$(cd "$(dirname "$0")/.." && pwd)/build/release/bin
work=$(mktemp -d)
trap 'kill $(cat "$work"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
tick=$(getconf CLK_TCK)
for rep in 1 2; do
  rm -rf on off; echo tok > v.tokens
  if [ $rep = 1 ]; then order="on off"; else order="off on"; fi
  for kind in $order; do
    extra=""; [ $kind = off ] && extra="--flight-recorder-mib 0"
    $B/railyard-node --name $kind --data-dir $kind --listen 127.0.0.1:0 --viewer-token-file v.tokens $extra > $kind.out 2>/dev/null &
    echo $! > $kind.pid
  done
  for kind in on off; do  # Each says where it listens once it does (at most 30 s).
    for _ in $(seq 300); do grep -q ADMIN $kind.out && break; sleep 0.1; done
  done
  for kind in on off; do A=$(grep -oE "ADMIN [0-9.:]+" $kind.out | cut -d' ' -f2); $B/railyardctl record -n $A --token tok --interval-ms 100 --duration-s 62 -o $kind.rec >/dev/null 2>&1 & done
  sleep 1  # The recorders connected.
  declare -A c0; for kind in on off; do p=$(cat $kind.pid); c0[$kind]=$(awk '{print $14+$15}' /proc/$p/stat); done
  sleep 60  # The measured window.
  for kind in on off; do p=$(cat $kind.pid); c1=$(awk '{print $14+$15}' /proc/$p/stat); rss=$(awk '/VmRSS/{print $2}' /proc/$p/status); echo "{\"rep\":$rep,\"recorder\":\"$kind\",\"cpu_ms_per_s\":$(( (c1-c0[$kind])*1000/tick/60 )),\"cpu_ticks\":$((c1-c0[$kind])),\"rss_kib\":$rss}"; done
  for kind in on off; do kill "$(cat $kind.pid)"; done
  wait
done
