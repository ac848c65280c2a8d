#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the benchmarks (-O2, build/bench), runs every one, writes one JSON-lines file and redraws the kv and rpc plots in docs/.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'USAGE'
Usage: scripts/bench.sh [--quick | --full] [--out FILE] [--only NAME,...] [--kv-engines E,...]
                        [--no-build]
       scripts/bench.sh --plot-only FILE

Configures and builds the `bench` preset (its own folder, build/bench), runs each benchmark one
after the other and appends what it prints (one JSON object per line) to FILE (default
bench/results/<UTC date and time>.jsonl). The file starts with a line describing the machine and
the commit, and each benchmark is followed by a line with its command, exit status and wall time.
Then draws docs/bench-kv.png and docs/bench-rpc.png from FILE (gnuplot).

  --full    the issue's sizes (the default): kv_bench 10M keys, rpc_bench 8 s per point,
            replication_bench 60 s and 10M documents, fleet_bench 48 nodes and 96 load clients
            (as root, each in a network namespace), service_bench's whole matrix 3 times
            (about 2 hours alone). Expect three hours or more on 2 cores.
  --quick   small sizes, a few minutes: to try the script, not for figures.
  --only    run only these benchmarks: rpc_bench, pool_bench, kv_bench, trace_seek_bench,
            admin_poll_bench, console_frame_bench, replication_bench, fleet_bench,
            service_bench.
  --kv-engines  kv_bench's engines, of docstore, leveldb, rocksdb, kyoto, sqlite (default: all
            built), to leave out those a run does not need (the docstore's targets are
            against LevelDB and RocksDB).
  --no-build  use build/bench as it is.
  --plot-only FILE  only redraw the plots from FILE.

A benchmark that fails is recorded as such and the others still run; the script then exits 1.
Figures move 20-50% between runs on a shared machine: compare ratios from one run.
USAGE
}

size=full
out=""
only=""
kv_engines=""
build=1
plot_only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) size=quick; shift ;;
    --full) size=full; shift ;;
    --out) out=${2:?--out needs a file}; shift 2 ;;
    --only) only=${2:?--only needs names}; shift 2 ;;
    --kv-engines) kv_engines=${2:?--kv-engines needs names}; shift 2 ;;
    --no-build) build=0; shift ;;
    --plot-only) plot_only=${2:?--plot-only needs a file}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

if [[ -n "$plot_only" ]]; then
  exec python3 scripts/bench_plot.py "$plot_only" docs
fi

all=(rpc_bench pool_bench kv_bench trace_seek_bench admin_poll_bench console_frame_bench replication_bench
  fleet_bench service_bench)
if [[ -n "$only" ]]; then
  IFS=, read -r -a selected <<<"$only"
  for name in "${selected[@]}"; do
    [[ " ${all[*]} " == *" $name "* ]] || { echo "bench.sh: no benchmark '$name'" >&2; exit 2; }
  done
else
  selected=("${all[@]}")
fi

if [[ -n "$kv_engines" ]]; then
  IFS=, read -r -a engines <<<"$kv_engines"
  for engine in "${engines[@]}"; do
    [[ " docstore leveldb rocksdb kyoto sqlite " == *" $engine "* ]] ||
      { echo "bench.sh: no kv engine '$engine'" >&2; exit 2; }
  done
fi

if ((build)); then
  scripts/build.sh bench "${selected[@]}"
fi
bin=build/bench/bin

if [[ -z "$out" ]]; then
  mkdir -p bench/results
  out="bench/results/$(date -u +%Y-%m-%dT%H%M%SZ).jsonl"
fi
mkdir -p "$(dirname "$out")"

# What a figure needs beside it: the machine, its load, the commit and the sizes.
python3 - "$size" >"$out" <<'PY'
import json, os, platform, subprocess, sys, time
def first(path, key):
    try:
        for line in open(path):
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""
def git(*args):
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""
print(json.dumps({
    "bench": "machine",
    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    "commit": git("rev-parse", "--short", "HEAD"),
    "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
    "cpu": first("/proc/cpuinfo", "model name"),
    "cores": os.cpu_count(),
    "memory_kb": int(first("/proc/meminfo", "MemTotal").split()[0] or 0),
    "kernel": platform.release(),
    "load_average": os.getloadavg()[0],
    "sizes": sys.argv[1],
}))
PY

