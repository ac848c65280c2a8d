#include "core/sim/simulator.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <memory>
#include <queue>

#include "core/balance/retry_budget.h"
#include "core/balance/subsetting.h"
#include "core/sim/histogram.h"
#include "core/sim/random.h"
#include "core/trace/recording_writer.h"

namespace railyard::sim {

namespace {

using balance::BackendId;
using balance::Result;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMaxServiceNs = int64_t{1'000'000} * kSecond;
// Clients connect first and start sending after this much virtual time.
constexpr int64_t kStartSending = 50'000'000;
// Like rpc::ClientOptions: parallel connects while the pool is short, the acquirer's sleep after
// a connection that did not improve a full pool, and how long to leave a lame duck alone.
constexpr uint32_t kRefillParallelism = 4;
constexpr int64_t kSleepMin = 10'000'000;
constexpr int64_t kSleepMax = 50'000'000;
constexpr int64_t kLameDuckAvoid = kSecond;
constexpr uint32_t kMaxFailed = 8;

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
  Rng rng;
  bool down = false;
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
  Rng arrivals;
  Rng cost;
  Rng acquirer;
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

  void Setup();
  void Dispatch(const QueuedEvent& e);

  // Requests.
  void OnArrival(uint32_t client);
  void StartAttempt(uint32_t rid);
  void Respond(uint32_t rid, Result result, bool with_load, int64_t delay);
  void ScheduleTimeout(uint32_t rid);
  void FinishAttempt(uint32_t rid, Result result, bool has_load, balance::LoadReport load,
                     bool keep_conn);
  void EndRequest(uint32_t rid, bool success);
  uint32_t NewRequest();

  // Backends.
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

