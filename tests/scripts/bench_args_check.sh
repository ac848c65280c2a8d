#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/bench.sh refuses what it cannot run before it builds or runs anything: an unknown
# benchmark or argument exits 2 with a message; --help exits 0 and names every benchmark.
#   bench_args_check.sh SOURCE_DIR
set -uo pipefail
bench="$1/scripts/bench.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$bench" --help 2>&1) || fail "--help exited $?"
for name in rpc_bench pool_bench kv_bench trace_seek_bench admin_poll_bench console_frame_bench \
  replication_bench; do
  [[ "$out" == *"$name"* ]] || fail "--help does not name $name"
done

out=$("$bench" --only kv_bench,no_such_bench 2>&1)
status=$?
[ $status -eq 2 ] || fail "--only with an unknown benchmark exited $status, not 2"
[[ "$out" == *"no benchmark 'no_such_bench'"* ]] || fail "no message for the unknown benchmark: $out"

out=$("$bench" --kv-engines docstore,nosuchdb 2>&1)
status=$?
[ $status -eq 2 ] || fail "--kv-engines with an unknown engine exited $status, not 2"
[[ "$out" == *"no kv engine 'nosuchdb'"* ]] || fail "no message for the unknown engine: $out"

out=$("$bench" --fast 2>&1)
status=$?
[ $status -eq 2 ] || fail "an unknown argument exited $status, not 2"
[[ "$out" == *"unknown argument '--fast'"* ]] || fail "no message for the unknown argument: $out"
echo "PASS: bench.sh's usage errors exit 2 before building anything"
