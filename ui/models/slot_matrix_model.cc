// SPDX-License-Identifier: Apache-2.0
#include "ui/models/slot_matrix_model.h"

#include <algorithm>
#include <climits>

#include "ui/models/natural_order.h"

namespace railyard::ui {

namespace {

bool SameSlots(const SmallArray<SlotMatrixModel::Slot, 2>& a,
               const SmallArray<SlotMatrixModel::Slot, 2>& b) {
  if (a.size() != b.size()) return false;
  for (qsizetype i = 0; i < a.size(); ++i) {
    if (a[i].slot != b[i].slot) return false;
  }
  return true;
}

}  // namespace

SlotMatrixModel::SlotMatrixModel(ClusterState* state, QObject* parent)
    : QAbstractTableModel(parent), state_(state) {
  connect(state_, &ClusterState::FrameApplied, this, &SlotMatrixModel::OnFrame);
  connect(state_, &ClusterState::NodeAdded, this, &SlotMatrixModel::OnNodeAdded);
  connect(state_, &ClusterState::NodesReset, this, [this] {
    beginResetModel();
    Rebuild();
    endResetModel();
  });
  Rebuild();
}

void SlotMatrixModel::Rebuild() {
  servers_ = state_->NodeCount();
  nodes_ = servers_;
  unwatched_.clear();
  pool_reports_.clear();
  clients_.clear();
  cells_.clear();
  occupied_ = QVector<QVector<quint64>>(servers_);
  rows_.clear();
  fading_.clear();
  pending_.clear();
  is_pending_.clear();
  column_seen_.fill(false, servers_);
  server_names_.resize(servers_);
  server_marks_.resize(servers_);
  totals_.assign(static_cast<size_t>(servers_), ServerTotals{});
  for (int s = 0; s < servers_; ++s) {
    server_names_[s] = state_->Node(s).name;
    server_marks_[s] = ServerMark(s);
  }
  SetServerOrder(ServerColumnsInOrder());
}

// What a frame changed, for as few and as small dataChanged signals as cover it: the clients'
// figures (the columns before the servers') as one bounding box, and the server cells as the rows
// whose ranks moved, the columns whose marks changed and single cells (a moved or fading slot).
// A bounding box of those too would span the whole matrix whenever two changes lie far apart
// (they do at 300 x 300), and repaint every visible cell each frame.
struct SlotMatrixModel::ChangedCells {
  struct Box {
    int top = INT_MAX;
    int bottom = -1;
    int left = INT_MAX;
    int right = -1;
    void Touch(int row, int column) {
      top = std::min(top, row);
      bottom = std::max(bottom, row);
      left = std::min(left, column);
      right = std::max(right, column);
    }
    bool Empty() const { return bottom < 0; }
  };
  Box figures;
  QVector<int> rows;
  QVector<int> columns;
  QVector<QPair<int, int>> cells;  // (row, column)