  Histogram latency_;
  SimResult totals_;
  std::vector<std::vector<uint32_t>> by_second_;
  uint64_t ticks_ = 0;
  std::string record_error_;
};

// --- Setup ------------------------------------------------------------------------------------

void Engine::Setup() {
  seed_ = options_.seed.value_or(scenario_.seed);
  end_ = options_.duration.value_or(scenario_.duration).count();
  rtt_ = scenario_.network_rtt.count();
  count_errors_ = options_.count_errors_as_active.value_or(scenario_.count_errors_as_active);
  const uint32_t backend_count = scenario_.backend_count();

  backends_.resize(backend_count);
  uint32_t index = 0;
  for (const BackendGroup& g : scenario_.backends) {
    for (uint32_t i = 0; i < g.count; ++i, ++index) {
      Backend& b = backends_[index];
      b.name = "backend-" + std::to_string(index);
      b.group = &g;
      b.rng = Rng(MixSeed(seed_, kStreamBackend, index));
      b.speed = g.speed;
      b.contention = g.contention;
    }
  }

  clients_.resize(scenario_.client_count());
  index = 0;
  for (const ClientGroup& g : scenario_.clients) {
    for (uint32_t i = 0; i < g.count; ++i, ++index) {
      Client& c = clients_[index];
      c.id = index;
      c.name = "client-" + std::to_string(index);
      c.group = &g;
      balance::PolicyOptions po;
      po.kind = options_.policy;
      po.max_active_per_backend = scenario_.max_active;
      po.seed = MixSeed(seed_, kStreamPolicy, index);
      po.count_errors_as_active = count_errors_;
      c.policy = balance::MakePolicy(po);
      balance::RetryBudget::Options bo;
      bo.ratio = g.retry_budget;
      c.budget = std::make_unique<balance::RetryBudget>(bo);
      // One seed for all: ChooseSubset itself gives each client its own random sample.
      const uint64_t subset_seed = MixSeed(seed_, kStreamSubset);
      const size_t size = g.subset_size == 0 ? backend_count : g.subset_size;
      c.subset = balance::ChooseSubset(g.subset, index, backend_count, size, subset_seed);
      if (c.subset.empty()) {  // Defensive: a client always has somewhere to go.
        for (BackendId b = 0; b < backend_count; ++b) c.subset.push_back(b);
      }
      // Distinct random tie-break ranks, so clients do not all prefer the same backend on
      // equal slots.
      c.tie.resize(backend_count);
      for (uint32_t b = 0; b < backend_count; ++b) c.tie[b] = b;
      Rng tie_rng(MixSeed(seed_, kStreamTieBreak, index));
      for (uint32_t b = backend_count; b > 1; --b) {
        std::swap(c.tie[b - 1], c.tie[tie_rng.Below(b)]);
      }
      c.avoid_until.assign(backend_count, 0);
      c.connect_failures.assign(backend_count, 0);
      c.touched.assign(backend_count, 0);
      c.stamp.assign(backend_count, 0);
      c.candidate_index.assign(backend_count, 0);
      c.arrivals = Rng(MixSeed(seed_, kStreamArrivals, index));
      c.cost = Rng(MixSeed(seed_, kStreamCost, index));
      c.acquirer = Rng(MixSeed(seed_, kStreamAcquirer, index));
      c.rate = g.rate_per_s;
      c.pool.reserve(g.pool);
    }
  }

  // Expand the scenario's events into per-backend actions (selectors, stagger, replace).
  for (const Event& e : scenario_.events) {
    std::vector<uint32_t> targets;
    if (e.action == Action::kNetwork || e.action == Action::kRate) {
      targets.push_back(kNone);
    } else {
      const uint32_t first = e.backends.all ? 0 : e.backends.first;
      const uint32_t last = e.backends.all ? backend_count - 1 : e.backends.last;
      for (uint32_t b = first; b <= last && b < backend_count; ++b) targets.push_back(b);
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      TimedAction a;
      a.at = e.at.count() + static_cast<int64_t>(i) * e.stagger.count();
      a.action = e.action;
      a.backend = targets[i];
      a.value = e.value;
      a.d1 = e.d1.count();
      a.d2 = e.d2.count();
      if (e.action == Action::kReplace) {
        TimedAction lame = a, down = a, up = a;
        lame.action = Action::kLameDuck;
        down.action = Action::kDown;
        down.at += a.d1;
        up.action = Action::kUp;
        up.at += a.d1 + a.d2;
        actions_.push_back(lame);
        actions_.push_back(down);
        actions_.push_back(up);
      } else {
        actions_.push_back(a);
      }
    }
  }
  for (uint32_t i = 0; i < actions_.size(); ++i) {
    if (actions_[i].at <= end_) Schedule(actions_[i].at, kScenario, i);
  }

  for (uint32_t i = 0; i < clients_.size(); ++i) {
    MaybeConnect(i);
    Client& c = clients_[i];
    if (c.rate > 0) {
      c.arrival_pending = true;
      Schedule(kStartSending + static_cast<int64_t>(c.arrivals.Exponential(1e9 / c.rate)), kArrival,
               i);
    }
  }
  Schedule(kSecond, kTick);
}

// --- The loop ---------------------------------------------------------------------------------

bool Engine::Run(SimResult* result, std::string* error) {
  const auto wall_start = std::chrono::steady_clock::now();
  Setup();
  while (!queue_.empty() && queue_.top().t <= end_) {
    const QueuedEvent e = queue_.top();
    queue_.pop();
    now_ = e.t;
    ++events_;
    Dispatch(e);
    if (!record_error_.empty()) {
      *error = record_error_;
      return false;
    }
  }
  now_ = end_;
  Finish(result);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  result->events = events_;
  result->wall_s = wall;
  result->events_per_s = wall > 0 ? static_cast<double>(events_) / wall : 0;
  result->sim_speed = wall > 0 ? result->duration_s / wall : 0;
  return true;
}

void Engine::Dispatch(const QueuedEvent& e) {
  switch (static_cast<EventType>(e.key & 0xff)) {
    case kArrival:
      OnArrival(e.a);
      break;
    case kServiceDone:
      OnServiceDone(e);
      break;
    case kResponse: {
      Request& r = requests_[e.a];
      if (!r.live || r.gen != e.b || !r.active) break;
      FinishAttempt(e.a, r.pending, r.pending_has_load, r.pending_load, r.pending_keep);
      break;
    }
    case kTimeout: {
      Request& r = requests_[e.a];
      if (!r.live || r.gen != e.b || !r.active || r.responded) break;
      FinishAttempt(e.a, Result::kTimeout, false, {}, false);
      break;
    }
    case kAcquire:
      if (clients_[e.a].sleep_gen == e.b) MaybeConnect(e.a);
      break;
    case kConnectDone:
      OnConnectDone(e.a, e.b);
      break;
    case kScenario:
      Apply(actions_[e.a]);
      break;
    case kFlap: {
      Backend& b = backends_[e.a];
      if (!b.flapping || b.flap_gen != e.b) break;
      if (b.down) {
        b.down = false;
        Schedule(
            now_ + static_cast<int64_t>(b.rng.Uniform(0.5, 1.5) * static_cast<double>(b.flap_up)),
            kFlap, e.a, e.b);
      } else {
        GoDown(e.a);
        Schedule(
            now_ + static_cast<int64_t>(b.rng.Uniform(0.5, 1.5) * static_cast<double>(b.flap_down)),
            kFlap, e.a, e.b);
      }
      break;
    }
    case kLameNotice:
      OnLameNotice(e.a, e.b);
      break;
    case kTick:
      OnTick();
      break;
  }
}

// --- Requests ---------------------------------------------------------------------------------

uint32_t Engine::NewRequest() {
  if (free_requests_.empty()) {
    requests_.emplace_back();
    return static_cast<uint32_t>(requests_.size() - 1);
  }
  const uint32_t id = free_requests_.back();
  free_requests_.pop_back();
  return id;
}

void Engine::OnArrival(uint32_t client) {
  Client& c = clients_[client];
  if (c.rate > 0) {
    Schedule(now_ + static_cast<int64_t>(c.arrivals.Exponential(1e9 / c.rate)), kArrival, client);
  } else {
    c.arrival_pending = false;
  }
  const uint32_t rid = NewRequest();
  Request& r = requests_[rid];
  const uint32_t gen = r.gen;
  r = Request{};
  r.gen = gen + 1;  // Events of the id's previous life stay stale.
  r.live = true;
  r.client = client;
  r.start = now_;
  r.deadline = now_ + c.group->timeout.count();
  r.cost = c.group->cost.Sample(c.cost);
  c.budget->RecordRequest(balance::Time(now_));
  ++c.counters.requests;
  StartAttempt(rid);
}

void Engine::StartAttempt(uint32_t rid) {
  Request& r = requests_[rid];
  Client& c = clients_[r.client];
  // Candidates: backends with an idle pooled connection, best slot first (the pool's order).
  candidates_.clear();
  candidate_conn_.clear();
  if (++c.stamp_value == 0) {
    std::fill(c.stamp.begin(), c.stamp.end(), 0);
    c.stamp_value = 1;
  }
  for (uint32_t id : c.pool) {
    const Conn& k = conns_[id];
    if (k.request != kNone) continue;
    if (c.stamp[k.backend] != c.stamp_value) {
      c.stamp[k.backend] = c.stamp_value;
      c.candidate_index[k.backend] = static_cast<uint32_t>(candidates_.size());
      candidates_.push_back(balance::Candidate{k.backend, k.slot, 1});
      candidate_conn_.push_back(id);
    } else {
      ++candidates_[c.candidate_index[k.backend]].idle;
    }
  }
  std::optional<size_t> pick;
  if (!candidates_.empty()) {
    pick = c.policy->Pick(candidates_, std::span<const BackendId>(r.failed, r.failed_count),
                          balance::Time(now_));
  }
  if (!pick || *pick >= candidates_.size()) {
    ++totals_.rejected;
    ++c.counters.rejections;
    EndRequest(rid, false);
    return;
  }
  const uint32_t conn = candidate_conn_[*pick];
  Conn& k = conns_[conn];
  k.request = rid;
  ++k.requests;
  ++r.attempts;
  ++r.gen;
  r.conn = conn;
  r.backend = k.backend;
  r.active = true;
  r.responded = false;
  r.timeout_scheduled = false;
  r.pending_keep = false;
  r.attempt_start = now_;
  const int64_t attempt_timeout = c.group->attempt_timeout.count();
  r.attempt_deadline =
      attempt_timeout > 0 ? std::min(r.deadline, now_ + attempt_timeout) : r.deadline;

  Backend& b = backends_[k.backend];
  ++b.attempts;
  ++b.tick_attempts;
  if (b.down) {
    ++b.tick_errors;
    Respond(rid, Result::kError, false, rtt_);
  } else if (b.lame) {
    ++b.tick_rejections;
    Respond(rid, Result::kRejected, true, rtt_);
  } else if (b.hang) {
    ScheduleTimeout(rid);
  } else if (b.flaky > 0 && b.rng.Bernoulli(b.flaky)) {
    ++b.tick_errors;
    Respond(rid, Result::kError, true, rtt_);
  } else if (b.errors > 0 && b.rng.Bernoulli(b.errors)) {
    ++b.tick_errors;
    Respond(rid, Result::kError, true, rtt_);
    r.pending_keep = true;
  } else if (b.in_service < b.group->capacity) {
    StartService(k.backend, rid);
  } else {
    b.queue.push_back(Job{rid, r.gen});
    ScheduleTimeout(rid);
  }
}

// The answer to the current attempt reaches the client after `delay`, unless its timeout comes
// first.
void Engine::Respond(uint32_t rid, Result result, bool with_load, int64_t delay) {
  Request& r = requests_[rid];
  if (now_ + delay > r.attempt_deadline) {
    ScheduleTimeout(rid);
    return;
  }
  r.responded = true;
  r.pending = result;
  r.pending_has_load = with_load;
  if (with_load) r.pending_load = backends_[r.backend].report;
  Schedule(now_ + delay, kResponse, rid, r.gen);
}

void Engine::ScheduleTimeout(uint32_t rid) {
  Request& r = requests_[rid];
  if (r.timeout_scheduled) return;
  r.timeout_scheduled = true;
  Schedule(std::max(r.attempt_deadline, now_), kTimeout, rid, r.gen);
}

void Engine::FinishAttempt(uint32_t rid, Result result, bool has_load, balance::LoadReport load,
                           bool keep_conn) {
  Request& r = requests_[rid];
  Client& c = clients_[r.client];
  r.active = false;
  balance::Outcome outcome;
  outcome.backend = r.backend;
  outcome.result = result;
  outcome.latency = balance::Duration(now_ - r.attempt_start);
  if (has_load) outcome.load = load;
  outcome.now = balance::Time(now_);
  c.policy->Finish(outcome);

  // Like rpc::Client: a connection whose attempt failed is not trusted with another.
  const uint32_t conn = r.conn;
  Conn& k = conns_[conn];
  k.request = kNone;
  const bool success = result == Result::kSuccess;
  if (result == Result::kRejected) c.avoid_until[r.backend] = now_ + kLameDuckAvoid;
  if ((!success && !keep_conn) || k.retiring || !k.open) {
    CloseConn(conn);
  }
  if (success) {
    ++backends_[r.backend].successes;
    latency_.Add(static_cast<uint64_t>(now_ - r.start));
    EndRequest(rid, true);
    return;
  }
  if (result == Result::kTimeout) {
    ++totals_.timeouts;
  } else {
    ++totals_.errors;
  }
  if (r.attempts <= c.group->max_retries && now_ < r.deadline && r.failed_count < kMaxFailed) {
    r.failed[r.failed_count++] = r.backend;
    if (c.budget->TryRetry(balance::Time(now_))) {
      ++totals_.retries;
      ++c.counters.retries;
      StartAttempt(rid);
      return;
    }
    ++totals_.retries_refused;
  }
  EndRequest(rid, false);
}

void Engine::EndRequest(uint32_t rid, bool success) {
  Request& r = requests_[rid];
  Client& c = clients_[r.client];
  ++totals_.requests;
  if (success) {
    ++totals_.successes;
  } else {
    ++c.counters.failures;
  }
  r.live = false;
  r.active = false;
  free_requests_.push_back(rid);
}

// --- Backends ---------------------------------------------------------------------------------

void Engine::UpdateBusy(Backend& b) {
  b.busy_ns += static_cast<double>(b.in_service) * static_cast<double>(now_ - b.last_change);
  b.last_change = now_;
}

void Engine::StartService(uint32_t backend, uint32_t rid) {
  Backend& b = backends_[backend];
  Request& r = requests_[rid];
  UpdateBusy(b);
  ++b.in_service;
  double service = b.group->service.Sample(b.rng) * r.cost / b.speed;
  if (b.contention > 0) {
    const double load = static_cast<double>(b.in_service + b.queue.size()) / b.group->capacity;
    service *= 1 + b.contention * load;
  }
  const int64_t ns =
      static_cast<int64_t>(std::clamp(service, 0.0, static_cast<double>(kMaxServiceNs)));
  Schedule(now_ + ns, kServiceDone, backend, rid, r.gen, b.epoch);
  if (now_ + ns + rtt_ > r.attempt_deadline) ScheduleTimeout(rid);
}

void Engine::OnServiceDone(const QueuedEvent& e) {
  Backend& b = backends_[e.a];
  if (e.d != b.epoch) return;  // It lost this work (went down or hung).
  UpdateBusy(b);
  --b.in_service;
  Request& r = requests_[e.b];
  if (r.live && r.gen == e.c && r.active && !r.responded) {
    Respond(e.b, Result::kSuccess, true, rtt_);
  }
  StartQueued(e.a);
}

void Engine::StartQueued(uint32_t backend) {
  Backend& b = backends_[backend];
  while (b.in_service < b.group->capacity && !b.queue.empty()) {
    const Job job = b.queue.front();
    b.queue.pop_front();
    const Request& r = requests_[job.request];
    // A request whose client gave up is dropped unseen (deadline propagation).
    if (!r.live || r.gen != job.gen || !r.active || r.responded) continue;
    StartService(backend, job.request);
  }
}

uint32_t Engine::AllocateSlot(Backend& b, uint32_t conn) {
  size_t word = 0;
  while (word < b.used.size() && b.used[word] == ~uint64_t{0}) ++word;
  if (word == b.used.size()) b.used.push_back(0);
  const int bit = std::countr_one(b.used[word]);
  b.used[word] |= uint64_t{1} << bit;
  const uint32_t slot = static_cast<uint32_t>(word * 64 + static_cast<size_t>(bit));
  if (b.slot_conn.size() <= slot) b.slot_conn.resize(slot + 1, kNone);
  b.slot_conn[slot] = conn;
  ++b.open_conns;
  return slot;
}

// The process is gone: every connection resets (attempts on them fail at once), queued and
// running work is lost.
void Engine::GoDown(uint32_t backend) {
  Backend& b = backends_[backend];
  b.down = true;
  UpdateBusy(b);
  b.in_service = 0;
  b.queue.clear();
  ++b.epoch;
  std::vector<uint32_t> open;
  for (uint32_t id : b.slot_conn) {
    if (id != kNone) open.push_back(id);
  }
  for (uint32_t id : open) {
    const uint32_t rid = conns_[id].request;
    CloseConn(id);
    if (rid != kNone) {
      Request& r = requests_[rid];
      if (r.active && !r.responded) Respond(rid, Result::kError, false, 0);
    }
  }
}

void Engine::Hang(uint32_t backend) {
  Backend& b = backends_[backend];
  b.hang = true;
  UpdateBusy(b);
  b.in_service = 0;
  b.queue.clear();
  ++b.epoch;
  for (uint32_t id : b.slot_conn) {
    if (id == kNone) continue;
    const uint32_t rid = conns_[id].request;
    if (rid != kNone && requests_[rid].active && !requests_[rid].responded) ScheduleTimeout(rid);
  }
}

void Engine::EnterLameDuck(uint32_t backend) {
  Backend& b = backends_[backend];
  if (b.down) return;
  b.lame = true;
  // Clients hear of it one round trip later (the seed: "typically in 1 or 2 RTT").
  Schedule(now_ + rtt_, kLameNotice, backend, ++b.lame_gen);
}

void Engine::OnLameNotice(uint32_t backend, uint32_t gen) {
  Backend& b = backends_[backend];
  if (!b.lame || b.lame_gen != gen) return;
  std::vector<uint32_t> open;
  for (uint32_t id : b.slot_conn) {
    if (id != kNone) open.push_back(id);
  }
  for (uint32_t id : open) {
    Conn& k = conns_[id];
    clients_[k.client].avoid_until[backend] = now_ + kLameDuckAvoid;
    if (k.request == kNone) {
      CloseConn(id);
    } else if (k.in_pool) {
      // It finishes its request first (requests started before the notice complete normally).
      RemoveFromPool(clients_[k.client], id);
      k.retiring = true;
      Wake(k.client);
    }
  }
}

// Back to health as declared: a fresh process, or the fault cleared.
void Engine::Restore(uint32_t backend) {
  Backend& b = backends_[backend];
  b.down = false;
  b.hang = false;
  b.lame = false;
  ++b.lame_gen;
  b.flaky = 0;
  b.errors = 0;
  b.flapping = false;
  ++b.flap_gen;
  b.speed = b.group->speed;
  b.contention = b.group->contention;
}

void Engine::Apply(const TimedAction& a) {
  if (options_.recording) {
    std::string node = a.backend == kNone ? "cluster" : backends_[a.backend].name;
    std::string detail = std::string(ActionName(a.action));
    if (a.action == Action::kFlaky || a.action == Action::kErrors || a.action == Action::kSpeed ||
        a.action == Action::kContention || a.action == Action::kRate) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, " %g", a.value);
      detail += buffer;
    } else if (a.action == Action::kNetwork) {
      detail += " " + FormatDuration(Duration(a.d1));
    } else if (a.action == Action::kFlapping) {
      detail += " " + FormatDuration(Duration(a.d1)) + " " + FormatDuration(Duration(a.d2));
    }
    const trace::Status s = options_.recording->AppendEvent(options_.start_unix_ms + now_ / 1000000,
                                                            node, "sim", node + " " + detail);
    if (!s.ok()) record_error_ = s.ToString();
  }
  switch (a.action) {
    case Action::kNetwork:
      rtt_ = a.d1;
      return;
    case Action::kRate:
      for (uint32_t i = 0; i < clients_.size(); ++i) {
        Client& c = clients_[i];
        c.rate = a.value;
        if (c.rate > 0 && !c.arrival_pending) {
          c.arrival_pending = true;
          Schedule(now_ + static_cast<int64_t>(c.arrivals.Exponential(1e9 / c.rate)), kArrival, i);
        }
      }
      return;
    default:
      break;
  }
  Backend& b = backends_[a.backend];
  switch (a.action) {
    case Action::kUp:
      Restore(a.backend);
      break;
    case Action::kDown:
      b.flapping = false;
      ++b.flap_gen;
      if (!b.down) GoDown(a.backend);
      break;
    case Action::kHang:
      if (!b.hang) Hang(a.backend);
      break;
    case Action::kFlaky:
      b.flaky = a.value;
      break;
    case Action::kErrors:
      b.errors = a.value;
      break;
    case Action::kFlapping:
      b.flapping = true;
      b.flap_down = a.d1;
      b.flap_up = a.d2;
      Schedule(now_, kFlap, a.backend, ++b.flap_gen);
      if (b.down) b.down = false;  // The first flap takes it down again.
      break;
    case Action::kSpeed:
      b.speed = a.value;
      break;
    case Action::kContention:
      b.contention = a.value;
      break;
    case Action::kLameDuck:
      EnterLameDuck(a.backend);
      break;
    default:
      break;
  }
}

