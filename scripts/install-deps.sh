#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every Debian 12 package Railyard builds, tests and benchmarks with; skips what is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format ccache
  # scripts/stage_report.py, which test.sh runs after each stage.
  python3
  qt6-base-dev qt6-base-dev-tools libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6 qtkeychain-qt6-dev fonts-dejavu-core
  libjemalloc-dev  # The console's malloc (CMakeLists.txt, RAILYARD_CONSOLE_MALLOC).
  libprotobuf-dev protobuf-compiler libprotoc-dev
  libasio-dev libsqlite3-dev
  libcurl4-openssl-dev  # Range queries to a Prometheus server (core/cluster/prometheus_client.h).
  libspdlog-dev libfmt-dev libcli11-dev liblz4-dev libxxhash-dev
  libbenchmark-dev libssl-dev
  # clang with its libFuzzer and sanitizer runtimes, for the fuzz targets.
  clang libclang-rt-14-dev
  # Peers for the side-by-side benchmarks.
  libgrpc++-dev protobuf-compiler-grpc libleveldb-dev librocksdb-dev libkyotocabinet-dev
  liburing-dev  # Boxcar's io_uring engine (core/rpc/uring_service.cc), rpc_bench's raw-uring.
  # service_bench's peers and their clients (it starts its own servers on free loopback ports).
  redis-server memcached libhiredis-dev libmemcached-dev
  gdb  # The threads of a replica that stopped applying, when an e2e test waits for it in vain.
  strace  # rpc_bench_raw_uring_refused: a kernel that refuses io_uring, made by fault injection.
  gnuplot-nox  # scripts/bench.sh draws the kv and rpc comparisons as PNG.
  # The node's readiness, watchdog and journald fields; systemd-analyze checks the unit.
  libsystemd-dev systemd
  # promtool checks /metrics and the alert rules; a real Prometheus scrapes a node in a slow test.
  prometheus
  dbus-daemon  # A session bus of its own carries the console's alert notifications in a test.
  iproute2  # railyardctl lab: ip, tc and bridge make its hosts (network namespaces) and cuts.
  # The packages: built with dpkg-deb, checked with lintian, man pages from --help.
  dpkg-dev fakeroot lintian help2man bash-completion
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"

# Debian starts and enables the peers' own system services on install; the benchmarks start their
# own instances, so those it installed here are stopped and disabled again.
daemons=()
for p in redis-server memcached; do
  [[ " ${missing[*]} " == *" $p "* ]] && daemons+=("$p")
done
if [ ${#daemons[@]} -gt 0 ] && [ -d /run/systemd/system ]; then
  echo "install-deps: disabling the ${daemons[*]} system service(s) the packages started"
  "${sudo[@]}" systemctl disable --now "${daemons[@]}" || true
fi
