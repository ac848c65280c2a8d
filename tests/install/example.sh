#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# examples/greeter as a service owner meets it: the dev and lib components of BUILD_DIR installed
# into a temporary prefix, the example they ship (share/doc/librailyard-dev/examples) built out
# of tree against them, two greeter servers (each
# with Railyard's admin service, one with /metrics) under load from the example's client, watched
# by `railyardctl status` and by the console (offscreen, one screenshot), one of them drained and
# undrained with an operator's token while the client's calls move and none fails.
#   example.sh BUILD_DIR EXAMPLE_DIR WORK_PARENT CXX BIN_DIR SCREENSHOT_DIR
# BIN_DIR holds railyardctl and railyard (the console) of the same build.
set -euo pipefail
build_dir=$1 example_dir=$2 work_parent=$3 cxx=$4 bin_dir=$5 screenshot_dir=$6
work=$(mktemp -d "$work_parent/example.XXXXXX")
pids=()
cleanup() {
  local pid
  for pid in ${pids[@]+"${pids[@]}"}; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in ${pids[@]+"${pids[@]}"}; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# forget PID: it has been waited for, so cleanup must not signal it (the number may be reused).
forget() {
  local left=() pid
  for pid in "${pids[@]}"; do [ "$pid" = "$1" ] || left+=("$pid"); done
  pids=(${left[@]+"${left[@]}"})
}
fail() { echo "FAIL: $*" >&2; for f in "$work"/*.out "$work"/*.err; do [ ! -s "$f" ] || { echo "--- $f"; tail -20 "$f"; } >&2; done; exit 1; }
# wait_for SECONDS WHAT COMMAND...: COMMAND every 0.2 s until it succeeds, for at most SECONDS.
wait_for() {
  local limit=$1 what=$2 end
  shift 2
  end=$((SECONDS + limit))
  until "$@"; do
    [ $SECONDS -lt $end ] || fail "$what within $limit s"
    sleep 0.2
  done
}
. "$(dirname "$0")/ccache_under.sh" "$work"

echo "--- install (components dev and lib) and build examples/greeter out of tree"
prefix="$work/prefix"
for component in dev lib; do
  cmake --install "$build_dir" --prefix "$prefix" --component $component >"$work/install.log" ||
    { cat "$work/install.log"; exit 1; }
done
installed_example="$prefix/share/doc/librailyard-dev/examples/greeter"
for file in "$example_dir"/*; do
  cmp -s "$file" "$installed_example/$(basename "$file")" || fail "the package's example differs: $file"
done
cmake -S "$installed_example" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER="${launcher[*]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"
echo "--- the same server with the shared libraries (Railyard::admin_shared), and pkg-config's files"
cmake -S "$installed_example" -B "$work/build-shared" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_COMPILER_LAUNCHER="${launcher[*]}" -DGREETER_SHARED=ON \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build-shared" --target greeter_server
readelf -d "$work/build-shared/greeter_server" | grep -q 'NEEDED.*librailyard_admin\.so' ||
  fail "the shared build does not use librailyard_admin.so"
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name railyard-admin.pc)")
pkg-config --libs railyard-admin | grep -q -- '-lrailyard_admin' || fail "railyard-admin.pc"
for archive in $(pkg-config --static --libs railyard-admin-static | tr ' ' '\n' | grep '\.a$'); do
  [ -f "$archive" ] || fail "railyard-admin-static.pc names $archive, which is not installed"
done
"$work/build/greeter_server" --help | grep -q -- '--admin-listen'
if "$work/build/greeter_server" --bogus 2>"$work/usage.err"; then fail "an unknown flag was taken"; fi
grep -q "unknown argument '--bogus'" "$work/usage.err" || fail "no clear usage error"

token() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
token >"$work/viewer.token"
token >"$work/operator.token"

echo "--- two servers, each with its admin service; the first with /metrics"
start_server() {  # NAME [EXTRA_FLAGS...]
  local name=$1
  shift
  "${server:-$work/build/greeter_server}" --name "$name" --viewer-token-file "$work/viewer.token" \
    --operator-token-file "$work/operator.token" "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=($!)
}
start_server greeter-a --metrics-listen 127.0.0.1:0
server=$work/build-shared/greeter_server start_server greeter-b  # The shared build.
listening() { grep -q "^greeter $1: service" "$work/$1.out"; }
wait_for 30 "greeter-a listening" listening greeter-a
wait_for 30 "greeter-b listening" listening greeter-b
# field NAME LABEL: the word after LABEL in NAME's "greeter NAME: service A admin B metrics C".
field() { grep "^greeter $1:" "$work/$1.out" | tr ' ' '\n' | grep -x -A1 "$2" | tail -1; }
service_a=$(field greeter-a service) admin_a=$(field greeter-a admin) metrics_a=$(field greeter-a metrics)
service_b=$(field greeter-b service) admin_b=$(field greeter-b admin)
echo "greeter-a: service $service_a admin $admin_a metrics $metrics_a; greeter-b: $service_b $admin_b"

echo "--- load from the example's client over both servers"
"$work/build/greeter_client" --server "$service_a" --server "$service_b" --seconds 0 \
  --callers 4 --pause-ms 2 >"$work/client.out" 2>"$work/client.err" &
client_pid=$!
pids+=($client_pid)

# Every command the test waits for has a bound of its own, so a hang fails here, with cleanup.
ctl() { timeout 30 "$bin_dir/railyardctl" "$@"; }
# requests ADMIN: greeter.Greet requests the server has answered, from `railyardctl status --json`.
requests() {
  ctl status -n "$1" --token-file "$work/viewer.token" --json | python3 -c '
import json, sys
t = json.loads(sys.stdin.readline())["telemetry"]
print(next((int(m.get("requests", 0)) for m in t.get("throughput", {}).get("methods", [])
            if m["method"] == "greeter.Greet"), 0))'
}
answered_at_least() {
  kill -0 "$client_pid" 2>/dev/null || fail "the client exited"
  [ "$(requests "$1")" -ge "$2" ]
}
wait_for 60 "greeter-a answering the client" answered_at_least "$admin_a" 200
wait_for 60 "greeter-b answering the client" answered_at_least "$admin_b" 200

echo "--- railyardctl status sees both as services, with the client's slots"
ctl status -n "$admin_a" -n "$admin_b" --token-file "$work/viewer.token" | tee "$work/status.txt"
for name in "$admin_a" "$admin_b"; do
  grep -q "^$name *serving *- " "$work/status.txt" || fail "status row of $name"
done
ctl status -n "$admin_a" --token-file "$work/viewer.token" --json | python3 -c '
import json, sys
t = json.loads(sys.stdin.readline())["telemetry"]
assert t["node"] == "greeter-a" and t["version"] == "1.0", t["node"]
assert any(s.get("client_name") == "greeter-client" for s in t.get("slots", [])), t.get("slots")
assert "storage" not in t, "a service without a store reported storage"'

echo "--- /metrics of greeter-a"
python3 - "$metrics_a" <<'PY'
import sys, urllib.request
body = urllib.request.urlopen(f"http://{sys.argv[1]}/metrics", timeout=10).read().decode()
assert 'railyard_requests_total{method="greeter.Greet",code="OK"}' in body, body[:2000]
assert "railyard_storage_" not in body
PY

echo "--- the console watches both (offscreen)"
# Its summary line, once a second, until it shows both serving with load and slots; then SIGTERM,
# on which it writes its last screenshot and exits 0.
QT_QPA_PLATFORM=offscreen "$bin_dir/railyard" -n "$admin_a" -n "$admin_b" \
  --token-file "$work/viewer.token" --tab slots --quit-after-s 90 \
  --screenshot "$screenshot_dir/example_greeter_slots.png" >"$work/console.out" 2>"$work/console.err" &
console_pid=$!
pids+=($console_pid)
console_sees_both() {
  kill -0 "$console_pid" 2>/dev/null || fail "the console exited early"
  grep -qE "^.*2 nodes: 2 serving, .* [1-9][0-9]* req/s, .* [1-9][0-9]* slots in use" "$work/console.out"
}
wait_for 60 "the console seeing both serving, with load and slots" console_sees_both
kill -TERM "$console_pid"
status=0
wait "$console_pid" || status=$?
forget "$console_pid"
[ $status -eq 0 ] || fail "the console exited with $status"
grep -q "screenshot: " "$work/console.out" || fail "no screenshot"
grep "nodes: " "$work/console.out" | tail -1

echo "--- drain greeter-b (a viewer may not; an operator may); the calls move to greeter-a"
if ctl drain -n "$admin_b" --token-file "$work/viewer.token" 2>"$work/viewer-drain.err"; then
  fail "a viewer drained greeter-b"
fi
grep -q "operator" "$work/viewer-drain.err" || fail "the viewer's refusal does not say why"
ctl drain -n "$admin_b" --token-file "$work/operator.token" --wait --timeout 30s
b_drained=$(requests "$admin_b")
a_drained=$(requests "$admin_a")
wait_for 60 "greeter-a taking the load" answered_at_least "$admin_a" $((a_drained + 300))
[ "$(requests "$admin_b")" -eq "$b_drained" ] || fail "greeter-b answered calls while drained"
ctl undrain -n "$admin_b" --token-file "$work/operator.token"
wait_for 60 "greeter-b answering again" answered_at_least "$admin_b" $((b_drained + 100))

echo "--- stop: the client reports no failed call; the servers drain and exit 0"
kill -TERM "$client_pid"
status=0
wait "$client_pid" || status=$?
forget "$client_pid"
cat "$work/client.out"
[ $status -eq 0 ] || fail "the client exited with $status"
grep -q ", 0 failed;" "$work/client.out" || fail "calls failed"
for pid in "${pids[@]}"; do
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  forget "$pid"
  [ $status -eq 0 ] || fail "a server exited with $status"
done
echo "PASS"
