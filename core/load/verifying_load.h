// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/base/mutex.h"
#include "core/rpc/client.h"
#include "core/rpc/endpoint.h"

namespace railyard::load {

struct VerifyOptions {
  rpc::Endpoint updater;  // Every write goes here.
  // The serving nodes (the updater and its replicas): reads are balanced over them during the run,
  // and each check reads every document back from each of them directly. Empty: the updater.
  std::vector<rpc::Endpoint> readers;
  size_t writers = 4;  // Each owns the ids equal to its number modulo `writers`.
  // Threads that read acknowledged documents back during the run, each read carrying the position
  // its write reached (read-your-writes); 0: none.
  size_t read_threads = 2;
  uint64_t keys = 20000;
  size_t value_size = 100;
  size_t pool_size = 8;
  uint64_t seed = 1;
  std::chrono::milliseconds call_timeout{2000};
  // How long a check's read may wait for a replica to apply the writes it asks for.
  std::chrono::milliseconds check_timeout{10000};
  std::string client_name = "railyardctl-verify";
  std::string credentials;  // A docservice writer token for the hello (empty: none).
  std::optional<rpc::TlsClientOptions> tls;  // TLS to the docservices; nullopt: plain TCP.
};

// One check of every acknowledged document on every node, run after the cluster came back from
// an outage (and on demand).
struct VerifyRound {
  uint64_t round = 0;
  double outage_s = 0;   // How long writes failed before this check.
  uint64_t nodes = 0;    // Nodes read back completely.
  uint64_t checked = 0;  // Documents read back and compared, summed over the nodes.
  uint64_t lost = 0;     // Acknowledged, then missing, older than acknowledged, or not applied.
  uint64_t wrong = 0;    // Present, but not any version ever written.
  bool complete = true;  // False if a node went away mid-check (checked again later).
};

struct VerifyReport {
  uint64_t writes_acked = 0;
  uint64_t writes_failed = 0;  // Outcome unknown: may or may not have been stored.
  uint64_t deletes_acked = 0;  // Among writes_acked.
  uint64_t rounds = 0;
  uint64_t checked = 0;
  uint64_t lost = 0;
  uint64_t wrong = 0;
  // Read-your-writes during the run: reads compared with the newest write acknowledged before
  // they were sent, and those that returned an older document (or none) than that write.
  uint64_t reads_checked = 0;
  uint64_t stale_reads = 0;
  uint64_t reads_failed = 0;  // Not answered (node down, BEHIND after every retry): no verdict.
};

// A write load that remembers every acknowledged write and proves none was lost: writers put and
// delete versioned documents on the updater (each id has one writer, so versions of an id are
// acknowledged in order; whether a version is a delete follows from the id and version alone).
// During the run, readers read acknowledged documents back from every serving node, each read
// carrying the position its write reached, and count any that returns an older state. When writes
// start failing (a node killed) and then succeed again, writers pause and every acknowledged
// document is read back from each node: it must hold a version between the last acknowledged one
// and the last attempted one (a write whose answer never came may or may not have been applied),
// absent for a delete, else with exactly the bytes that version was written with.
//
// Thread safety: every method may be called from any thread.
class VerifyingLoad {
 public:
  VerifyingLoad(VerifyOptions options, std::function<void(const VerifyRound&)> on_round);
  ~VerifyingLoad();  // Stop()s.
  VerifyingLoad(const VerifyingLoad&) = delete;
  VerifyingLoad& operator=(const VerifyingLoad&) = delete;

  rpc::Status Start();
  void Stop();
  // Pauses the writers and checks every acknowledged document on every node now.
  VerifyRound VerifyAll();
  VerifyReport Report() const;

  // The document `id` holds at `version`: its header names both, the rest is derived from them.
  static std::string DocumentFor(uint64_t id, uint32_t version, size_t value_size);
  // Whether `version` of `id` is a delete (one in eight) rather than a put.
  static bool IsDelete(uint64_t id, uint32_t version);

 private:
  struct Ledger {
    std::atomic<uint32_t> acked{0};      // Highest acknowledged version (0: never).
    std::atomic<uint32_t> attempted{0};  // Highest version sent.
    // The position the acknowledged version reached; stored before `acked`, so a reader that
    // loads `acked` first never pairs a version with an older position.
    std::atomic<uint64_t> acked_position{0};
  };
  enum class Verdict { kOk, kLost, kWrong };

  void WriterLoop(size_t writer);
  void ReaderLoop(size_t reader);
  void VerifierLoop();
  // Checks every attempted document on one node; false if the node went away mid-check.
  bool VerifyNode(rpc::Client& node, VerifyRound* round);
  // What `found`/`doc` says of `id` whose versions acked..attempted may be on a node.
  Verdict Judge(uint64_t id, uint32_t acked, uint32_t attempted, bool found,
                const std::string& doc) const;
  void OutageSeen();

  const VerifyOptions options_;
  const std::function<void(const VerifyRound&)> on_round_;
  std::unique_ptr<rpc::Client> writes_;              // The updater.
  std::unique_ptr<rpc::Client> reads_;               // Every serving node, balanced.
  std::vector<std::unique_ptr<rpc::Client>> nodes_;  // One per serving node, for checks.
  std::unique_ptr<Ledger[]> ledger_;
  std::shared_mutex pause_;  // Writers hold it shared per write; a check holds it exclusively.
  std::atomic<bool> pausing_{false};  // A check is waiting for pause_.
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> outage_since_ns_{0};  // steady_clock; 0: no outage.
  base::Mutex verify_mu_;
  base::CondVar verify_cv_;  // Notified when a check is requested or on Stop.
  bool verify_requested_ RAILYARD_GUARDED_BY(verify_mu_) = false;
  double requested_outage_s_ RAILYARD_GUARDED_BY(verify_mu_) = 0;
  mutable base::Mutex report_mu_;
  VerifyReport report_ RAILYARD_GUARDED_BY(report_mu_);
  std::atomic<uint64_t> acked_{0}, failed_{0}, deletes_acked_{0};
  std::atomic<uint64_t> reads_checked_{0}, stale_reads_{0}, reads_failed_{0};
  std::vector<std::thread> threads_;
};

}  // namespace railyard::load
