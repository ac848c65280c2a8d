// SlotMatrixModel: which nodes have a column, in which order, and how a server is marked.
#include "ui/models/slot_matrix_model.h"

#include <algorithm>

#include "ui/models/natural_order.h"

namespace railyard::ui {

bool SlotMatrixModel::ShowsServer(int server) const {
  const NodeView& node = state_->Node(server);
  if (node.telemetry) return node.telemetry->role() != admin::ROLE_CLIENT;
  return node.health != NodeHealth::kConnecting;
}

QString SlotMatrixModel::ServerMark(int server) const {
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
  if (index < servers_) return;
  // Its column comes once it answers as a server (or fails): ArrangeColumns.
  const int old_servers = servers_;
  servers_ = index + 1;
  std::vector<Cell> cells(static_cast<size_t>(ClientCount()) * static_cast<size_t>(servers_));
  for (int row = 0; row < ClientCount(); ++row) {
    for (int s = 0; s < old_servers; ++s) {
      cells[size_t(row) * size_t(servers_) + size_t(s)] =
          std::move(cells_[size_t(row) * size_t(old_servers) + size_t(s)]);
    }
  }
  cells_ = std::move(cells);
  column_seen_.resize(servers_, false);
  server_names_.resize(servers_);
  server_marks_.resize(servers_);
  totals_.resize(static_cast<size_t>(servers_));
  for (int s = old_servers; s < servers_; ++s) {
    server_names_[s] = state_->Node(s).name;
    server_marks_[s] = ServerMark(s);
  }
  column_of_server_.resize(servers_, -1);
  ArrangeColumns();
}

}  // namespace railyard::ui
