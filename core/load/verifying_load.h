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
  std::vector<rpc::Endpoint> servers;
  size_t writers = 4;  // Each owns the ids equal to its number modulo `writers`.
  uint64_t keys = 20000;
  size_t value_size = 100;
  size_t pool_size = 8;
  uint64_t seed = 1;
  std::chrono::milliseconds call_timeout{2000};
  std::string client_name = "railyardctl-verify";
};

// One check of every acknowledged document, run after the cluster came back from an outage.
struct VerifyRound {
  uint64_t round = 0;
  double outage_s = 0;   // How long writes failed before this check.
  uint64_t checked = 0;  // Documents read back and compared.
  uint64_t lost = 0;     // Acknowledged, then missing or older than acknowledged.
  uint64_t wrong = 0;    // Present, but not any version ever written.
  bool complete = true;  // False if the cluster went away again mid-check (checked again later).
};

struct VerifyReport {
  uint64_t writes_acked = 0;
  uint64_t writes_failed = 0;  // Outcome unknown: may or may not have been stored.
  uint64_t rounds = 0;
  uint64_t checked = 0;
  uint64_t lost = 0;
  uint64_t wrong = 0;
};

// A write load that remembers every acknowledged write and proves none was lost: writers put
// versioned documents (each id has one writer, so versions of an id are acknowledged in order);
// when writes start failing (a node killed) and then succeed again, writers pause and every
// acknowledged document is read back. A document must hold a version between the last
// acknowledged one and the last attempted one (a write whose answer never came may or may not
// have been stored), with exactly the bytes that version was written with.
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
  // Pauses the writers and checks every acknowledged document now.
  VerifyRound VerifyAll();
  VerifyReport Report() const;

  // The document `id` holds at `version`: its header names both, the rest is derived from them.
  static std::string DocumentFor(uint64_t id, uint32_t version, size_t value_size);

 private:
  struct Ledger {
    std::atomic<uint32_t> acked{0};      // Highest acknowledged version (0: never).
    std::atomic<uint32_t> attempted{0};  // Highest version sent.
  };
  void WriterLoop(size_t writer);
  void VerifierLoop();

  const VerifyOptions options_;
  const std::function<void(const VerifyRound&)> on_round_;
  std::unique_ptr<rpc::Client> client_;
  std::unique_ptr<Ledger[]> ledger_;
  std::shared_mutex pause_;  // Writers hold it shared per write; a check holds it exclusively.
  std::atomic<bool> pausing_{false};  // A check is waiting for pause_.
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> outage_since_ns_{0};  // steady_clock; 0: no outage.
  base::Mutex verify_mu_;
  base::CondVar verify_cv_;  // Notified when a check is requested or on Stop.
  bool verify_requested_ GUARDED_BY(verify_mu_) = false;
  double requested_outage_s_ GUARDED_BY(verify_mu_) = 0;
  mutable base::Mutex report_mu_;
  VerifyReport report_ GUARDED_BY(report_mu_);
  std::atomic<uint64_t> acked_{0}, failed_{0};
  std::vector<std::thread> threads_;
};

}  // namespace railyard::load
