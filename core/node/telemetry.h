// SPDX-License-Identifier: Apache-2.0
#pragma once

// Filling admin.Telemetry from the runtime's own snapshots.

#include <string>
#include <vector>

#include "core/base/method_stats.h"
#include "core/node/client_telemetry.h"  // FillPool, for a node's own client pools.
#include "core/rpc/client.h"
#include "core/rpc/slot_table.h"
#include "railyard/admin.pb.h"
#include "storage/stats.h"

namespace railyard::node {

void FillSlots(const std::vector<rpc::SlotInfo>& slots, admin::Telemetry* telemetry);
void FillStorage(const storage::Stats& stats, admin::StorageStats* out);
void FillThroughput(const base::MethodStats& stats, admin::Throughput* out);
int64_t UnixMillis(std::chrono::system_clock::time_point t);

}  // namespace railyard::node
