// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "railyard/admin.pb.h"

namespace railyard::ui {

// How the console sees one node right now.
enum class NodeHealth {
  kConnecting,  // Never heard from yet.
  kServing,
  kLameDuck,     // Draining: serving requests in flight, refusing new ones.
  kUnreachable,  // The last poll failed; the source retries with backoff.
  kStale,        // Reachable before, but no fresh telemetry for a while.
  // Added after the first five, whose numbers filters and tests already use.
  kStarting,      // Answering, but the node says it is still starting.
  kTokenRefused,  // The admin service refused our token; not polled until another is given.
};
QString NodeHealthName(NodeHealth health);
// True where the node's figures are current (serving, lame duck, starting); the others show
// what was last known.
bool IsLive(NodeHealth health);
// A cluster clock time as the views print it ("HH:mm:ss", local time).
QString ClockText(qint64 ms);
// ClockText today; before today, with its date ("yyyy-MM-dd HH:mm:ss").
QString MomentText(qint64 ms);

// True for a process whose Throughput counts requests it served (a server, or a node that is
// both); a client's figures are calls it made, so cluster totals of served requests leave it out
// and count every request once, at the server that answered it.
bool ServesRequests(const admin::Telemetry& telemetry);
// A process's own calls over all its pools: rates add up, latencies are the pools' highest. A
// client too old to report ClientThroughput gave its own calls as its Throughput: those then.
admin::ClientThroughput ClientFiguresOf(const admin::Telemetry& telemetry);

struct NodeView {
  QString name;           // Node name from telemetry, or the address until the first answer.
  QString admin_address;  // host:port of its admin service.
  std::shared_ptr<const admin::Telemetry> telemetry;  // Latest; null until the first answer.
  qint64 updated_ms = 0;                              // Cluster clock time of the latest telemetry.
  NodeHealth health = NodeHealth::kConnecting;
  QString last_error;  // Why it is unreachable or refused, for the state cell and tooltips.
  // Cluster clock time the node was first seen stale or failing since its last telemetry
  // (0 while live): the "since T" of its state.
  qint64 down_since_ms = 0;
};

// The addresses by which clients' pools may name a node: its name (a pool names a server by the
// address it dialled, which is what a node is called until it answers) and the service address
// its telemetry gives. A server that a pool names by any other address is one nobody watches.
// The slot matrix and the flow both tell watched from unwatched servers by this.
std::vector<std::string> AddressesOf(const NodeView& node);

// The one place where the console keeps what it knows about the cluster. Sources (live polling,
// replay of a recording, the simulator's recordings) write into it on the GUI thread; every model
// reads from it and recomputes on `FrameApplied`, once per batch rather than once per node, so
// 100 nodes at 10 Hz cost one model update per frame.
//
// "now" is the cluster clock: wall time live, the recording's time in replay.
//
// Thread safety: GUI thread only.
class ClusterState : public QObject {
  Q_OBJECT
 public:
  explicit ClusterState(QObject* parent = nullptr);

  // Declares a node (from a cluster file, an address the user added, or a recording). Returns its
  // index; an address already known returns the existing index.
  int AddNode(const QString& admin_address, const QString& name = {});

  // One batch of news. Nodes not mentioned keep their state.
  struct Update {
    int node = -1;
    std::shared_ptr<const admin::Telemetry> telemetry;  // Null: the poll failed.
    QString error = {};                                 // When telemetry is null.
    // Cluster time the telemetry was taken, or the poll failed (a replay restores each node's own
    // time); 0: the frame's now_ms.
    qint64 at_ms = 0;
    bool token_refused = false;  // When telemetry is null: the token, not the node, failed.
  };
  void ApplyFrame(const std::vector<Update>& updates, qint64 now_ms);
  // Like ApplyFrame, for a frame of recorded history that a replay seek plays through quickly to
  // rebuild the time series up to the seek point: emits HistoryFrameApplied instead of
  // FrameApplied, so only the models that keep series (and listen to it) do any work. A seek
  // ends with one ApplyFrame at the seek point, which every model and view sees.
  void ApplyHistoryFrame(const std::vector<Update>& updates, qint64 now_ms);
  // One node's own past (its flight recorder's snapshots, oldest first) that came after the
  // console had started showing the cluster (a node added later, or a stretch the console could
  // not reach it): for the models that keep a series per node, which put it where they hold
  // nothing of it (NodePastApplied). Nothing else changes: the node's view stays as polled, and
  // sums over the cluster, taken without it, stay so.
  void ApplyNodePast(int node, const std::vector<std::shared_ptr<const admin::Telemetry>>& past) {
    Q_EMIT NodePastApplied(node, past);
  }
  // Several nodes' pasts that belong together (the day behind every node backfilled on connect,
  // each also given to ApplyNodePast): for the models that keep sums over the cluster, which sum
  // them in `width_ms` buckets and put that before their own series (ClusterPastApplied).
  struct NodePast {
    int node = -1;
    std::vector<std::shared_ptr<const admin::Telemetry>> snapshots;  // Oldest first.
  };
  void ApplyClusterPast(const std::vector<NodePast>& pasts, qint64 width_ms) {
    Q_EMIT ClusterPastApplied(pasts, width_ms);
  }
  // Advances the clock without news (marks nodes stale after stale_after_ms).
  void Tick(qint64 now_ms);
  // Forgets everything (a new cluster, or a replay seek that rebuilds state).
  void Clear();
  // Forgets one node: the others move down one index. Announced as a rebuild (NodesReset, then
  // NodeAdded for each remaining node and a FrameApplied naming them all), as a seek does; during
  // that NodesReset, RemovedNode() names the node that went, so that models keeping history
  // forget only its own (ForgetRemovedNode) rather than everyone's.
  void RemoveNode(int index);
  // The index RemoveNode is removing while it announces it; -1 otherwise (a Clear).
  int RemovedNode() const { return removed_node_; }

