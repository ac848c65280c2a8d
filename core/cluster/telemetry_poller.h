// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/base/mutex.h"
#include "core/base/thread_annotations.h"
#include "core/rpc/endpoint.h"
#include "core/rpc/io_threads.h"
#include "core/rpc/status.h"
#include "core/rpc/tls.h"
#include "railyard/admin.pb.h"

namespace railyard::cluster {

class AdminClient;

struct PollTarget {
  int id = -1;  // The caller's handle for this node, echoed in its results.
  rpc::Endpoint admin;
  std::string token;
  std::optional<rpc::TlsClientOptions> tls;
};

struct PollerOptions {
  // An unreachable node is retried after backoff_min, doubling to backoff_max, +-20 % jitter.
  std::chrono::milliseconds backoff_min{200};
  std::chrono::milliseconds backoff_max{5000};
  std::chrono::milliseconds connect_timeout{1000};
  // How long a round waits for answers; later answers count as failures.
  std::chrono::milliseconds answer_timeout{800};
  std::string client_name = "railyardctl";
  // False (the console): a node still connecting is left out of the round, so one slow node
  // never holds up the others' snapshots. True (railyardctl): a round waits up to
  // connect_timeout for connections it started, so every round reports every node; a refused
  // connection fails at once, so a node that is down holds up no round (a round that waited out
  // the timeout for it missed another node's short outage).
  bool wait_for_connect = false;
  // True (the console): a node that refuses its token is paused, not retried, until SetToken
  // gives it another, so a wrong token costs the node's auth throttle one failure and never
  // locks the host out. False (railyardctl): retried with backoff like any other failure.
  bool pause_on_refused_token = false;
  // I/O threads shared by every node's admin client (rpc::IoThreads). One each cost a console
  // watching 144 hosts a third of its CPU and 30 MiB (docs/benchmarks.md).
  size_t io_threads = 2;
};

// True when `status` says the admin service refused the token itself (missing or wrong);
// false for anything else, a host locked out by earlier wrong tokens included.
bool IsTokenRefused(const rpc::Status& status);

// What one round learnt of one node: a snapshot, or why there is none (the admin service could
// not be reached and why, the token was refused, no answer in time).
struct PollResult {
  int id = -1;
  rpc::Status status;
  std::shared_ptr<const admin::Telemetry> telemetry;  // Set when status is OK.
  // The token was refused and the node is paused (pause_on_refused_token) until SetToken.
  bool paused = false;
};

// Polls admin.Telemetry from many nodes, one round at a time: the one telemetry poller behind
// the console's live view and railyardctl's watch and record. A round asks every connected node
// at once and waits for the answers (bounded by answer_timeout); a failure drops that node's
// connection and backs it off, and it reconnects on a later round; with pause_on_refused_token a
// refused token pauses the node instead (reported once, with paused set) until SetToken.
//
// Thread safety: PollRound from one thread at a time; SetToken and Cancel from any thread.
class TelemetryPoller {
 public:
  TelemetryPoller(std::vector<PollTarget> targets, PollerOptions options);
  ~TelemetryPoller();
  TelemetryPoller(const TelemetryPoller&) = delete;
  TelemetryPoller& operator=(const TelemetryPoller&) = delete;

  // One round; blocks up to answer_timeout (plus connect_timeout with wait_for_connect). One
  // result per node it has news of; nodes backing off, or still connecting without
  // wait_for_connect, are left out.
  std::vector<PollResult> PollRound();
  // A new token for one node, used from the next round (the node reconnects with it). A paused
  // node resumes, even with the token it had (the caller asks to try again).
  void SetToken(int id, std::string token);
  // Makes a round in progress return soon with what it has, and every later round return empty.
  void Cancel();

 private:
  struct Node;
  struct Round;

  void TakeNewTokens();
  // Starts connecting where due; a node that failed is reported in `out`.
  void Connect(std::chrono::steady_clock::time_point now, std::vector<PollResult>* out);
  void Ask(const std::shared_ptr<Round>& round, std::vector<size_t>* asked);
  // The reason given for a node that did not answer within answer_timeout.
  rpc::Status NoAnswerInTime() const;
  void Collect(const std::shared_ptr<Round>& round, std::chrono::steady_clock::time_point start,
               const std::vector<size_t>& asked, std::vector<PollResult>* out);
  void Fail(Node& node, rpc::Status why, std::vector<PollResult>* out);
  bool cancelled() RAILYARD_EXCLUDES(mu_);

  const PollerOptions options_;
  const std::shared_ptr<rpc::IoThreads> io_;  // The nodes' clients hold it too.
  std::vector<Node> nodes_;                   // PollRound's thread only.
  std::mt19937 rng_;                          // PollRound's thread only.

  base::Mutex mu_;
  bool cancelled_ RAILYARD_GUARDED_BY(mu_) = false;
  std::weak_ptr<Round> current_ RAILYARD_GUARDED_BY(mu_);
  std::map<int, std::string> new_tokens_ RAILYARD_GUARDED_BY(mu_);
};

}  // namespace railyard::cluster
