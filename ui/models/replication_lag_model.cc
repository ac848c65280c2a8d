// SPDX-License-Identifier: Apache-2.0
#include "ui/models/replication_lag_model.h"

#include <algorithm>
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
    if (!series.empty() && sample.t_ms < series.back().t_ms) series.clear();  // Seek backwards.
    series.push_back(sample);
    while (series.front().t_ms < sample.t_ms - kMaxWindowMs) series.pop_front();
    latest_ms_ = std::max(latest_ms_, sample.t_ms);
    added = true;
  }
  return added;
}

void ReplicationLagModel::Clear() {
  series_.clear();
  last_seen_.clear();
  unannounced_ = false;
  latest_ms_ = 0;
  Q_EMIT Cleared();
}

}  // namespace railyard::ui
