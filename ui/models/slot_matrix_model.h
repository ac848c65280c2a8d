#pragma once

#include <QAbstractTableModel>
#include <QHash>
#include <QVarLengthArray>
#include <QVector>

#include "ui/models/cluster_state.h"

namespace railyard::ui {

// Slot allocations: a clients x servers matrix. Rows are clients (found in the servers' slot
// tables by client_id, and in client pools) in natural name order, columns 0 and 1 are each
// client's pool size and busy connections, then one column per node of the ClusterState, also in
// natural name order (ColumnOfServer; a renamed node's column moves, as a layout change). A cell
// lists the slots the client holds on that server; its background is the client's rank colour
// (RankColor: the client's lowest slot brightest), and a cell whose slots changed (a swap, a lost
// server) is highlighted for kHighlightMs of cluster time, fading.
//
// Per frame it recomputes only the columns of changed nodes and emits one dataChanged over the
// bounding box of the cells that changed or are fading, so a view repaints once per frame.
//
// Thread safety: GUI thread only, like ClusterState.
class SlotMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int kPoolColumn = 0;
  static constexpr int kBusyColumn = 1;
  static constexpr int kFirstServerColumn = 2;
  static constexpr qint64 kHighlightMs = 2000;
  // Clients that hold nothing and were not seen for this long are dropped.
  static constexpr qint64 kForgetClientMs = 30000;
  static constexpr int kSlotsRole = Qt::UserRole + 1;        // QVariantList of slot numbers.
  static constexpr int kHighlightedRole = Qt::UserRole + 2;  // bool
  static constexpr int kClientIdRole = Qt::UserRole + 3;     // quint64, on any cell of a row.

  struct Slot {
    quint32 slot = 0;
    bool busy = false;
    quint64 requests = 0;
    qint64 connected_since_ms = 0;
  };
  struct Cell {
    QVarLengthArray<Slot, 2> slots;  // Ascending.
    int rank = 0;                    // Of slots[0] among the client's connections.
    qint64 changed_ms = 0;           // Cluster time of the last change; 0: none.
  };
  struct Client {
    quint64 id = 0;
    QString name;
    int pool_capacity = -1;  // From the client's own pool telemetry; -1: not reported.
    int pool_busy = -1;
    int connections = 0;  // Slots held across all servers, from the slot tables.
    int busy = 0;
    qint64 last_seen_ms = 0;
  };

  explicit SlotMatrixModel(ClusterState* state, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  int ClientCount() const { return static_cast<int>(clients_.size()); }
  const Client& client(int row) const { return clients_[static_cast<size_t>(row)]; }
  int RowOfClient(quint64 id) const { return rows_.value(id, -1); }
  const Cell& cell(int row, int server) const { return cells_[CellIndex(row, server)]; }
  int ServerCount() const { return servers_; }
  // Server (ClusterState node index) <-> column; -1 for a column that is not a server's.
  int ColumnOfServer(int server) const { return column_of_server_[server]; }
  int ServerOfColumn(int column) const;
  // Pool size as shown: the client's reported capacity, else the connections seen.
  int PoolSize(int row) const;
  int BusyCount(int row) const;

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
  // fading highlights, and one dataChanged over the bounding box of all that (ChangedCells).
  void OnFrame(const QVector<int>& changed);
  void ApplyServer(int server, qint64 now, ChangedCells& box);
  // Fills scratch_ with each client's slots on this server; pool figures go to the clients.
  void CollectConnections(const admin::Telemetry& telemetry, qint64 now, ChangedCells& box);
  void DiffColumn(int server, bool first_fill, qint64 now, ChangedCells& box);
  void RankDirtyRows(ChangedCells& box);
  void TouchFadingCells(qint64 now, ChangedCells& box);
  void OnNodeAdded(int index);
  void Rebuild();
  // The servers in natural name order, and setting that order (no signals).
  QVector<int> NaturalServerOrder() const;
  void SetServerOrder(const QVector<int>& order);
  // Moves the columns into natural name order if they are not, as a layout change.
  void SortServers();
  void RankRow(int row);
  bool ForgetIdleClients();

  ClusterState* const state_;
  int servers_ = 0;
  std::vector<Client> clients_;
  std::vector<Cell> cells_;  // clients x servers, row-major.
  QHash<quint64, int> rows_;
  QVector<bool> column_seen_;  // A server's first telemetry fills its column without highlights.
  QVector<QString> server_names_;
  QVector<int> server_of_column_;  // Index: column - kFirstServerColumn.
  QVector<int> column_of_server_;
  bool servers_renamed_ = false;     // This frame: sort the columns again at its end.
  QVector<QPair<int, int>> fading_;  // Cells (row, server) still highlighted.
  // Per frame scratch, kept to avoid allocations.
  QHash<quint64, QVarLengthArray<Slot, 2>> scratch_;
  QVector<bool> row_dirty_;
};

}  // namespace railyard::ui
