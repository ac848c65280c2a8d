// SPDX-License-Identifier: Apache-2.0
#pragma once

// INTERNAL to core/sim: the simulator's engine, shared by its .cc files (engine.cc: setup and the
// event loop; engine_requests.cc: the client side of a request; engine_backends.cc: the simulated
// backends and the scenario's actions; engine_connections.cc: connections and each client's
// acquirer; engine_results.cc: per-second samples, the recording and the result). Not part of the
// public API: callers use core/sim/simulator.h. Single-threaded: one Engine runs one simulation.

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "core/balance/answer_health.h"
#include "core/balance/policy.h"
#include "core/balance/retry_budget.h"
#include "core/base/latency_histogram.h"
#include "core/base/random.h"
#include "core/sim/scenario.h"
#include "core/sim/simulator.h"
#include "core/trace/recording_writer.h"  // admin::Telemetry, for the snapshots.

namespace railyard::sim::internal {

using balance::BackendId;
using balance::Result;

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
inline constexpr int64_t kSecond = 1'000'000'000;
inline constexpr int64_t kMaxServiceNs = int64_t{1'000'000} * kSecond;
// Clients connect first and start sending after this much virtual time.
inline constexpr int64_t kStartSending = 50'000'000;
// Like rpc::ClientOptions: parallel connects while the pool is short, the acquirer's sleep after
// a connection that did not improve a full pool, and how long to leave a lame duck alone.
inline constexpr uint32_t kRefillParallelism = 4;
inline constexpr int64_t kSleepMin = 10'000'000;
inline constexpr int64_t kSleepMax = 50'000'000;
inline constexpr int64_t kLameDuckAvoid = kSecond;
inline constexpr uint32_t kMaxFailed = 8;

// Seed streams, one per kind of component.
enum Stream : uint64_t {
  kStreamArrivals = 1,
  kStreamCost,
  kStreamAcquirer,
  kStreamBackend,
  kStreamPolicy,
  kStreamSubset,
  kStreamTieBreak,
};

enum EventType : uint8_t {
  kArrival,      // a: client
  kServiceDone,  // a: backend, b: request, c: attempt generation, d: backend epoch
  kResponse,     // a: request, b: generation
  kTimeout,      // a: request, b: generation
  kAcquire,      // a: client, b: sleep generation
  kConnectDone,  // a: client, b: backend
  kScenario,     // a: index into actions_
  kFlap,         // a: backend, b: flap generation
  kLameNotice,   // a: backend, b: lame generation
  kTick,
};

struct QueuedEvent {
  int64_t t;
  uint64_t key;  // seq << 8 | type: ties run in the order they were scheduled.
  uint32_t a, b, c, d;
};

struct Later {
  bool operator()(const QueuedEvent& x, const QueuedEvent& y) const {
    return x.t != y.t ? x.t > y.t : x.key > y.key;
  }
};

struct Conn {
  uint32_t client = 0;
  uint32_t backend = 0;
  uint32_t slot = 0;
  uint32_t tie = 0;
  uint32_t request = kNone;  // The request whose attempt it carries.
  bool open = false;         // Holds its slot on the backend.
  bool in_pool = false;
  bool retiring = false;  // Out of the pool; close when its request ends.
  uint64_t requests = 0;
  balance::AnswerHealth answers;  // As rpc::Client: disposed of when its answers keep failing.
};

struct Request {
  bool live = false;
  bool active = false;     // An attempt is outstanding.
  bool responded = false;  // Its answer is on the way (kResponse scheduled).
  bool timeout_scheduled = false;
  uint32_t client = 0;
  uint32_t gen = 0;
  uint32_t attempts = 0;
  uint32_t conn = kNone;
  uint32_t backend = kNone;
  uint32_t failed_count = 0;
  BackendId failed[kMaxFailed];
  int64_t start = 0;
  int64_t deadline = 0;
  int64_t attempt_start = 0;
  int64_t attempt_deadline = 0;
  double cost = 1;
  Result pending = Result::kSuccess;
  bool pending_has_load = false;
  bool pending_keep = false;  // An error answer that leaves the connection usable.
  balance::LoadReport pending_load;
};

struct Job {
  uint32_t request;
  uint32_t gen;
};

struct Backend {
  std::string name;
  const BackendGroup* group = nullptr;
  base::Rng rng;
  bool down = false;
  bool down_recorded = false;  // This outage's "unreachable" event is in the recording.
  bool hang = false;
  bool lame = false;
  double flaky = 0;
  double errors = 0;
  double speed = 1;
  double contention = 0;
  bool flapping = false;
  uint32_t flap_gen = 0;
  int64_t flap_down = 0;
  int64_t flap_up = 0;
  uint32_t lame_gen = 0;
  uint32_t epoch = 0;  // Bumped when it loses its work (down, hang).
  uint32_t in_service = 0;
  std::deque<Job> queue;
  std::vector<uint64_t> used;       // Slot bitmap.
  std::vector<uint32_t> slot_conn;  // Slot -> connection.
  uint32_t open_conns = 0;
  // Statistics.
  double busy_ns = 0;  // Integral of in_service over time.
  int64_t last_change = 0;
  double busy_at_tick = 0;
  uint64_t attempts = 0;
  uint64_t successes = 0;
  uint32_t tick_attempts = 0;
  uint32_t tick_errors = 0;
  uint32_t tick_rejections = 0;
  // This tick's successful attempts on it, from sending to the answer (the network included):
  // the latency its snapshot reports, as a node reports its methods'.
  base::LatencyHistogram tick_latency;
  double conn_sum = 0;
  balance::LoadReport report;
  uint64_t sequence = 0;
};

struct Client {
  uint32_t id = 0;
  std::string name;
  const ClientGroup* group = nullptr;
  std::unique_ptr<balance::Policy> policy;
  std::unique_ptr<balance::RetryBudget> budget;
  std::vector<uint32_t> pool;  // Connections in (slot, tie) order: position 0 is the best.
  std::vector<BackendId> subset;
  std::vector<uint32_t> tie;  // Per backend: this client's rank among equal slots.
  std::vector<int64_t> avoid_until;
  std::vector<uint8_t> connect_failures;
  std::vector<uint8_t> touched;  // Per backend: connected to it at least once.
  std::vector<uint32_t> stamp;
  std::vector<uint32_t> candidate_index;
  uint32_t stamp_value = 0;
  base::Rng arrivals;
  base::Rng cost;
  base::Rng acquirer;
  double rate = 0;
  bool arrival_pending = false;
  uint32_t connecting = 0;
  uint32_t sleep_gen = 0;
  struct {
    uint64_t requests = 0, retries = 0, rejections = 0, replacements = 0, failures = 0,
             connects = 0, connect_failures = 0;
  } counters;
};

// A scenario event applied to one backend (or to the network or the clients) at one time.
struct TimedAction {
  int64_t at = 0;
  Action action = Action::kUp;
  uint32_t backend = kNone;
  double value = 0;
  int64_t d1 = 0;
  int64_t d2 = 0;
};

class Engine {
 public:
  Engine(const Scenario& scenario, const SimOptions& options)
      : scenario_(scenario), options_(options) {}

