// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/recording_series.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "core/trace/latency_buckets.h"
#include "core/trace/recording_reader.h"
#include "ui/models/throughput_model.h"

namespace railyard::ui {

namespace {

constexpr uint16_t kMaxCount = std::numeric_limits<uint16_t>::max();

// Adds one snapshot's figures to a node's bucket (sums now; Finish() turns them into means).
void Accumulate(SeriesPoint* p, const ThroughputSample& s) {
  if (p->snapshots == kMaxCount) return;  // Keeps the mean of the first 65535: still a mean.
  ++p->snapshots;
  p->requests_per_s += float(s.requests_per_s);
  p->errors_per_s += float(s.errors_per_s);
  p->rejections_per_s += float(s.rejections_per_s);
  if (s.p50_us > 0 || s.p99_us > 0) {
    ++p->latency_snapshots;
    p->p50_us += float(s.p50_us);
    p->p99_us = std::max(p->p99_us, float(s.p99_us));
  }
}

void Finish(SeriesPoint* p) {
  if (p->snapshots > 0) {
    p->requests_per_s /= p->snapshots;
    p->errors_per_s /= p->snapshots;
    p->rejections_per_s /= p->snapshots;
  }
  if (p->latency_snapshots > 0) p->p50_us /= p->latency_snapshots;
}

// The cluster's bucket from its nodes' finished ones.
SeriesPoint ClusterPoint(const std::vector<std::vector<SeriesPoint>>& per_node, size_t bucket) {
  SeriesPoint total;
  double weight = 0, weighted_p50 = 0;
  int reporting = 0, measured = 0;
  for (const std::vector<SeriesPoint>& node : per_node) {
    const SeriesPoint& p = node[bucket];
    if (p.snapshots == 0) continue;
    ++reporting;
    total.requests_per_s += p.requests_per_s;
    total.errors_per_s += p.errors_per_s;
    total.rejections_per_s += p.rejections_per_s;
    if (p.latency_snapshots == 0) continue;
    ++measured;
    const double w = std::max<double>(p.requests_per_s, 1e-9);
    weight += w;
    weighted_p50 += w * p.p50_us;
    total.p99_us = std::max(total.p99_us, p.p99_us);
  }
  total.p50_us = weight > 0 ? float(weighted_p50 / weight) : 0;
  total.snapshots = uint16_t(std::min<int>(reporting, kMaxCount));
  total.latency_snapshots = uint16_t(std::min<int>(measured, kMaxCount));
  return total;
}

// The status's own words (they name the file), without its code: this is for people. SQLite's
// "disk image is malformed" is what a file cut short (an interrupted copy) reads as.
QString Message(const trace::Status& s) {
  const QString message = QString::fromStdString(s.message());
  if (s.code() != base::StatusCode::kCorrupted) return message;
  return QStringLiteral("damaged or truncated recording: %1").arg(message);
}

}  // namespace

const std::vector<SeriesPoint>* RecordingSeries::Points(const QString& node) const {
  if (node.isEmpty()) return &cluster;
  const qsizetype index = nodes.indexOf(node);
  return index < 0 ? nullptr : &per_node[size_t(index)];
}

const base::LatencyHistogram* RecordingSeries::Latency(const QString& node) const {
  if (node.isEmpty()) return &cluster_latency;
  const qsizetype index = nodes.indexOf(node);
  return index < 0 || size_t(index) >= per_node_latency.size() ? nullptr
                                                               : &per_node_latency[size_t(index)];
}

size_t RecordingSeries::MemoryBytes() const {
  size_t points = cluster.capacity();
  for (const std::vector<SeriesPoint>& node : per_node) points += node.capacity();
  return points * sizeof(SeriesPoint);
}

bool LoadRecordingSeries(const QString& path, const LoadSeriesOptions& options,
                         RecordingSeries* series, QString* error) {
  *series = RecordingSeries();
  std::unique_ptr<trace::RecordingReader> reader;
  trace::Status s = trace::RecordingReader::Open(path.toStdString(), &reader);
  std::vector<std::string> names;
  std::vector<trace::Event> events;
  trace::TimeSpan span;
  uint64_t total = 0;
  if (s.ok()) s = reader->Nodes(&names);
  if (s.ok()) s = reader->Events(&events);
  if (s.ok()) s = reader->SnapshotCount(&total);
  if (s.ok()) {
    s = reader->Span(&span);
    if (s.IsNotFound())
      s = trace::Status::InvalidArgument(path.toStdString() + ": empty recording");
  }
  if (s.ok() && names.empty()) {
    s = trace::Status::InvalidArgument(path.toStdString() +
                                       ": no telemetry snapshots recorded, nothing to compare");
  }
  if (!s.ok()) {
    *error = Message(s);
    return false;
  }

  RecordingSeries& out = *series;
  out.path = path;
  out.start_unix_ms = span.first_unix_ms;
  out.end_unix_ms = span.last_unix_ms;
  const qint64 seconds = (span.last_unix_ms - span.first_unix_ms) / 1000 + 1;
  const qint64 lines = qint64(names.size()) + 1;  // Every node and the cluster.
  const qint64 max_points = std::max<qint64>(lines, options.max_points);
  const qint64 bucket_s = std::max<qint64>(1, (seconds * lines + max_points - 1) / max_points);
  out.bucket_ms = bucket_s * 1000;
  const size_t buckets = size_t((span.last_unix_ms - span.first_unix_ms) / out.bucket_ms + 1);
  std::map<std::string, size_t> index;
  for (const std::string& name : names) {
    index.emplace(name, out.nodes.size());
    out.nodes.push_back(QString::fromStdString(name));
  }
  out.per_node.assign(names.size(), std::vector<SeriesPoint>(buckets));
  // Each node's first and last cumulative latency histogram, where its telemetry carries one.
  std::vector<admin::LatencyBuckets> first_latency(names.size()), last_latency(names.size());
  std::vector<bool> has_latency(names.size(), false);

  uint64_t read = 0;
  // About 200 progress reports however large the file, none closer than 256 snapshots apart.
  const uint64_t report_every = std::max<uint64_t>(256, total / 200);
  auto cursor = reader->NewSnapshotCursor(span.first_unix_ms);
  for (; cursor->Valid(); cursor->Next()) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      *error = QStringLiteral("%1: loading cancelled").arg(path);
      return false;
    }
    if (++read % report_every == 0 && options.progress && total > 0) {
      options.progress(std::min(1.0, double(read) / double(total)));
    }
    const trace::Snapshot& snapshot = cursor->snapshot();
    if (!snapshot.status.ok()) {
      ++out.unreadable_snapshots;
      continue;
    }
    const auto node = index.find(snapshot.node);
    const qint64 offset = snapshot.unix_ms - span.first_unix_ms;
    // A node that began reporting after Nodes() (the file is still being written), or a row
    // past the span read at the start: outside what this load covers.
    if (node == index.end() || offset < 0 || size_t(offset / out.bucket_ms) >= buckets) continue;
    ++out.snapshots;
    Accumulate(&out.per_node[node->second][size_t(offset / out.bucket_ms)],
               ThroughputModel::SampleOf(snapshot.telemetry, snapshot.unix_ms));
    if (snapshot.telemetry.throughput().has_latency_histogram()) {
      const admin::LatencyBuckets& latency = snapshot.telemetry.throughput().latency_histogram();
      if (!has_latency[node->second]) first_latency[node->second] = latency;
      has_latency[node->second] = true;
      last_latency[node->second] = latency;
    }
  }
  if (!cursor->status().ok()) {
    *error = Message(cursor->status());
    *series = RecordingSeries();
    return false;
  }
  out.cluster.resize(buckets);
  for (std::vector<SeriesPoint>& node : out.per_node) {
    for (SeriesPoint& p : node) Finish(&p);
  }
  for (size_t b = 0; b < buckets; ++b) out.cluster[b] = ClusterPoint(out.per_node, b);
  out.per_node_latency.assign(names.size(), base::LatencyHistogram());
  for (size_t n = 0; n < names.size(); ++n) {
    if (!has_latency[n]) continue;
    out.per_node_latency[n] = trace::LatencyBetween(first_latency[n], last_latency[n]);
    out.cluster_latency.Merge(out.per_node_latency[n]);
  }
  for (const trace::Event& e : events) {
    out.events.push_back({e.unix_ms - span.first_unix_ms, QString::fromStdString(e.node),
                          QString::fromStdString(e.kind), QString::fromStdString(e.detail)});
  }
  if (options.progress) options.progress(1.0);
  return true;
}

}  // namespace railyard::ui
