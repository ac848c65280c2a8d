#pragma once

#include "core/base/method_stats.h"
#include "core/rpc/server.h"
#include "core/rpc/status.h"
#include "storage/docstore.h"
#include "storage/status.h"

namespace railyard::node {

// The Boxcar status a storage outcome becomes on the wire.
rpc::Status ToRpcStatus(const storage::Status& status);

// Registers doc.Get, doc.Put, doc.Delete and doc.BatchGet on `server`, served from `store` on the
// server's worker threads and timed into `stats`. REQUIRES: `server` not started; `store` and
// `stats` outlive it.
void RegisterDocService(rpc::Server& server, storage::DocStore& store, base::MethodStats& stats);

}  // namespace railyard::node
