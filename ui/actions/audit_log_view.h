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

  QLineEdit* searchBox() const { return search_; }
  QComboBox* nodeFilter() const { return node_; }
  QComboBox* actionFilter() const { return action_; }
  QTableView* table() const { return table_; }
  AuditLogModel* model() const { return model_; }

 public Q_SLOTS:
  void refresh();

 private:
  void refillFilters();

  const AuditLog* log_;
  QLineEdit* search_;
  QComboBox* node_;
  QComboBox* action_;
  QLabel* status_;
  AuditLogModel* model_;
  QTableView* table_;
};

}  // namespace railyard::ui
