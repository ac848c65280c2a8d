// SPDX-License-Identifier: Apache-2.0
// What a run leaves behind: per-second samples, the recording, and the SimResult.

#include "core/sim/engine.h"

#include <algorithm>
#include <limits>

#include "core/trace/latency_buckets.h"
#include "core/trace/recording.h"
#include "core/trace/recording_writer.h"

namespace railyard::sim::internal {

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
    b.tick_latency = {};
  }
  if (now_ + kSecond <= end_) Schedule(now_ + kSecond, kTick);
}

// One snapshot per live backend and one of every client's pool, as the console reads them.
bool Engine::Record(std::string* error) {
  const int64_t unix_ms = options_.start_unix_ms + now_ / 1000000;
  for (Backend& b : backends_) {
    if (b.down || b.hang) {
      // A dead process reports nothing, and neither does a hung one (its admin service hangs
      // too). A recorder polling it would fail, at once or at its deadline, and writes one event
      // per outage (trace::kEventUnreachable), so a replay shows it unreachable with the reason,
      // not stale and not serving.
      if (!b.down_recorded) {
        if (trace::Status s = options_.recording->AppendEvent(
                unix_ms, b.name, trace::kEventUnreachable,
                b.down ? "UNAVAILABLE: the simulated backend is down (the scenario's down action)"
                       : "DEADLINE_EXCEEDED: the simulated backend does not answer, timed out "
                         "(the scenario's hang action)");
            !s.ok()) {
          *error = s.ToString();
          return false;
        }
        b.down_recorded = true;
      }
      continue;
    }
    b.down_recorded = false;
    if (trace::Status s = options_.recording->AppendSnapshot(b.name, BackendSnapshot(b, unix_ms));
        !s.ok()) {
      *error = s.ToString();
      return false;
    }
  }
  if (trace::Status s = options_.recording->AppendSnapshot("clients", ClientsSnapshot(unix_ms));
      !s.ok()) {
    *error = s.ToString();
    return false;
  }
  return true;
}

admin::Telemetry Engine::BackendSnapshot(Backend& b, int64_t unix_ms) {
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
  if (b.tick_latency.count() > 0) {
    // One method, as the console reads a node's latency from its methods.
    admin::MethodStats* m = th->add_methods();
    m->set_method("sim.Request");
    m->set_requests(b.successes);
    m->set_requests_per_s(b.tick_attempts);
    m->set_errors_per_s(b.tick_errors);
    m->set_p50_us(b.tick_latency.PercentileUs(0.5));
    m->set_p90_us(b.tick_latency.PercentileUs(0.9));
    m->set_p99_us(b.tick_latency.PercentileUs(0.99));
    m->set_max_us(b.tick_latency.max_us());
  }
  return t;
}

admin::Telemetry Engine::ClientsSnapshot(int64_t unix_ms) const {
  const std::string policy(balance::PolicyKindName(options_.policy));
  admin::Telemetry t;
  t.set_sequence(ticks_);
  t.set_unix_ms(unix_ms);
  t.set_node("clients");
  t.set_version("railyard-sim");
  t.set_role(admin::ROLE_CLIENT);
  t.set_state(admin::NODE_SERVING);
  // Every call's latency so far, as the run's result counts them: Compare's p50 and p99 over the
  // recording are then the ones `railyardctl sim` prints (C15).
  trace::ToLatencyBuckets(latency_, t.mutable_throughput()->mutable_latency_histogram());
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
  return t;
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
  r.p50_ms = static_cast<double>(latency_.Percentile(0.5).count()) / 1e6;
  r.p99_ms = static_cast<double>(latency_.Percentile(0.99).count()) / 1e6;
  r.p999_ms = static_cast<double>(latency_.Percentile(0.999).count()) / 1e6;
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

}  // namespace railyard::sim::internal