// --- Connections and the acquirer -------------------------------------------------------------

uint32_t Engine::NewConn() {
  if (free_conns_.empty()) {
    conns_.emplace_back();
    return static_cast<uint32_t>(conns_.size() - 1);
  }
  const uint32_t id = free_conns_.back();
  free_conns_.pop_back();
  conns_[id] = Conn{};
  return id;
}

// Takes a connection out of its pool and releases its slot; its id is freed once no attempt
// uses it.
void Engine::CloseConn(uint32_t id) {
  Conn& k = conns_[id];
  if (k.in_pool) {
    RemoveFromPool(clients_[k.client], id);
    Wake(k.client);
  }
  if (k.open) {
    Backend& b = backends_[k.backend];
    b.used[k.slot / 64] &= ~(uint64_t{1} << (k.slot % 64));
    b.slot_conn[k.slot] = kNone;
    --b.open_conns;
    k.open = false;
  }
  k.retiring = false;
  if (k.request == kNone) free_conns_.push_back(id);
}

void Engine::RemoveFromPool(Client& c, uint32_t id) {
  auto it = std::find(c.pool.begin(), c.pool.end(), id);
  if (it != c.pool.end()) c.pool.erase(it);
  conns_[id].in_pool = false;
}

void Engine::InsertIntoPool(Client& c, uint32_t id) {
  auto it = std::upper_bound(c.pool.begin(), c.pool.end(), id, [&](uint32_t x, uint32_t y) {
    const Conn& a = conns_[x];
    const Conn& b = conns_[y];
    return a.slot != b.slot ? a.slot < b.slot : a.tie < b.tie;
  });
  c.pool.insert(it, id);
  conns_[id].in_pool = true;
}