  bool Run(SimResult* result, std::string* error);

 private:
  int64_t now() const { return now_; }
  void Schedule(int64_t t, EventType type, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0,
                uint32_t d = 0) {
    queue_.push(QueuedEvent{t, (seq_++ << 8) | type, a, b, c, d});
  }

  // Setup: the backends, the clients and the scenario's actions, then the first events.
  void Setup();
  void SetupBackends();
  void SetupClients();
  void SetupClient(const ClientGroup& group, uint32_t index);
  void ExpandEvents();
  void Dispatch(const QueuedEvent& e);

  // Requests.
  void OnArrival(uint32_t client);
  void GatherCandidates(Client& c);
  void StartAttempt(uint32_t rid);
  void Respond(uint32_t rid, Result result, bool with_load, int64_t delay);
  void ScheduleTimeout(uint32_t rid);
  void FinishAttempt(uint32_t rid, Result result, bool has_load, balance::LoadReport load,
                     bool keep_conn);
  void EndRequest(uint32_t rid, bool success);
  uint32_t NewRequest();

  // Backends.
  void DeliverAttempt(uint32_t rid);
  void UpdateBusy(Backend& b);
  void StartService(uint32_t backend, uint32_t rid);
  void OnServiceDone(const QueuedEvent& e);
  void StartQueued(uint32_t backend);
  void GoDown(uint32_t backend);
  void Hang(uint32_t backend);
  void EnterLameDuck(uint32_t backend);
  void OnLameNotice(uint32_t backend, uint32_t gen);
  void Restore(uint32_t backend);
  void Apply(const TimedAction& action);
  void RecordAction(const TimedAction& action);
  uint32_t AllocateSlot(Backend& b, uint32_t conn);

  // Connections and the acquirer.
  uint32_t NewConn();
  void CloseConn(uint32_t id);
  void RemoveFromPool(Client& c, uint32_t id);
  void InsertIntoPool(Client& c, uint32_t id);
  void MaybeConnect(uint32_t client);
  void Sleep(uint32_t client, int64_t how_long);
  void Wake(uint32_t client);
  void OnConnectDone(uint32_t client, uint32_t backend);

  void OnTick();
  bool Record(std::string* error);
  admin::Telemetry BackendSnapshot(Backend& b, int64_t unix_ms);  // Counts its sequence.
  admin::Telemetry ClientsSnapshot(int64_t unix_ms) const;
  void Finish(SimResult* result);

  const Scenario& scenario_;
  const SimOptions& options_;
  uint64_t seed_ = 1;
  int64_t end_ = 0;
  int64_t now_ = 0;
  uint64_t seq_ = 0;
  uint64_t events_ = 0;
  int64_t rtt_ = 0;
  bool count_errors_ = true;
  std::priority_queue<QueuedEvent, std::vector<QueuedEvent>, Later> queue_;

  std::vector<Backend> backends_;
  std::vector<Client> clients_;
  std::vector<Conn> conns_;
  std::vector<uint32_t> free_conns_;
  std::vector<Request> requests_;
  std::vector<uint32_t> free_requests_;
  std::vector<TimedAction> actions_;
  std::vector<std::string> action_text_;

  std::vector<balance::Candidate> candidates_;
  std::vector<uint32_t> candidate_conn_;
  std::vector<uint32_t> targets_;

  base::LatencyHistogram latency_;
  SimResult totals_;
  std::vector<std::vector<uint32_t>> by_second_;
  uint64_t ticks_ = 0;
  std::string record_error_;
};

}  // namespace railyard::sim::internal
