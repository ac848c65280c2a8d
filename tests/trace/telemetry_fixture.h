// SPDX-License-Identifier: Apache-2.0
#pragma once

// Recordings for the trace tests and for bench/trace_seek_bench: realistic telemetry derived from
// its arguments, so that a test can check any snapshot it reads without remembering what it
// wrote, and a cluster recording whose timestamps are known in closed form. Qt-free.

#include <cstdint>
#include <string>

#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::trace::testing {

// Snapshot n of tests/trace/trace_kill_writer is taken at kKillWriterBaseMs + n.
inline constexpr int64_t kKillWriterBaseMs = 1'700'000'000'000;

// "node-00", "node-01", ...
std::string NodeName(int index);

// A snapshot as a node would sample it, about 1.5 KB serialized: four slots, a client pool, a
// storage section (indexes, compactions, Bloom pages) and per-method throughput. The same
// arguments always give the same message.
admin::Telemetry MakeTelemetry(const std::string& node, uint64_t sequence, int64_t unix_ms);

// A cluster whose nodes report at 1 Hz: node i takes its snapshot number k (k = 0, 1, ...;
// sequence k + 1) at start_unix_ms + 1000 k + OffsetMs(i). Node `stopped_node` (if >= 0) stops
// after `stopped_after` snapshots.
struct ClusterShape {
  int nodes = 20;
  int seconds = 3600;
  int64_t start_unix_ms = 1'700'000'000'000;
  int stopped_node = -1;
  int stopped_after = 0;

  int64_t OffsetMs(int node) const { return (node * 37) % 1000; }
  int SnapshotsOf(int node) const { return node == stopped_node ? stopped_after : seconds; }
  int64_t TimeOf(int node, int k) const { return start_unix_ms + 1000LL * k + OffsetMs(node); }
  // The number k of node's latest snapshot at or before unix_ms, or -1 if there is none.
  int LatestAt(int node, int64_t unix_ms) const;
  int64_t TotalSnapshots() const;
};

// Writes the cluster's snapshots, in time order, to a new recording at `path`.
Status WriteClusterRecording(const std::string& path, const ClusterShape& shape);

}  // namespace railyard::trace::testing