void Engine::Sleep(uint32_t client, int64_t how_long) {
  Client& c = clients_[client];
  Schedule(now_ + how_long, kAcquire, client, ++c.sleep_gen);
}

// A pool lost a member: cut the acquirer's sleep short.
void Engine::Wake(uint32_t client) {
  Client& c = clients_[client];
  ++c.sleep_gen;
  MaybeConnect(client);
}

// Starts connects: up to kRefillParallelism while the pool is short, one when it is full.
void Engine::MaybeConnect(uint32_t client) {
  Client& c = clients_[client];
  while (true) {
    const bool short_of_capacity = c.pool.size() + c.connecting < c.group->pool;
    const uint32_t lanes = short_of_capacity ? kRefillParallelism : 1;
    if (c.connecting >= lanes) return;
    targets_.clear();
    for (BackendId b : c.subset) {
      if (c.avoid_until[b] <= now_) targets_.push_back(b);
    }
    if (targets_.empty()) {
      if (c.connecting == 0) Sleep(client, kSleepMax);
      return;
    }
    const uint32_t target = targets_[c.acquirer.Below(targets_.size())];
    ++c.connecting;
    Schedule(now_ + scenario_.connect_time.count() + rtt_, kConnectDone, client, target);
  }
}

void Engine::OnConnectDone(uint32_t client, uint32_t backend) {
  Client& c = clients_[client];
  Backend& b = backends_[backend];
  --c.connecting;
  if (b.down) {
    ++c.counters.connect_failures;
    ++totals_.connect_failures;
    // Back off from a dead backend, doubling up to about a second, as rpc::Client does.
    const int exponent = std::min<int>(c.connect_failures[backend]++, 6);
    c.avoid_until[backend] = now_ + (int64_t{16'000'000} << exponent);
    MaybeConnect(client);
    return;
  }
  if (b.lame) {
    c.avoid_until[backend] = now_ + kLameDuckAvoid;
    MaybeConnect(client);
    return;
  }
  c.connect_failures[backend] = 0;
  c.touched[backend] = 1;
  ++c.counters.connects;
  ++totals_.connects;
  const uint32_t id = NewConn();
  Conn& k = conns_[id];
  k.client = client;
  k.backend = backend;
  k.tie = c.tie[backend];
  k.open = true;
  k.slot = AllocateSlot(b, id);
  if (c.pool.size() < c.group->pool) {
    InsertIntoPool(c, id);
    MaybeConnect(client);
    return;
  }
  const uint32_t worst = c.pool.back();
  const Conn& w = conns_[worst];
  if (k.slot < w.slot || (k.slot == w.slot && k.tie < w.tie)) {
    ++c.counters.replacements;
    RemoveFromPool(c, worst);
    if (conns_[worst].request == kNone) {
      CloseConn(worst);
    } else {
      conns_[worst].retiring = true;
    }
    InsertIntoPool(c, id);
    MaybeConnect(client);
    return;
  }
  CloseConn(id);
  if (c.connecting == 0) {
    Sleep(client, kSleepMin + static_cast<int64_t>(c.acquirer.Below(kSleepMax - kSleepMin + 1)));
  }
}

