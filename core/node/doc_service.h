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
  // kInline: calls run on the server's I/O threads and move to a worker only to wait (a read
  // for a position not applied yet, a write behind a flush, a sync, a large BatchGet), which
  // saves a thread hand-off per call. kWorkerPool: every call on a worker, so that a read that
  // faults a page in from disk holds up no other connection. docs/benchmarks.md measures both.
  rpc::Dispatch dispatch = rpc::Dispatch::kInline;
};

// Registers doc.Get, doc.Put, doc.Delete and doc.BatchGet on `server`, served from `store` as
// options.dispatch says and timed into `stats`. Writes answer the queue position that holds them;
// reads honour min_position (docservice.proto). REQUIRES: `server` not started; `store` and
// `stats` outlive it.
void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats,
                        const DocServiceOptions& options = {});

}  // namespace railyard::node
