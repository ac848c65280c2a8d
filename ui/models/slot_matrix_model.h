// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QBrush>
#include <QHash>
#include <QVector>
#include <string>
#include <utility>
#include <vector>

#include "ui/models/cluster_state.h"
#include "ui/support/small_array.h"

namespace railyard::ui {

// Slot allocations: a clients x servers matrix. Rows are clients, one per client_id (found in the
// servers' slot tables and in client pools) in natural name order. Columns 0 and 1 are each
// client's pool size and busy connections, 2 to 4 the client's own figures where it reports its
// pool (retries, rejections and failures per second, from consecutive snapshots of its
// PoolCounters), then one column per server in natural name order (ColumnOfServer; a renamed
// node's column moves, as a layout change). A server is a node whose telemetry says server or
// both; a client process (ROLE_CLIENT, e.g. `railyardctl load --admin-listen`) only adds its
// pools to the rows, and a node not heard from yet gets its column once it answers or fails.
// A server that only clients' pools name (no watched node answers for its address: neither its
// name nor its service address) gets a column too, named by that address and marked "not
// watched", filled from those pools; it goes when a node claims the address or no pool names it.
// Server indices 0..NodeCount-1 are ClusterState's nodes, the unwatched servers follow.
// A cell lists the slots the client holds on that server (as many as fit in kCellChars, else
// their count, all of them in the tooltip); its background is the client's rank colour (RankColor:
// the client's lowest slot brightest), and a cell whose slots changed (a swap, a lost server) is
// highlighted for kHighlightMs of cluster time, fading. A drained or down server's column says
// so in its header (ServerMark) and hatches its empty cells.
//
// Per frame it recomputes only the columns of changed nodes and signals only what changed: the
// client figures' box, the rows whose ranks moved, single moved or fading cells (a view repaints
// those, once per frame; a busy flag changes the busy column, not the row's cells).
//
// Thread safety: GUI thread only, like ClusterState.
//
// Implemented in three files: slot_matrix_model.cc (frames), slot_matrix_columns.cc (which
// servers are columns, in which order) and slot_matrix_display.cc (what views read).
class SlotMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kPoolColumn = 0;
  static constexpr int kBusyColumn = 1;
  static constexpr int kRetriesColumn = 2;  // The client's own figures, per second.
  static constexpr int kRejectionsColumn = 3;
  static constexpr int kFailuresColumn = 4;
  static constexpr int kFirstServerColumn = 5;
  // The widest list of slots a cell shows (views size cells for it); a longer one: "N slots".
  static constexpr QLatin1String kCellChars{"000 000 000"};
  static constexpr qint64 kHighlightMs = 2000;
  // Clients that hold nothing and were not seen for this long are dropped.
  static constexpr qint64 kForgetClientMs = 30000;
  static constexpr int kSlotsRole = Qt::UserRole + 1;        // QVariantList of slot numbers.
  static constexpr int kHighlightedRole = Qt::UserRole + 2;  // bool
  static constexpr int kClientIdRole = Qt::UserRole + 3;     // quint64, on any cell of a row.
  // QString, on a server's cells and header: its ServerMark.
  static constexpr int kServerMarkRole = Qt::UserRole + 4;

  struct Slot {
    quint32 slot = 0;
    bool busy = false;
    quint64 requests = 0;
    qint64 connected_since_ms = 0;
  };
  struct Cell {
    SmallArray<Slot, 2> slots;  // Ascending.
    int rank = 0;               // Of slots[0] among the client's connections.
    qint64 changed_ms = 0;      // Cluster time of the last change; 0: none.
  };
  struct Client {
    quint64 id = 0;
    QString name;
    int pool_capacity = -1;  // From the client's own pool telemetry; -1: not reported.
    int pool_busy = -1;
    int connections = 0;  // Slots held across all servers (slot tables; pools for unwatched ones).
    int busy = 0;
    qint64 last_seen_ms = 0;
    // Per second, from the client's own PoolCounters; -1: not reported (yet).
    double retries_per_s = -1;
    double rejections_per_s = -1;
    double failures_per_s = -1;
    // The counters of the client's previous snapshot, and its time (0: none yet).
    admin::PoolCounters counters;
    qint64 counters_ms = 0;
  };
  // One server's column, summed.
  struct ServerTotals {
    int in_use = 0;    // Slots held by the clients listed.
    int highest = -1;  // Highest slot held; -1: none.
    int busy = 0;      // Of in_use.
  };

