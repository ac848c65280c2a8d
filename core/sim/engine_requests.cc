// SPDX-License-Identifier: Apache-2.0
// The client side of a request: arrival, each attempt's pick, the answer or timeout, retries.

#include "core/sim/engine.h"

#include <algorithm>
#include <optional>
#include <span>

namespace railyard::sim::internal {

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

// Candidates: backends with an idle pooled connection, best slot first (the pool's order), into
// candidates_ and candidate_conn_.
void Engine::GatherCandidates(Client& c) {
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
}

void Engine::StartAttempt(uint32_t rid) {
  Request& r = requests_[rid];
  Client& c = clients_[r.client];
  GatherCandidates(c);
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

  DeliverAttempt(rid);
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
  // Like rpc::Client: an error answer keeps the connection until its answers keep failing.
  const bool sick = k.answers.Record(result);
  if ((!success && (!keep_conn || sick)) || k.retiring || !k.open) {
    CloseConn(conn);
  }
  if (success) {
    ++backends_[r.backend].successes;
    backends_[r.backend].tick_latency.Add(std::chrono::nanoseconds(now_ - r.attempt_start));
    latency_.Add(std::chrono::nanoseconds(now_ - r.start));
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

}  // namespace railyard::sim::internal
