#pragma once

#include <QWidget>

#include "ui/models/bloom_model.h"
#include "ui/models/cluster_state.h"

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPGraph;
class QLabel;
class QProgressBar;

namespace railyard::ui {

// Bloom page usefulness of one node: a heatmap of index (rows, newest on top, labelled with the
// index's P(no)) x page, coloured by usefulness (recent requests x P(no)); resident pages carry a
// mark; the memory budget and its use above. Hovering a cell shows that page's figures.
//
// Thread safety: GUI thread only.
class BloomView : public QWidget {
  Q_OBJECT
 public:
  explicit BloomView(ClusterState* state, QWidget* parent = nullptr);

  void SetNode(int node_index);
  int Node() const { return model_->Node(); }

  BloomModel* Model() const { return model_; }
  QCustomPlot* Plot() const { return plot_; }
  QCPColorMap* ColorMap() const { return map_; }
  QCPGraph* ResidentMarks() const { return resident_; }
  QString BudgetText() const;
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
  QCustomPlot* plot_;
  QCPColorMap* map_;
  QCPColorScale* scale_;
  QCPGraph* resident_;
  bool dirty_ = false;
};

}  // namespace railyard::ui
