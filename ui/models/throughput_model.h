// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>
#include <memory>
#include <utility>

#include "ui/models/cluster_state.h"
#include "ui/models/throughput_series.h"

namespace railyard::ui {

// A command a node reports having run (Telemetry.recent_commands: drain, undrain, compact,
// flush), or a change the console saw in its telemetry: kRestart (its started_unix_ms changed; from
// a process too old to send it, its snapshot sequence went back while time went on), kLameDuck and
// kLameDuckLeft (its state entered or left lame duck). The throughput plots mark each on their
// time axes.
struct ThroughputEvent {
  static inline const QString kRestart = QStringLiteral("restart");
  static inline const QString kLameDuck = QStringLiteral("lame duck");
  static inline const QString kLameDuckLeft = QStringLiteral("lame duck left");
  // The console lost the node (unreachable, stale) and found it again: docs/figures.md.
  static inline const QString kDown = QStringLiteral("down");
  static inline const QString kUp = QStringLiteral("up");

  qint64 t_ms = 0;  // Cluster clock: when the node ran it, or the first snapshot that showed it.
  int node = 0;
  QString command;
  // A command's who and result ("railyardctl (root) at 127.0.0.1:5100 -> OK"), an alert's
  // summary; empty for what the console saw itself.
  QString detail = {};
};

// Request, error and rejection rates and latency over time, per node and for the whole cluster,
// in ring buffers keyed by cluster time (wall time live, the recording's time in replay).
//
// A node's sample is its telemetry's rates; its latency is the request-weighted mean of its
// methods' p50 (an approximation: percentiles do not add) and the largest of its methods' p99.
// The cluster's sample, taken once per frame in which any node changed, sums the rates of every
// node that is serving or draining (stale and unreachable nodes drop out); its p50 is the
// request-weighted mean of the nodes' p50 and its p99 the largest node p99, i.e. the worst node's
// tail.
//
// Each series keeps 24 hours (the widest window), the last 3 minutes at full resolution, the rest
// of the last 15 in 2 s buckets and the older ones in 1 min buckets (ThroughputSeries: a spike
// stays, memory is bounded at any polling rate and grows only as samples arrive). A
// sample older than the newest in its series (a replay seek backwards) restarts that series. A
// replay seek plays the recorded history of the current window through ClusterState's history
// frames (see ClusterState::RequestHistoryMs), so the series hold it right after the seek.
//
// With the cluster's sample, the spread over the same nodes: each figure's lowest, median and
// highest across them (three series, kLowest, kMedian and kHighest, each figure chosen on its
// own, so one sample's figures may come from different nodes). Latency counts only the nodes
// that served requests; where none did, the spread's p50 and p99 are 0 (none). A view overlaying
// hundreds of nodes draws this band instead of a line per node.
//
// The commands each node reports are collected once each (a node repeats its recent ones in
// every snapshot), live and in replay alike since recordings keep whole snapshots; so are the
// restarts and lame-duck changes seen between a node's consecutive snapshots (a replay seek, which
// rebuilds ClusterState, starts afresh and invents none). They are kept as long as the samples,
// and a seek backwards drops those after the new time.
//
// Thread safety: GUI thread only.
class ThroughputModel : public QObject {
  Q_OBJECT
 public:
  static constexpr int kCluster = -1;
  // The windows a view may show: 1, 5 and 15 minutes, 1, 6 and 24 hours.
  static constexpr int kWindowChoicesMinutes[] = {1, 5, 15, 60, 360, 1440};
  // The narrowest of kWindowChoicesMinutes at least `span_ms` wide (the widest if none is).
  static int NarrowestWindowHolding(qint64 span_ms);
  static constexpr qint64 kMaxWindowMs = 24 * 60 * 60 * 1000;
  using Series = ThroughputSeries;
  enum class Spread { kLowest = 0, kMedian = 1, kHighest = 2 };

  explicit ThroughputModel(ClusterState* state, QObject* parent = nullptr);
  ClusterState* State() const { return state_; }

  // One of kWindowChoicesMinutes; anything else is refused (returns false).
  bool SetWindowMinutes(int minutes);
  int WindowMinutes() const { return window_minutes_; }
  qint64 WindowMs() const { return qint64(window_minutes_) * 60 * 1000; }
  qint64 LatestMs() const { return latest_ms_; }

  // kCluster for the cluster. An empty series for a node not seen yet.
  const Series& series(int node) const;
  // The spread across the nodes, taken with each cluster sample.
  const Series& spread(Spread which) const { return spread_[int(which)]; }
  // Samples with from_ms <= t_ms <= to_ms, oldest first.
  QVector<ThroughputSample> Samples(int node, qint64 from_ms, qint64 to_ms) const {
    return SamplesIn(series(node), from_ms, to_ms);
  }
  static QVector<ThroughputSample> SamplesIn(const Series& series, qint64 from_ms, qint64 to_ms);
  // The same samples as indices into `series`: [first, second). No copy, for what reads them
  // every frame.
  static std::pair<size_t, size_t> IndicesIn(const Series& series, qint64 from_ms, qint64 to_ms);

