// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QWidget>

#include "ui/models/cluster_state.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;

namespace railyard::ui {

class OverviewModel;
class OverviewFilterModel;

// The cluster overview: one sortable row per node, a name filter and a state filter. Selecting
// a row tells the window which node the per-node views show.
class OverviewView : public QWidget {
  Q_OBJECT
 public:
  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit OverviewView(OverviewModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit OverviewView(ClusterState* state, QWidget* parent = nullptr);

  OverviewModel* Model() const { return model_; }
  QTableView* Table() const { return table_; }
  QLineEdit* NameFilter() const { return name_filter_; }
  // "No node matches ...": shown while the filters hide every node.
  QLabel* NoMatches() const { return no_matches_; }
  // Makes a node's row (ClusterState index) current and the only one selected, without emitting
  // NodeSelected; nothing changes if it is current already (a selection of several stays).
  void SetNode(int node_index);
  // The nodes (ClusterState indexes) whose rows are selected.
  QVector<int> SelectedNodes() const;

 Q_SIGNALS:
  void NodeSelected(int node_index);
  // The rows selected changed (several may be: Ctrl or Shift and a click).
  void NodesSelected(const QVector<int>& node_indexes);

 private:
  OverviewModel* model_;
  OverviewFilterModel* filter_;
  QLineEdit* name_filter_;
  QComboBox* state_filter_;
  QTableView* table_;
  QLabel* no_matches_;
  bool selecting_ = false;
};

}  // namespace railyard::ui
