// SPDX-License-Identifier: Apache-2.0
// The simulated backends: service, queueing, faults, and the scenario's actions on them.

#include "core/sim/engine.h"

#include <algorithm>
#include <bit>
#include <cstdio>

#include "core/trace/recording_writer.h"

namespace railyard::sim::internal {

// The attempt reaches its backend, which fails it, ignores it, serves it or queues it. A lame duck
// serves it too: it was sent before its client heard (the runtime's lame duck, after the chapter).
void Engine::DeliverAttempt(uint32_t rid) {
  Request& r = requests_[rid];
  Backend& b = backends_[r.backend];
  ++b.attempts;
  ++b.tick_attempts;
  if (b.down) {
    ++b.tick_errors;
    Respond(rid, Result::kError, false, rtt_);
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
    StartService(r.backend, rid);
  } else {
    b.queue.push_back(Job{rid, r.gen});
    ScheduleTimeout(rid);
  }
}

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

// The action as an event of the recording: "backend-3 flaky 0.5".
void Engine::RecordAction(const TimedAction& a) {
  std::string node = a.backend == kNone ? "cluster" : backends_[a.backend].name;
  std::string detail = std::string(ActionName(a.action));
  switch (ActionArguments(a.action)) {
    case ActionArgs::kNone:
      break;
    case ActionArgs::kValue: {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, " %g", a.value);
      detail += buffer;
      break;
    }
    case ActionArgs::kDuration:
      detail += " " + FormatDuration(Duration(a.d1));
      break;
    case ActionArgs::kTwoDurations:
      detail += " " + FormatDuration(Duration(a.d1)) + " " + FormatDuration(Duration(a.d2));
      break;
  }
  const trace::Status s = options_.recording->AppendEvent(options_.start_unix_ms + now_ / 1000000,
                                                          node, "sim", node + " " + detail);
  if (!s.ok()) record_error_ = s.ToString();
}

void Engine::Apply(const TimedAction& a) {
  if (options_.recording) RecordAction(a);
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

}  // namespace railyard::sim::internal
