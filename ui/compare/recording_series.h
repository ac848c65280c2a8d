// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "core/base/latency_histogram.h"

namespace railyard::ui {

// A figure a bucket has none of (a gap in a plot, an empty CSV field).
inline constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN();

// One time bucket of one node, or of the whole cluster. Rates are per second. A bucket nothing
// reported in (snapshots == 0) is a gap, not a zero; latency_snapshots == 0 means no latency was
// measured (p50_us and p99_us are then 0 and mean nothing).
struct SeriesPoint {
  float requests_per_s = 0;
  float errors_per_s = 0;
  float rejections_per_s = 0;
  float p50_us = 0;
  float p99_us = 0;
  // Snapshots that fell in this bucket (0: a gap), and those with a measured latency.
  uint16_t snapshots = 0;
  uint16_t latency_snapshots = 0;
};

static_assert(sizeof(SeriesPoint) == 24, "RecordingSeries's memory bound counts 24 bytes a point");

// A command or simulator event seen in the recording, at its offset from the recording's start.
struct SeriesEvent {
  qint64 offset_ms = 0;
  QString node;
  QString kind;
  QString detail;
};

// A whole recording reduced to compact series on a time axis relative to its start, for the
// compare window: bucket b covers [start + b * bucket_ms, start + (b + 1) * bucket_ms).
//
// A node's point is the mean of its snapshots' rates in the bucket, the mean of their p50 and the
// largest p99 (each snapshot's figures as ThroughputModel::SampleOf reads them). The cluster's
// point sums the rates of every node that reported in the bucket; its p50 is the request-weighted
// mean of the nodes' p50 and its p99 the largest node p99 (the worst node's tail), as the
// throughput view sums them.
//
// Memory is bounded: buckets are one second unless the recording's node-seconds exceed
// kMaxPoints, then as many whole seconds as keep (nodes + 1) x buckets <= kMaxPoints, so a
// recording never takes more than about kMaxPoints x sizeof(SeriesPoint) = 48 MB, whatever its
// length or number of nodes.
struct RecordingSeries {
  static constexpr qint64 kMaxPoints = 2'000'000;

  QString path;
  qint64 start_unix_ms = 0;  // First and last time of anything recorded.
  qint64 end_unix_ms = 0;
  qint64 bucket_ms = 1000;
  QStringList nodes;                               // Nodes with snapshots, ascending.
  std::vector<SeriesPoint> cluster;                // One point per bucket.
  std::vector<std::vector<SeriesPoint>> per_node;  // [node][bucket], nodes as in `nodes`.
  QVector<SeriesEvent> events;                     // In time order.
  // Latency histograms over the span, where the recording carries them (the simulator's
  // clients): each node's (empty if it carries none) and the cluster's (all of them merged).
  std::vector<base::LatencyHistogram> per_node_latency;
  base::LatencyHistogram cluster_latency;
  uint64_t snapshots = 0;             // Snapshots read.
  uint64_t unreadable_snapshots = 0;  // Rows whose telemetry did not parse (skipped).

  int Buckets() const { return static_cast<int>(cluster.size()); }
  double SpanSeconds() const { return double(end_unix_ms - start_unix_ms) / 1000.0; }
  // How much of the recording bucket `b` covers, in seconds: a whole bucket, except the last,
  // which ends one second after the last snapshot (as that snapshot's one-second bucket would), so
  // totals do not depend on the bucket width.
  double CoveredSeconds(size_t b) const {
    const qint64 from = qint64(b) * bucket_ms;
    const qint64 to = std::min(from + bucket_ms, end_unix_ms - start_unix_ms + 1000);
    return double(std::max<qint64>(0, to - from)) / 1000.0;
  }
  // The cluster's series for an empty name, else the node's; null if the recording has no such
  // node.
  const std::vector<SeriesPoint>* Points(const QString& node) const;
  // The cluster's histogram for an empty name, else the node's; null if there is no such node.
  const base::LatencyHistogram* Latency(const QString& node) const;
  size_t MemoryBytes() const;
};

struct LoadSeriesOptions {
  // Called now and then with the share of snapshots read (0..1), on the loading thread.
  std::function<void(double)> progress;
  // Checked between snapshots: set it to give up (the load then fails with "cancelled").
  const std::atomic<bool>* cancel = nullptr;
  qint64 max_points = RecordingSeries::kMaxPoints;
};

// Reads the whole recording at `path` read-only (trace::RecordingReader: a finished recording is
// opened immutable and leaves no -wal/-shm beside it) into *series. False with a message for
// people in *error naming the file: no such file, not a recording, a damaged (e.g. truncated)
// file, an empty recording. Blocking; safe on any thread (it touches no QObject).
bool LoadRecordingSeries(const QString& path, const LoadSeriesOptions& options,
                         RecordingSeries* series, QString* error);

}  // namespace railyard::ui
