// SPDX-License-Identifier: Apache-2.0
#include "ui/models/slot_matrix_totals.h"

#include "ui/models/slot_matrix_model.h"

namespace railyard::ui {

SlotMatrixTotalsModel::SlotMatrixTotalsModel(SlotMatrixModel* matrix, QObject* parent)
    : QAbstractTableModel(parent), matrix_(matrix), columns_(matrix->columnCount()) {
  // Any change of the matrix's columns resets this model: columns change rarely (a node added,
  // renamed or found to be a client), frames often.
  auto reset = [this] {
    beginResetModel();
    columns_ = matrix_->columnCount();
    endResetModel();
  };
  connect(matrix_, &QAbstractItemModel::modelReset, this, reset);
  connect(matrix_, &QAbstractItemModel::columnsInserted, this, reset);
  connect(matrix_, &QAbstractItemModel::columnsRemoved, this, reset);
  connect(matrix_, &QAbstractItemModel::layoutChanged, this, reset);
  connect(matrix_, &SlotMatrixModel::Updated, this, [this] {
    if (columns_ > 0) Q_EMIT dataChanged(index(0, 0), index(kRowCount - 1, columns_ - 1));
  });
}

int SlotMatrixTotalsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kRowCount;
}

int SlotMatrixTotalsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columns_;
}

QVariant SlotMatrixTotalsModel::ClientColumnTotal(int column, int row) const {
  if (row != kInUse) return {};
  if (column == SlotMatrixModel::kPoolColumn || column == SlotMatrixModel::kBusyColumn) {
    int sum = 0;
    for (int r = 0; r < matrix_->ClientCount(); ++r) {
      sum += column == SlotMatrixModel::kPoolColumn ? matrix_->PoolSize(r) : matrix_->BusyCount(r);
    }
    return sum;
  }
  double sum = 0;
  bool any = false;
  for (int r = 0; r < matrix_->ClientCount(); ++r) {
    const SlotMatrixModel::Client& c = matrix_->client(r);
    const double rate = column == SlotMatrixModel::kRetriesColumn      ? c.retries_per_s
                        : column == SlotMatrixModel::kRejectionsColumn ? c.rejections_per_s
                                                                       : c.failures_per_s;
    if (rate < 0) continue;
    sum += rate;
    any = true;
  }
  return any ? QVariant(QString::number(sum, 'f', sum < 10 ? 1 : 0)) : QVariant();
}

QVariant SlotMatrixTotalsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.column() >= matrix_->columnCount()) return {};
  if (role == Qt::TextAlignmentRole) return QVariant::fromValue(Qt::AlignCenter);
  const int server = matrix_->ServerOfColumn(index.column());
  if (role == SlotMatrixModel::kServerMarkRole) {
    return server >= 0 ? QVariant(matrix_->ServerMark(server)) : QVariant();
  }
  if (role == Qt::ToolTipRole && server >= 0) {
    return matrix_->headerData(index.column(), Qt::Horizontal, Qt::ToolTipRole);
  }
  if (role != Qt::DisplayRole) return {};
  if (server < 0) return ClientColumnTotal(index.column(), index.row());
  const SlotMatrixModel::ServerTotals& t = matrix_->Totals(server);
  const QString mark = matrix_->ServerMark(server);
  switch (index.row()) {
    case kInUse:
      return t.in_use;
    case kHighest:
      return t.highest >= 0 ? QVariant(t.highest) : QVariant(QStringLiteral("-"));
    case kBusyShare:
      if (!mark.isEmpty() && t.in_use == 0) return mark;
      if (t.in_use == 0) return QStringLiteral("-");
      return QStringLiteral("%1%").arg(qRound(100.0 * t.busy / t.in_use));
  }
  return {};
}

QVariant SlotMatrixTotalsModel::headerData(int section, Qt::Orientation orientation,
                                           int role) const {
  if (orientation != Qt::Vertical) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kInUse:
        return tr("in use");
      case kHighest:
        return tr("highest slot");
      case kBusyShare:
        return tr("busy");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kInUse:
        return tr("Slots held on each server by the clients listed (pools and busy: sums)");
      case kHighest:
        return tr("The highest slot number held on each server");
      case kBusyShare:
        return tr("Share of each server's connections busy now");
    }
  }
  return {};
}

}  // namespace railyard::ui
