// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "core/cluster/admin_client.h"
#include "core/rpc/status.h"
#include "railyard/admin.pb.h"

namespace railyard::cluster {

// What one read of a node's past may cost.
struct HistoryFetchLimits {
  // No page is asked for after this.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // No page is asked for once the snapshots read so far reach this many serialized bytes.
  uint64_t max_bytes = UINT64_MAX;
};

// How a read of a node's past ended.
struct HistoryFetchResult {
  uint64_t snapshots = 0;
  uint64_t bytes = 0;  // Serialized size of the snapshots read.
  // False where a limit, the caller or an error stopped it before the recorder had nothing more
  // in the range.
  bool complete = false;
};

// Reads what a node's flight recorder (admin.History) holds in [from_unix_ms, to_unix_ms] (to 0:
// up to now), a page at a time, oldest first: `on_page` gets each page (and may move its
// snapshots out) and returns false to stop. Returns the first error of a page (FAILED_PRECONDITION
// from a process that keeps no history); a limit that stops it is not an error.
//
// Thread safety: as `client`'s; blocks for one page at a time.
rpc::Status FetchHistory(AdminClient& client, int64_t from_unix_ms, int64_t to_unix_ms,
                         const HistoryFetchLimits& limits,
                         const std::function<bool(admin::History& page)>& on_page,
                         HistoryFetchResult* result);

}  // namespace railyard::cluster
