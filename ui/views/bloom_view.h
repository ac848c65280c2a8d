// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

#include "ui/models/bloom_model.h"
#include "ui/models/cluster_state.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QCPItemLine;
class QLabel;
class QProgressBar;

namespace railyard::ui {

// Bloom page usefulness of one node: a heatmap of index (rows, newest on top, labelled with the
// index's P(no)) x page, coloured by usefulness (recent requests x P(no)) on one scale for the
// whole session (BloomModel::ScaleMax); resident pages carry a mark; the eviction cut-off is a
// line on the colour bar and a sentence below the budget. Hovering a cell shows that page's
// figures and why it is not resident. No pages, or only useless ones, is said in words.
//
// Thread safety: GUI thread only.
class BloomView : public QWidget {
  Q_OBJECT
 public:
  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit BloomView(BloomModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit BloomView(ClusterState* state, QWidget* parent = nullptr);

  void SetNode(int node_index);
  int Node() const { return model_->Node(); }

  BloomModel* Model() const { return model_; }
  QCustomPlot* Plot() const { return plot_; }
  QCPColorMap* ColorMap() const { return map_; }
  QCPGraph* ResidentMarks() const { return resident_; }
  QCPColorScale* ColorScale() const { return scale_; }
  QCPItemLine* CutoffLine() const { return cutoff_line_; }  // Hidden with no cut-off.
  QString BudgetText() const;
  // The empty state or the cut-off, in words (the line under the budget).
  QString StateText() const;
  // The grid cell under a point in plot coordinates (row, page); false outside the grid.
  bool CellAt(const QPoint& plot_pos, int* row, int* page) const;
  // The tooltip text for a point in plot coordinates (empty where there is no page).
  QString ToolTipAt(const QPoint& plot_pos) const;
  // The centre of a cell in plot coordinates (for tests and keyboard hover).
  QPoint CellCenter(int row, int page) const;

 protected:
  void showEvent(QShowEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void Refresh();

  BloomModel* model_;
  QLabel* title_;
  QProgressBar* budget_;
  QLabel* state_;
  QCustomPlot* plot_;
  QCPColorMap* map_;
  QCPColorScale* scale_;
  QCPGraph* resident_;
  QCPItemLine* cutoff_line_;
  bool dirty_ = false;
};

}  // namespace railyard::ui
