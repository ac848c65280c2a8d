// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

#include "ui/models/cluster_state.h"

class QComboBox;
class QLabel;
class QTableView;

namespace railyard::ui {

class SlotMatrixModel;
class SlotMatrixSortModel;
class SlotMatrixTotalsModel;
class ClientDetailModel;

// Slot allocations: the clients x servers matrix (clients sortable, a legend under it), the
// per-server totals under it column for column, and beside it the connections of the client
// selected in it. Columns are as wide as their header's name and three slot numbers need (server
// names past kMaxHeaderChars are elided in the middle, whole in the tooltip).
//
// Thread safety: GUI thread only.
class SlotMatrixView : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxHeaderChars = 20;

  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit SlotMatrixView(SlotMatrixModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit SlotMatrixView(ClusterState* state, QWidget* parent = nullptr);

  SlotMatrixModel* Model() const { return model_; }
  SlotMatrixSortModel* SortModel() const { return sort_; }
  SlotMatrixTotalsModel* TotalsModel() const { return totals_; }
  QTableView* Matrix() const { return matrix_; }
  QTableView* Totals() const { return totals_view_; }
  QComboBox* SortChoice() const { return sort_choice_; }
  // Shows one client's connections (a row of Model(), whatever the sort order).
  void SelectClient(int row);
  // The side panel: its title (the selected client and its counts) and its rows.
  QString DetailTitle() const;
  QTableView* Detail() const { return detail_view_; }

  // Hidden (another tab shown), the model skips its per-frame work; shown again, it catches up
  // before the first paint (see the model's SetActive).
  void setVisible(bool visible) override;

 private:
  QWidget* BuildMatrixSide();
  QWidget* BuildDetailSide();
  // Sizes columns of the matrix and the totals alike, from the header names.
  void ResizeAllColumns();
  void ResizeColumns(int first, int last);
  // Widens the client-name header of the matrix and the totals (never narrows) to fit rows.
  void FitRowHeaders(int first, int last);
  void SetRowHeaderWidth(int width);
  void FitDetailColumns();

  SlotMatrixModel* model_;
  SlotMatrixSortModel* sort_;
  SlotMatrixTotalsModel* totals_;
  ClientDetailModel* detail_;
  QTableView* matrix_;
  QTableView* totals_view_;
  QTableView* detail_view_;
  QLabel* detail_title_;
  QComboBox* sort_choice_;
  QWidget* detail_side_ = nullptr;
  int row_header_width_ = 0;
};

}  // namespace railyard::ui
