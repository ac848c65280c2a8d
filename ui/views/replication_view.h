// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QWidget>
#include <memory>
#include <optional>

#include "ui/models/cluster_state.h"
#include "ui/models/replication_lag_model.h"
#include "ui/views/time_window.h"

class QComboBox;
class QCustomPlot;
class QCPGraph;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace railyard::ui {

class PlotEventMarks;
class ReplicationModel;
class ThroughputModel;
class TimeRangeDialog;

// Replication across the cluster: a sortable table with a row per updater and replica
// (ReplicationModel; a replica's catch-up progress drawn as a bar while it catches up) and a plot
// of each replica's lag over a window of 1 minute to 24 hours (5 minutes at first), in documents
// or in seconds (a toggle); its time axis zooms and pans as Throughput's does (TimeAxisDrag).
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
  static constexpr qint64 kMinWindowMs = 30 * 1000;
  // Past this many replicas (or as many as fit), the plot's legend lists those with the highest
  // lag (an unknown lag first), and the selected one, under a line saying how many more there are;
  // the others are drawn fainter. Who is listed is decided again every kLegendRerankMs (cluster
  // time), on a new replica or selection, or a jump back in time: entries that swap at 10 Hz
  // cannot be read. At 47 replicas a legend of every one covered half the plot.
  static constexpr int kMaxLegendReplicas = 8;
  static constexpr qint64 kLegendRerankMs = 5 * 1000;

  // Draws `model` and `lag` (on one ClusterState), which the console's session owns and which
  // must outlive the view.
  ReplicationView(ReplicationModel* model, ReplicationLagModel* lag, QWidget* parent = nullptr);
  ~ReplicationView() override;
  // With models of its own on `state` (tests, a view outside the console).
  explicit ReplicationView(ClusterState* state, QWidget* parent = nullptr);

  void SetLagUnit(LagUnit unit);
  // The plot's window: one of ThroughputModel::kWindowChoicesMinutes (default 5), else refused.
  // Past 15 minutes it draws each replica's coarse series (10 s buckets, their highest lag).
  bool SetWindowMinutes(int minutes);
  int WindowMinutes() const { return window_minutes_; }
  QComboBox* WindowBox() const { return window_box_; }
  // Whether the plot draws the 10 s buckets: following, past a 15-minute window; held on a range,
  // where the range reaches back past the 15 minutes kept in full.
  bool Coarse() const { return coarse_; }
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
  // Stops following and shows [from_ms, to_ms] (cluster clock; at least TimeAxisDrag's least
  // range): from the 10 s buckets where it reaches back past the full series, so that what is
  // drawn holds the range. The window stays as chosen, for when it follows again.
  void ShowRange(qint64 from_ms, qint64 to_ms);
  // What is shown when not following; nullopt while following.
  std::optional<TimeWindow> FixedRange() const;
  // Opens the custom range dialog (window-modal; OK calls ShowRange) and returns it.
  TimeRangeDialog* AskRange();
  // Marks the moments of `events` (ThroughputModel's list: commands, restarts, lame ducks, down
  // and up, alerts) of the nodes that take part in replication on the lag plot, as on the
  // Throughput charts. `events` must outlive the view; null: no marks.
  void SetEvents(const ThroughputModel* events);
  // The lag graph of ClusterState node `node`; null if it has none (for tests).
  QCPGraph* GraphOf(int node) const { return graphs_.value(node); }
  // The legend's entries as shown, top to bottom: replicas' names, then the note on those left out
  // (if any).
  QStringList LegendTexts() const;

 Q_SIGNALS:
  void NodeSelected(int node_index);

 protected:
  void showEvent(QShowEvent* event) override;
  void changeEvent(QEvent* event) override;  // A new palette: the faint graphs' mix again.

 private:
  void OnSamples();
  void Rebuild();
  void AppendNew();
  void ApplyRange();
  qint64 WindowMs() const { return qint64(window_minutes_) * 60 * 1000; }
  // What the plot draws of `node`: its full series, or its coarse one.
  const ReplicationLagModel::Series& Drawn(int node) const;
  // Draws the other series (Rebuild) if the window or held range now wants the other; true if
  // it did.
  bool UpdateCoarse();
  // What the time axis shows (Unix ms).
  TimeWindow ShownRange() const;
  // The lag axis from zero to above the highest visible point.
  void FitValues();
  void UpdateSummary();
  // Draws the marks again when the events or the axis' scale changed; else shows those within
  // the axis.
  void UpdateMarks();
  // Lists the replicas the legend has room for (kMaxLegendReplicas), re-ranked as the class
  // comment says.
  void UpdateLegend();

  ClusterState* const state_;
  ReplicationModel* model_;
  ReplicationLagModel* lag_;
  QSortFilterProxyModel* proxy_;
  QLabel* summary_;
  QComboBox* unit_box_;
  QComboBox* window_box_;
  int window_minutes_ = 5;
  QTableView* table_;
  QCustomPlot* plot_;
  LagUnit unit_ = LagUnit::kDocs;
  QHash<int, QCPGraph*> graphs_;       // Per replica node.
  QHash<int, QColor> series_colors_;   // Each graph's own colour, before any fading.
  QHash<int, qint64> drawn_until_ms_;  // Per replica node: the newest sample in its graph.
  bool behind_ = false;
  bool following_ = true;
  bool coarse_ = false;
  qint64 held_reach_ms_ = 0;  // Held on a range: from its start to the newest sample.
  const ThroughputModel* events_ = nullptr;
  std::unique_ptr<PlotEventMarks> marks_;
  quint64 marks_revision_ = 0;
  bool marks_stale_ = true;
  int selected_node_ = -1;  // The table's current row's node.
  // The last ranking: when (cluster time; -1: none since the graphs were built), of how many
  // replicas into how many rows, with which selected.
  qint64 ranked_at_ms_ = -1;
  int ranked_replicas_ = -1;
  int ranked_rows_ = -1;
  int ranked_selected_ = -1;
};

}  // namespace railyard::ui
