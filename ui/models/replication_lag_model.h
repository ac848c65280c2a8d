// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QVector>
#include <memory>
#include <vector>

#include "ui/models/cluster_state.h"
#include "ui/models/ring_buffer.h"

namespace railyard::ui {

struct LagSample {
  qint64 t_ms = 0;  // Cluster clock: when the replica's telemetry was taken.
  // NaN where the lag was unknown (cluster::ReplicaLagKnown): the plot leaves a gap.
  double lag_docs = 0;
  double lag_seconds = 0;
};

// Each replica's lag over time (documents and seconds), one sample per new telemetry snapshot
// of a node whose Telemetry.replication says it is a replica, in ring buffers keyed by cluster
// time (wall time live, the recording's time in replay), like ThroughputModel.
//
// A node's own past that comes later (ClusterState::NodePastApplied: a node added, a stretch the
// console missed, the day behind the backfill) goes where the series hold nothing of it, as
// ThroughputModel::PutPast does: its lag where it was known, a gap (NaN) through a silence
// longer than the stale allowance; a downsampled snapshot's lag in seconds is its bucket's
// highest.
//
// Each series keeps 15 minutes and at most kMaxSamples samples. Beside it, each replica's coarse
// series keeps 24 hours as kBucketMs buckets, each the highest lag any of its samples had (a
// spike is what a wide window must not lose; NaN where none was known), for windows wider than
// 15 minutes. A sample older than the newest in its series (a replay seek backwards) restarts
// both; ClusterState::Clear forgets all.
// A replay seek rebuilds the last kViewWindowMs before the seek point through ClusterState's
// history frames.
//
// Thread safety: GUI thread only.
class ReplicationLagModel : public QObject {
  Q_OBJECT
 public:
  static constexpr qint64 kMaxWindowMs = 15 * 60 * 1000;
  static constexpr size_t kMaxSamples = 15 * 60 * 20;  // 15 minutes at 20 Hz.
  // The replication view's window: the history a replay seek rebuilds for it.
  static constexpr qint64 kViewWindowMs = 5 * 60 * 1000;
  static constexpr qint64 kBucketMs = 10 * 1000;
  static constexpr qint64 kMaxCoarseWindowMs = 24 * 60 * 60 * 1000;
  static constexpr size_t kMaxCoarseSamples = kMaxCoarseWindowMs / kBucketMs + 2;
  using Series = RingBuffer<LagSample>;

  explicit ReplicationLagModel(ClusterState* state, QObject* parent = nullptr);

  // ClusterState indexes of the nodes with a lag series, ascending.
  QVector<int> Replicas() const;
  // An empty series for a node that never reported itself a replica.
  const Series& series(int node) const;
  // Its 24 hours in kBucketMs buckets (t_ms: the bucket's start), the open bucket last.
  const Series& coarse(int node) const;
  qint64 LatestMs() const { return latest_ms_; }

 Q_SIGNALS:
  void SamplesAdded();
  void Cleared();  // Forgot everything, or one removed node: views rebuild from what is kept.

 private:
  // True if any series got a sample.
  bool AddSamples(const QVector<int>& changed);
  void Clear();

  ClusterState* const state_;
  // Adds `sample` to `coarse`'s open bucket, opening a new one past its end.
  static void AddToBucket(Series& coarse, const LagSample& sample);
  void PutPast(int node, const std::vector<std::shared_ptr<const admin::Telemetry>>& past);

  QHash<int, Series> series_;
  QHash<int, Series> coarse_;
  // The telemetry each node's last sample used (held, so its address cannot be reused).
  QHash<int, std::shared_ptr<const admin::Telemetry>> last_seen_;
  // Samples from history frames that SamplesAdded has not told of yet.
  bool unannounced_ = false;
  qint64 latest_ms_ = 0;
  Series empty_{1};
};

}  // namespace railyard::ui
