// SPDX-License-Identifier: Apache-2.0
#include "core/node/client_telemetry.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "core/balance/subsetting.h"

namespace railyard::node {

void FillPool(const rpc::PoolSnapshot& pool, const std::string& client_name,
              const std::string& policy, admin::ClientPool* out) {
  out->set_client_id(pool.client_id);
  out->set_client_name(client_name);
  out->set_capacity(static_cast<uint32_t>(pool.capacity));
  out->set_policy(pool.policy.empty() ? policy : pool.policy);
  for (const rpc::PoolEntrySnapshot& entry : pool.entries) {
    admin::PoolEntry* e = out->add_entries();
    e->set_server_index(entry.server);
    e->set_server(entry.server_address);
    e->set_slot(entry.slot);
    e->set_busy(entry.busy);
    e->set_requests(entry.requests);
  }
  admin::PoolCounters* c = out->mutable_counters();
  c->set_requests(pool.counters.requests);
  c->set_retries(pool.counters.retries);
  c->set_rejections(pool.counters.rejections);
  c->set_replacements(pool.counters.replacements);
  c->set_failures(pool.counters.failures);
  c->set_connects(pool.counters.connects);
  c->set_connect_failures(pool.counters.connect_failures);
  c->set_retries_refused(pool.counters.retries_refused);
  admin::ClientThroughput* t = out->mutable_throughput();
  t->set_requests_per_s(pool.throughput.requests_per_s);
  t->set_errors_per_s(pool.throughput.errors_per_s);
  t->set_rejections_per_s(pool.throughput.rejections_per_s);
  t->set_retries_per_s(pool.throughput.retries_per_s);
  t->set_p50_us(pool.throughput.p50_us);
  t->set_p99_us(pool.throughput.p99_us);
  t->set_max_us(pool.throughput.max_us);
  if (pool.policy_state) {
    for (const balance::BackendExplanation& backend : pool.policy_state->backends) {
      admin::PolicyBackend* b = out->add_policy_backends();
      b->set_server_index(backend.backend);
      if (backend.backend < pool.server_addresses.size()) {
        b->set_server(pool.server_addresses[backend.backend]);
      }
      b->set_weight(backend.weight);
      b->set_active(backend.active);
      b->set_limit(backend.limit);
      b->set_success_rate(backend.success_rate);
      b->set_recent_errors(backend.recent_errors);
      b->set_ejected(backend.ejected);
      b->set_note(backend.note);
    }
  }
  out->set_subset_mode(std::string(balance::SubsetModeName(pool.subset_mode)));
  for (uint32_t server : pool.subset) out->add_subset(server);
  for (const std::string& address : pool.server_addresses) out->add_servers(address);
}

rpc::PoolSnapshot MergePools(std::vector<rpc::PoolSnapshot> pools) {
  rpc::PoolSnapshot merged = std::move(pools.front());
  for (size_t p = 1; p < pools.size(); ++p) {
    const rpc::PoolSnapshot& other = pools[p];
    // The other pool's server indices, in the merged server list.
    std::vector<uint32_t> index(other.server_addresses.size());
    for (size_t i = 0; i < other.server_addresses.size(); ++i) {
      const auto& all = merged.server_addresses;
      const auto at = std::find(all.begin(), all.end(), other.server_addresses[i]);
      index[i] = static_cast<uint32_t>(at - all.begin());
      if (at == all.end()) merged.server_addresses.push_back(other.server_addresses[i]);
    }
    merged.capacity += other.capacity;
    for (rpc::PoolEntrySnapshot entry : other.entries) {
      if (entry.server < index.size()) entry.server = index[entry.server];
      merged.entries.push_back(std::move(entry));
    }
    rpc::ClientCounters& c = merged.counters;
    c.requests += other.counters.requests;
    c.retries += other.counters.retries;
    c.rejections += other.counters.rejections;
    c.replacements += other.counters.replacements;
    c.failures += other.counters.failures;
    c.connects += other.counters.connects;
    c.connect_failures += other.counters.connect_failures;
    c.retries_refused += other.counters.retries_refused;
    rpc::ClientThroughput& t = merged.throughput;
    const rpc::ClientThroughput& o = other.throughput;
    const double total = t.requests_per_s + o.requests_per_s;
    t.p50_us = total > 0 ? (t.p50_us * t.requests_per_s + o.p50_us * o.requests_per_s) / total
                         : std::max(t.p50_us, o.p50_us);
    t.p99_us = std::max(t.p99_us, o.p99_us);
    t.max_us = std::max(t.max_us, o.max_us);
    t.requests_per_s = total;
    t.errors_per_s += o.errors_per_s;
    t.rejections_per_s += o.rejections_per_s;
    t.retries_per_s += o.retries_per_s;
    if (merged.last_connect_failure.empty())
      merged.last_connect_failure = other.last_connect_failure;
  }
  // Best first across the pools, as one pool lists them.
  std::stable_sort(merged.entries.begin(), merged.entries.end(),
                   [](const rpc::PoolEntrySnapshot& a, const rpc::PoolEntrySnapshot& b) {
                     return a.slot < b.slot;
                   });
  return merged;
}

std::unique_ptr<AdminService> MakeClientAdminService(AdminOptions options, PoolSource pools,
                                                     TelemetryExtra extra) {
  const std::string name = options.name;
  auto sequence = std::make_shared<std::atomic<uint64_t>>(0);
  const int64_t started_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
  auto telemetry = [name, pools = std::move(pools), extra = std::move(extra), sequence,
                    started_unix_ms] {
    admin::Telemetry t;
    t.set_sequence(++*sequence);
    t.set_started_unix_ms(started_unix_ms);
    t.set_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
    t.set_node(name);
    t.set_role(admin::ROLE_CLIENT);
    t.set_state(admin::NODE_SERVING);
    for (const NamedPool& pool : pools()) {
      FillPool(pool.snapshot, pool.client_name, "", t.add_pools());
    }
    if (extra) extra(&t);
    return t;
  };
  return std::make_unique<AdminService>(std::move(options), std::move(telemetry), AdminCommands{});
}

rpc::Status StartClientAdminServices(const AdminOptions& base,
                                     const std::vector<ClientEndpoint>& clients,
                                     std::vector<std::unique_ptr<AdminService>>* services) {
  for (const ClientEndpoint& c : clients) {
    AdminOptions options = base;
    options.name = c.name;
    options.port = 0;
    std::unique_ptr<AdminService> service = MakeClientAdminService(options, [c] {
      // Without the write client's pool, a demo client's writes to the updater were missing
      // from Flow and its pool figures (C5).
      std::vector<rpc::PoolSnapshot> pools{c.client->Snapshot()};
      if (c.write_client) pools.push_back(c.write_client->Snapshot());
      return std::vector<NamedPool>{{c.name, MergePools(std::move(pools))}};
    });
    if (rpc::Status s = service->Start(); !s.ok()) {
      for (auto& started : *services) started->Stop();
      services->clear();
      return {s.code(), c.name + "'s admin service: " + s.message()};
    }
    services->push_back(std::move(service));
  }
  return rpc::Status::Ok();
}

}  // namespace railyard::node
