// SPDX-License-Identifier: Apache-2.0
#include "core/node/node_metrics.h"

#include <algorithm>

#include "core/http/prometheus_text.h"

namespace railyard::node {

namespace {

using http::Labels;
using http::PrometheusText;

double D(uint64_t v) { return static_cast<double>(v); }

void Identity(const admin::Telemetry& t, PrometheusText& out) {
  out.Single("railyard_node_info", "gauge",
             "Always 1; the node's name, version and role as labels.", 1,
             {{"node", t.node()}, {"version", t.version()}, {"role", admin::Role_Name(t.role())}});
  out.Family("railyard_node_state", "gauge",
             "1 for the node's current state (starting, serving, lame_duck), 0 for the others.");
  for (const auto& [state, name] :
       {std::pair{admin::NODE_STARTING, "starting"}, std::pair{admin::NODE_SERVING, "serving"},
        std::pair{admin::NODE_LAME_DUCK, "lame_duck"}}) {
    out.Sample("railyard_node_state", {{"state", name}}, t.state() == state ? 1 : 0);
  }
}

void Slots(const admin::Telemetry& t, PrometheusText& out) {
  uint64_t busy = 0;
  double highest = -1;
  for (const admin::SlotEntry& s : t.slots()) {
    if (s.busy()) ++busy;
    highest = std::max(highest, static_cast<double>(s.slot()));
  }
  out.Single("railyard_connections", "gauge",
             "Client connections to the docservice; each holds one slot.", t.slots_size());
  out.Single("railyard_slots_busy", "gauge", "Slots with a request in flight.", D(busy));
  out.Single("railyard_slot_highest", "gauge",
             "The highest slot number in use (-1: no connection); above connections-1 when lower "
             "slots were freed.",
             highest);
}

void Methods(const std::vector<base::MethodStats::Totals>& methods, PrometheusText& out) {
  out.Family("railyard_requests_total", "counter",
             "Requests the service answered (a node: its docservice), by method and status code.");
  for (const auto& m : methods) {
    for (const auto& [code, count] : m.codes) {
      out.Sample("railyard_requests_total",
                 {{"method", m.method}, {"code", std::string(base::CodeName(code))}}, D(count));
    }
  }
  out.Family("railyard_request_errors_total", "counter",
             "Requests that failed, by method (NOT_FOUND and BEHIND are answers, not errors).");
  for (const auto& m : methods) {
    out.Sample("railyard_request_errors_total", {{"method", m.method}}, D(m.errors));
  }
  out.Family("railyard_request_duration_seconds", "histogram",
             "Time from a request's arrival to its answer in the docservice, by method.");
  const std::vector<double> bounds(base::MethodStats::kLatencyBoundsSeconds.begin(),
                                   base::MethodStats::kLatencyBoundsSeconds.end());
  for (const auto& m : methods) {
    out.Histogram("railyard_request_duration_seconds", {{"method", m.method}}, bounds,
                  {m.buckets.begin(), m.buckets.end()}, m.latency_sum_seconds);
  }
}

void Pools(const admin::Telemetry& t, PrometheusText& out) {
  if (t.pools_size() == 0) return;
  struct Counter {
    const char* name;
    const char* help;
    uint64_t (admin::PoolCounters::*get)() const;
  };
  out.Family("railyard_client_pool_capacity", "gauge",
             "Connections the node's own client (a replica's follower) keeps, by client.");
  for (const auto& p : t.pools()) {
    out.Sample("railyard_client_pool_capacity", {{"client", p.client_name()}}, p.capacity());
  }
  out.Family("railyard_client_pool_connections", "gauge", "Connections the client holds now.");
  for (const auto& p : t.pools()) {
    out.Sample("railyard_client_pool_connections", {{"client", p.client_name()}}, p.entries_size());
  }
  for (const Counter& c : {
           Counter{"railyard_client_requests_total", "Calls the client made.",
                   &admin::PoolCounters::requests},
           Counter{"railyard_client_retries_total", "Attempts after a call's first.",
                   &admin::PoolCounters::retries},
           Counter{"railyard_client_rejections_total", "Calls refused with POOL_EXHAUSTED.",
                   &admin::PoolCounters::rejections},
           Counter{"railyard_client_failures_total",
                   "Calls that failed (NOT_FOUND and BEHIND are answers; rejections apart).",
                   &admin::PoolCounters::failures},
           Counter{"railyard_client_connects_total", "Connections made.",
                   &admin::PoolCounters::connects},
           Counter{"railyard_client_connect_failures_total", "Connection attempts that failed.",
                   &admin::PoolCounters::connect_failures},
       }) {
    out.Family(c.name, "counter", c.help);
    for (const auto& p : t.pools()) {
      out.Sample(c.name, {{"client", p.client_name()}}, D((p.counters().*c.get)()));
    }
  }
}

void Storage(const admin::StorageStats& s, PrometheusText& out) {
  uint64_t index_entries = 0, index_bytes = 0;
  for (const auto& i : s.indexes()) {
    index_entries += i.entries();
    index_bytes += i.bytes();
  }
  uint64_t resident_pages = 0;
  for (const auto& p : s.bloom_pages()) resident_pages += p.resident() ? 1 : 0;
  out.Single("railyard_storage_indexes", "gauge", "Index files on disk.", s.indexes_size());
  out.Single("railyard_storage_index_entries", "gauge", "Entries in the index files on disk.",
             D(index_entries));
  out.Single("railyard_storage_index_bytes", "gauge", "Bytes of the index files on disk.",
             D(index_bytes));
  out.Single("railyard_storage_segment_bytes", "gauge",
             "Stored document bytes in the segment log, live and dead.", D(s.segment_bytes()));
  out.Single("railyard_storage_dead_byte_ratio", "gauge",
             "Share of the segment log's bytes that no index points to any more.",
             s.dead_byte_share());
  out.Single("railyard_storage_memtable_entries", "gauge", "Entries in the in-memory index.",
             D(s.memtable_entries()));
  out.Single("railyard_storage_memtable_capacity_entries", "gauge",
             "Entries the in-memory index holds before it is flushed.", D(s.memtable_capacity()));
  out.Single("railyard_storage_reads_total", "counter", "Document reads.", D(s.reads()));
  out.Single("railyard_storage_writes_total", "counter", "Document writes.", D(s.writes()));
  out.Single("railyard_storage_deletes_total", "counter", "Document deletions.", D(s.deletes()));
  out.Single("railyard_storage_index_entry_writes_total", "counter",
             "Entries written to index files by flushes and compactions (write amplification).",
             D(s.index_entry_writes()));
  out.Single("railyard_storage_write_stalls_total", "counter",
             "Writes that waited for a flush to catch up.", D(s.write_stalls()));
  out.Single("railyard_storage_write_stall_seconds_total", "counter",
             "Time writes spent waiting for flushes.",
             static_cast<double>(s.stall_time_us()) / 1e6);
  out.Single("railyard_storage_corruptions_total", "counter",
             "Damaged blocks, records or files the store detected (checksums, formats).",
             D(s.corruptions_seen()));
  out.Single("railyard_storage_writes_refused", "gauge",
             "1 while the store refuses writes (a failed fsync of its log, until it is "
             "reopened), else 0.",
             s.writes_refused().empty() ? 0.0 : 1.0);
  out.Single("railyard_storage_flushes_total", "counter",
             "In-memory indexes written to disk (merged with older indexes or not).",
             D(s.flushes()));
  out.Single("railyard_storage_compactions_total", "counter",
             "Index writes that merged at least one on-disk index.", D(s.compactions_done()));
  out.Single("railyard_storage_compacted_bytes_total", "counter",
             "Bytes of index files those merges wrote.", D(s.bytes_compacted()));
  out.Single("railyard_storage_wal_bytes", "gauge", "Bytes in the current write-ahead log.",
             D(s.wal_bytes()));
  out.Single("railyard_storage_bloom_negatives_total", "counter",
             "Lookups a Bloom page answered \"no\", sparing a read of its index.",
             D(s.bloom_negatives()));
  out.Single("railyard_storage_bloom_budget_bytes", "gauge",
             "Memory allowed for resident Bloom pages.", D(s.bloom_budget_bytes()));
  out.Single("railyard_storage_bloom_resident_bytes", "gauge",
             "Memory held by resident Bloom pages.", D(s.bloom_resident_bytes()));
  out.Single("railyard_storage_bloom_pages", "gauge", "Bloom pages, by residency.",
             D(resident_pages), {{"resident", "true"}});
  out.Sample("railyard_storage_bloom_pages", {{"resident", "false"}},
             D(static_cast<uint64_t>(s.bloom_pages_size()) - resident_pages));
  const admin::DocCache& c = s.cache();
  out.Single("railyard_doc_cache_budget_bytes", "gauge", "The document cache's budget (0: off).",
             D(c.budget_bytes()));
  out.Single("railyard_doc_cache_bytes", "gauge", "Bytes in the document cache.", D(c.bytes()));
  out.Single("railyard_doc_cache_entries", "gauge", "Documents in the document cache.",
             D(c.entries()));
  out.Single("railyard_doc_cache_hits_total", "counter", "Reads the cache answered.", D(c.hits()));
  out.Single("railyard_doc_cache_misses_total", "counter", "Reads the cache could not answer.",
             D(c.misses()));
  out.Single("railyard_doc_cache_invalidations_total", "counter",
             "Cached copies dropped because their document changed.", D(c.invalidations()));
}

void Replication(const admin::Replication& r, PrometheusText& out) {
  out.Single("railyard_replication_head_position", "gauge",
             "The updater's queue position this node knows of (bytes into the queue).",
             D(r.head_position()));
  out.Single("railyard_replication_applied_position", "gauge",
             "The queue position this node has applied.", D(r.applied_position()));
  out.Single("railyard_replication_head_docs", "gauge",
             "Documents up to the updater's queue position this node knows of.", D(r.head_docs()));
  out.Single("railyard_replication_applied_docs", "gauge",
             "Documents up to the queue position this node has applied.", D(r.applied_docs()));
  if (r.role() == admin::DOCSTORE_REPLICA) {
    // docs/figures.md, "Replication lag": unknown without a live follow connection, so absent
    // rather than a 0 or a last value that would read as fresh.
    if (r.lag_known()) {
      out.Single("railyard_replication_lag_records", "gauge",
                 "Documents this replica has yet to apply.", D(r.lag_docs()));
      out.Single("railyard_replication_lag_bytes", "gauge",
                 "Queue bytes this replica has yet to apply.", D(r.lag_bytes()));
      out.Single("railyard_replication_lag_seconds", "gauge",
                 "Age of the oldest write this replica has not applied (0: caught up).",
                 r.lag_seconds());
    }
    out.Single("railyard_replication_refetches_total", "counter",
               "Blocks fetched again after failing their checksum.", D(r.refetches()));
    out.Family("railyard_replication_state", "gauge",
               "1 for the replica's replication state, 0 for the others.");
    for (int v = admin::REPLICA_CATCHING_UP; v <= admin::REPLICA_STOPPED; ++v) {
      out.Sample("railyard_replication_state",
                 {{"state", admin::ReplicaState_Name(static_cast<admin::ReplicaState>(v))}},
                 r.state() == v ? 1 : 0);
    }
    return;
  }
  // The updater: each replica's lag as its fetches tell it; a silent one's is unknown (absent).
  if (std::none_of(r.followers().begin(), r.followers().end(),
                   [](const admin::Follower& f) { return f.lag_known(); })) {
    return;
  }
  out.Family("railyard_replica_lag_records", "gauge",
             "Documents a replica has yet to apply, as its updater knows it.");
  for (const auto& f : r.followers()) {
    if (!f.lag_known()) continue;
    out.Sample("railyard_replica_lag_records", {{"replica", f.name()}}, D(f.lag_docs()));
  }
  out.Family("railyard_replica_lag_bytes", "gauge",
             "Queue bytes a replica has yet to apply, as its updater knows it.");
  for (const auto& f : r.followers()) {
    if (!f.lag_known()) continue;
    out.Sample("railyard_replica_lag_bytes", {{"replica", f.name()}}, D(f.lag_bytes()));
  }
  out.Family("railyard_replica_lag_seconds", "gauge",
             "Age of the oldest write a replica has not applied, as its updater knows it.");
  for (const auto& f : r.followers()) {
    if (!f.lag_known()) continue;
    out.Sample("railyard_replica_lag_seconds", {{"replica", f.name()}}, f.lag_seconds());
  }
}

void Process(const ProcessFigures& p, PrometheusText& out) {
  out.Single("process_cpu_seconds_total", "counter",
             "Total user and system CPU time spent in seconds.", p.cpu_seconds);
  out.Single("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
             D(p.resident_bytes));
  out.Single("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
             D(p.virtual_bytes));
  out.Single("process_open_fds", "gauge", "Number of open file descriptors.", D(p.open_fds));
  if (p.max_fds) {
    out.Single("process_max_fds", "gauge", "Maximum number of open file descriptors.",
               D(p.max_fds));
  }
  out.Single("process_start_time_seconds", "gauge",
             "Start time of the process since unix epoch in seconds.", p.start_time_seconds);
}

}  // namespace

std::string RenderNodeMetrics(const NodeMetricsInput& in) {
  PrometheusText out;
  const admin::Telemetry& t = in.telemetry;
  Identity(t, out);
  Slots(t, out);
  Methods(in.methods, out);
  Pools(t, out);
  if (t.has_storage()) Storage(t.storage(), out);
  if (t.has_replication()) Replication(t.replication(), out);
  if (in.disk) {
    out.Single("railyard_data_dir_free_bytes", "gauge",
               "Bytes free (for the node's user) on the data directory's file system.",
               D(in.disk->free_bytes));
    out.Single("railyard_data_dir_size_bytes", "gauge", "Size of the data directory's file system.",
               D(in.disk->size_bytes));
  }
  if (in.process) Process(*in.process, out);
  return out.text();
}

}  // namespace railyard::node