// --- Per-second bookkeeping -------------------------------------------------------------------

void Engine::OnTick() {
  ++ticks_;
  std::vector<uint32_t> row(backends_.size());
  for (size_t i = 0; i < backends_.size(); ++i) {
    Backend& b = backends_[i];
    UpdateBusy(b);
    b.report.utilization = (b.busy_ns - b.busy_at_tick) / (1e9 * b.group->capacity);
    b.report.requests_per_s = b.tick_attempts;
    b.report.errors_per_s = b.tick_errors;
    b.busy_at_tick = b.busy_ns;
    b.conn_sum += b.open_conns;
    row[i] = b.tick_attempts;
  }
  by_second_.push_back(std::move(row));
  if (options_.recording && !Record(&record_error_)) return;
  for (Backend& b : backends_) {
    b.tick_attempts = 0;
    b.tick_errors = 0;
    b.tick_rejections = 0;
  }
  if (now_ + kSecond <= end_) Schedule(now_ + kSecond, kTick);
}

bool Engine::Record(std::string* error) {
  const int64_t unix_ms = options_.start_unix_ms + now_ / 1000000;
  const std::string policy(balance::PolicyKindName(options_.policy));
  for (Backend& b : backends_) {
    if (b.down) continue;  // A dead process reports nothing; the console marks it stale.
    admin::Telemetry t;
    t.set_sequence(++b.sequence);
    t.set_unix_ms(unix_ms);
    t.set_node(b.name);
    t.set_version("railyard-sim");
    t.set_role(admin::ROLE_SERVER);
    t.set_state(b.lame ? admin::NODE_LAME_DUCK : admin::NODE_SERVING);
    t.set_service_address("sim:" + b.name);
    for (uint32_t slot = 0; slot < b.slot_conn.size(); ++slot) {
      const uint32_t id = b.slot_conn[slot];
      if (id == kNone) continue;
      const Conn& k = conns_[id];
      admin::SlotEntry* e = t.add_slots();
      e->set_slot(slot);
      e->set_client_id(k.client);
      e->set_client_name(clients_[k.client].name);
      e->set_peer("sim:" + clients_[k.client].name);
      e->set_requests(k.requests);
      e->set_busy(k.request != kNone);
    }
    admin::Throughput* th = t.mutable_throughput();
    th->set_requests_per_s(b.tick_attempts);
    th->set_errors_per_s(b.tick_errors);
    th->set_rejections_per_s(b.tick_rejections);
    if (trace::Status s = options_.recording->AppendSnapshot(b.name, t); !s.ok()) {
      *error = s.ToString();
      return false;
    }
  }
  admin::Telemetry t;
  t.set_sequence(ticks_);
  t.set_unix_ms(unix_ms);
  t.set_node("clients");
  t.set_version("railyard-sim");
  t.set_role(admin::ROLE_CLIENT);
  t.set_state(admin::NODE_SERVING);
  for (const Client& c : clients_) {
    admin::ClientPool* p = t.add_pools();
    p->set_client_id(c.id);
    p->set_client_name(c.name);
    p->set_capacity(c.group->pool);
    p->set_policy(policy);
    admin::PoolCounters* pc = p->mutable_counters();
    pc->set_requests(c.counters.requests);
    pc->set_retries(c.counters.retries);
    pc->set_rejections(c.counters.rejections);
    pc->set_replacements(c.counters.replacements);
    pc->set_failures(c.counters.failures);
    pc->set_connects(c.counters.connects);
    pc->set_connect_failures(c.counters.connect_failures);
    for (uint32_t id : c.pool) {
      const Conn& k = conns_[id];
      admin::PoolEntry* e = p->add_entries();
      e->set_server_index(k.backend);
      e->set_server(backends_[k.backend].name);
      e->set_slot(k.slot);
      e->set_busy(k.request != kNone);
      e->set_requests(k.requests);
    }
  }
  if (trace::Status s = options_.recording->AppendSnapshot("clients", t); !s.ok()) {
    *error = s.ToString();
    return false;
  }
  return true;
}