  explicit SlotMatrixModel(ClusterState* state, QObject* parent = nullptr);
  ClusterState* State() const { return state_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  int ClientCount() const { return static_cast<int>(clients_.size()); }
  const Client& client(int row) const { return clients_[static_cast<size_t>(row)]; }
  int RowOfClient(quint64 id) const { return rows_.value(id, -1); }
  const Cell& cell(int row, int server) const { return cells_[CellIndex(row, server)]; }
  // Nodes and unwatched servers (see the class comment).
  int ServerCount() const { return servers_; }
  // Whether `server` is a node, rather than a server only clients' pools name.
  bool IsWatched(int server) const { return server < nodes_; }
  // A node's name, or an unwatched server's address.
  const QString& ServerName(int server) const { return server_names_[server]; }
  // Server <-> column; -1 for a column that is not a server's, or a server that has none (a
  // client process, a node not heard from yet, an address no pool names any more).
  int ColumnOfServer(int server) const { return column_of_server_[server]; }
  int ServerOfColumn(int column) const;
  const ServerTotals& Totals(int server) const { return totals_[server]; }
  // Why a server's column holds nothing new: "lame duck", "unreachable", "stale",
  // "token refused"; "not watched" for a server only pools name; empty while it serves (or
  // starts).
  QString ServerMark(int server) const;
  // How the empty cells of a marked server are filled (the legend shows the same).
  static QBrush MarkedColumnBrush();
  // Pool size as shown: the client's reported capacity, else the connections seen.
  int PoolSize(int row) const;
  int BusyCount(int row) const;

  // Whether a view shows the model (true until told otherwise). An inactive model's frame only
  // notes which servers changed and keeps the clients' rates (they need every snapshot), and
  // signals nothing: a hidden Slots tab costs next to nothing at 300 x 300. SetActive(true)
  // applies what changed since as one frame and signals the whole matrix as changed, so the
  // matrix shows what it would have shown had it been active all along, except that the cells
  // that moved meanwhile are not highlighted (when they moved is not known).
  void SetActive(bool active);
  bool Active() const { return active_; }

 Q_SIGNALS:
  // After a frame was applied (the detail model follows it).
  void Updated();

 private:
  size_t CellIndex(int row, int server) const {
    return static_cast<size_t>(row) * static_cast<size_t>(servers_) + static_cast<size_t>(server);
  }
  struct ChangedCells;
  // The client's row, inserted at its place in natural name order if new (moving later rows,
  // and `box`, down by one).
  int RowFor(quint64 id, const std::string& name, ChangedCells& box);
  // A frame, in steps: for each changed server, its header, the connections its telemetry
  // reports, and its column's cells against them; then the ranks of rows that changed, the
  // fading highlights, and the dataChanged signals for all that (ChangedCells, EmitChanged).
  void OnFrame(const QVector<int>& changed);
  void ApplyServer(int server, qint64 now, ChangedCells& box);
  // Fills scratch_ with each client's slots on this server; pool figures go to the clients.
  void CollectConnections(const admin::Telemetry& telemetry, qint64 now, ChangedCells& box);
  void DiffColumn(int server, bool first_fill, qint64 now, ChangedCells& box);
  void RankDirtyRows(ChangedCells& box);
  void TouchFadingCells(qint64 now, ChangedCells& box);
  // Signals what `box` holds: one dataChanged per changed row, column and cell, or one over
  // their bounding box when there are more than kMaxSeparateChanges of them.
  void EmitChanged(ChangedCells& box);
  static constexpr int kMaxSeparateChanges = 64;
  void OnNodeAdded(int index);
  void Rebuild();
  // Makes room for `nodes` node servers and `unwatched` others (each count at least what it was):
  // new nodes' indices go before the unwatched servers, which move up, with their cells.
  void ResizeServers(int nodes, int unwatched);
  // The unwatched server for `address`, added (without a column yet) if new.
  int UnwatchedServerFor(const QString& address);
  // A node's pools as it reported them (or nothing, when it is not live): what each client
  // holds on servers no node answers for.
  void ReadPoolReports(int reporter, const admin::Telemetry* telemetry);
  // Fills the unwatched servers' columns from the pool reports.
  void ApplyUnwatched(qint64 now, ChangedCells& box);
  // Whether node `server` has a column: a server (or both), or a node that failed before saying.
  bool ShowsServer(int server) const;
  // The servers shown, in natural name order, and setting that order (no signals).
  QVector<int> ServerColumnsInOrder() const;
  void SetServerOrder(const QVector<int>& order);
  // Removes and inserts columns for servers hidden or shown since, then moves them into
  // natural name order (as a layout change) if they are not.
  void ArrangeColumns();
  void SortServers();
  // The client's rates from its pool counters at `at_ms`; true if what it shows changed.
  static bool UpdateRates(Client& c, const admin::PoolCounters& counters, qint64 at_ms);
  // An inactive model's frame: the rates of known clients from the changed nodes' pools.
  void KeepRates(const QVector<int>& changed);
  void RankRow(int row);
  bool ForgetIdleClients();

  ClusterState* const state_;
  int servers_ = 0;
  int nodes_ = 0;  // Servers 0..nodes_-1 are nodes; nodes_..servers_-1 unwatched.
  // What one client's pool holds on unwatched servers (by address), and the node that said so.
  struct PoolReport {
    int reporter = -1;
    QHash<QString, SmallArray<Slot, 2>> slots;
  };
  QHash<quint64, PoolReport> pool_reports_;
  bool pool_reports_changed_ = false;  // This frame.
  QHash<QString, int> unwatched_;      // Address -> server.
  std::vector<Client> clients_;
  std::vector<Cell> cells_;  // clients x servers, row-major.
  QHash<quint64, int> rows_;
  QVector<bool> column_seen_;  // A server's first telemetry fills its column without highlights.
  QVector<QString> server_names_;
  QVector<QString> server_marks_;
  std::vector<ServerTotals> totals_;
  QVector<int> server_of_column_;  // Index: column - kFirstServerColumn.
  QVector<int> column_of_server_;
  bool columns_dirty_ = false;       // This frame: arrange the columns again at its end.
  QVector<QPair<int, int>> fading_;  // Cells (row, server) still highlighted.
  // Per frame scratch, kept to avoid allocations: one server's connections by client id, then
  // by row.
  std::vector<std::pair<quint64, Slot>> scratch_;
  std::vector<std::pair<int, Slot>> fresh_;
  std::vector<int> visit_;
  // By server: the clients (ids, which row insertions do not move) whose cells in its column
  // held slots after its last diff. A diff compares only those rows and the ones its new
  // connections are on, not the whole column (300 rows at 300 x 300, 16 of them held).
  QVector<QVector<quint64>> occupied_;
  // Per row, this frame: kClean, kBusyChanged (its busy count only) or kSlotsMoved (its ranks).
  static constexpr quint8 kClean = 0, kBusyChanged = 1, kSlotsMoved = 2;
  QVector<quint8> row_dirty_;
  bool active_ = true;
  bool catching_up_ = false;  // The frame SetActive(true) applies.
  QVector<int> pending_;      // Servers changed while inactive, once each.
  QVector<bool> is_pending_;  // By server (nodes only).
};

}  // namespace railyard::ui
