// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace railyard::ui {

class AuditLog;
class AuditLogModel;

// The audit log as a table, newest first, with a search box (any field) and node and action
// filters. Refreshes when asked (ActionController asks after each action); the model inserts the
// new rows, so the table keeps its selection.
//
// Thread safety: GUI thread only. `log` must outlive the view.
class AuditLogView : public QWidget {
  Q_OBJECT
 public:
  AuditLogView(const AuditLog* log, QWidget* parent = nullptr);

  QLineEdit* SearchBox() const { return search_; }
  QComboBox* NodeFilter() const { return node_; }
  QComboBox* ActionFilter() const { return action_; }
  QTableView* Table() const { return table_; }
  AuditLogModel* Model() const { return model_; }

 public Q_SLOTS:
  void Refresh();

 private:
  void RefillFilters();

  const AuditLog* log_;
  QLineEdit* search_;
  QComboBox* node_;
  QComboBox* action_;
  QLabel* status_;
  AuditLogModel* model_;
  QTableView* table_;
};

}  // namespace railyard::ui
