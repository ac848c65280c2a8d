// SPDX-License-Identifier: Apache-2.0
// The engine: setup from the scenario, and the event loop.

#include "core/sim/engine.h"

#include <chrono>

#include "core/balance/subsetting.h"

namespace railyard::sim::internal {

// --- Setup ------------------------------------------------------------------------------------

void Engine::Setup() {
  seed_ = options_.seed.value_or(scenario_.seed);
  end_ = options_.duration.value_or(scenario_.duration).count();
  rtt_ = scenario_.network_rtt.count();
  count_errors_ = options_.count_errors_as_active.value_or(scenario_.count_errors_as_active);
  SetupBackends();
  SetupClients();
  ExpandEvents();
  // The order of these first events fixes the order of ties, so it is part of what a seed gives.
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

void Engine::SetupBackends() {
  backends_.resize(scenario_.backend_count());
  uint32_t index = 0;
  for (const BackendGroup& g : scenario_.backends) {
    for (uint32_t i = 0; i < g.count; ++i, ++index) {
      Backend& b = backends_[index];
      b.name = "backend-" + std::to_string(index);
      b.group = &g;
      b.rng = base::Rng(base::MixSeed(seed_, kStreamBackend, index));
      b.speed = g.speed;
      b.contention = g.contention;
    }
  }
}

void Engine::SetupClients() {
  clients_.resize(scenario_.client_count());
  uint32_t index = 0;
  for (const ClientGroup& g : scenario_.clients) {
    for (uint32_t i = 0; i < g.count; ++i, ++index) SetupClient(g, index);
  }
}

void Engine::SetupClient(const ClientGroup& g, uint32_t index) {
  const uint32_t backend_count = static_cast<uint32_t>(backends_.size());
  Client& c = clients_[index];
  c.id = index;
  c.name = "client-" + std::to_string(index);
  c.group = &g;
  balance::PolicyOptions po;
  po.kind = options_.policy;
  po.max_active_per_backend = scenario_.max_active;
  po.seed = base::MixSeed(seed_, kStreamPolicy, index);
  po.count_errors_as_active = count_errors_;
  if (options_.slot_choices) po.slot_choices = *options_.slot_choices;
  c.policy = balance::MakePolicy(po);
  balance::RetryBudget::Options bo;
  bo.ratio = g.retry_budget;
  c.budget = std::make_unique<balance::RetryBudget>(bo);
  // One seed for all: ChooseSubset itself gives each client its own random sample.
  const uint64_t subset_seed = base::MixSeed(seed_, kStreamSubset);
  const size_t size = g.subset_size == 0 ? backend_count : g.subset_size;
  c.subset = balance::ChooseSubset(g.subset, index, backend_count, size, subset_seed);
  if (c.subset.empty()) {  // Defensive: a client always has somewhere to go.
    for (BackendId b = 0; b < backend_count; ++b) c.subset.push_back(b);
  }
  // Distinct random tie-break ranks, so clients do not all prefer the same backend on
  // equal slots.
  c.tie.resize(backend_count);
  for (uint32_t b = 0; b < backend_count; ++b) c.tie[b] = b;
  base::Rng tie_rng(base::MixSeed(seed_, kStreamTieBreak, index));
  for (uint32_t b = backend_count; b > 1; --b) {
    std::swap(c.tie[b - 1], c.tie[tie_rng.Below(b)]);
  }
  c.avoid_until.assign(backend_count, 0);
  c.connect_failures.assign(backend_count, 0);
  c.touched.assign(backend_count, 0);
  c.stamp.assign(backend_count, 0);
  c.candidate_index.assign(backend_count, 0);
  c.arrivals = base::Rng(base::MixSeed(seed_, kStreamArrivals, index));
  c.cost = base::Rng(base::MixSeed(seed_, kStreamCost, index));
  c.acquirer = base::Rng(base::MixSeed(seed_, kStreamAcquirer, index));
  c.rate = g.rate_per_s;
  c.pool.reserve(g.pool);
}

// Expands the scenario's events into per-backend actions (selectors, stagger, replace).
void Engine::ExpandEvents() {
  const uint32_t backend_count = static_cast<uint32_t>(backends_.size());
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
}

// --- The loop ---------------------------------------------------------------------------------

bool Engine::Run(SimResult* result, std::string* error) {
  const auto wall_start = std::chrono::steady_clock::now();
  Setup();
  // A first snapshot of every backend at virtual time 0, so that a recording's span starts
  // where the scenario's time does and "at 20s" replays at 0:20.0.
  if (options_.recording && !Record(&record_error_)) {
    *error = record_error_;
    return false;
  }
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

}  // namespace railyard::sim::internal