  void Touch(int row, int column) {
    if (column < kFirstServerColumn) {
      figures.Touch(row, column);
    } else {
      cells.push_back({row, column});
    }
  }
  void TouchRow(int row) { rows.push_back(row); }
  void TouchColumn(int column) { columns.push_back(column); }
  // Rows at or after `row` moved down by one.
  void RowInserted(int row) {
    if (!figures.Empty() && figures.top >= row) ++figures.top;
    if (figures.bottom >= row) ++figures.bottom;
    for (int& r : rows) r += r >= row ? 1 : 0;
    for (auto& cell : cells) cell.first += cell.first >= row ? 1 : 0;
  }
};

int SlotMatrixModel::RowFor(quint64 id, const std::string& name, ChangedCells& box) {
  if (auto it = rows_.constFind(id); it != rows_.constEnd()) {
    Client& c = clients_[static_cast<size_t>(*it)];
    if (c.name.isEmpty() && !name.empty()) c.name = QString::fromStdString(name);
    return *it;
  }
  Client c;
  c.id = id;
  c.name = name.empty() ? QStringLiteral("%1").arg(id, 16, 16, QLatin1Char('0'))
                        : QString::fromStdString(name);
  // Rows stay in natural name order (client-2 before client-10), whatever order they appear in.
  const auto at = std::upper_bound(
      clients_.begin(), clients_.end(), c.name,
      [](const QString& name, const Client& other) { return NaturalLess(name, other.name); });
  const int row = static_cast<int>(at - clients_.begin());
  beginInsertRows({}, row, row);
  clients_.insert(at, std::move(c));
  const auto first_cell = static_cast<std::ptrdiff_t>(row) * servers_;
  cells_.insert(cells_.begin() + first_cell, static_cast<size_t>(servers_), Cell{});
  for (int r = row; r < ClientCount(); ++r) rows_.insert(clients_[static_cast<size_t>(r)].id, r);
  row_dirty_.insert(row, kClean);
  for (auto& [fading_row, server] : fading_) fading_row += fading_row >= row ? 1 : 0;
  box.RowInserted(row);
  endInsertRows();
  return row;
}

void SlotMatrixModel::RankRow(int row) {
  // A cell's rank is its best slot's position among all the client's connections.
  QVarLengthArray<quint32, 32> all;
  Client& c = clients_[static_cast<size_t>(row)];
  c.busy = 0;
  for (int s = 0; s < servers_; ++s) {
    for (const Slot& slot : cells_[CellIndex(row, s)].slots) {
      all.push_back(slot.slot);
      if (slot.busy) ++c.busy;
    }
  }
  std::sort(all.begin(), all.end());
  c.connections = static_cast<int>(all.size());
  for (int s = 0; s < servers_; ++s) {
    Cell& cell = cells_[CellIndex(row, s)];
    if (cell.slots.isEmpty()) continue;
    cell.rank = static_cast<int>(std::lower_bound(all.begin(), all.end(), cell.slots[0].slot) -
                                 all.begin());
  }
}

void SlotMatrixModel::SetActive(bool active) {
  if (active == active_) return;
  active_ = active;
  if (!active_) return;
  QVector<int> changed;
  changed.swap(pending_);
  is_pending_.fill(false);
  catching_up_ = true;
  OnFrame(changed);
  catching_up_ = false;
}

void SlotMatrixModel::KeepRates(const QVector<int>& changed) {
  for (int server : changed) {
    if (server < 0 || server >= nodes_) continue;
    if (is_pending_.size() < nodes_) is_pending_.resize(nodes_);
    if (!is_pending_[server]) {
      is_pending_[server] = true;
      pending_.push_back(server);
    }
    const NodeView& node = state_->Node(server);
    if (!node.telemetry || !IsLive(node.health)) continue;
    for (const admin::ClientPool& pool : node.telemetry->pools()) {
      const int row = rows_.value(pool.client_id(), -1);
      if (row >= 0) {
        UpdateRates(clients_[static_cast<size_t>(row)], pool.counters(), node.telemetry->unix_ms());
      }
    }
  }
}

void SlotMatrixModel::OnFrame(const QVector<int>& changed) {
  if (!active_) {
    KeepRates(changed);
    return;
  }
  const qint64 now = state_->NowMs();
  ChangedCells box;
  row_dirty_.fill(kClean, ClientCount());
  pool_reports_changed_ = false;
  for (int server : changed) {
    if (server < 0 || server >= nodes_) continue;
    ApplyServer(server, now, box);
  }
  ApplyUnwatched(now, box);
  RankDirtyRows(box);
  TouchFadingCells(now, box);
  if (!ForgetIdleClients()) EmitChanged(box);
  if (columns_dirty_) {
    columns_dirty_ = false;
    ArrangeColumns();
  }
  Q_EMIT Updated();
}

void SlotMatrixModel::EmitChanged(ChangedCells& box) {
  if (catching_up_) {
    // Whatever changed while inactive (the rates included): everything, once.
    if (ClientCount() > 0) {
      Q_EMIT dataChanged(index(0, 0), index(ClientCount() - 1, columnCount() - 1));
    }
    return;
  }
  if (!box.figures.Empty()) {
    Q_EMIT dataChanged(index(box.figures.top, box.figures.left),
                       index(box.figures.bottom, box.figures.right));
  }
  const int last = columnCount() - 1;
  if (last < kFirstServerColumn || ClientCount() == 0) return;
  if (box.rows.size() + box.columns.size() + box.cells.size() > kMaxSeparateChanges) {
    ChangedCells::Box all;
    for (int row : box.rows) {
      all.Touch(row, kFirstServerColumn);
      all.Touch(row, last);
    }
    for (int column : box.columns) {
      all.Touch(0, column);
      all.Touch(ClientCount() - 1, column);
    }
    for (const auto& [row, column] : box.cells) all.Touch(row, column);
    Q_EMIT dataChanged(index(all.top, all.left), index(all.bottom, all.right));
    return;
  }
  std::sort(box.rows.begin(), box.rows.end());
  box.rows.erase(std::unique(box.rows.begin(), box.rows.end()), box.rows.end());
  for (int row : box.rows) Q_EMIT dataChanged(index(row, kFirstServerColumn), index(row, last));
  std::sort(box.columns.begin(), box.columns.end());
  box.columns.erase(std::unique(box.columns.begin(), box.columns.end()), box.columns.end());
  for (int column : box.columns) {
    Q_EMIT dataChanged(index(0, column), index(ClientCount() - 1, column));
  }
  std::sort(box.cells.begin(), box.cells.end());
  box.cells.erase(std::unique(box.cells.begin(), box.cells.end()), box.cells.end());
  for (const auto& [row, column] : box.cells) {
    if (std::binary_search(box.rows.begin(), box.rows.end(), row) ||
        std::binary_search(box.columns.begin(), box.columns.end(), column)) {
      continue;
    }
    Q_EMIT dataChanged(index(row, column), index(row, column));
  }
}

void SlotMatrixModel::ApplyServer(int server, qint64 now, ChangedCells& box) {
  const NodeView& node = state_->Node(server);
  const int column = ColumnOfServer(server);
  const QString mark = ServerMark(server);
  if (server_names_[server] != node.name || server_marks_[server] != mark) {
    columns_dirty_ |= server_names_[server] != node.name;  // Re-sorted after the frame.
    server_names_[server] = node.name;
    if (server_marks_[server] != mark) {
      server_marks_[server] = mark;
      // Its empty cells change their hatching.
      if (column >= 0) box.TouchColumn(column);
    }
    if (column >= 0) Q_EMIT headerDataChanged(Qt::Horizontal, column, column);
  }
  // A node that turns out to be a client process loses its column, a server gains one.
  columns_dirty_ |= ShowsServer(server) != (column >= 0);
  // An unreachable or stale server holds nothing: its clients lost those connections.
  const bool live = node.telemetry && IsLive(node.health);
  scratch_.clear();
  if (live) CollectConnections(*node.telemetry, now, box);
  ReadPoolReports(server, live ? node.telemetry.get() : nullptr);
  const bool first_fill = !column_seen_[server];
  if (live) column_seen_[server] = true;
  DiffColumn(server, first_fill, now, box);
}

void SlotMatrixModel::CollectConnections(const admin::Telemetry& telemetry, qint64 now,
                                         ChangedCells& box) {
  for (const admin::SlotEntry& e : telemetry.slots()) {
    const int row = RowFor(e.client_id(), e.client_name(), box);
    clients_[static_cast<size_t>(row)].last_seen_ms = now;
    scratch_.push_back(
        {e.client_id(), {e.slot(), e.busy(), e.requests(), e.connected_since_unix_ms()}});
  }
  for (const admin::ClientPool& pool : telemetry.pools()) {
    const int row = RowFor(pool.client_id(), pool.client_name(), box);
    Client& c = clients_[static_cast<size_t>(row)];
    int busy = 0;
    for (const admin::PoolEntry& e : pool.entries()) busy += e.busy() ? 1 : 0;
    if (c.pool_capacity != int(pool.capacity()) || c.pool_busy != busy) {
      c.pool_capacity = static_cast<int>(pool.capacity());
      c.pool_busy = busy;
      box.Touch(row, kPoolColumn);
      box.Touch(row, kBusyColumn);
    }
    if (UpdateRates(c, pool.counters(), telemetry.unix_ms())) {
      box.Touch(row, kRetriesColumn);
      box.Touch(row, kFailuresColumn);
    }
    c.last_seen_ms = now;
  }
}

void SlotMatrixModel::ReadPoolReports(int reporter, const admin::Telemetry* telemetry) {
  // What this node reported before is replaced (or gone, if it is not live).
  for (auto it = pool_reports_.begin(); it != pool_reports_.end();) {
    if (it->reporter != reporter) {
      ++it;
      continue;
    }
    it = pool_reports_.erase(it);
    pool_reports_changed_ = true;
  }
  if (!telemetry) return;
  for (const admin::ClientPool& pool : telemetry->pools()) {
    PoolReport report;
    report.reporter = reporter;
    for (const admin::PoolEntry& e : pool.entries()) {
      // A watched server's slot table lists this connection already (the cluster state's
      // topology, checked before the address is converted: nearly every entry names one).
      if (e.server().empty() || state_->NodeAtAddress(e.server()) >= 0) continue;
      const QString address = QString::fromStdString(e.server());
      report.slots[address].push_back({e.slot(), e.busy(), e.requests(), 0});
    }
    if (report.slots.isEmpty()) continue;
    pool_reports_.insert(pool.client_id(), std::move(report));
    pool_reports_changed_ = true;
  }
}

void SlotMatrixModel::ApplyUnwatched(qint64 now, ChangedCells& box) {
  if (!pool_reports_changed_ && unwatched_.isEmpty()) return;
  for (const PoolReport& report : std::as_const(pool_reports_)) {
    for (auto it = report.slots.cbegin(); it != report.slots.cend(); ++it) {
      UnwatchedServerFor(it.key());
    }
  }
  for (auto u = unwatched_.cbegin(); u != unwatched_.cend(); ++u) {
    const int server = u.value();
    scratch_.clear();
    // An address a node has claimed since is that node's column: its slot table counts.
    if (state_->NodeAtAddress(u.key()) < 0) {
      for (auto r = pool_reports_.cbegin(); r != pool_reports_.cend(); ++r) {
        if (auto slots = r->slots.constFind(u.key()); slots != r->slots.cend()) {
          for (const Slot& slot : *slots) scratch_.push_back({r.key(), slot});
        }
      }
    }
    const bool first_fill = !column_seen_[server];
    column_seen_[server] = true;
    DiffColumn(server, first_fill, now, box);
    columns_dirty_ |= ShowsServer(server) != (ColumnOfServer(server) >= 0);
  }
}

bool SlotMatrixModel::UpdateRates(Client& c, const admin::PoolCounters& counters, qint64 at_ms) {
  if (at_ms == c.counters_ms) return false;  // The same snapshot again.
  bool changed = false;
  if (c.counters_ms > 0 && at_ms > c.counters_ms) {
    const double seconds = double(at_ms - c.counters_ms) / 1000.0;
    // A counter that went down belongs to a restarted client: count from zero.
    auto rate = [seconds](uint64_t now, uint64_t before) {
      return double(now >= before ? now - before : now) / seconds;
    };
    const double retries = rate(counters.retries(), c.counters.retries());
    const double rejections = rate(counters.rejections(), c.counters.rejections());
    const double failures = rate(counters.failures(), c.counters.failures());
    changed = retries != c.retries_per_s || rejections != c.rejections_per_s ||
              failures != c.failures_per_s;
    c.retries_per_s = retries;
    c.rejections_per_s = rejections;
    c.failures_per_s = failures;
  }
  c.counters = counters;
  c.counters_ms = at_ms;
  return changed;
}

void SlotMatrixModel::DiffColumn(int server, bool first_fill, qint64 now, ChangedCells& box) {
  ServerTotals& totals = totals_[server];
  totals = {};
  const int column = ColumnOfServer(server);
  // The server's connections by row, then slot: one walk down the column, no lookup per row.
  fresh_.clear();
  for (const auto& [id, slot] : scratch_) {
    if (const int row = rows_.value(id, -1); row >= 0) fresh_.push_back({row, slot});
  }
  std::sort(fresh_.begin(), fresh_.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.slot < b.second.slot;
  });
  // The rows to compare: where the server's connections are now, and where they were.
  if (occupied_.size() < servers_) occupied_.resize(servers_);
  QVector<quint64>& occupied = occupied_[server];
  visit_.clear();
  for (const auto& [row, slot] : fresh_) visit_.push_back(row);
  for (quint64 id : occupied) {
    if (const int row = rows_.value(id, -1); row >= 0) visit_.push_back(row);
  }
  std::sort(visit_.begin(), visit_.end());
  visit_.erase(std::unique(visit_.begin(), visit_.end()), visit_.end());
  occupied.clear();
  size_t next = 0;
  SmallArray<Slot, 2> fresh;
  for (int row : visit_) {
    Cell& cell = cells_[CellIndex(row, server)];
    if (!fresh.isEmpty()) fresh.clear();  // clear() reallocates even when empty.
    for (; next < fresh_.size() && fresh_[next].first == row; ++next) {
      fresh.push_back(fresh_[next].second);
    }
    if (!fresh.isEmpty()) occupied.push_back(clients_[static_cast<size_t>(row)].id);
    if (fresh.isEmpty() && cell.slots.isEmpty()) continue;
    const bool moved = !SameSlots(fresh, cell.slots);
    bool busy_changed = false;
    if (!moved) {
      // The same slots: the client's busy count moves by what flipped here (a row whose slots
      // moved is counted again whole by RankRow).
      int delta = 0;
      for (qsizetype i = 0; i < fresh.size(); ++i) {
        delta += int(fresh[i].busy) - int(cell.slots[i].busy);
        busy_changed |= fresh[i].busy != cell.slots[i].busy;
      }
      clients_[static_cast<size_t>(row)].busy += delta;
    }
    cell.slots = fresh;
    for (const Slot& s : fresh) {
      ++totals.in_use;
      totals.busy += s.busy ? 1 : 0;
      totals.highest = std::max(totals.highest, static_cast<int>(s.slot));
    }
    if (moved) {
      if (!first_fill && !catching_up_) {
        cell.changed_ms = now;
        fading_.push_back({row, server});
      }
      row_dirty_[row] = kSlotsMoved;
      if (column >= 0) box.Touch(row, column);
    } else if (busy_changed) {
      row_dirty_[row] = std::max(row_dirty_[row], kBusyChanged);  // Busy count only.
    }
  }
}

