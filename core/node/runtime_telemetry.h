// SPDX-License-Identifier: Apache-2.0
#pragma once

// Filling admin.Telemetry from the Boxcar runtime's own snapshots: what every Boxcar process
// reports, a node or a service owner's server (service_admin.h). No storage engine here.

#include <chrono>
#include <cstdint>
#include <vector>

#include "core/base/method_stats.h"
#include "core/rpc/server.h"
#include "core/rpc/slot_info.h"
#include "railyard/admin.pb.h"

namespace railyard::node {

void FillSlots(const std::vector<rpc::SlotInfo>& slots, admin::Telemetry* telemetry);
void FillThroughput(const base::MethodStats& stats, admin::Throughput* out);
int64_t UnixMillis(std::chrono::system_clock::time_point t);
// A server's state as telemetry reports it (stopping reports as lame duck: it serves no new work).
admin::NodeState NodeStateOf(rpc::ServerState state);

}  // namespace railyard::node
