#pragma once

#include <QVector>
#include <QWidget>

#include "ui/models/cluster_state.h"
#include "ui/models/throughput_model.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPAbstractItem;
class QCPGraph;
class QCPRange;
class QLabel;
class QPushButton;

namespace railyard::ui {

// Live throughput of one node or the whole cluster: requests/s, errors/s and rejections/s, and
// p50/p99 latency, as line charts over a scrolling window of 1, 5 or 15 minutes. Each series'
// legend entry reads its current value and its mean and max over the visible range; latency has
// a gap (not a line through zero) where the node served nothing; every plot marks the commands
// the shown nodes ran (drain, undrain, compact, flush) with a labelled vertical line. Pause freezes
// the picture (samples keep being recorded); dragging or the wheel zooms and pans the time axis
// (and stops following until "Follow" is pressed). Export writes the charts as PNG or the visible
// samples as CSV.
//
// It stays cheap at 10 Hz: each frame appends only new samples and asks for a queued replot; a
// hidden or paused view does nothing but note that it is behind.
//
// Thread safety: GUI thread only.
class ThroughputView : public QWidget {
  Q_OBJECT
 public:
  explicit ThroughputView(ClusterState* state, QWidget* parent = nullptr);

  // ThroughputModel::kCluster (-1) for the whole cluster. While "Whole cluster" is ticked the
  // view keeps showing the cluster and remembers the node for when it is unticked.
  void SetNode(int node_index);
  void SetWholeCluster(bool whole);
  bool WholeCluster() const;
  int Node() const { return node_; }
  bool SetWindowMinutes(int minutes);
  int WindowMinutes() const { return model_->WindowMinutes(); }
  void SetPaused(bool paused);
  bool Paused() const { return paused_; }
  // Follow the newest samples again after a zoom or pan.
  void Follow();
  bool Following() const { return following_; }

  // The visible time range (cluster clock, ms).
  qint64 VisibleFromMs() const;
  qint64 VisibleToMs() const;
  bool ExportPng(const QString& path, QString* error) const;
  bool ExportCsv(const QString& path, QString* error) const;

  ThroughputModel* Model() const { return model_; }
  QCustomPlot* RatesPlot() const { return plots_[0]; }
  QString Title() const;
  QCustomPlot* ErrorsPlot() const { return plots_[1]; }
  QCustomPlot* LatencyPlot() const { return plots_[2]; }
  // Points drawn so far in the requests/s graph (for tests).
  int DrawnSamples() const;
  // Replots requested since construction (queued replots coalesce; for tests).
  int ReplotRequests() const { return replot_requests_; }

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void OnSamples();
  void Rebuild();
  void UpdateTitle();
  void AppendNew();
  void ApplyRange();
  // Redraws the event marks if the model's events or the shown node changed.
  void UpdateEventMarks();
  // Each graph's legend name with its current, mean and max over the visible range.
  void UpdateLegends();
  void SyncRanges(const QCPRange& range);
  void ExportPngInteractive();
  void ExportCsvInteractive();

  ClusterState* state_;
  ThroughputModel* model_;
  int node_ = ThroughputModel::kCluster;
  int selected_node_ = ThroughputModel::kCluster;  // The node chosen outside this view.
  QCheckBox* whole_cluster_;
  QLabel* title_;
  QComboBox* window_;
  QPushButton* pause_;
  QPushButton* follow_;
  QPushButton* png_;
  QPushButton* csv_;
  QCustomPlot* plots_[3];
  QCPGraph* requests_;
  QCPGraph* errors_;
  QCPGraph* rejections_;
  QCPGraph* p50_;
  QCPGraph* p99_;
  QVector<QCPAbstractItem*> marks_;  // Lines and labels, on all three plots.
  quint64 marks_revision_ = 0;
  int marks_node_ = -2;         // Neither a node nor kCluster: nothing drawn yet.
  qint64 drawn_until_ms_ = -1;  // Newest sample already in the graphs.
  bool paused_ = false;
  bool following_ = true;
  bool behind_ = false;  // New samples arrived while hidden or paused.
  bool syncing_ = false;
  bool applying_range_ = false;
  int replot_requests_ = 0;
};

}  // namespace railyard::ui