void Engine::Finish(SimResult* out) {
  SimResult& r = *out;
  r = std::move(totals_);
  r.scenario = scenario_.name;
  r.policy = std::string(balance::PolicyKindName(options_.policy));
  r.seed = seed_;
  r.duration_s = static_cast<double>(end_) / 1e9;
  r.clients = static_cast<uint32_t>(clients_.size());
  r.backends = static_cast<uint32_t>(backends_.size());
  r.success_rate = r.requests ? static_cast<double>(r.successes) / r.requests : 0;
  r.p50_ms = static_cast<double>(latency_.Quantile(0.5)) / 1e6;
  r.p99_ms = static_cast<double>(latency_.Quantile(0.99)) / 1e6;
  r.p999_ms = static_cast<double>(latency_.Quantile(0.999)) / 1e6;
  r.retries_per_request = r.requests ? static_cast<double>(r.retries) / r.requests : 0;
  double max_util = 0;
  double sum_util = 0;
  r.connections_min = std::numeric_limits<double>::max();
  r.connections_max = 0;
  for (Backend& b : backends_) {
    UpdateBusy(b);
    BackendResult br;
    br.name = b.name;
    br.attempts = b.attempts;
    br.successes = b.successes;
    br.utilization = end_ > 0 ? b.busy_ns / (static_cast<double>(end_) * b.group->capacity) : 0;
    br.mean_connections = ticks_ ? b.conn_sum / static_cast<double>(ticks_) : 0;
    const size_t index = r.per_backend.size();
    for (const Client& c : clients_) br.clients += c.touched[index];
    max_util = std::max(max_util, br.utilization);
    sum_util += br.utilization;
    r.connections_min = std::min(r.connections_min, br.mean_connections);
    r.connections_max = std::max(r.connections_max, br.mean_connections);
    r.per_backend.push_back(std::move(br));
  }
  if (backends_.empty()) r.connections_min = 0;
  const double mean_util = backends_.empty() ? 0 : sum_util / static_cast<double>(backends_.size());
  r.load_spread = mean_util > 0 ? max_util / mean_util : 0;
  r.attempts_by_second = std::move(by_second_);
}

}  // namespace

bool Simulate(const Scenario& scenario, const SimOptions& options, SimResult* result,
              std::string* error) {
  Engine engine(scenario, options);
  std::string message;
  if (!engine.Run(result, &message)) {
    if (error) *error = "recording: " + message;
    return false;
  }
  return true;
}

}  // namespace railyard::sim
