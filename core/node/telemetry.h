// SPDX-License-Identifier: Apache-2.0
#pragma once

// Filling admin.Telemetry from the storage engine's snapshots; the runtime's are
// runtime_telemetry.h's.

#include <string>
#include <vector>

#include "core/node/client_telemetry.h"  // FillPool, for a node's own client pools.
#include "core/node/runtime_telemetry.h"
#include "core/rpc/client.h"
#include "railyard/admin.pb.h"
#include "storage/docstore.h"
#include "storage/stats.h"

namespace railyard::node {

void FillStorage(const storage::Stats& stats, admin::StorageStats* out);
// Everything of admin.DocLocation that the store knows (not the id, role or applied position).
void FillDocLocation(const storage::DocLocation& where, admin::DocLocation* out);

}  // namespace railyard::node