  // The commands run in [from_ms, to_ms], oldest first: node `node`'s, or every node's for
  // kCluster.
  QVector<ThroughputEvent> Events(int node, qint64 from_ms, qint64 to_ms) const;
  // Changes whenever an event is added or dropped, so a view redraws its marks only then.
  quint64 EventsRevision() const { return events_revision_; }
  // A mark from outside telemetry (an alert firing or resolving: AlertModel), on `node`'s axis and
  // the cluster's, kept and dropped like the others.
  void AddMark(qint64 t_ms, int node, const QString& text, const QString& detail = {}) {
    AddEvent({t_ms, node, text, detail});
  }

  // Writes the samples of `nodes` (kCluster for the cluster) in [from_ms, to_ms] as CSV: a header
  // line, then one line per sample (node, time_unix_ms, requests_per_s, errors_per_s,
  // rejections_per_s, p50_us, p99_us), node by node; `node` is its name, or "cluster".
  bool ExportCsv(const QString& path, const QVector<int>& nodes, qint64 from_ms, qint64 to_ms,
                 QString* error) const;
  // The current window, ending at the newest sample.
  bool ExportWindowCsv(const QString& path, int node, QString* error) const;

  // A node's figures as docs/figures.md defines them: a server's requests served (long-polls
  // apart), a client's calls made (ClientFiguresOf).
  static ThroughputSample SampleOf(const admin::Telemetry& telemetry, qint64 t_ms);

 Q_SIGNALS:
  void SamplesAdded();
  void Cleared();  // Forgot everything, or one removed node: views rebuild from what is kept.

 private:
  // True if the cluster's series got a sample.
  bool AddSamples(const QVector<int>& changed);
  void Append(Series& series, const ThroughputSample& sample);
  void CollectEvents(int node, const admin::Telemetry& telemetry);
  // Restart and lame-duck events between `previous` (null: none yet) and `current`, taken at t_ms.
  void CollectStateEvents(int node, const admin::Telemetry* previous,
                          const admin::Telemetry& current, qint64 t_ms);
  void StateEventsBetween(int node, const admin::Telemetry& previous,
                          const admin::Telemetry& current, qint64 t_ms);
  // ClusterState::ClusterPastApplied: the cluster's sums (and spread) over the nodes' pasts, in
  // `width_ms` buckets (each node's last snapshot in a bucket, served requests only, as live),
  // put before the cluster's series, where it has nothing; a bucket no node had a snapshot in
  // for longer than the stale allowance is a gap.
  void PutClusterPast(const std::vector<ClusterState::NodePast>& pasts, qint64 width_ms);
  // ClusterState::NodePastApplied: the node's past put where the console has nothing of it,
  // the hole the past's first snapshot falls in: before its series (a node added later), or
  // between two samples the console polled with only gap marks between them (a stretch the
  // console could not reach it). What lies in the hole goes in with its own gaps, commands,
  // restarts and lame-duck changes; nothing the console polled is replaced; the cluster's and
  // spread's series stay as they were taken. A hole filled without a silence left in it loses
  // the "down" and "up" marks the console put there: they were the console's loss of contact.
  void PutPast(int node, const std::vector<std::shared_ptr<const admin::Telemetry>>& past);
  // Inserts `event` in time order unless it is known already; true if inserted.
  bool AddEvent(ThroughputEvent event);
  // Drops events outside [from_ms, to_ms].
  void KeepEvents(qint64 from_ms, qint64 to_ms);
  void Clear();
  // A node that stopped being live gets a gap in its series and a "down" event; one that is live
  // again, an "up" event (its next sample ends the gap).
  void MarkDownOrUp(int node, const NodeView& view);
  // ClusterState::RemoveNode: forgets that node's series and events only.
  void ForgetNode(int removed);

  ClusterState* state_;
  int window_minutes_ = 5;
  qint64 latest_ms_ = 0;
  Series cluster_{kMaxWindowMs};
  Series spread_[3] = {Series(kMaxWindowMs), Series(kMaxWindowMs), Series(kMaxWindowMs)};
  QHash<int, Series> nodes_;
  // The telemetry each node's last sample used (held, so its address cannot be reused).
  QHash<int, std::shared_ptr<const admin::Telemetry>> last_seen_;
  // Of each node's oldest sample, its time and what a restart or lame-duck change is told by
  // (StateOnly): what a past put before the series meets (PutPast marks the change between
  // them). Not the snapshot itself, which is released off the GUI thread once replaced.
  struct FirstSeen {
    qint64 t_ms = 0;
    std::shared_ptr<const admin::Telemetry> telemetry;
  };
  // A copy of `t` with only what StateEventsBetween compares.
  static std::shared_ptr<const admin::Telemetry> StateOnly(const admin::Telemetry& t);
  QHash<int, FirstSeen> first_seen_;
  // Samples from history frames that SamplesAdded has not told of yet.
  bool unannounced_ = false;
  Series empty_{0};
  QVector<ThroughputEvent> events_;  // In time order.
  quint64 events_revision_ = 0;
};

}  // namespace railyard::ui
