// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/method_stats.h"
#include "core/base/mutex.h"
#include "core/load/closed_loop_load.h"
#include "core/load/key_chooser.h"
#include "core/load/write_positions.h"
#include "core/rpc/client.h"

namespace railyard::load {

// One operation of a workload to replay, at `offset` from the workload's start.
struct ScheduledOp {
  std::chrono::microseconds offset{0};
  char op = 'g';  // 'g' get, 'p' put, 'd' delete
  uint64_t key = 0;
  size_t size = 0;  // Value size of a put.
};

struct LoadOptions {
  // The serving nodes reads are balanced over (an updater and its replicas), through one client.
  std::vector<rpc::Endpoint> servers;
  // Where writes (doc.Put, doc.Delete) go, through a client of its own; it may be in `servers` too.
  // Each read of a document this generator wrote carries the position that write reached, so a
  // replica never answers it with an older copy. Unset: writes are balanced over `servers` like
  // reads and reads carry no position (one node, or nodes that are independent stores).
  std::optional<rpc::Endpoint> updater;
  size_t pool_size = 32;
  // The write client's pool (to the updater alone); 0: pool_size. Many clients each holding
  // pool_size connections to the one updater crowd its slots and its acquirers' probes.
  size_t write_pool_size = 0;
  size_t concurrency = 8;  // Closed loop: calls kept in flight.
  double rate = 0;         // Open loop: calls per second; 0 means closed loop.
  double read_fraction = 0.9;
  uint64_t keys = 100000;
  KeyChooser::Distribution distribution = KeyChooser::Distribution::kUniform;
  double zipf_theta = 0.99;
  size_t value_size = 100;
  std::chrono::milliseconds timeout{5000};
  std::string client_name = "railyardctl-load";
  // Presented in each connection's hello: a docservice reader or writer token (empty: none).
  std::string credentials;
  // TLS to the docservices (and a client certificate for mutual TLS); nullopt: plain TCP.
  std::optional<rpc::TlsClientOptions> tls;
  uint64_t seed = 1;
  // When set, replays these operations (at their offsets divided by replay_speed) instead of
  // generating a workload; rate, concurrency, mix and keys are then ignored.
  std::vector<ScheduledOp> replay;
  double replay_speed = 1.0;
  // The client's balancing policy (unset: Boxcar's lowest-slot fast path) and subsetting.
  std::optional<balance::PolicyOptions> balance;
  balance::SubsetMode subset_mode = balance::SubsetMode::kNone;
  size_t subset_size = 0;
  // This generator's position among the clients of these servers (0, 1, 2, ...), for
  // deterministic subsetting (rpc::ClientOptions::client_index).
  std::optional<uint64_t> client_index;
};

// What one serving node answered this generator.
struct NodeCounts {
  uint64_t reads = 0;   // Answered: found or not found.
  uint64_t writes = 0;  // Acknowledged.
  uint64_t errors = 0;  // Failed calls it answered (the client retried the others elsewhere).
};

struct LoadResult {
  double elapsed_s = 0;
  uint64_t requests = 0;
  uint64_t ok = 0;
  uint64_t not_found = 0;  // Reads of keys never written: answers, not errors.
  // Reads every replica answered BEHIND (none had applied the read's position yet): answers too
  // (docs/figures.md), which read-your-writes retries make rare.
  uint64_t behind = 0;
  uint64_t errors = 0;
  uint64_t rejections = 0;  // POOL_EXHAUSTED: more calls than connections.
  uint64_t retries = 0;
  double p50_us = 0;
  double p99_us = 0;
  double max_us = 0;
  std::map<std::string, uint64_t> errors_by_code;
  // Each code's first message ("doc.Put needs a writer token..."), so a summary can say why.
  std::map<std::string, std::string> first_error_by_code;
  uint64_t reads_with_position = 0;  // Reads that carried a write's position (read-your-writes).
  std::map<std::string, NodeCounts> by_node;  // By service address ("host:port").

  // Adds another client's counts (not its times or latencies, which do not add up).
  void Add(const LoadResult& other);
};

// Drives the docservice with a workload (doc.Get and doc.Put over a key space) through a Boxcar
// client (and a second one for writes when LoadOptions::updater is set), and records what
// happened.
//
// Thread safety: Start, Stop and Report from one controlling thread.
class LoadGenerator {
 public:
  // Sees each operation as it is issued (for workload recordings); must be quick.
  using OpObserver = std::function<void(char op, uint64_t key, size_t size)>;

  explicit LoadGenerator(LoadOptions options, OpObserver observer = {});
  ~LoadGenerator();

  rpc::Status Start();
  // Stops issuing and gives calls in flight up to 2 s (or the call timeout, if shorter) to finish;
  // the clients' Stop then cancels those left, each a CANCELLED failure in Result().
  void Stop();
  // A replay has issued every operation.
  bool finished() const { return finished_.load(); }
  LoadResult Result() const;

  // The read client (the only one without an updater); the write client shares its client id, so
  // a node's slot table names both alike.
  rpc::Client& client() { return *client_; }
  // The write client (LoadOptions::updater set), else null: telemetry reports both as one pool.
  rpc::Client* write_client() { return write_client_.get(); }
  const base::MethodStats& stats() const { return stats_; }
  // The name its connections give servers (LoadOptions::client_name).
  const std::string& client_name() const { return options_.client_name; }

 private:
  LoadRequest NextRequest();
  LoadRequest RequestFor(char op, uint64_t key, size_t size);
  void Issue(LoadRequest request);
  void Send(LoadRequest request, std::chrono::steady_clock::time_point start);
  void ReplayLoop();
  void OnResult(const LoadRequest& request, const rpc::CallResult& result,
                std::chrono::nanoseconds latency);
  void OpenLoop();

  const LoadOptions options_;
  const OpObserver observer_;
  std::unique_ptr<rpc::Client> client_;
  std::unique_ptr<rpc::Client> write_client_;  // Null without an updater.
  std::vector<std::string> server_names_;      // options_.servers, as "host:port".
  WritePositions positions_;
  std::unique_ptr<ClosedLoopLoad> closed_loop_;
  std::thread open_loop_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> finished_{false};
  std::atomic<int64_t> open_in_flight_{0};
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point stopped_;
  base::MethodStats stats_;

  mutable base::Mutex mu_;
  KeyChooser keys_ RAILYARD_GUARDED_BY(mu_);
  std::mt19937_64 rng_ RAILYARD_GUARDED_BY(mu_);
  base::LatencyHistogram latencies_ RAILYARD_GUARDED_BY(mu_);  // The whole run.
  LoadResult counts_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::load
