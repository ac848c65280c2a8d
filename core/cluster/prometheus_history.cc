// SPDX-License-Identifier: Apache-2.0
#include "core/cluster/prometheus_history.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/cluster/request_figures.h"

namespace railyard::cluster {

namespace {

using base::Status;

// The queries' places in PrometheusHistoryQueries.
enum Query : size_t {
  kUp,
  kRaw,
  kApplyRate,
  kRequestRate,
  kErrorRate,
  kP50,
  kP90,
  kP99,
  kQueryCount
};

// A target: job and instance.
using TargetKey = std::pair<std::string, std::string>;

std::string Label(const PromSeries& s, const std::string& name) {
  auto it = s.labels.find(name);
  return it == s.labels.end() ? std::string() : it->second;
}

TargetKey KeyOf(const PromSeries& s) { return {Label(s, "job"), Label(s, "instance")}; }

std::string Selector(const std::string& match) { return "{" + match + "}"; }

std::string WithMatch(const std::string& match, const std::string& matcher) {
  return "{" + matcher + (match.empty() ? "" : ", " + match) + "}";
}

std::string Window(const PrometheusHistoryOptions& o) {
  return "[" + std::to_string(HistoryRateWindowMs(o) / 1000) + "s]";
}

uint64_t U(double v) {
  return v > 0 && std::isfinite(v) ? static_cast<uint64_t>(std::llround(v)) : 0;
}

// One target's snapshots under construction, by step time.
struct Target {
  std::map<int64_t, admin::Telemetry> at;  // Steps at which `up` was 1.
  std::map<int64_t, double> up;            // Every step `up` had a value.
  bool railyard = false;                   // railyard_node_info seen.
  std::string node;
};

admin::MethodStats* Method(admin::Telemetry* t, const std::string& method) {
  for (admin::MethodStats& m : *t->mutable_throughput()->mutable_methods()) {
    if (m.method() == method) return &m;
  }
  admin::MethodStats* m = t->mutable_throughput()->add_methods();
  m->set_method(method);
  return m;
}

admin::Follower* Follower(admin::Telemetry* t, const std::string& name) {
  for (admin::Follower& f : *t->mutable_replication()->mutable_followers()) {
    if (f.name() == name) return &f;
  }
  admin::Follower* f = t->mutable_replication()->add_followers();
  f->set_name(name);
  return f;
}

// A raw series' value at one step into the snapshot it belongs in.
void ApplyRaw(const PromSeries& s, double v, admin::Telemetry* t) {
  const std::string name = Label(s, "__name__");
  if (name == "railyard_node_info") {
    t->set_node(Label(s, "node"));
    t->set_version(Label(s, "version"));
    admin::Role role = admin::ROLE_UNSPECIFIED;
    if (admin::Role_Parse(Label(s, "role"), &role)) t->set_role(role);
    return;
  }
  if (name == "railyard_node_state") {
    const std::string state = Label(s, "state");
    if (v != 1) return;
    t->set_state(state == "serving"     ? admin::NODE_SERVING
                 : state == "lame_duck" ? admin::NODE_LAME_DUCK
                 : state == "starting"  ? admin::NODE_STARTING
                                        : admin::NODE_STATE_UNSPECIFIED);
    return;
  }
  if (name == "process_start_time_seconds") {
    t->set_started_unix_ms(std::llround(v * 1000));
    return;
  }
  if (name == "railyard_requests_total") {
    admin::MethodStats* m = Method(t, Label(s, "method"));
    m->set_requests(m->requests() + U(v));
    return;
  }
  if (name == "railyard_request_errors_total") {
    Method(t, Label(s, "method"))->set_errors(U(v));
    return;
  }
  if (name == "railyard_data_dir_free_bytes" || name == "railyard_data_dir_size_bytes") {
    admin::DiskSpace* disk = t->mutable_disk();
    name == "railyard_data_dir_free_bytes" ? disk->set_free_bytes(U(v))
                                           : disk->set_size_bytes(U(v));
    return;
  }

  if (name.rfind("railyard_replica_lag_", 0) == 0) {
    admin::Follower* f = Follower(t, Label(s, "replica"));
    f->set_lag_known(true);
    if (name == "railyard_replica_lag_records") f->set_lag_docs(U(v));
    if (name == "railyard_replica_lag_bytes") f->set_lag_bytes(U(v));
    if (name == "railyard_replica_lag_seconds") f->set_lag_seconds(v);
    return;
  }
  if (name.rfind("railyard_replication_", 0) == 0) {
    admin::Replication* r = t->mutable_replication();
    if (name == "railyard_replication_head_position") r->set_head_position(U(v));
    if (name == "railyard_replication_applied_position") r->set_applied_position(U(v));
    if (name == "railyard_replication_head_docs") r->set_head_docs(U(v));
    if (name == "railyard_replication_applied_docs") r->set_applied_docs(U(v));
    if (name == "railyard_replication_refetches_total") r->set_refetches(U(v));
    if (name.rfind("railyard_replication_lag_", 0) == 0) {
      // Exported only while the lag is known (docs/figures.md, "Replication lag").
      r->set_lag_known(true);
      if (name == "railyard_replication_lag_records") r->set_lag_docs(U(v));
      if (name == "railyard_replication_lag_bytes") r->set_lag_bytes(U(v));
      if (name == "railyard_replication_lag_seconds") r->set_lag_seconds(v);
    }
    if (name == "railyard_replication_state") {
      r->set_role(admin::DOCSTORE_REPLICA);
      admin::ReplicaState state = admin::REPLICA_STATE_UNSPECIFIED;
      if (v == 1 && admin::ReplicaState_Parse(Label(s, "state"), &state)) r->set_state(state);
    }
    return;
  }

  admin::StorageStats* st = t->mutable_storage();
  admin::DocCache* c = st->mutable_cache();
  // clang-format off
  if (name == "railyard_storage_memtable_entries") st->set_memtable_entries(U(v));
  else if (name == "railyard_storage_memtable_capacity_entries") st->set_memtable_capacity(U(v));
  else if (name == "railyard_storage_index_entry_writes_total") st->set_index_entry_writes(U(v));
  else if (name == "railyard_storage_bloom_budget_bytes") st->set_bloom_budget_bytes(U(v));
  else if (name == "railyard_storage_bloom_resident_bytes") st->set_bloom_resident_bytes(U(v));
  else if (name == "railyard_storage_reads_total") st->set_reads(U(v));
  else if (name == "railyard_storage_writes_total") st->set_writes(U(v));
  else if (name == "railyard_storage_deletes_total") st->set_deletes(U(v));
  else if (name == "railyard_storage_write_stalls_total") st->set_write_stalls(U(v));
  else if (name == "railyard_storage_write_stall_seconds_total") st->set_stall_time_us(std::llround(v * 1e6));
  else if (name == "railyard_storage_segment_bytes") st->set_segment_bytes(U(v));
  else if (name == "railyard_storage_dead_byte_ratio") st->set_dead_byte_share(v);
  else if (name == "railyard_storage_corruptions_total") st->set_corruptions_seen(U(v));
  else if (name == "railyard_storage_flushes_total") st->set_flushes(U(v));
  else if (name == "railyard_storage_compactions_total") st->set_compactions_done(U(v));
  else if (name == "railyard_storage_compacted_bytes_total") st->set_bytes_compacted(U(v));
  else if (name == "railyard_storage_bloom_negatives_total") st->set_bloom_negatives(U(v));
  else if (name == "railyard_storage_wal_bytes") st->set_wal_bytes(U(v));
  else if (name == "railyard_storage_writes_refused" && v == 1) {
    st->set_writes_refused("refused writes (railyard_storage_writes_refused; the reason is in the node's log)");
  }
  else if (name == "railyard_doc_cache_budget_bytes") c->set_budget_bytes(U(v));
  else if (name == "railyard_doc_cache_bytes") c->set_bytes(U(v));
  else if (name == "railyard_doc_cache_entries") c->set_entries(U(v));
  else if (name == "railyard_doc_cache_hits_total") c->set_hits(U(v));
  else if (name == "railyard_doc_cache_misses_total") c->set_misses(U(v));
  else if (name == "railyard_doc_cache_invalidations_total") c->set_invalidations(U(v));
  // clang-format on
}

// A per-method figure (query kRequestRate .. kP99) at one step.
void ApplyMethodFigure(size_t query, const PromSeries& s, double v, admin::Telemetry* t) {
  admin::MethodStats* m = Method(t, Label(s, "method"));
  const double us = std::isfinite(v) ? v * 1e6 : 0;  // NaN: no request in the window.
  switch (query) {
    case kRequestRate:
      m->set_requests_per_s(v);
      break;
    case kErrorRate:
      m->set_errors_per_s(v);
      break;
    case kP50:
      m->set_p50_us(us);
      break;
    case kP90:
      m->set_p90_us(us);
      break;
    case kP99:
      m->set_p99_us(us);
      break;
    default:
      break;
  }
}

// Totals, and the step each snapshot stands for (as a flight recorder's downsampled one).
void Finish(admin::Telemetry* t, int64_t step_ms, uint64_t sequence) {
  t->set_sequence(sequence);
  admin::Throughput* th = t->mutable_throughput();
  double requests = 0, errors = 0;
  for (const admin::MethodStats& m : th->methods()) {
    requests += m.requests_per_s();
    errors += m.errors_per_s();
  }
  th->set_requests_per_s(requests);
  th->set_errors_per_s(errors);
  if (t->has_replication() && t->replication().role() == admin::DOCSTORE_ROLE_UNSPECIFIED) {
    t->mutable_replication()->set_role(admin::DOCSTORE_UPDATER);
  }
  admin::Downsampled* d = t->mutable_downsampled();
  d->set_from_unix_ms(t->unix_ms() - step_ms);
  d->set_bucket_ms(static_cast<uint32_t>(std::min<int64_t>(step_ms, UINT32_MAX)));
  d->set_snapshots(1);
  auto one = [](admin::FigureRange* r, double v) {
    r->set_min(v);
    r->set_mean(v);
    r->set_max(v);
    r->set_samples(1);
  };
  one(d->mutable_requests_per_s(), requests);
  one(d->mutable_errors_per_s(), errors);
  if (LatencyRequestsPerS(*th) > 0) one(d->mutable_p99_us(), RequestP99Us(*th));
  if (t->replication().lag_known()) one(d->mutable_lag_seconds(), t->replication().lag_seconds());
}

}  // namespace

int64_t HistoryStepMs(const PrometheusHistoryOptions& o) {
  if (o.step_ms > 0) return o.step_ms;
  const int64_t span = std::max<int64_t>(o.to_ms - o.from_ms, 0);
  // Whole seconds, so that the steps fall on the same instants whatever the range's start.
  return std::max<int64_t>(kMinStepMs, (span / kDefaultSteps + 999) / 1000 * 1000);
}

int64_t HistoryRateWindowMs(const PrometheusHistoryOptions& o) {
  return std::max<int64_t>(60000, (2 * HistoryStepMs(o) + 999) / 1000 * 1000);
}

std::vector<std::string> PrometheusHistoryQueries(const PrometheusHistoryOptions& o) {
  const std::string m = Selector(o.match);
  const std::string w = Window(o);
  std::vector<std::string> q(kQueryCount);
  q[kUp] = "up" + m;
  q[kRaw] = WithMatch(o.match,
                      "__name__=~\"railyard_(node_info|node_state|requests_total|request_errors_"
                      "total|storage_.+|doc_cache_.+|data_dir_.+|replication_.+|replica_lag_.+)|"
                      "process_start_time_seconds\"");
  // A gauge that only grows while the replica applies: its slope.
  q[kApplyRate] = "deriv(railyard_replication_applied_docs" + m + w + ")";
  q[kRequestRate] = "sum by (job, instance, method) (rate(railyard_requests_total" + m + w + "))";
  q[kErrorRate] =
      "sum by (job, instance, method) (rate(railyard_request_errors_total" + m + w + "))";
  const char* quantiles[] = {"0.5", "0.9", "0.99"};
  for (size_t i = 0; i < 3; ++i) {
    q[kP50 + i] = std::string("histogram_quantile(") + quantiles[i] +
                  ", sum by (job, instance, method, le) "
                  "(rate(railyard_request_duration_seconds_bucket" +
                  m + w + ")))";
  }
  return q;
}

std::vector<PrometheusNodePast> AssemblePrometheusHistory(
    const PrometheusHistoryOptions& o, const std::vector<std::vector<PromSeries>>& answers) {
  std::map<TargetKey, Target> targets;
  if (answers.size() != kQueryCount) return {};
  for (const PromSeries& s : answers[kUp]) {
    Target& target = targets[KeyOf(s)];
    for (const PromSample& p : s.samples) {
      target.up[p.unix_ms] = p.value;
      if (p.value == 1) target.at[p.unix_ms].set_unix_ms(p.unix_ms);
    }
  }
  // A sample counts only at a step at which its target was up: Prometheus carries a target's
  // last value for a while after a failed scrape would have marked it stale, and a node whose
  // scrape failed is shown down, not with its figures of before.
  auto at = [&](const PromSeries& s, int64_t unix_ms) -> admin::Telemetry* {
    auto target = targets.find(KeyOf(s));
    if (target == targets.end()) return nullptr;
    auto snapshot = target->second.at.find(unix_ms);
    return snapshot == target->second.at.end() ? nullptr : &snapshot->second;
  };
  for (const PromSeries& s : answers[kRaw]) {
    if (Label(s, "__name__") == "railyard_node_info") {
      auto target = targets.find(KeyOf(s));
      if (target != targets.end()) {
        target->second.railyard = true;
        target->second.node = Label(s, "node");
      }
    }
    for (const PromSample& p : s.samples) {
      if (admin::Telemetry* t = at(s, p.unix_ms)) ApplyRaw(s, p.value, t);
    }
  }
  for (const PromSeries& s : answers[kApplyRate]) {
    for (const PromSample& p : s.samples) {
      if (admin::Telemetry* t = at(s, p.unix_ms)) {
        t->mutable_replication()->set_apply_docs_per_s(std::max(0.0, p.value));
      }
    }
  }
  for (size_t q = kRequestRate; q < kQueryCount; ++q) {
    for (const PromSeries& s : answers[q]) {
      for (const PromSample& p : s.samples) {
        if (admin::Telemetry* t = at(s, p.unix_ms)) ApplyMethodFigure(q, s, p.value, t);
      }
    }
  }

  const int64_t step = HistoryStepMs(o);
  std::vector<PrometheusNodePast> out;
  std::set<std::string> names;
  for (auto& [key, target] : targets) {
    if (!target.railyard) continue;
    PrometheusNodePast past;
    past.instance = key.second;
    past.node = target.node.empty() ? key.second : target.node;
    // Two targets of one name (the same node scraped by two jobs, or moved): told apart.
    if (!names.insert(past.node).second) past.node += " (" + key.first + " " + key.second + ")";
    uint64_t sequence = 0;
    bool seen = false, was_up = false;
    // Walk the steps at which the server had an `up` for the target, in time order.
    int64_t previous = 0;
    for (const auto& [t, up_value] : target.up) {
      const bool up = target.at.count(t) > 0;
      // A step missing from the grid (no `up` at all: Prometheus itself was not scraping) is a
      // gap too.
      const bool skipped = seen && t - previous > step + step / 2;
      if (seen && was_up && (skipped || !up)) {
        past.gaps.push_back(
            {skipped ? previous + step : t, skipped ? "Prometheus has no scrape of it here"
                                                    : "Prometheus could not scrape it (up = 0)"});
      }
      if (up) {
        admin::Telemetry snapshot = std::move(target.at[t]);
        snapshot.set_node(past.node);
        Finish(&snapshot, step, ++sequence);
        past.snapshots.push_back(std::move(snapshot));
        seen = true;
      }
      was_up = up;
      previous = t;
    }
    if (!past.snapshots.empty()) out.push_back(std::move(past));
  }
  std::sort(out.begin(), out.end(), [](const PrometheusNodePast& a, const PrometheusNodePast& b) {
    return a.node < b.node;
  });
  return out;
}

Status FetchPrometheusHistory(const PrometheusServer& server,
                              const PrometheusHistoryOptions& options,
                              std::vector<PrometheusNodePast>* out,
                              const std::function<void(size_t, size_t)>& progress) {
  out->clear();
  if (options.to_ms <= options.from_ms) {
    return Status::InvalidArgument("an empty time range (it ends before it begins)");
  }
  const std::vector<std::string> queries = PrometheusHistoryQueries(options);
  std::vector<std::vector<PromSeries>> answers(queries.size());
  const int64_t step = HistoryStepMs(options);
  // Steps on whole multiples of the step, so that every query evaluates at the same instants.
  const int64_t from = options.from_ms / step * step;
  for (size_t i = 0; i < queries.size(); ++i) {
    if (progress) progress(i, queries.size());
    Status s = QueryRange(server, queries[i], from, options.to_ms, step, &answers[i]);
    if (!s.ok()) return {s.code(), s.message() + " (query: " + queries[i] + ")"};
  }
  *out = AssemblePrometheusHistory(options, answers);
  if (out->empty()) {
    return Status::NotFound("Prometheus at " + server.url +
                            " has no target with railyard_node_info in that range" +
                            (options.match.empty() ? "" : " matching {" + options.match + "}"));
  }
  return Status::Ok();
}

}  // namespace railyard::cluster
