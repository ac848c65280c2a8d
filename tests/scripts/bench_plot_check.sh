#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/bench_plot.py on a results file with known figures: both PNGs are drawn, the tables show
# the medians of repeated runs and the ratios the targets are set in, and lines it cannot use
# (another benchmark, a failed run, a line that is not JSON) change nothing.
#   bench_plot_check.sh SOURCE_DIR WORK_PARENT
set -euo pipefail
source_dir=$1 work_parent=$2
work=$(mktemp -d "$work_parent/bench-plot.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/results.jsonl" <<'JSONL'
{"bench":"machine","date":"2026-11-24T12:00:00Z","commit":"abc1234","cpu":"test cpu","cores":2,"load_average":1.0,"sizes":"quick"}
{"bench":"kv_bench","engine":"docstore","n":1000,"write_s":0.5,"read_s":0.25,"errors":0}
{"bench":"kv_bench","engine":"docstore","n":1000,"write_s":0.4,"read_s":0.2,"errors":0}
{"bench":"kv_bench","engine":"docstore","n":1000,"write_s":0.1,"read_s":0.1,"errors":0}
{"bench":"kv_bench","engine":"leveldb","n":1000,"write_s":1.0,"read_s":1.0,"errors":0}
{"bench":"kv_bench","engine":"leveldb","n":1000,"write_s":0.01,"read_s":0.01,"errors":3}
{"bench":"rpc_bench","system":"raw","concurrency":16,"requests_per_s":40000,"p99_us":500,"errors":0}
{"bench":"rpc_bench","system":"railyard","concurrency":16,"requests_per_s":30000,"p99_us":900,"errors":0}
{"bench":"rpc_bench","system":"grpc","concurrency":16,"requests_per_s":10000,"p99_us":1200,"errors":0}
{"bench":"pool_bench","name":"BM_AllIdle/8","pool_size":8,"ns_per_op":58.22}
not a JSON line
{"bench":"bench.sh","ran":"kv_bench","args":"--n 1000","exit":0,"wall_s":1}
JSONL
mkdir "$work/docs"
python3 "$source_dir/scripts/bench_plot.py" "$work/results.jsonl" "$work/docs" >"$work/tables.md"
cat "$work/tables.md"
for png in bench-kv.png bench-rpc.png; do
  [ "$(head -c 4 "$work/docs/$png" | tail -c 3)" = PNG ] || { echo "FAIL: no $png drawn" >&2; exit 1; }
done
expect() {
  grep -qF -- "$1" "$work/tables.md" || { echo "FAIL: the tables lack: $1" >&2; exit 1; }
}
# docstore's medians: 2,500 writes/s (0.4 s) and 5,000 reads/s (0.2 s); leveldb's failed run is left out.
expect "| docstore | 2,500 | 5,000 | 1.00x, 1.00x |"
expect "| leveldb | 1,000 | 1,000 | 2.50x, 5.00x |"
expect "| 16 | railyard | 30,000 | 900 | 3.00x | 75% |"
expect "| 16 | raw | 40,000 | 500 | 4.00x | 100% |"
echo "PASS: both plots drawn, medians and ratios as expected"
