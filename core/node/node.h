// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/method_stats.h"
#include "core/node/admin_service.h"
#include "core/node/data_access.h"
#include "core/node/monitoring_listener.h"
#include "core/node/replica_follower.h"
#include "core/node/replication_source.h"
#include "core/rpc/server.h"
#include "railyard/admin.pb.h"
#include "storage/docstore.h"

namespace railyard::node {

class Node;

// Which part of the seeds' docstore this node plays.
struct ReplicationOptions {
  bool replica = false;  // false: the updater.
  std::string follow;    // A replica's updater: host:port of its docservice.
  // Updater: the tokens followers must present. Replica: the first is the one it presents.
  std::vector<std::string> tokens;
  std::optional<rpc::TlsClientOptions> follow_tls;
  // A replica stays starting (clients send it nothing) until it first reaches its updater's head;
  // if it cannot reach the updater for this long, or replication stops on an error, it serves
  // what it has instead (reads carrying a newer position are answered BEHIND, retried elsewhere).
  std::chrono::milliseconds serve_unreachable_after{10000};
  int corrupt_first_sends = 0;  // Test fault hook (ReplicationSourceOptions).
};

// The docservice's I/O threads when none are configured: half the cores the process may use
// (base::UsableCores(): its affinity and its cgroup's CPU quota), at least one. Calls run
// on these threads, which share one I/O context; on a machine the node shares with its
// replication, compaction and clients, a thread per core only adds hand-offs between them
// (docs/benchmarks.md, "One I/O thread per node on io_uring").
size_t DefaultNodeIoThreads();

struct NodeOptions {
  std::string name = "node";
  std::string data_dir;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
  size_t io_threads = 0;  // 0: DefaultNodeIoThreads().
  size_t worker_threads = 0;
  // Where docservice calls run (DocServiceOptions::dispatch).
  rpc::Dispatch doc_dispatch = rpc::Dispatch::kInline;
  storage::Options storage;
  AdminOptions admin;
  // Who may use the docservice (data_access.h); no tokens: anyone who reaches it.
  DataAccessOptions data_access;
  std::optional<rpc::TlsServerOptions>
      tls;  // The docservice listener; admin.tls for the admin one.
  ReplicationOptions replication;
  // Its telemetry kept in a flight recorder (served as admin.History); its folder defaults to
  // <data_dir>/flight.
  FlightRecorderOptions flight;
  // Set: the HTTP listener for Prometheus and health checks (/metrics, /healthz, /readyz).
  std::optional<MonitoringOptions> monitoring;
  // Test hook: called inside Open once both listeners are up and before the store opens.
  std::function<void(Node& starting)> on_starting;
};

// A railyard-node: the docstore served over Boxcar, with an admin service beside it. An updater
// takes writes and serves its queue to replicas (repl.Fetch); a replica follows one updater and
// serves reads.
//
// Start-up (the SRE chapter's starting state): Open listens first, with the docservice saying
// "starting" (telemetry: NODE_STARTING), then opens the store (WAL replay, indexes and Bloom
// pages) and starts replication, and only then says "serving". Clients connect meanwhile and send
// nothing until then.
//
// Thread safety: every method may be called from any thread.
class Node {
 public:
  static rpc::Status Open(NodeOptions options, std::unique_ptr<Node>* node);
  ~Node();

  // Drains (lame duck), waits up to `grace` for requests in flight, flushes the store, closes.
  void Shutdown(std::chrono::milliseconds grace);

  rpc::Server& server() { return *server_; }
  storage::DocStore& store() { return *store_; }
  rpc::Endpoint endpoint() const { return server_->endpoint(); }
  rpc::Endpoint admin_endpoint() const { return admin_->endpoint(); }
  // Nullopt when the node has no monitoring listener.
  std::optional<rpc::Endpoint> monitoring_endpoint() const;
  admin::Telemetry Snapshot();
  // Reads the TLS certificate, key and client CA files of both listeners again (a reload on
  // SIGHUP): connections accepted from now on use them, open ones keep theirs. A listener whose
  // files cannot be used keeps what it had. Returns a line per listener with TLS, for the log:
  // ok, or why not.
  std::vector<std::pair<std::string, rpc::Status>> ReloadTls();
  // The admin service's tokens from now on (a reload on SIGHUP; see token_reload.h).
  void ReplaceAdminTokens(std::vector<std::string> viewer_tokens,
                          std::vector<std::string> operator_tokens);
  // The metrics listener's bearer tokens from now on (a reload on SIGHUP); nothing without one.
  void ReplaceMetricsTokens(std::vector<std::string> tokens);
  // The docservice's reader and writer tokens from now on (DataAccess::Replace); false if the
  // node started without data access configured (a restart is needed to turn it on).
  bool ReplaceDataTokens(std::vector<std::string> reader_tokens,
                         std::vector<std::string> writer_tokens);

 private:
  explicit Node(NodeOptions options);
  rpc::Status Compact(const std::vector<uint64_t>& indexes);

  rpc::Status StartReplication();
  // The monitoring listener's questions: the /metrics page, and why /readyz says not ready.
  std::string RenderMetrics();
  std::string NotReadyReason();

  const NodeOptions options_;
  std::unique_ptr<storage::DocStore> store_;
  std::unique_ptr<ReplicationSource> source_;  // The updater's.
  std::unique_ptr<ReplicaFollower> follower_;  // A replica's.
  base::MethodStats stats_;
  std::shared_ptr<DataAccess> data_access_;  // Shared with the docservice's hooks.
  std::unique_ptr<rpc::Server> server_;
  std::unique_ptr<AdminService> admin_;
  std::unique_ptr<MonitoringListener> monitoring_;
  std::atomic<uint64_t> sequence_{0};
  // Telemetry's started_unix_ms: when this process's node was made.
  const int64_t started_unix_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::system_clock::now().time_since_epoch())
                                       .count();
  std::atomic<bool> shut_down_{false};
  // Set once the store and replication are up; until then telemetry has neither and the admin
  // commands that need the store are refused.
  std::atomic<bool> ready_{false};
};

}  // namespace railyard::node
