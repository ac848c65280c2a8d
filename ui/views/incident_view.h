// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

class QLabel;
class QTableView;

namespace railyard::ui {

class IncidentModel;

// The Incidents tab: the cluster's timeline (IncidentModel), newest first, with an Export CSV
// button. A click on a row asks to show that moment (JumpRequested): the window seeks a replay
// there, or centres the live charts on it.
//
// Thread safety: GUI thread only.
class IncidentView : public QWidget {
  Q_OBJECT
 public:
  explicit IncidentView(IncidentModel* model, QWidget* parent = nullptr);
  QTableView* Table() const { return table_; }
  // Exports without a dialog (the button asks for the path).
  bool ExportCsv(const QString& path, QString* error) const;

 Q_SIGNALS:
  void JumpRequested(qint64 t_ms);

 private:
  IncidentModel* model_;
  QTableView* table_;
  QLabel* summary_;
};

}  // namespace railyard::ui
