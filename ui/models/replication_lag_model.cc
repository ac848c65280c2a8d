// SPDX-License-Identifier: Apache-2.0
#include "ui/models/replication_lag_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/cluster/replication_names.h"

namespace railyard::ui {

ReplicationLagModel::ReplicationLagModel(ClusterState* state, QObject* parent)
    : QObject(parent), state_(state) {
  connect(state_, &ClusterState::FrameApplied, this, [this](const QVector<int>& changed) {
    const bool added = AddSamples(changed);
    if (added || unannounced_) {
      unannounced_ = false;
      Q_EMIT SamplesAdded();
    }
  });
  // A replay seek's history: the view draws it all at the seek point's own frame.
  connect(state_, &ClusterState::HistoryFrameApplied, this,
          [this](const QVector<int>& changed) { unannounced_ |= AddSamples(changed); });
  connect(state_, &ClusterState::NodesReset, this, [this] {
    if (state_->RemovedNode() < 0) {
      Clear();
      return;
    }
    // Remove node: only that node's series goes.
    ForgetRemovedNode(series_, state_->RemovedNode());
    ForgetRemovedNode(coarse_, state_->RemovedNode());
    ForgetRemovedNode(last_seen_, state_->RemovedNode());
    Q_EMIT Cleared();  // The view rebuilds from what is kept.
  });
  state_->RequestHistoryMs(kViewWindowMs);
}

QVector<int> ReplicationLagModel::Replicas() const {
  QVector<int> nodes = series_.keys().toVector();
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

const ReplicationLagModel::Series& ReplicationLagModel::series(int node) const {
  const auto it = series_.constFind(node);
  return it == series_.constEnd() ? empty_ : it.value();
}

const ReplicationLagModel::Series& ReplicationLagModel::coarse(int node) const {
  const auto it = coarse_.constFind(node);
  return it == coarse_.constEnd() ? empty_ : it.value();
}

void ReplicationLagModel::AddToBucket(Series& coarse, const LagSample& sample) {
  const qint64 start = sample.t_ms - ((sample.t_ms % kBucketMs) + kBucketMs) % kBucketMs;
  if (coarse.empty() || coarse.back().t_ms != start) {
    coarse.push_back({start, sample.lag_docs, sample.lag_seconds});
    while (coarse.front().t_ms < start - kMaxCoarseWindowMs) coarse.pop_front();
    return;
  }
  // The highest known lag; NaN (unknown) only while no sample in it was known. The ring gives
  // read access only: the open bucket is replaced by value.
  LagSample open = coarse.back();
  auto highest = [](double a, double b) {
    return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
  };
  open.lag_docs = highest(open.lag_docs, sample.lag_docs);
  open.lag_seconds = highest(open.lag_seconds, sample.lag_seconds);
  coarse.set_back(open);
}

bool ReplicationLagModel::AddSamples(const QVector<int>& changed) {
  bool added = false;
  for (int node : changed) {
    if (node < 0 || node >= state_->NodeCount()) continue;
    const NodeView& view = state_->Node(node);
    if (!view.telemetry || view.telemetry == last_seen_.value(node)) continue;
    const admin::Replication& r = view.telemetry->replication();
    if (r.role() != admin::DOCSTORE_REPLICA) continue;
    last_seen_.insert(node, view.telemetry);
    LagSample sample;
    sample.t_ms = view.updated_ms;
    // Unknown lag is a gap in the plot, not a 0 (docs/figures.md).
    const bool known = cluster::ReplicaLagKnown(r, IsLive(view.health));
    sample.lag_docs = known ? double(r.lag_docs()) : std::numeric_limits<double>::quiet_NaN();
    sample.lag_seconds = known ? r.lag_seconds() : std::numeric_limits<double>::quiet_NaN();
    auto it = series_.find(node);
    if (it == series_.end()) it = series_.insert(node, Series(kMaxSamples));
    Series& series = it.value();
    auto coarse_it = coarse_.find(node);
    if (coarse_it == coarse_.end()) coarse_it = coarse_.insert(node, Series(kMaxCoarseSamples));
    Series& coarse = coarse_it.value();
    if (!series.empty() && sample.t_ms < series.back().t_ms) {  // Seek backwards.
      series.clear();
      coarse.clear();
    }
    series.push_back(sample);
    AddToBucket(coarse, sample);
    while (series.front().t_ms < sample.t_ms - kMaxWindowMs) series.pop_front();
    latest_ms_ = std::max(latest_ms_, sample.t_ms);
    added = true;
  }
  return added;
}

void ReplicationLagModel::Clear() {
  series_.clear();
  coarse_.clear();
  last_seen_.clear();
  unannounced_ = false;
  latest_ms_ = 0;
  Q_EMIT Cleared();
}

}  // namespace railyard::ui
