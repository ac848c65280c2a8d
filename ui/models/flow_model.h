// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QHash>
#include <QObject>
#include <QString>
#include <QVector>
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ui/models/cluster_state.h"
#include "ui/support/small_array.h"

namespace railyard::ui {

// The request flow between Boxcar clients and servers, for the flow view: who sends how many
// requests per second to whom, over which slots, and how healthy each side is.
//
// Servers are the ClusterState's nodes whose telemetry does not say they are clients only (a
// node never heard from counts as a server), plus servers that watched clients' pools name but
// no node of the ClusterState answers for (unwatched). Clients are found in client pools
// (ClientPool, "watched": their node reports the pool) and in the servers' slot tables
// (SlotEntry.client_id/client_name).
//
// An edge is one client -> server pair. Its rate comes from the client's pool where the client is
// watched (PoolEntry.requests), else from the server's slot table (SlotEntry.requests): each
// connection's request counter is compared with the same connection (same slot) in the
// reporter's previous snapshot, the increases are summed into the edge's running count, and the
// rate is that count's increase over the reports of the last kRateWindowMs of cluster time,
// divided by their time span. A connection first seen adds nothing (its count before is unknown);
// a counter that went down (a reused slot) adds nothing either. An edge whose connections are gone
// falls to zero within kRateWindowMs: load leaving a drained server shows as its edges fading.
//
// A rate is not known (nullopt, never 0) unless the node it is read from (the client's pool, else
// the server's slot table) answers and two of its reports in a row were read, the newer recent
// (FreshForMs). So at the console's start (or after Remove node, which starts the model afresh),
// and for the first report after a silence (the node not answering for longer than
// kRateWindowMs; a failed poll or two is spanned), there is nothing to compare with, and the
// counts from before the silence are dropped. A reporter that answers and does not list the edge
// says it carries nothing (0). A server's or client's rate is the sum of its edges' and is not
// known when one of them is not known, or when it has no edge and does not answer itself
// (docs/figures.md).
//
// The model reads FrameApplied and HistoryFrameApplied alike (asking the ClusterState for
// kRateWindowMs of history), so a replay seek rebuilds the same rates it would have had playing;
// it signals Updated only after FrameApplied.
//
// Thread safety: GUI thread only, like ClusterState.
class FlowModel : public QObject {
  Q_OBJECT
 public:
  static constexpr qint64 kRateWindowMs = 2000;
  // A reporter's newest report counts as recent for this long after it was taken, given the time
  // between its last two reports: the window, or two reports' time when polling is slower.
  static constexpr qint64 FreshForMs(qint64 report_interval_ms) {
    return std::max(kRateWindowMs, 2 * report_interval_ms);
  }
  // Clients that hold no connection and were not seen for this long are dropped.
  static constexpr qint64 kForgetClientMs = 30000;

  struct Server {
    QString name;
    int node = -1;  // ClusterState index; -1: only named by clients' pools.
    NodeHealth health = NodeHealth::kConnecting;
    bool watched() const { return node >= 0; }
    std::optional<double> rate;  // Requests/s arriving, over all its edges; nullopt: not known.
    int connections = 0;         // Client connections it holds (as its edges report them).
    int busy = 0;
    bool hidden = false;  // A client-only node, or an alias merged into a node.
  };
  struct Client {
    quint64 id = 0;
    QString name;
    int node = -1;  // ClusterState node that reports its pool; -1: seen in slot tables only.
    NodeHealth health = NodeHealth::kConnecting;  // Of `node`, where watched.
    bool watched() const { return node >= 0; }
    int capacity = -1;           // Pool size, where watched.
    std::optional<double> rate;  // Requests/s it sends, over all its edges; nullopt: not known.
    int connections = 0;
    int busy = 0;
    qint64 last_seen_ms = 0;
  };
  struct Edge {
    int client = 0;                // Index into Clients().
    int server = 0;                // Index into Servers().
    std::optional<double> rate;    // Requests/s; nullopt: not known.
    bool from_pool = false;        // Figures from the client's pool, else the server's slot table.
    SmallArray<quint32, 2> slots;  // The connections' slots on the server, ascending.
    int busy = 0;
    int rank = 0;             // Of slots[0] among all the client's slots: 0 for its lowest.
    int ranks = 1;            // The client's connections.
    double error_share = -1;  // 0..1 from the client's balancing policy; -1: not known.
  };

  explicit FlowModel(ClusterState* state, QObject* parent = nullptr);

  // Indexes are stable until Reset; the view draws them in ServerOrder()/ClientOrder().
  const std::vector<Server>& Servers() const { return servers_; }
  const std::vector<Client>& Clients() const { return clients_; }
  const std::vector<Edge>& Edges() const { return edges_; }
  // Visible servers and clients in natural name order.
  const QVector<int>& ServerOrder() const { return server_order_; }
  const QVector<int>& ClientOrder() const { return client_order_; }
  // The largest known rate of a shown edge; nullopt when no shown edge's rate is known.
  std::optional<double> MaxEdgeRate() const { return max_edge_rate_; }
  // Goes up whenever names, order or membership change (the view re-lays out then).
  int LayoutVersion() const { return layout_version_; }

  // The edge between the named client and server, or null.
  const Edge* FindEdge(const QString& client, const QString& server) const;
  // An edge's colour: by errors where the client's policy knows them (towards red), else by the
  // rank of its lowest slot among the client's connections: the lowest slots darkest.
  static QColor EdgeColor(const Edge& edge);
  // Both for tooltips.
  QString EdgeText(const Edge& edge) const;
  QString NodeText(bool server, int index) const;

