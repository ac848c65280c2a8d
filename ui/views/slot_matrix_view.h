#pragma once

#include <QWidget>

#include "ui/models/cluster_state.h"

class QLabel;
class QTableView;

namespace railyard::ui {

class SlotMatrixModel;
class ClientDetailModel;

// Slot allocations: the clients x servers matrix and, beside it, the connections of the client
// selected in it.
class SlotMatrixView : public QWidget {
  Q_OBJECT
 public:
  explicit SlotMatrixView(ClusterState* state, QWidget* parent = nullptr);

  SlotMatrixModel* Model() const { return model_; }
  QTableView* Matrix() const { return matrix_; }
  // Shows one client's connections (a row of the matrix).
  void SelectClient(int row);
  // The side panel: its title (the selected client and its counts) and its rows.
  QString DetailTitle() const;
  QTableView* Detail() const { return detail_view_; }

 private:
  SlotMatrixModel* model_;
  ClientDetailModel* detail_;
  QTableView* matrix_;
  QTableView* detail_view_;
  QLabel* detail_title_;
};

}  // namespace railyard::ui
