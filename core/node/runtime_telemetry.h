// SPDX-License-Identifier: Apache-2.0
#pragma once

// Filling admin.Telemetry from the Boxcar runtime's own snapshots: what every Boxcar process
// reports, a node or a service owner's server (service_admin.h). No storage engine here.

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/base/method_stats.h"
#include "core/rpc/server.h"
#include "core/rpc/slot_info.h"
#include "railyard/admin.pb.h"

namespace railyard::node {

void FillSlots(const std::vector<rpc::SlotInfo>& slots, admin::Telemetry* telemetry);
void FillThroughput(const base::MethodStats& stats, admin::Throughput* out);
// A server's throughput: its handlers' figures from `stats`, and as its rejections the calls the
// server refused by its state (rpc::Server::RefusalsPerSecond), which never reach `stats`.
void FillServerThroughput(const base::MethodStats& stats, const rpc::Server& server,
                          admin::Throughput* out);
int64_t UnixMillis(std::chrono::system_clock::time_point t);
// A server's state as telemetry reports it (stopping reports as lame duck: it serves no new work).
admin::NodeState NodeStateOf(rpc::ServerState state);

// Who takes a snapshot: the process's snapshot count (this one's), when it began taking them, its
// name and version.
struct SnapshotSource {
  uint64_t sequence = 0;
  int64_t started_unix_ms = 0;
  std::string_view name;
  std::string_view version;
};
// What every Boxcar server's snapshot carries, a node's or a service's with ServiceAdmin: who,
// when, role server (a caller that also follows or calls others makes it both), state, addresses
// and slot table. Returns the slots it reported (a node's replication source reads them too).
std::vector<rpc::SlotInfo> FillServerSnapshot(const SnapshotSource& source,
                                              const rpc::Server& server, const rpc::Endpoint& admin,
                                              admin::Telemetry* telemetry);

}  // namespace railyard::node
