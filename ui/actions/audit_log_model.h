// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVector>

#include "ui/actions/audit_log.h"

namespace railyard::ui {

// The rows of an audit log that match a query, newest first, as a table: time, user, node,
// address, action, detail and result (Qt::ForegroundRole marks a result that was not OK).
//
// SetQuery() and Refresh() search the log again and bring the rows in line with the answer by
// inserting and removing rows (beginInsertRows, beginRemoveRows), never by a reset: an appended
// action is one inserted row, so a view keeps its selection and scroll position.
//
// Thread safety: GUI thread only. `log` must outlive the model.
class AuditLogModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTime, kUser, kNode, kAddress, kAction, kDetail, kResult, kColumnCount };

  explicit AuditLogModel(const AuditLog* log, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  const AuditQuery& Query() const { return query_; }
  void SetQuery(const AuditQuery& query);
  // Searches again with the same query (the log has grown).
  void Refresh();
  // Why the last search failed; empty when it did not.
  const QString& ErrorString() const { return error_; }
  const AuditEntry& Entry(int row) const { return rows_[row]; }

 private:
  void Sync(const QVector<AuditEntry>& fresh);

  const AuditLog* const log_;
  AuditQuery query_;
  QVector<AuditEntry> rows_;  // In the log's search order: newest first, then highest id.
  QString error_;
};

}  // namespace railyard::ui
