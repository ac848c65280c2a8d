// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "core/base/decaying_rate.h"
#include "core/base/mutex.h"
#include "core/rpc/client.h"
#include "railyard/admin.pb.h"
#include "storage/docstore.h"

namespace railyard::node {

struct FollowerOptions {
  std::string updater;  // host:port of the updater's docservice.
  std::string token;    // The replication token to present.
  std::optional<rpc::TlsClientOptions> tls;
  std::string name;     // This node, for the updater's follower list and the logs.
  std::string address;  // This node's docservice address, likewise.
  size_t max_chunk_bytes = 4u << 20;
  // How long a fetch at the head may wait on the updater for a new block.
  std::chrono::milliseconds wait{1000};
  // Waits between attempts after a failure: doubling from min to max.
  std::chrono::milliseconds retry_min{100};
  std::chrono::milliseconds retry_max{2000};
  std::chrono::milliseconds progress_log_interval{5000};
  // Called once, from the follower's thread: with true when it first reaches the updater's head
  // (and has indexed that far); with false once it has not reached the updater for
  // ready_anyway_after (from the start or from its last answer), or at once when replication
  // stopped on an error that retrying cannot fix. Unset: never called.
  std::function<void(bool caught_up)> on_ready;
  std::chrono::milliseconds ready_anyway_after{10000};
};

// A replica's follower: one thread that fetches the updater's queue from where the local store
// ends (QueueEnd(), which survives restarts) and applies it (DocStore::ApplyQueue verifies every
// block; one that fails in transit is fetched again, never applied). It logs catch-up progress and
// every change of state, and keeps the figures telemetry shows.
//
// Thread safety: Start and Stop from one thread; FillTelemetry and pool() from any thread.
class ReplicaFollower {
 public:
  ReplicaFollower(FollowerOptions options, storage::DocStore& store);
  ~ReplicaFollower();

  rpc::Status Start();
  void Stop();
  void FillTelemetry(admin::Replication* out) RAILYARD_EXCLUDES(mu_);
  rpc::PoolSnapshot pool() const { return client_->Snapshot(); }
  const std::string& updater() const { return options_.updater; }

 private:
  void Run();
  // One fetch and its application. Returns how long to wait before the next (zero: at once).
  std::chrono::milliseconds FetchOnce() RAILYARD_EXCLUDES(mu_);
  std::chrono::milliseconds OnFailure(admin::ReplicaState state, const std::string& error)
      RAILYARD_EXCLUDES(mu_);
  void LogProgress() RAILYARD_EXCLUDES(mu_);
  // Calls options_.on_ready once it is time (see FollowerOptions).
  void ReportReadiness() RAILYARD_EXCLUDES(mu_);

  const FollowerOptions options_;
  storage::DocStore& store_;
  std::unique_ptr<rpc::Client> client_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  base::Mutex stop_mu_;
  base::CondVar stop_cv_;
  base::DecayingRate apply_rate_{std::chrono::seconds(2)};
  // The follower thread's own: whether on_ready was called, and when the updater last answered
  // or the follower started (for ready_anyway_after).
  bool ready_reported_ = false;
  std::chrono::steady_clock::time_point ready_clock_;

  base::Mutex mu_;
  admin::ReplicaState state_ RAILYARD_GUARDED_BY(mu_) = admin::REPLICA_DISCONNECTED;
  std::string last_error_ RAILYARD_GUARDED_BY(mu_);
  uint64_t head_ RAILYARD_GUARDED_BY(mu_) = 0;
  // The updater's last answer, for the lag (core/node/replication_lag.h).
  uint64_t answer_end_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t answer_docs_ RAILYARD_GUARDED_BY(mu_) = 0;
  int64_t answer_first_append_us_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t behind_docs_ RAILYARD_GUARDED_BY(mu_) = 0;
  int64_t oldest_unsent_us_ RAILYARD_GUARDED_BY(mu_) = 0;
  // When the fetch now in flight was sent: one unanswered for longer than it may wait means the
  // connection is not live.
  std::chrono::steady_clock::time_point fetch_sent_at_ RAILYARD_GUARDED_BY(mu_);
  bool fetch_in_flight_ RAILYARD_GUARDED_BY(mu_) = false;
  uint64_t applied_docs_ RAILYARD_GUARDED_BY(mu_) = 0;
  uint64_t refetches_ RAILYARD_GUARDED_BY(mu_) = 0;
  int64_t last_contact_ms_ RAILYARD_GUARDED_BY(mu_) = 0;
  // Where the current catch-up began, for its progress.
  uint64_t catch_up_from_ RAILYARD_GUARDED_BY(mu_) = 0;
  std::chrono::steady_clock::time_point last_progress_log_ RAILYARD_GUARDED_BY(mu_);
  int failures_in_a_row_ RAILYARD_GUARDED_BY(mu_) = 0;
};

}  // namespace railyard::node