  int NodeCount() const { return static_cast<int>(nodes_.size()); }
  const NodeView& Node(int index) const { return nodes_[static_cast<size_t>(index)]; }
  int IndexOfAddress(const QString& admin_address) const;
  int IndexOfName(const QString& name) const;
  // The cluster's topology as of the last frame, worked out once per frame for every model: the
  // node a client's pool means by `address` (one of the node's AddressesOf), or -1 for a server
  // that no watched node is, which the slot matrix and the flow show as "not watched".
  int NodeAtAddress(const std::string& address) const;
  int NodeAtAddress(const QString& address) const { return NodeAtAddress(address.toStdString()); }
  // What kind of process a node is, by its latest telemetry (kept while it is down): a server (or
  // both), a client only (ROLE_CLIENT: its figures are calls it made), or not known until it first
  // answers.
  enum class Role { kUnknown, kServer, kClientOnly };
  Role RoleOf(int node) const;
  // Whether the pools of live nodes, as of the last frame, hold a connection to a server at
  // `address` that no watched node answers for (NodeAtAddress < 0): a server nobody watches, which
  // the slot matrix and the flow show as "not watched".
  bool IsUnwatchedServer(const std::string& address) const;
  bool IsUnwatchedServer(const QString& address) const {
    return IsUnwatchedServer(address.toStdString());
  }
  qint64 NowMs() const { return now_ms_; }
  // A node is stale once its telemetry is this old (a downsampled snapshot of a flight recorder,
  // which stands for a bucket, this plus the bucket's width).
  void SetStaleAfterMs(qint64 ms) { stale_after_ms_ = ms; }
  qint64 StaleAfterMs() const { return stale_after_ms_; }
  // Whether any node has answered since the last Clear: none has, the console has seen nothing of
  // this cluster yet (what a live source backfills from the nodes' flight recorders).
  bool AnyTelemetry() const;

  // How much history before a seek point a replay rebuilds: the widest window any time-series
  // model asked for (it only grows; Clear keeps it).
  void RequestHistoryMs(qint64 ms) { history_ms_ = std::max(history_ms_, ms); }
  qint64 HistoryMs() const { return history_ms_; }

 Q_SIGNALS:
  void NodesReset();  // After Clear().
  void NodeAdded(int index);
  // After ApplyFrame/Tick: `changed` lists node indexes whose telemetry or health changed.
  void FrameApplied(const QVector<int>& changed);
  // After ApplyHistoryFrame, with the same meaning.
  void HistoryFrameApplied(const QVector<int>& changed);
  // ApplyNodePast. Direct connections only (the vector is not a registered metatype).
  void NodePastApplied(int node, const std::vector<std::shared_ptr<const admin::Telemetry>>& past);
  // ApplyClusterPast. Direct connections only.
  void ClusterPastApplied(const std::vector<railyard::ui::ClusterState::NodePast>& pasts,
                          qint64 width_ms);

 private:
  QVector<int> Apply(const std::vector<Update>& updates, qint64 now_ms);

  // NodeAtAddress's map, rebuilt whenever a node's addresses may have changed.
  void IndexAddresses();
  // The servers no node answers for that node `node`'s pools name, counted again from its
  // telemetry (none unless live); and for every node.
  void CountPoolServers(int node);
  void UncountPoolServers(int node);
  void CountAllPoolServers();

  std::vector<NodeView> nodes_;
  std::unordered_map<std::string, int> node_at_address_;
  // By node: the distinct servers no node answers for that its pools name as of its last frame;
  // and by address, how many nodes' pools name it (IsUnwatchedServer).
  std::vector<std::vector<std::string>> pool_servers_;
  std::unordered_map<std::string, int> pool_server_count_;
  qint64 now_ms_ = 0;
  qint64 history_ms_ = 0;
  qint64 stale_after_ms_ = 5000;
  int removed_node_ = -1;
};

// After ClusterState::RemoveNode(removed): drops `removed`'s entry and moves the later nodes'
// entries down one index, as the state renumbered them.
template <typename T>
void ForgetRemovedNode(QHash<int, T>& by_node, int removed) {
  QHash<int, T> kept;
  for (auto it = by_node.begin(); it != by_node.end(); ++it) {
    if (it.key() != removed) kept.insert(it.key() > removed ? it.key() - 1 : it.key(), it.value());
  }
  by_node.swap(kept);
}

}  // namespace railyard::ui