void SlotMatrixModel::RankDirtyRows(ChangedCells& box) {
  for (int row = 0; row < ClientCount(); ++row) {
    if (!row_dirty_[row]) continue;
    // A busy flag alone changed the count DiffColumn kept; moved slots change the ranks.
    if (row_dirty_[row] == kSlotsMoved) RankRow(row);
    // The derived pool figures; and where slots moved, the ranks (colours) of its other cells.
    box.Touch(row, kPoolColumn);
    box.Touch(row, kBusyColumn);
    if (row_dirty_[row] == kSlotsMoved) box.TouchRow(row);
  }
}

// Fading cells repaint every frame until their highlight is over (once more, to clear it).
void SlotMatrixModel::TouchFadingCells(qint64 now, ChangedCells& box) {
  for (qsizetype i = 0; i < fading_.size();) {
    const auto [row, server] = fading_[i];
    if (ColumnOfServer(server) >= 0) box.Touch(row, ColumnOfServer(server));
    if (now - cells_[CellIndex(row, server)].changed_ms >= kHighlightMs) {
      fading_.removeAt(i);
    } else {
      ++i;
    }
  }
}

bool SlotMatrixModel::ForgetIdleClients() {
  const qint64 now = state_->NowMs();
  bool any = false;
  for (const Client& c : clients_) {
    any |= c.connections == 0 && now - c.last_seen_ms > kForgetClientMs;
  }
  if (!any) return false;
  beginResetModel();
  std::vector<Client> clients;
  std::vector<Cell> cells;
  for (int row = 0; row < ClientCount(); ++row) {
    const Client& c = clients_[static_cast<size_t>(row)];
    if (c.connections == 0 && now - c.last_seen_ms > kForgetClientMs) continue;
    clients.push_back(c);
    for (int s = 0; s < servers_; ++s) cells.push_back(cells_[CellIndex(row, s)]);
  }
  clients_ = std::move(clients);
  cells_ = std::move(cells);
  rows_.clear();
  for (int row = 0; row < ClientCount(); ++row) rows_.insert(clients_[size_t(row)].id, row);
  fading_.clear();
  row_dirty_.resize(ClientCount());
  endResetModel();
  return true;
}

}  // namespace railyard::ui
