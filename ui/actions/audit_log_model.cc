// SPDX-License-Identifier: Apache-2.0
#include "ui/actions/audit_log_model.h"

#include <QColor>
#include <QDateTime>
#include <algorithm>

namespace railyard::ui {

namespace {

// AuditLog::Search's order: newest first, then highest id; ids are unique.
bool ComesBefore(const AuditEntry& a, const AuditEntry& b) {
  return a.unix_ms != b.unix_ms ? a.unix_ms > b.unix_ms : a.id > b.id;
}

bool SameRow(const AuditEntry& a, const AuditEntry& b) {
  return a.id == b.id && a.unix_ms == b.unix_ms && a.user == b.user && a.node_name == b.node_name &&
         a.node_address == b.node_address && a.action == b.action && a.detail == b.detail &&
         a.result == b.result && a.ok == b.ok;
}

}  // namespace

AuditLogModel::AuditLogModel(const AuditLog* log, QObject* parent)
    : QAbstractTableModel(parent), log_(log) {
  Refresh();
}

int AuditLogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int AuditLogModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant AuditLogModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const AuditEntry& e = rows_[index.row()];
  if (role == Qt::ForegroundRole) {
    if (index.column() == kResult && !e.ok) return QColor(0xc6, 0x28, 0x28);
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kTime:
      return QDateTime::fromMSecsSinceEpoch(e.unix_ms).toString(
          QStringLiteral("yyyy-MM-dd hh:mm:ss"));
    case kUser:
      return e.user;
    case kNode:
      return e.node_name;
    case kAddress:
      return e.node_address;
    case kAction:
      return e.action;
    case kDetail:
      return e.detail;
    case kResult:
      return e.result;
  }
  return {};
}

QVariant AuditLogModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  switch (section) {
    case kTime:
      return tr("Time");
    case kUser:
      return tr("User");
    case kNode:
      return tr("Node");
    case kAddress:
      return tr("Address");
    case kAction:
      return tr("Action");
    case kDetail:
      return tr("Detail");
    case kResult:
      return tr("Result");
  }
  return {};
}

void AuditLogModel::SetQuery(const AuditQuery& query) {
  query_ = query;
  Refresh();
}

void AuditLogModel::Refresh() {
  error_.clear();
  Sync(log_->Search(query_, &error_));
}

void AuditLogModel::Sync(const QVector<AuditEntry>& fresh) {
  // Both lists are in the same order, so one merging walk finds what to remove (rows no longer
  // matched or beyond the limit) and what to insert (new rows), in runs.
  int row = 0;
  qsizetype next = 0;
  while (row < rows_.size() || next < fresh.size()) {
    const auto stale = [&](int r) {
      return next == fresh.size() || ComesBefore(rows_[r], fresh[next]);
    };
    const auto added = [&](qsizetype n) {
      return row == rows_.size() || ComesBefore(fresh[n], rows_[row]);
    };
    if (row < rows_.size() && stale(row)) {
      int last = row;
      while (last + 1 < rows_.size() && stale(last + 1)) ++last;
      beginRemoveRows({}, row, last);
      rows_.remove(row, last - row + 1);
      endRemoveRows();
    } else if (added(next)) {
      qsizetype end = next + 1;
      while (end < fresh.size() && added(end)) ++end;
      beginInsertRows({}, row, row + int(end - next) - 1);
      rows_.insert(row, end - next, AuditEntry{});
      std::copy(fresh.begin() + next, fresh.begin() + end, rows_.begin() + row);
      endInsertRows();
      row += int(end - next);
      next = end;
    } else {  // The same entry. Rows are never edited; a changed one means the file was replaced.
      if (!SameRow(rows_[row], fresh[next])) {
        rows_[row] = fresh[next];
        Q_EMIT dataChanged(index(row, 0), index(row, kColumnCount - 1));
      }
      ++row;
      ++next;
    }
  }
}

}  // namespace railyard::ui
