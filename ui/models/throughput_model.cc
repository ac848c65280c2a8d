// SPDX-License-Identifier: Apache-2.0
#include "ui/models/throughput_model.h"

#include <QFile>
#include <QTextStream>
#include <QThreadPool>
#include <algorithm>
#include <climits>
#include <iterator>
#include <map>
#include <utility>
#include <vector>

#include "core/cluster/request_figures.h"
#include "core/trace/recording.h"
#include "ui/models/past_hole.h"

namespace railyard::ui {

namespace {

// The model holds each node's previous snapshot, usually its last reference: freeing 300 of
// them is about 5 M instructions, a third of what the models cost per frame at 300 nodes, so a
// pool thread does it. (Snapshots are immutable and reference-counted atomically.)
void ReleaseOffGuiThread(std::vector<std::shared_ptr<const admin::Telemetry>> snapshots) {
  if (snapshots.empty()) return;
  QThreadPool::globalInstance()->start([held = std::move(snapshots)]() mutable { held.clear(); });
}

// Each figure's lowest, median and highest over `samples` (at `t_ms`), latency over the nodes
// that served requests only. Reorders `samples`.
void SpreadOf(std::vector<ThroughputSample>& samples, qint64 t_ms, ThroughputSample out[3]) {
  for (int i = 0; i < 3; ++i) out[i] = ThroughputSample{t_ms};
  auto fill = [&](double ThroughputSample::*field, auto&& counts) {
    auto first = samples.begin();
    auto last = std::partition(samples.begin(), samples.end(), counts);
    if (first == last) return;
    auto less = [field](const ThroughputSample& a, const ThroughputSample& b) {
      return a.*field < b.*field;
    };
    auto middle = first + (last - first) / 2;
    std::nth_element(first, middle, last, less);
    out[1].*field = (*middle).*field;
    out[0].*field = (*std::min_element(first, last, less)).*field;
    out[2].*field = (*std::max_element(first, last, less)).*field;
  };
  auto all = [](const ThroughputSample&) { return true; };
  auto served = [](const ThroughputSample& s) { return s.requests_per_s > 0; };
  fill(&ThroughputSample::requests_per_s, all);
  fill(&ThroughputSample::errors_per_s, all);
  fill(&ThroughputSample::rejections_per_s, all);
  fill(&ThroughputSample::p50_us,
       [&](const ThroughputSample& s) { return served(s) && s.p50_us > 0; });
  fill(&ThroughputSample::p99_us,
       [&](const ThroughputSample& s) { return served(s) && s.p99_us > 0; });
}

// The cluster's sample at `t_ms` over the samples of the nodes that served then (docs/figures.md):
// rates add up, p50 is the request-weighted mean of theirs, p99 the highest.
ThroughputSample SumOf(const std::vector<ThroughputSample>& served, qint64 t_ms) {
  ThroughputSample total;
  total.t_ms = t_ms;
  double weight = 0, weighted_p50 = 0;
  for (const ThroughputSample& s : served) {
    total.requests_per_s += s.requests_per_s;
    total.errors_per_s += s.errors_per_s;
    total.rejections_per_s += s.rejections_per_s;
    const double w = std::max(s.requests_per_s, 1e-9);
    weight += w;
    weighted_p50 += w * s.p50_us;
    total.p99_us = std::max(total.p99_us, s.p99_us);
  }
  total.p50_us = weight > 0 ? weighted_p50 / weight : 0;
  return total;
}

}  // namespace

ThroughputModel::ThroughputModel(ClusterState* state, QObject* parent)
    : QObject(parent), state_(state) {
  connect(state_, &ClusterState::FrameApplied, this, [this](const QVector<int>& changed) {
    const bool added = AddSamples(changed);
    if (added || unannounced_) {
      unannounced_ = false;
      Q_EMIT SamplesAdded();
    }
  });
  // A replay seek's history: the views draw it all at the seek point's own frame.
  connect(state_, &ClusterState::HistoryFrameApplied, this,
          [this](const QVector<int>& changed) { unannounced_ |= AddSamples(changed); });
  connect(state_, &ClusterState::NodesReset, this, [this] {
    if (state_->RemovedNode() >= 0) {
      ForgetNode(state_->RemovedNode());
    } else {
      Clear();
    }
  });
  state_->RequestHistoryMs(WindowMs());
  connect(state_, &ClusterState::NodePastApplied, this, &ThroughputModel::PutPast);
  connect(state_, &ClusterState::ClusterPastApplied, this, &ThroughputModel::PutClusterPast);
}

int ThroughputModel::NarrowestWindowHolding(qint64 span_ms) {
  for (int choice : kWindowChoicesMinutes) {
    if (qint64{choice} * 60000 >= span_ms) return choice;
  }
  return std::end(kWindowChoicesMinutes)[-1];
}

bool ThroughputModel::SetWindowMinutes(int minutes) {
  if (std::find(std::begin(kWindowChoicesMinutes), std::end(kWindowChoicesMinutes), minutes) ==
      std::end(kWindowChoicesMinutes)) {
    return false;
  }
  window_minutes_ = minutes;
  state_->RequestHistoryMs(WindowMs());
  return true;
}

const ThroughputModel::Series& ThroughputModel::series(int node) const {
  if (node == kCluster) return cluster_;
  const auto it = nodes_.constFind(node);
  return it == nodes_.constEnd() ? empty_ : it.value();
}

QVector<ThroughputSample> ThroughputModel::SamplesIn(const Series& s, qint64 from_ms,
                                                     qint64 to_ms) {
  const auto [first, last] = IndicesIn(s, from_ms, to_ms);
  QVector<ThroughputSample> out;
  out.reserve(static_cast<qsizetype>(last - first));
  for (size_t i = first; i < last; ++i) out.push_back(s[i]);
  return out;
}

std::pair<size_t, size_t> ThroughputModel::IndicesIn(const Series& s, qint64 from_ms,
                                                     qint64 to_ms) {
  // Samples are in time order: binary searches for both ends.
  auto first_after = [&s](qint64 t_ms, bool inclusive) {
    size_t lo = 0, hi = s.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (inclusive ? s[mid].t_ms <= t_ms : s[mid].t_ms < t_ms) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  const size_t first = first_after(from_ms, false);
  return {first, std::max(first, first_after(to_ms, true))};
}

QVector<ThroughputEvent> ThroughputModel::Events(int node, qint64 from_ms, qint64 to_ms) const {
  QVector<ThroughputEvent> out;
  for (const ThroughputEvent& e : events_) {
    if (e.t_ms < from_ms || e.t_ms > to_ms) continue;
    if (node == kCluster || e.node == node) out.push_back(e);
  }
  return out;
}

bool ThroughputModel::ExportCsv(const QString& path, const QVector<int>& nodes, qint64 from_ms,
                                qint64 to_ms, QString* error) const {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
    if (error) *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  QTextStream out(&file);
  out << "node,time_unix_ms,requests_per_s,errors_per_s,rejections_per_s,p50_us,p99_us\n";
  for (int node : nodes) {
    QString name = node == kCluster                          ? QStringLiteral("cluster")
                   : node >= 0 && node < state_->NodeCount() ? state_->Node(node).name
                                                             : QString::number(node);
    name.replace(QLatin1Char(','), QLatin1Char(' '));  // One CSV field, unquoted.
    for (const ThroughputSample& s : Samples(node, from_ms, to_ms)) {
      if (s.IsGap()) {  // No data from here to the next row: empty fields, not 0 or "nan".
        out << name << ',' << s.t_ms << ",,,,,\n";
        continue;
      }
      out << name << ',' << s.t_ms << ',' << s.requests_per_s << ',' << s.errors_per_s << ','
          << s.rejections_per_s << ',' << s.p50_us << ',' << s.p99_us << '\n';
    }
  }
  out.flush();
  if (file.error() != QFile::NoError) {
    if (error) *error = QStringLiteral("writing %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

bool ThroughputModel::ExportWindowCsv(const QString& path, int node, QString* error) const {
  return ExportCsv(path, {node}, latest_ms_ - WindowMs(), latest_ms_, error);
}

ThroughputSample ThroughputModel::SampleOf(const admin::Telemetry& telemetry, qint64 t_ms) {
  ThroughputSample s;
  s.t_ms = t_ms;
  if (!ServesRequests(telemetry)) {
    // A client's requests are the calls it made, as the Overview's client columns show them
    // (docs/figures.md); its own Throughput is what it served: nothing (C3).
    const admin::ClientThroughput calls = ClientFiguresOf(telemetry);
    s.requests_per_s = calls.requests_per_s();
    s.errors_per_s = calls.errors_per_s();
    s.rejections_per_s = calls.rejections_per_s();
    s.p50_us = calls.p50_us();
    s.p99_us = calls.p99_us();
    return s;
  }
  const admin::Throughput& th = telemetry.throughput();
  s.requests_per_s = th.requests_per_s();
  s.errors_per_s = th.errors_per_s();
  s.rejections_per_s = th.rejections_per_s();
  s.p50_us = cluster::RequestP50Us(th);  // docs/figures.md: long-polls apart.
  s.p99_us = cluster::RequestP99Us(th);
  return s;
}

void ThroughputModel::Append(Series& series, const ThroughputSample& sample) {
  if (!series.empty() && sample.t_ms < series.back().t_ms) series.clear();  // Seek backwards.
  series.push_back(sample);  // Drops what is older than the window.
}

void ThroughputModel::CollectEvents(int node, const admin::Telemetry& telemetry) {
  for (const admin::CommandEvent& c : telemetry.recent_commands()) {
    AddEvent({c.unix_ms(), node, QString::fromStdString(c.command()),
              QString::fromStdString(trace::NodeCommandEventDetail(c))});
  }
}

void ThroughputModel::CollectStateEvents(int node, const admin::Telemetry* previous,
                                         const admin::Telemetry& current, qint64 t_ms) {
  if (!previous) return;
  const Series& shown = series(node);
  // Time went back: a replay seek, not something the node did.
  if (!shown.empty() && t_ms < shown.back().t_ms) return;
  StateEventsBetween(node, *previous, current, t_ms);
}

void ThroughputModel::StateEventsBetween(int node, const admin::Telemetry& previous_telemetry,
                                         const admin::Telemetry& current, qint64 t_ms) {
  const admin::Telemetry* previous = &previous_telemetry;
  // A new process: it says when it started (a flight recorder's history samples its snapshot
  // count once a second, so a new process may already count past the old one's last sample);
  // one too old to say counts its snapshots from 1, so a lower count is a new process.
  const bool restarted = current.started_unix_ms() != 0 && previous->started_unix_ms() != 0
                             ? current.started_unix_ms() != previous->started_unix_ms()
                             : current.sequence() < previous->sequence();
  if (restarted) AddEvent({t_ms, node, ThroughputEvent::kRestart});
  const bool was_lame = previous->state() == admin::NODE_LAME_DUCK;
  const bool is_lame = current.state() == admin::NODE_LAME_DUCK;
  if (is_lame != was_lame) {
    AddEvent({t_ms, node, is_lame ? ThroughputEvent::kLameDuck : ThroughputEvent::kLameDuckLeft});
  }
}

bool ThroughputModel::AddEvent(ThroughputEvent e) {
  const auto at =
      std::upper_bound(events_.begin(), events_.end(), e.t_ms,
                       [](qint64 t_ms, const ThroughputEvent& other) { return t_ms < other.t_ms; });
  // Already known: the same node and command at the same time (events are few; scan back).
  for (auto it = at; it != events_.begin() && (it - 1)->t_ms == e.t_ms; --it) {
    if ((it - 1)->node == e.node && (it - 1)->command == e.command) return false;
  }
  events_.insert(at, std::move(e));
  ++events_revision_;
  return true;
}

void ThroughputModel::KeepEvents(qint64 from_ms, qint64 to_ms) {
  const qsizetype before = events_.size();
  events_.removeIf([&](const ThroughputEvent& e) { return e.t_ms < from_ms || e.t_ms > to_ms; });
  if (events_.size() != before) ++events_revision_;
}

std::shared_ptr<const admin::Telemetry> ThroughputModel::StateOnly(const admin::Telemetry& t) {
  auto state = std::make_shared<admin::Telemetry>();
  state->set_started_unix_ms(t.started_unix_ms());
  state->set_sequence(t.sequence());
  state->set_state(t.state());
  return state;
}

void ThroughputModel::PutPast(int node,
                              const std::vector<std::shared_ptr<const admin::Telemetry>>& past) {
  if (node < 0 || node >= state_->NodeCount() || past.empty()) return;
  const Series& now = series(node);
  const PastHole hole =
      FindPastHole(now, past.front()->unix_ms(), past.back()->unix_ms(), state_->StaleAfterMs(),
                   [](const ThroughputSample& s) { return s.IsGap(); });
  if (!hole.fillable) return;
  const qint64 hole_from = hole.from_ms, hole_to = hole.to_ms;
  const qint64 phase = (node % 20) * (ThroughputSeries::kBucketMs / 20);
  Series rebuilt(kMaxWindowMs, phase);
  size_t i = 0;
  for (; i < hole.kept; ++i) Append(rebuilt, now[i]);
  // A silence longer than the stale allowance (beyond a downsampled snapshot's own bucket) was a
  // node down or stopped: a gap, as live (docs/figures.md, "History").
  auto allowance = [this](const admin::Telemetry& t) {
    return state_->StaleAfterMs() + t.downsampled().bucket_ms();
  };
  const admin::Telemetry* previous = nullptr;
  bool gapped = false;  // Whether the hole still holds a silence.
  for (const auto& t : past) {
    const qint64 at = t->unix_ms();
    if (at <= hole_from) continue;
    if (at >= hole_to) break;
    if (previous) {
      if (at - previous->unix_ms() > allowance(*previous)) {
        Append(rebuilt, ThroughputSample::Gap(previous->unix_ms() + allowance(*previous)));
        gapped = true;
      }
      StateEventsBetween(node, *previous, *t, at);
    } else if (hole_from != LLONG_MIN && at - hole_from > state_->StaleAfterMs()) {
      Append(rebuilt, ThroughputSample::Gap(hole_from + state_->StaleAfterMs()));
      gapped = true;
    }
    Append(rebuilt, SampleOf(*t, at));
    CollectEvents(node, *t);
    previous = t.get();
  }
  if (!previous) return;  // Nothing the console lacked.
  if (hole_from == LLONG_MIN) {
    // Before the series: a restart where the past meets its oldest sample, and the past's own
    // oldest becomes what an older past meets.
    const auto first = first_seen_.constFind(node);
    if (first != first_seen_.constEnd() && first->t_ms == hole_to) {
      StateEventsBetween(node, *previous, *first->telemetry, hole_to);
    }
    for (const auto& t : past) {
      if (t->unix_ms() > hole_from) {
        first_seen_.insert(node, {t->unix_ms(), StateOnly(*t)});
        break;
      }
    }
  }
  if (hole_to != LLONG_MAX && hole_to - previous->unix_ms() > allowance(*previous)) {
    Append(rebuilt, ThroughputSample::Gap(previous->unix_ms() + allowance(*previous)));
    gapped = true;
  }
  if (!gapped && hole_from != LLONG_MIN && hole_to != LLONG_MAX) {
    // It served on through the whole hole: the console's "down" and "up" there were its own
    // loss of contact, not the node's, and its chart now shows no gap for them to mark.
    const qsizetype before = events_.size();
    events_.removeIf([&](const ThroughputEvent& e) {
      return e.node == node && e.t_ms >= hole_from && e.t_ms <= hole_to &&
             (e.command == ThroughputEvent::kDown || e.command == ThroughputEvent::kUp);
    });
    if (events_.size() != before) ++events_revision_;
  }
  for (; i < now.size(); ++i) {
    if (now[i].t_ms >= hole_to) Append(rebuilt, now[i]);  // The hole's old gap marks go.
  }
  nodes_.insert(node, std::move(rebuilt));
  Q_EMIT Cleared();  // The views draw the node's series again from its start.
}

void ThroughputModel::PutClusterPast(const std::vector<ClusterState::NodePast>& pasts,
                                     qint64 width_ms) {
  if (width_ms <= 0) return;
  const qint64 series_from = cluster_.empty() ? LLONG_MAX : cluster_.front().t_ms;
  // Each node's last snapshot in each bucket, as a recorder's downsampled bucket keeps its last.
  std::map<qint64, std::map<int, const admin::Telemetry*>> buckets;  // By bucket start.
  for (const ClusterState::NodePast& past : pasts) {
    if (past.node < 0 || past.node >= state_->NodeCount()) continue;
    for (const auto& t : past.snapshots) {
      const qint64 at = t->unix_ms();
      if (at >= series_from) break;
      if (at < 0 || !ServesRequests(*t)) continue;
      buckets[at - at % width_ms][past.node] = t.get();
    }
  }
  if (buckets.empty()) return;
  const qint64 allowance = width_ms + state_->StaleAfterMs();
  Series sums(kMaxWindowMs);
  Series spreads[3] = {Series(kMaxWindowMs), Series(kMaxWindowMs), Series(kMaxWindowMs)};
  auto gap_at = [&](qint64 t_ms) {
    sums.push_back(ThroughputSample::Gap(t_ms));
    for (Series& s : spreads) s.push_back(ThroughputSample::Gap(t_ms));
  };
  qint64 previous = LLONG_MIN;
  std::vector<ThroughputSample> served;
  for (const auto& [start, nodes] : buckets) {
    served.clear();
    qint64 at = start;
    for (const auto& [node, t] : nodes) {
      served.push_back(SampleOf(*t, t->unix_ms()));
      at = std::max<qint64>(at, t->unix_ms());
    }
    if (previous != LLONG_MIN && at - previous > allowance) gap_at(previous + allowance);
    sums.push_back(SumOf(served, at));
    ThroughputSample spread[3];
    SpreadOf(served, at, spread);
    for (int i = 0; i < 3; ++i) spreads[i].push_back(spread[i]);
    previous = at;
  }
  if (series_from != LLONG_MAX && series_from - previous > allowance) gap_at(previous + allowance);
  for (size_t i = 0; i < cluster_.size(); ++i) sums.push_back(cluster_[i]);
  for (int s = 0; s < 3; ++s) {
    for (size_t i = 0; i < spread_[s].size(); ++i) spreads[s].push_back(spread_[s][i]);
    spread_[s] = std::move(spreads[s]);
  }
  cluster_ = std::move(sums);
  Q_EMIT Cleared();  // The views draw the cluster's series again from its start.
}

bool ThroughputModel::AddSamples(const QVector<int>& changed) {
  // A seek backwards: the events after the new time have not happened yet.
  if (state_->NowMs() < latest_ms_) KeepEvents(LLONG_MIN, state_->NowMs());
  std::vector<std::shared_ptr<const admin::Telemetry>> released;
  for (int node : changed) {
    if (node < 0 || node >= state_->NodeCount()) continue;
    const NodeView& view = state_->Node(node);
    MarkDownOrUp(node, view);
    auto seen = last_seen_.find(node);
    const admin::Telemetry* previous = seen == last_seen_.end() ? nullptr : seen.value().get();
    if (!view.telemetry || view.telemetry.get() == previous) continue;
    CollectStateEvents(node, previous, *view.telemetry, view.updated_ms);
    if (seen == last_seen_.end()) {
      last_seen_.insert(node, view.telemetry);
      if (!first_seen_.contains(node)) {
        first_seen_.insert(node, {view.updated_ms, StateOnly(*view.telemetry)});
      }
    } else {
      released.push_back(std::exchange(seen.value(), view.telemetry));
    }
    auto it = nodes_.find(node);
    if (it == nodes_.end()) {
      // Phases 100 ms apart: 20 nodes downsample in each frame at 10 Hz, not all in one.
      const qint64 phase = (node % 20) * (ThroughputSeries::kBucketMs / 20);
      it = nodes_.insert(node, Series(kMaxWindowMs, phase));
    }
    Append(it.value(), SampleOf(*view.telemetry, view.updated_ms));
    CollectEvents(node, *view.telemetry);
  }
  ReleaseOffGuiThread(std::move(released));
  // A node that went stale or unreachable changes the cluster's sum even without news.
  if (changed.isEmpty()) return false;

  const qint64 now = state_->NowMs();
  std::vector<ThroughputSample> live;
  live.reserve(size_t(state_->NodeCount()));
  for (int i = 0; i < state_->NodeCount(); ++i) {
    const NodeView& view = state_->Node(i);
    // Served requests only: a watched client's calls are the same requests again.
    if (!view.telemetry || !IsLive(view.health) || !ServesRequests(*view.telemetry)) {
      continue;
    }
    live.push_back(SampleOf(*view.telemetry, now));
  }
  const ThroughputSample total = SumOf(live, now);
  Append(cluster_, total);
  ThroughputSample spread[3];
  SpreadOf(live, total.t_ms, spread);
  for (int i = 0; i < 3; ++i) Append(spread_[i], spread[i]);
  latest_ms_ = total.t_ms;
  KeepEvents(latest_ms_ - kMaxWindowMs, LLONG_MAX);
  return true;
}

void ThroughputModel::MarkDownOrUp(int node, const NodeView& view) {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it.value().empty()) return;
  Series& series = it.value();
  const bool live = IsLive(view.health);
  if (!live && view.telemetry && !series.back().IsGap()) {
    // From the moment it was first seen failing: no ramp from its last figures to its next.
    const qint64 at =
        std::max(view.down_since_ms > 0 ? view.down_since_ms : state_->NowMs(), series.back().t_ms);
    Append(series, ThroughputSample::Gap(at));
    AddEvent({at, node, ThroughputEvent::kDown});
  } else if (live && series.back().IsGap()) {
    AddEvent({std::max(view.updated_ms, series.back().t_ms), node, ThroughputEvent::kUp});
  }
}

void ThroughputModel::ForgetNode(int removed) {
  ForgetRemovedNode(nodes_, removed);
  ForgetRemovedNode(last_seen_, removed);
  ForgetRemovedNode(first_seen_, removed);
  events_.removeIf([removed](const ThroughputEvent& e) { return e.node == removed; });
  for (ThroughputEvent& e : events_) {
    if (e.node > removed) --e.node;
  }
  ++events_revision_;
  // The cluster line and the spread keep what they summed: that was the cluster then.
  Q_EMIT Cleared();  // The views rebuild from what is kept.
}

void ThroughputModel::Clear() {
  cluster_.clear();
  for (Series& s : spread_) s.clear();
  nodes_.clear();
  last_seen_.clear();
  first_seen_.clear();
  events_.clear();
  ++events_revision_;
  unannounced_ = false;
  latest_ms_ = 0;
  Q_EMIT Cleared();
}

}  // namespace railyard::ui
