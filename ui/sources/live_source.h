// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <QVector>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "core/rpc/tls.h"
#include "ui/models/cluster_state.h"
#include "ui/sources/history_frames.h"

namespace railyard::ui {

class LivePoller;

// Polls every node's admin.Telemetry on a worker thread and feeds ClusterState, one batch per
// poll round.
//
// The bridge (KDAB Hotspot's jobtracker shape): the worker thread owns the admin connections and
// never touches Qt objects; at the end of each round it posts the batch to the GUI thread with
// RunOnReceiverThread (ui/support/gui_thread.h). On arrival the batch is checked against the
// generation id it was polled under; a batch from before a restart (new nodes, a new token,
// stop) is dropped. Stop() and the destructor join the worker, so nothing is posted to a dead
// object.
//
// The polling itself is the cluster layer's TelemetryPoller (core/cluster): unreachable nodes are
// retried with exponential backoff and jitter (backoff_min doubling to backoff_max, +-20 %);
// connecting never blocks the round for other nodes. A node that refuses its token is paused
// there (one refusal per token, far from the node's lockout) and announced with TokenRefused.
//
// Backfill: started while no node has answered yet (a cluster just opened, the first node
// added), the worker first reads each node's flight recorder (admin.History) over the widest
// chart window (backfill_span) and posts it as history frames (history_frames.h), so
// the charts open with the past the nodes kept, gaps where they were down; then it polls. It waits
// at most backfill_timeout for all nodes together; a node that keeps no history, or is not
// reached, is only polled. A node added to a cluster already shown gets its own past too, read
// beside the polling of the others (which goes on), and put before its series only
// (ClusterState::ApplyNodePast): the cluster's sums, taken without it, stay so. Each address is
// backfilled once while it is watched (a removed node added again brings its past again). Either
// way, each node's older past (back to backfill_day_span: the day its recorder keeps, downsampled)
// follows beside the polling, read by the same reader as the holes below and put before its series
// (GapFilled); once the day behind every node backfilled on connect has come, the cluster's sums
// over it go before the cluster's series (ClusterState::ApplyClusterPast; a node added later is
// not in them, as in the sums the console took). A node that answers again
// after a silence longer than the stale allowance (ClusterState::StaleAfterMs: the charts show a
// gap) gets that stretch read from its recorder, beside the polling, and put into the hole
// (GapFilled): where it served on while the console could not reach it (a partition, a suspended
// laptop, a stopped console), the charts show what it did; where it was down or stopped itself, its
// recorder kept nothing and the gap stays.
//
// Thread safety: every method on the GUI thread.
class LiveSource : public QObject {
  Q_OBJECT
 public:
  struct Options {
    double poll_hz = 10;
    std::chrono::milliseconds backoff_min{200};
    std::chrono::milliseconds backoff_max{5000};
    std::chrono::milliseconds connect_timeout{1000};
    // How long a round waits for answers; later answers count as failures.
    std::chrono::milliseconds answer_timeout{800};
    // Backfill (see the class comment): at most this long before polling starts, and at most
    // this many bytes of snapshots from all nodes together.
    bool backfill = true;
    std::chrono::milliseconds backfill_span{15 * 60 * 1000};  // At full detail.
    // Then, beside the polling, each node's older past back to this far (its recorder keeps a
    // day, downsampled), put before its series (0: none).
    std::chrono::milliseconds backfill_day_span{24 * 60 * 60 * 1000};
    std::chrono::milliseconds backfill_timeout{5000};
    uint64_t backfill_max_bytes = 64ull << 20;
  };

  explicit LiveSource(ClusterState* state, QObject* parent = nullptr);
  ~LiveSource() override;

  void SetOptions(const Options& options);
  const Options& options() const { return options_; }

