// SPDX-License-Identifier: Apache-2.0
// SlotMatrixModel: which servers (nodes, and addresses only pools name) have a column, in which
// order, and how a server is marked.
#include "ui/models/slot_matrix_model.h"

#include <algorithm>
#include <type_traits>

#include "ui/models/natural_order.h"

namespace railyard::ui {

bool SlotMatrixModel::ShowsServer(int server) const {
  // Which servers there are is the cluster state's topology; a node not heard from yet gets its
  // column once it fails (it may be a server that is down).
  if (server >= nodes_) return state_->IsUnwatchedServer(server_names_[server]);
  switch (state_->RoleOf(server)) {
    case ClusterState::Role::kServer:
      return true;
    case ClusterState::Role::kClientOnly:
      return false;
    case ClusterState::Role::kUnknown:
      break;
  }
  return state_->Node(server).health != NodeHealth::kConnecting;
}

QString SlotMatrixModel::ServerMark(int server) const {
  if (server >= nodes_) return tr("not watched");
  const NodeHealth health = state_->Node(server).health;
  switch (health) {
    case NodeHealth::kConnecting:
    case NodeHealth::kServing:
    case NodeHealth::kStarting:
      return {};
    case NodeHealth::kLameDuck:
    case NodeHealth::kUnreachable:
    case NodeHealth::kStale:
    case NodeHealth::kTokenRefused:
      break;
  }
  return NodeHealthName(health);
}

QVector<int> SlotMatrixModel::ServerColumnsInOrder() const {
  QVector<int> order;
  for (int s = 0; s < servers_; ++s) {
    if (ShowsServer(s)) order << s;
  }
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    return NaturalLess(server_names_[a], server_names_[b]);
  });
  return order;
}

void SlotMatrixModel::SetServerOrder(const QVector<int>& order) {
  server_of_column_ = order;
  column_of_server_.fill(-1, servers_);
  for (int c = 0; c < order.size(); ++c) column_of_server_[order[c]] = kFirstServerColumn + c;
}

void SlotMatrixModel::ArrangeColumns() {
  const QVector<int> wanted = ServerColumnsInOrder();
  if (wanted == server_of_column_) return;
  for (int c = static_cast<int>(server_of_column_.size()) - 1; c >= 0; --c) {
    if (wanted.contains(server_of_column_[c])) continue;
    beginRemoveColumns({}, kFirstServerColumn + c, kFirstServerColumn + c);
    QVector<int> order = server_of_column_;
    order.removeAt(c);
    SetServerOrder(order);
    endRemoveColumns();
  }
  QVector<int> added;
  for (int s : wanted) {
    if (column_of_server_[s] < 0) added << s;
  }
  if (!added.isEmpty()) {
    const int first = kFirstServerColumn + static_cast<int>(server_of_column_.size());
    beginInsertColumns({}, first, first + static_cast<int>(added.size()) - 1);
    SetServerOrder(server_of_column_ + added);
    endInsertColumns();
  }
  SortServers();
}

void SlotMatrixModel::SortServers() {
  const QVector<int> order = ServerColumnsInOrder();
  if (order == server_of_column_) return;
  Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::HorizontalSortHint);
  const QModelIndexList before = persistentIndexList();
  QVector<int> servers;  // Each persistent index's server, before the move (-1: not a server).
  for (const QModelIndex& i : before) servers << ServerOfColumn(i.column());
  SetServerOrder(order);
  QModelIndexList after;
  for (qsizetype k = 0; k < before.size(); ++k) {
    const QModelIndex& i = before[k];
    after << (servers[k] < 0 ? i : index(i.row(), ColumnOfServer(servers[k])));
  }
  changePersistentIndexList(before, after);
  Q_EMIT layoutChanged({}, QAbstractItemModel::HorizontalSortHint);
}

int SlotMatrixModel::ServerOfColumn(int column) const {
  const int c = column - kFirstServerColumn;
  return c >= 0 && c < server_of_column_.size() ? server_of_column_[c] : -1;
}

void SlotMatrixModel::OnNodeAdded(int index) {
  if (index < nodes_) return;
  // Its column comes once it answers as a server (or fails): ArrangeColumns.
  const int old_nodes = nodes_;
  ResizeServers(index + 1, servers_ - nodes_);
  for (int s = old_nodes; s < nodes_; ++s) {
    server_names_[s] = state_->Node(s).name;
    server_marks_[s] = ServerMark(s);
  }
  ArrangeColumns();
}

void SlotMatrixModel::ResizeServers(int nodes, int unwatched) {
  const int old_nodes = nodes_;
  const int old_servers = servers_;
  const int servers = nodes + unwatched;
  // Nodes keep their index; unwatched servers move up past the new nodes.
  const auto moved = [old_nodes, shift = nodes - old_nodes](int s) {
    return s < old_nodes ? s : s + shift;
  };
  std::vector<Cell> cells(static_cast<size_t>(ClientCount()) * static_cast<size_t>(servers));
  for (int row = 0; row < ClientCount(); ++row) {
    for (int s = 0; s < old_servers; ++s) {
      cells[size_t(row) * size_t(servers) + size_t(moved(s))] =
          std::move(cells_[CellIndex(row, s)]);
    }
  }
  cells_ = std::move(cells);
  const auto remap = [&](auto& v, const auto& fill) {
    std::remove_reference_t<decltype(v)> out;
    out.resize(servers, fill);
    for (int s = 0; s < old_servers; ++s) out[moved(s)] = std::move(v[s]);
    v = std::move(out);
  };
  remap(column_seen_, false);
  remap(server_names_, QString());
  remap(server_marks_, QString());
  remap(totals_, ServerTotals{});
  occupied_.resize(old_servers);  // Filled lazily by DiffColumn.
  remap(occupied_, QVector<quint64>());
  remap(column_of_server_, -1);
  for (int& s : server_of_column_) s = moved(s);
  for (auto& [row, server] : fading_) server = moved(server);
  for (auto it = unwatched_.begin(); it != unwatched_.end(); ++it) *it = moved(*it);
  nodes_ = nodes;
  servers_ = servers;
}

int SlotMatrixModel::UnwatchedServerFor(const QString& address) {
  if (auto it = unwatched_.constFind(address); it != unwatched_.constEnd()) return *it;
  ResizeServers(nodes_, servers_ - nodes_ + 1);
  const int server = servers_ - 1;
  server_names_[server] = address;
  server_marks_[server] = ServerMark(server);
  unwatched_.insert(address, server);
  return server;
}

}  // namespace railyard::ui
