// SPDX-License-Identifier: Apache-2.0
#pragma once

// Generated cluster telemetry for the console's model tests and bench/console_frame_bench: a
// cluster of `nodes` server processes and `clients` Boxcar clients whose slot tables, pools,
// storage and throughput are derived from the arguments alone, so a test can recompute what any
// cell of a model must show. Qt-free.

#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/status.h"
#include "railyard/admin.pb.h"

namespace railyard::ui::testing {

struct GeneratedCluster {
  int nodes = 100;
  int clients = 200;
  int pool_size = 8;         // Connections per client, each to a different server.
  int frames_per_swap = 10;  // Every this many frames one client moves a connection.
  int64_t start_unix_ms = 1'750'000'000'000;
  int frame_ms = 100;  // 10 Hz.
  int bloom_pages_per_index = 8;

  static std::string NodeName(int node);        // "n000", "n001", ...
  static std::string ClientName(int client);    // "client-000", ...
  static std::string ServiceAddress(int node);  // "10.0.0.0:7000", ..., "10.0.1.0:7000" (250)
  static uint64_t ClientId(int client) { return 0x1000 + static_cast<uint64_t>(client); }

  // The servers client `client` holds a connection to at `frame`, in the client's pool order.
  std::vector<int> ServersOf(int client, int frame) const;
  // For each server, the clients it serves at `frame`, in slot order (slot = position).
  std::vector<std::vector<int>> Assignment(int frame) const;
  // The slots `client` holds on `node` at `frame` (ascending; empty if none). A server hands out
  // slots in the order of client number among the clients it serves, lowest first.
  std::vector<uint32_t> SlotsOf(int client, int node, int frame) const;
  // Node `node`'s telemetry at `frame`. `lame_duck` marks the node as draining.
  admin::Telemetry Telemetry(int node, int frame, bool lame_duck = false) const;
  // The same, with `assignment` = Assignment(frame) computed once for every node of the frame
  // (what makes a long 300-node run cheap to generate).
  admin::Telemetry Telemetry(int node, int frame, bool lame_duck,
                             const std::vector<std::vector<int>>& assignment) const;
  int64_t TimeOf(int frame) const { return start_unix_ms + int64_t(frame) * frame_ms; }
};

// Writes `frames` frames of every node into a new recording at `path`, with a drain of node 1
// at frame frames/3 (lame duck until 2*frames/3, then undrained) and a compaction event at frame
// frames/2, as events.
trace::Status WriteGeneratedRecording(const std::string& path, const GeneratedCluster& cluster,
                                      int frames);

}  // namespace railyard::ui::testing
