// SPDX-License-Identifier: Apache-2.0
#include "ui/models/slot_matrix_client_detail.h"

#include <algorithm>

#include "ui/models/palette.h"

namespace railyard::ui {

ClientDetailModel::ClientDetailModel(SlotMatrixModel* matrix, ClusterState* state, QObject* parent)
    : QAbstractTableModel(parent), matrix_(matrix), state_(state) {
  connect(matrix_, &SlotMatrixModel::Updated, this, &ClientDetailModel::Refresh);
  connect(matrix_, &QAbstractItemModel::modelReset, this, &ClientDetailModel::Refresh);
}

void ClientDetailModel::SetClientId(quint64 id) {
  id_ = id;
  Refresh();
}

void ClientDetailModel::Refresh() {
  QVector<Row> rows;
  const int row = id_ != 0 ? matrix_->RowOfClient(id_) : -1;
  // A client gone from the matrix is no longer selected: its rows must not come back under
  // another title when a later frame (after a seek) brings it back.
  if (row < 0) id_ = 0;
  if (row >= 0) {
    for (int s = 0; s < matrix_->ServerCount(); ++s) {
      for (const SlotMatrixModel::Slot& slot : matrix_->cell(row, s).slots)
        rows.push_back({s, slot});
    }
    std::sort(rows.begin(), rows.end(),
              [](const Row& a, const Row& b) { return a.slot.slot < b.slot.slot; });
  }
  if (rows.size() != rows_.size()) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
  } else {
    rows_ = std::move(rows);
    if (!rows_.isEmpty()) {
      Q_EMIT dataChanged(index(0, 0), index(rows_.size() - 1, kColumnCount - 1));
    }
  }
  Q_EMIT Refreshed();
}

int ClientDetailModel::BusyRows() const {
  return static_cast<int>(
      std::count_if(rows_.begin(), rows_.end(), [](const Row& r) { return r.slot.busy; }));
}

QString ClientDetailModel::Summary() const {
  const int row = id_ != 0 ? matrix_->RowOfClient(id_) : -1;
  if (row < 0) return tr("Select a client to list its connections");
  return tr("%1: pool %2, %3 connected, %4 busy")
      .arg(matrix_->client(row).name)
      .arg(matrix_->PoolSize(row))
      .arg(rows_.size())
      .arg(BusyRows());
}

int ClientDetailModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int ClientDetailModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ClientDetailModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const Row& r = rows_[index.row()];
  if (role == Qt::BackgroundRole && index.column() == kSlot) {
    return RankColor(index.row(), static_cast<int>(rows_.size()));
  }
  if (role == Qt::ForegroundRole && index.column() == kSlot) return QColor(Qt::black);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kServer:
      return r.server < matrix_->ServerCount() ? matrix_->ServerName(r.server) : QString();
    case kSlot:
      return r.slot.slot;
    case kBusy:
      return r.slot.busy ? tr("busy") : tr("idle");
    case kRequests:
      return static_cast<qulonglong>(r.slot.requests);
    case kSince: {
      if (r.slot.connected_since_ms <= 0) return QString();
      const qint64 age_s = std::max<qint64>(0, state_->NowMs() - r.slot.connected_since_ms) / 1000;
      return QStringLiteral("%1 s ago").arg(age_s);
    }
  }
  return {};
}

QVariant ClientDetailModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kServer:
      return tr("Server");
    case kSlot:
      return tr("Slot");
    case kBusy:
      return tr("State");
    case kRequests:
      return tr("Requests");
    case kSince:
      return tr("Connected");
  }
  return {};
}

}  // namespace railyard::ui
