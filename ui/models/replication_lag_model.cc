// SPDX-License-Identifier: Apache-2.0
#include "ui/models/replication_lag_model.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include "core/cluster/replication_names.h"
#include "ui/models/past_hole.h"

namespace railyard::ui {
namespace {

// `bucket` with each lag the higher known of its own and `sample`'s (NaN only where neither knew).
LagSample HigherOf(LagSample bucket, const LagSample& sample) {
  auto highest = [](double a, double b) {
    return std::isnan(a) ? b : std::isnan(b) ? a : std::max(a, b);
  };
  bucket.lag_docs = highest(bucket.lag_docs, sample.lag_docs);
  bucket.lag_seconds = highest(bucket.lag_seconds, sample.lag_seconds);
  return bucket;
}

}  // namespace

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
  connect(state_, &ClusterState::NodePastApplied, this, &ReplicationLagModel::PutPast);
  state_->RequestHistoryMs(kViewWindowMs);
}

void ReplicationLagModel::PutPast(
    int node, const std::vector<std::shared_ptr<const admin::Telemetry>>& past) {
  if (node < 0 || node >= state_->NodeCount() || past.empty()) return;
  const Series& now = series(node);
  const Series& buckets = coarse(node);
  const qint64 stale = state_->StaleAfterMs();
  const PastHole hole = FindPastHole(now, past.front()->unix_ms(), past.back()->unix_ms(), stale,
                                     [](const LagSample& s) { return std::isnan(s.lag_docs); });
  if (!hole.fillable) return;
  const qint64 hole_from = hole.from_ms, hole_to = hole.to_ms;
  std::vector<LagSample> in_hole;
  const admin::Telemetry* previous = nullptr;
  constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  for (const auto& t : past) {
    const qint64 at = t->unix_ms();
    if (at <= hole_from) continue;
    if (at >= hole_to) break;
    const admin::Replication& r = t->replication();
    if (r.role() != admin::DOCSTORE_REPLICA) continue;
    if (previous) {
      const qint64 allowance = stale + previous->downsampled().bucket_ms();
      if (at - previous->unix_ms() > allowance) {
        in_hole.push_back({previous->unix_ms() + allowance, kUnknown, kUnknown});
      }
    }
    const bool known = cluster::ReplicaLagKnown(r, true);
    const admin::FigureRange& range = t->downsampled().lag_seconds();
    const double seconds = !known                                        ? kUnknown
                           : t->has_downsampled() && range.samples() > 0 ? range.max()
                                                                         : r.lag_seconds();
    in_hole.push_back({at, known ? double(r.lag_docs()) : kUnknown, seconds});
    previous = t.get();
  }
  if (in_hole.empty()) return;
  if (hole_to != LLONG_MAX &&
      hole_to - previous->unix_ms() > stale + previous->downsampled().bucket_ms()) {
    in_hole.push_back(
        {previous->unix_ms() + stale + previous->downsampled().bucket_ms(), kUnknown, kUnknown});
  }
  // Both series again, in time order: what was before the hole, the hole, what was after.
  Series fine(kMaxSamples);
  const qint64 newest =
      now.empty() ? in_hole.back().t_ms : std::max(now.back().t_ms, in_hole.back().t_ms);
  auto keep_fine = [&](const LagSample& sample) {
    if (sample.t_ms >= newest - kMaxWindowMs) fine.push_back(sample);
  };
  size_t i = 0;
  for (; i < hole.kept; ++i) keep_fine(now[i]);
  for (const LagSample& sample : in_hole) keep_fine(sample);
  for (; i < now.size(); ++i) {
    if (now[i].t_ms >= hole_to) keep_fine(now[i]);
  }
  Series rebucketed(kMaxCoarseSamples);
  Series hole_buckets(kMaxCoarseSamples);
  for (const LagSample& sample : in_hole) AddToBucket(hole_buckets, sample);
  // Buckets the console had and the hole's, merged by start; where both have one, the higher.
  size_t a = 0, b = 0;
  while (a < buckets.size() || b < hole_buckets.size()) {
    if (b == hole_buckets.size() ||
        (a < buckets.size() && buckets[a].t_ms < hole_buckets[b].t_ms)) {
      rebucketed.push_back(buckets[a++]);
    } else if (a == buckets.size() || hole_buckets[b].t_ms < buckets[a].t_ms) {
      rebucketed.push_back(hole_buckets[b++]);
    } else {
      rebucketed.push_back(HigherOf(buckets[a++], hole_buckets[b++]));
    }
  }
  series_.insert(node, std::move(fine));
  coarse_.insert(node, std::move(rebucketed));
  latest_ms_ = std::max(latest_ms_, newest);
  Q_EMIT Cleared();  // The view draws the series again.
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
  // The ring gives read access only: the open bucket is replaced by value.
  coarse.set_back(HigherOf(coarse.back(), sample));
}

bool ReplicationLagModel::AddSamples(const QVector<int>& changed) {
  bool added = false;
  for (int node : changed) {
    if (node < 0 || node >= state_->NodeCount()) continue;
    const NodeView& view = state_->Node(node);
    if (!view.telemetry) continue;
    const admin::Replication& r = view.telemetry->replication();
    if (r.role() != admin::DOCSTORE_REPLICA) continue;
    if (view.telemetry == last_seen_.value(node)) {
      // No news: a replica that stopped answering (killed, hung, cut off) has no known lag from
      // the moment it was first seen failing, as ThroughputModel's gap, so its line breaks there
      // instead of ramping from its last figure to the next one.
      auto it = series_.find(node);
      if (IsLive(view.health) || it == series_.end() || it.value().empty() ||
          std::isnan(it.value().back().lag_docs)) {
        continue;
      }
      LagSample gap;
      gap.t_ms = std::max(view.down_since_ms > 0 ? view.down_since_ms : state_->NowMs(),
                          it.value().back().t_ms + 1);
      gap.lag_docs = gap.lag_seconds = std::numeric_limits<double>::quiet_NaN();
      it.value().push_back(gap);
      AddToBucket(coarse_[node], gap);
      added = true;
      continue;
    }
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