  // Whether a view shows the model (true until told otherwise). An inactive model keeps reading
  // every report (the rates need each connection's counters in every snapshot) but derives the
  // figures only every kInactiveSummaryMs (so idle clients are still forgotten) and signals
  // nothing; SetActive(true) derives them for now and signals Updated, showing what an active
  // model would show.
  void SetActive(bool active);
  bool Active() const { return active_; }
  static constexpr qint64 kInactiveSummaryMs = 5000;

 Q_SIGNALS:
  void Updated();

 private:
  // One connection as last reported: its slot and request counter.
  struct Conn {
    quint32 slot = 0;
    quint64 requests = 0;
    bool busy = false;
  };
  // (cluster ms, running count) at each report within the rate window, oldest first, in a fixed
  // ring so that a frame moves no memory. Reports faster than kCapacity per window (polling
  // above 15 Hz) shorten the span a rate is taken over, not its correctness.
  struct Samples {
    static constexpr int kCapacity = 32;
    std::array<QPair<qint64, quint64>, kCapacity> ring;
    int first = 0;
    int size = 0;
    const QPair<qint64, quint64>& operator[](int i) const { return ring[(first + i) % kCapacity]; }
    const QPair<qint64, quint64>& Oldest() const { return (*this)[0]; }
    const QPair<qint64, quint64>& Newest() const { return (*this)[size - 1]; }
    void Clear() {
      first = 0;
      size = 0;
    }
    void DropOldest() {
      first = (first + 1) % kCapacity;
      --size;
    }
    void Push(qint64 ms, quint64 count) {
      if (size == kCapacity) DropOldest();
      ring[(first + size) % kCapacity] = {ms, count};
      ++size;
    }
  };
  // What one reporter (the client's pool, or the server's slot table) says about an edge.
  struct Side {
    int reporter = -1;  // ClusterState node.
    SmallArray<Conn, 2> conns;
    SmallArray<Conn, 2> next;  // Being filled from this frame's report.
    quint64 stamp = 0;         // Frame whose report filled `next`.
    quint64 count = 0;         // Running count of requests seen.
    Samples samples;
  };
  struct EdgeState {
    Side pool;
    Side slot;
    double error_share = -1;
  };

  void Reset();
  void OnNodeAdded(int node);
  void OnFrame(const QVector<int>& changed, bool history);
  void SyncNode(int node);
  void ReadSlots(int node, const admin::Telemetry& telemetry);
  void ReadPools(int node, const admin::Telemetry& telemetry);
  // The server pools mean by `address` (a service address or a name): the node the cluster
  // state's topology says answers there, else an unwatched server, made for an address new here.
  int ServerFor(const std::string& address);
  // The same without making one: -1 for an address not seen.
  int KnownServer(const std::string& address) const;
  // Hides the unwatched servers whose address a node has claimed since (NodeAtAddress).
  void HideClaimedServers();
  int ClientFor(quint64 id, const std::string& name);
  int EdgeFor(int client, int server);
  static void AddConn(Side& side, quint64 stamp, const Conn& conn);
  // After the reports: each side whose reporter spoke takes its new connections and a sample.
  void CloseSides();
  // Whether `node` (a ClusterState index, -1: none) answers now.
  bool Answers(int node) const;
  // The node an edge's figures are read from: the client's (pool) or the server's (slot table).
  int ReporterOf(const Edge& edge) const;
  // A side's rate by the definition above, `reporter` being the node it is read from.
  std::optional<double> SideRate(const Side& side, int reporter, qint64 now) const;
  void Summarize(qint64 now);
  void ForgetIdle(qint64 now);
  void SortOrder();

  ClusterState* const state_;
  std::vector<Server> servers_;
  std::vector<Client> clients_;
  std::vector<Edge> edges_;
  std::vector<EdgeState> edge_states_;  // Parallel to edges_.
  QHash<quint64, int> edge_of_;         // (client << 32 | server) -> edge.
  QHash<quint64, int> client_of_;       // client id -> client.
  // Unwatched servers by the address pools name them by, until a node claims it.
  std::unordered_map<std::string, int> unwatched_server_of_;
  QVector<int> server_of_node_;
  QVector<qint64> node_read_ms_;      // Time of each node's telemetry last read.
  QVector<qint64> previous_read_ms_;  // And of the one read before it (0: none, or a silence).
  QVector<bool> silent_since_read_;   // Not live in a frame since its last report was read.
  QVector<qint64> reported_ms_;       // This frame: the time of each node's new report, else 0.
  QVector<int> server_order_;
  QVector<int> client_order_;
  QVector<SmallArray<quint32, 8>> client_slots_;  // Per frame scratch for ranks.
  QVector<bool> client_has_edge_;                 // Per frame scratch for ForgetIdle.
  // Per frame scratch for Summarize: the edges summed into each server and client.
  struct RateSum {
    double rate = 0;
    int edges = 0;
    bool all_known = true;
  };
  std::vector<RateSum> server_sums_;
  std::vector<RateSum> client_sums_;
  std::optional<double> max_edge_rate_;
  quint64 stamp_ = 0;
  int layout_version_ = 0;
  bool order_dirty_ = true;
  bool active_ = true;
  qint64 summarized_ms_ = 0;  // Cluster time of the last Summarize while inactive.
};

}  // namespace railyard::ui
