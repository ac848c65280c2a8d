// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <string>

#include "core/base/method_stats.h"
#include "core/rpc/server.h"
#include "core/rpc/status.h"
#include "storage/docstore.h"
#include "storage/status.h"

namespace railyard::node {

// The Boxcar status a storage outcome becomes on the wire.
rpc::Status ToRpcStatus(const storage::Status& status);

struct DocServiceOptions {
  // Set on a replica: the updater it follows. Writes are refused with FAILED_PRECONDITION naming
  // it.
  std::string replica_of;
  // A read whose min_position is not applied yet waits at most this long (and never past its
  // deadline), then answers BEHIND so the client moves it to another replica.
  std::chrono::milliseconds max_read_wait{1000};
};

// Registers doc.Get, doc.Put, doc.Delete and doc.BatchGet on `server`, served from `store` on the
// server's worker threads and timed into `stats`. Writes answer the queue position that holds them;
// reads honour min_position (docservice.proto). REQUIRES: `server` not started; `store` and
// `stats` outlive it.
void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats,
                        const DocServiceOptions& options = {});

}  // namespace railyard::node
