#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace railyard::ui {

class AuditLog;

// The audit log as a table, newest first, with a search box (any field) and node and action
// filters. Refreshes when asked (ActionController asks after each action).
//
// Thread safety: GUI thread only. `log` must outlive the view.
class AuditLogView : public QWidget {
  Q_OBJECT
 public:
  AuditLogView(const AuditLog* log, QWidget* parent = nullptr);

  QLineEdit* searchBox() const { return search_; }
  QComboBox* nodeFilter() const { return node_; }
  QComboBox* actionFilter() const { return action_; }
  QTableWidget* table() const { return table_; }

 public Q_SLOTS:
  void refresh();

 private:
  void RefillFilters();

  const AuditLog* log_;
  QLineEdit* search_;
  QComboBox* node_;
  QComboBox* action_;
  QLabel* status_;
  QTableWidget* table_;
};

}  // namespace railyard::ui
