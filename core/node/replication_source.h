// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "core/base/method_stats.h"
#include "core/base/mutex.h"
#include "core/node/auth_throttle.h"
#include "core/rpc/server.h"
#include "railyard/admin.pb.h"
#include "railyard/replication.boxcar.h"
#include "storage/docstore.h"

namespace railyard::node {

struct ReplicationSourceOptions {
  // Followers must present one of these; none: every follower is refused (replication is off),
  // unless certificates authenticate them.
  std::vector<std::string> tokens;
  // The docservice listener requires client certificates signed by its client CA: a follower that
  // got through the TLS handshake is authenticated by its certificate and needs no token.
  bool client_certificates_authenticate = false;
  // A fetch's blocks are at most about this large: bounded memory on both sides.
  size_t max_chunk_bytes = 4u << 20;
  // The longest a fetch at the head waits for a new block (its own wait_ms is capped by it).
  std::chrono::milliseconds max_wait{2000};
  AuthThrottle::Options throttle;
  // Test fault hook: flips one byte in the blocks of the first N replies that carry blocks, as a
  // network fault would (the replica must refetch, never apply).
  int corrupt_first_sends = 0;
};

// The updater's side of replication: repl.Fetch on the docservice listener (replication.proto).
// A follower at the head waits on the queue's growth (no polling); every block sent was verified
// by its checksum here first; a damaged block stops replication at it, with CORRUPTED and an
// error in the log, instead of being skipped. Keeps the follower list for telemetry: a follower
// leaves it when its last connection closes, and reads as "silent", its lag unknown, once it has
// not fetched for its fetch's wait plus kFollowSilenceAllowance.
//
// Thread safety: fetches run concurrently on the server's workers; FillTelemetry from any thread.
class ReplicationSource final : public repl::ReplicationService::Service {
 public:
  ReplicationSource(ReplicationSourceOptions options, storage::DocStore& store, std::string name);

  void Register(rpc::Server& server, base::MethodStats& stats);
  // `connections`: the docservice's slot table, which the caller took for the same snapshot; a
  // follower none of whose connections is in it has left.
  void FillTelemetry(const std::vector<rpc::SlotInfo>& connections, admin::Replication* out)
      RAILYARD_EXCLUDES(mu_);

 private:
  rpc::Status Fetch(const rpc::CallContext& call, const repl::FetchRequest& request,
                    repl::FetchResponse* response) override RAILYARD_EXCLUDES(mu_);
  rpc::Status Authorize(const rpc::CallContext& call, const std::string& token,
                        const std::string& follower);
  void RecordFollower(const rpc::CallContext& call, const repl::FetchRequest& request,
                      std::chrono::milliseconds wait) RAILYARD_EXCLUDES(mu_);

  struct FollowerEntry {
    admin::Follower shown;          // Name, addresses, state as the follower reported it.
    uint64_t client_id = 0;         // Its connections' client; gone from the slot table: it left.
    storage::LogPosition position;  // Where its last fetch asked to read.
    std::chrono::milliseconds wait{0};
    std::chrono::steady_clock::time_point fetched_at;
  };

  const ReplicationSourceOptions options_;
  storage::DocStore& store_;
  const std::string name_;
  AuthThrottle throttle_;
  std::atomic<int> corrupt_left_;
  base::Mutex mu_;
  std::map<std::string, FollowerEntry> followers_ RAILYARD_GUARDED_BY(mu_);  // By name.
};

// Microseconds since the epoch, now.
int64_t NowUnixMicros();

}  // namespace railyard::node
