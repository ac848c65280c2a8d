#pragma once

// Filling admin.Telemetry from the runtime's own snapshots.

#include <string>
#include <vector>

#include "core/base/method_stats.h"
#include "core/rpc/client.h"
#include "core/rpc/slot_table.h"
#include "railyard/admin.pb.h"
#include "storage/stats.h"

namespace railyard::node {

void FillSlots(const std::vector<rpc::SlotInfo>& slots, admin::Telemetry* telemetry);
// `policy` names the policy when the snapshot does not (the snapshot's own name wins).
void FillPool(const rpc::PoolSnapshot& pool, const std::string& client_name,
              const std::string& policy, admin::ClientPool* out);
void FillStorage(const storage::Stats& stats, admin::StorageStats* out);
void FillThroughput(const base::MethodStats& stats, admin::Throughput* out);
int64_t UnixMillis(std::chrono::system_clock::time_point t);

}  // namespace railyard::node
