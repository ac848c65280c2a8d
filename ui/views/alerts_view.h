// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace railyard::ui {

class AlertModel;

// The Alerts tab: a line saying how many alerts fire and which rules are in force, what fires or
// is pending now, and every change since the cluster was opened (newest first).
//
// Thread safety: GUI thread only.
class AlertsView : public QWidget {
  Q_OBJECT
 public:
  explicit AlertsView(AlertModel* model, QWidget* parent = nullptr);

  // "2 firing, 1 pending; 12 rules (built-in)", as shown above the tables.
  QString Summary() const;
  QTableView* ActiveTable() const { return active_; }
  QTableView* HistoryTable() const { return history_; }

 private:
  void Refresh();

  AlertModel* model_;
  QLabel* summary_;
  QTableView* active_;
  QTableView* history_;
};

}  // namespace railyard::ui
