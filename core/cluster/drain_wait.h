// SPDX-License-Identifier: Apache-2.0
#pragma once

// Waiting for a drained node to be left by its clients (DrainFiguresOf, replication_names.h):
// `railyardctl drain --wait` and each node of a rolling restart.

#include <atomic>
#include <chrono>
#include <functional>

#include "core/cluster/admin_client.h"
#include "core/cluster/replication_names.h"
#include "core/rpc/status.h"

namespace railyard::cluster {

struct DrainWaitOptions {
  std::chrono::steady_clock::time_point deadline;
  // Called with the first figures and with each change of them while clients remain; may be
  // empty.
  std::function<void(const DrainFigures& figures)> on_change;
  // Read at each poll: once true the wait ends with CANCELLED. May be null.
  const std::atomic<bool>* stop = nullptr;
};

// Polls `client`'s telemetry a few times a second until the node holds no client slot (and so
// runs no client's request). OK once drained; DEADLINE_EXCEEDED when the next poll would come
// after the deadline; CANCELLED on `stop`; else the failed telemetry call's status. `last` gets
// the figures last seen.
rpc::Status WaitUntilDrained(AdminClient& client, const DrainWaitOptions& options,
                             DrainFigures* last);

}  // namespace railyard::cluster
