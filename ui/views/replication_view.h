// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QWidget>

#include "ui/models/cluster_state.h"

class QComboBox;
class QCustomPlot;
class QCPGraph;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace railyard::ui {

class ReplicationLagModel;
class ReplicationModel;

// Replication across the cluster: a sortable table with a row per updater and replica
// (ReplicationModel; a replica's catch-up progress drawn as a bar while it catches up) and a plot
// of each replica's lag over the last five minutes, in documents or in seconds (a toggle); its
// time axis zooms and pans as Throughput's does (TimeAxisDrag), over the 15 minutes kept.
// Selecting a row tells the window which node the per-node views show.
//
// Cheap at 10 Hz: the plot appends only new samples and asks for a queued replot; a hidden view
// only notes that it is behind and catches up when shown.
//
// Thread safety: GUI thread only.
class ReplicationView : public QWidget {
  Q_OBJECT
 public:
  enum class LagUnit { kDocs, kSeconds };
  static constexpr qint64 kWindowMs = 5 * 60 * 1000;
  static constexpr qint64 kMinWindowMs = 30 * 1000;

  // Draws `model` and `lag` (on one ClusterState), which the console's session owns and which
  // must outlive the view.
  ReplicationView(ReplicationModel* model, ReplicationLagModel* lag, QWidget* parent = nullptr);
  // With models of its own on `state` (tests, a view outside the console).
  explicit ReplicationView(ClusterState* state, QWidget* parent = nullptr);

  void SetLagUnit(LagUnit unit);
  LagUnit Unit() const { return unit_; }

  ReplicationModel* Model() const { return model_; }
  ReplicationLagModel* LagModel() const { return lag_; }
  QTableView* Table() const { return table_; }  // Shows Model() through a sorting proxy.
  QComboBox* UnitBox() const { return unit_box_; }
  QCustomPlot* LagPlot() const { return plot_; }
  QString Summary() const;
  // Whether the plot follows the newest samples; a drag or a wheel turn on it stops that, a
  // double-click or Follow() resumes.
  bool Following() const { return following_; }
  void Follow();
  // The lag graph of ClusterState node `node`; null if it has none (for tests).
  QCPGraph* GraphOf(int node) const { return graphs_.value(node); }

 Q_SIGNALS:
  void NodeSelected(int node_index);

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void OnSamples();
  void Rebuild();
  void AppendNew();
  void ApplyRange();
  // The lag axis from zero to above the highest visible point.
  void FitValues();
  void UpdateSummary();

  ClusterState* const state_;
  ReplicationModel* model_;
  ReplicationLagModel* lag_;
  QSortFilterProxyModel* proxy_;
  QLabel* summary_;
  QComboBox* unit_box_;
  QTableView* table_;
  QCustomPlot* plot_;
  LagUnit unit_ = LagUnit::kDocs;
  QHash<int, QCPGraph*> graphs_;       // Per replica node.
  QHash<int, qint64> drawn_until_ms_;  // Per replica node: the newest sample in its graph.
  bool behind_ = false;
  bool following_ = true;
};

}  // namespace railyard::ui