# The benchmarks' owners add flags (kv_bench and rpc_bench `--repeat N`, rpc_bench's `raw`
# system); use them where the binary has them, so this script works before and after.
# (The help is read whole: `| grep -q` could end the pipe early and, under pipefail, fail.)
has_flag() {
  local help
  help=$("$bin/$1" --help 2>&1 || true)
  [[ "$help" == *"$2"* ]]
}

args_for() {
  local name=$1
  case "$size:$name" in
    quick:rpc_bench) echo "--duration-s 1 --concurrency 1,16,64" ;;
    full:rpc_bench) echo "--duration-s 8 --concurrency 1,16,64" ;;
    quick:pool_bench) echo "--benchmark_min_time=0.05" ;;
    full:pool_bench) echo "" ;;
    quick:kv_bench) echo "--n 200000" ;;
    full:kv_bench) echo "--n 10000000" ;;
    quick:trace_seek_bench) echo "--seconds 600 --seeks 200" ;;
    full:trace_seek_bench) echo "" ;;
    quick:admin_poll_bench) echo "--window-s 1 --rounds 1" ;;
    full:admin_poll_bench) echo "" ;;
    quick:console_frame_bench) echo "--seconds 5" ;;
    full:console_frame_bench) echo "" ;;
    quick:replication_bench) echo "--duration-s 3 --catch-up-docs 200000 --cache-docs 100000 --cache-reps 1" ;;
    full:replication_bench) echo "--duration-s 60 --catch-up-docs 10000000 --cache-docs 1000000 --cache-reps 5" ;;
    quick:fleet_bench) echo "--replicas 5 --clients 10 --client-subset 3 --per-tab-s 3 --idle-s 3" ;;
    full:fleet_bench) echo "--screenshot-dir build/bench/screenshots" ;;
    quick:service_bench) echo "--keys 20000 --clients 16 --values 100 --duration-s 1 --reps 1" ;;
    full:service_bench) echo "--duration-s 8 --reps 3" ;;
  esac
  if [[ "$name" == kv_bench && -n "$kv_engines" ]]; then echo "--engines $kv_engines"; fi
  if [[ "$name" == kv_bench || "$name" == rpc_bench ]] && has_flag "$name" --repeat; then
    if [[ $size == full ]]; then echo "--repeat 3"; else echo "--repeat 1"; fi
  fi
}

failed=()
for name in "${selected[@]}"; do
  if [[ ! -x "$bin/$name" ]]; then
    echo "bench.sh: $bin/$name is not built (console off?); skipped" >&2
    printf '{"bench":"bench.sh","ran":"%s","skipped":"not built"}\n' "$name" >>"$out"
    continue
  fi
  read -r -a args <<<"$(args_for "$name" | tr '\n' ' ')"
  echo "=== $name ${args[*]}" >&2
  start=$SECONDS
  status=0
  # Only JSON objects go to the file; anything else a benchmark prints on stdout goes to stderr.
  QT_QPA_PLATFORM=offscreen "$bin/$name" "${args[@]}" |
    while IFS= read -r line; do
      if [[ "$line" == "{"* ]]; then echo "$line" | tee -a "$out"; else echo "$line" >&2; fi
    done || status=$?
  printf '{"bench":"bench.sh","ran":"%s","args":"%s","exit":%d,"wall_s":%d}\n' \
    "$name" "${args[*]}" "$status" $((SECONDS - start)) >>"$out"
  ((status == 0)) || failed+=("$name")
done

echo "bench.sh: results in $out" >&2
python3 scripts/bench_plot.py "$out" docs
if ((${#failed[@]})); then
  echo "bench.sh: failed: ${failed[*]}" >&2
  exit 1
fi