  // Declares a node at admin address host:port (added to ClusterState); returns its index. A
  // running source restarts to include it. Fails (-1, with `error`) on a malformed address.
  // `tls` set: its admin service is reached over TLS with these settings. An address already
  // watched returns its index and keeps its token (SetToken changes it).
  int AddNode(const QString& admin_address, const QString& token = {}, QString* error = nullptr,
              const QString& name = {}, std::optional<rpc::TlsClientOptions> tls = std::nullopt);
  // Stops and forgets every node (before ClusterState::Clear for a new cluster).
  void ClearNodes();
  // Stops watching one node and removes it from ClusterState (the later ones move down one
  // index); a running source restarts without it.
  void RemoveNode(int node);
  // The token for one node (ClusterState index); that node reconnects with it, the others keep
  // their connections. A node whose token was refused resumes polling, even with the same one.
  void SetToken(int node, const QString& token);
  QString Token(int node) const;
  // The admin TLS settings of one node (nullopt: plain TCP).
  std::optional<rpc::TlsClientOptions> Tls(int node) const;

  void Start();
  void Stop();
  bool Running() const { return poller_ != nullptr; }
  // Batches received and applied so far.
  quint64 FramesApplied() const { return frames_; }
  // GUI-thread time of the last frame's ClusterState::ApplyFrame (every model included), in ns:
  // what a frame costs before the repaint it asks for (bench/fleet_bench.cc).
  qint64 LastApplyNs() const { return last_apply_ns_; }

 Q_SIGNALS:
  void FrameDelivered();
  // After the backfill's history frames were applied: how many nodes gave a past, how many
  // snapshots in all, and the cluster time of the oldest (0 when none did).
  void Backfilled(int nodes, qint64 snapshots, qint64 from_ms);
  // A stretch node `node` kept while the console had nothing of it (a hole, or the day behind
  // the backfill) was put into its series: `snapshots` snapshots from from_ms to to_ms (cluster
  // time).
  void GapFilled(int node, qint64 snapshots, qint64 from_ms, qint64 to_ms);
  // A node's admin service refused its token: it is no longer polled (so it never locks this
  // host out) until SetToken gives it one. Emitted once per refusal, after the frame that shows
  // it as kTokenRefused.
  void TokenRefused(int node, const QString& reason);

 private:
  struct Target {
    int index = -1;
    QString address;
    QString token;
    std::optional<rpc::TlsClientOptions> tls;
  };
  void Deliver(quint64 generation, std::vector<ClusterState::Update> updates, qint64 now_ms);
  void DeliverHistory(quint64 generation, std::vector<NodeHistory> histories);
  // Nodes added later: each one's past before its own series.
  void DeliverNodePasts(quint64 generation, std::vector<NodeHistory> histories);
  void DeliverNodeGap(quint64 generation, NodeHistory history);
  // Asks for the day behind each backfilled past (Options::backfill_day_span); for the nodes
  // backfilled together on connect (`whole_cluster`), the cluster's sums over it too, once all
  // of it came (FinishDayRound).
  void ReadDaysBehind(const std::vector<NodeHistory>& histories, bool whole_cluster);
  void FinishDayRound();
  void Restart();

  // The day-behind reads of one connect, gathered until the last has come.
  struct DayRound {
    std::map<int, qint64> until_ms;  // Per node: where its day-behind read ends.
    std::vector<ClusterState::NodePast> pasts;
  };
  std::optional<DayRound> day_round_;

  ClusterState* const state_;
  Options options_;
  std::vector<Target> targets_;
  std::set<QString> backfilled_;  // Admin addresses whose past was asked for.
  std::unique_ptr<LivePoller> poller_;
  std::atomic<quint64> generation_{0};
  quint64 frames_ = 0;
  qint64 last_apply_ns_ = 0;
};

// Parses "host:port" (IPv4, name, or [IPv6]:port); false with a message on anything else.
bool ParseAdminAddress(const QString& text, std::string* host, uint16_t* port, QString* error);

}  // namespace railyard::ui
