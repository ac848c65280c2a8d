// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "ui/compare/compare_plots.h"
#include "ui/compare/compare_summary.h"
#include "ui/compare/recording_series.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace railyard::ui {

class RecordingLoader;

// Two recordings side by side on one time axis (for instance one scenario simulated under two
// policies with `railyardctl sim --record`): each is placed at its own start (time 0 is the first
// thing it recorded), and stacked plots overlay A and B for requests/s, errors + rejections/s and
// p99 latency, for the whole cluster or one node. A table sums each recording up (span, nodes,
// total requests, failed share, p50/p99 over the span; compare_summary.h) with B/A ratios; the
// events of both are marked on the plots (A and B in their colours) and listed. Export writes the
// plots as PNG or the shown series as CSV.
//
// Each recording is read once, whole, into compact series (RecordingSeries: bounded memory) on a
// loader thread with a progress bar; the files are opened read-only and left as they were.
// Problems (no such file, not a recording, a damaged file) are shown in the window.
//
// Thread safety: GUI thread only.
class CompareWindow : public QWidget {
  Q_OBJECT
 public:
  enum Side { kA = 0, kB = 1 };

  explicit CompareWindow(QWidget* parent = nullptr);
  ~CompareWindow() override;

  // Loads both (as the Compare button does with the two paths); LoadFinished() follows.
  void Open(const QString& a, const QString& b);
  bool Loading() const;
  // Null until that side loaded, and after it failed.
  const RecordingSeries* series(int side) const { return series_[side].get(); }
  // The problems of the last load, one line per side that failed; empty if none.
  QString ErrorText() const;

  // An empty name for the whole cluster, else a node of A or B.
  void SetNode(const QString& node);
  QString Node() const { return node_; }
  // What the node picker offers after "Whole cluster": every node of A and B, in order.
  QStringList NodeChoices() const;

  // The shown series' summary of one side (zeroes if it is not loaded).
  SeriesSummary Summary(int side) const;
  QTableWidget* SummaryTable() const { return summary_; }
  QTableWidget* EventsTable() const { return events_; }
  // 0: requests/s, 1: errors + rejections/s, 2: p99 latency (ms).
  QCustomPlot* Plot(int index) const { return plots_->Plot(index); }
  // Events marked on the plots.
  int EventMarks() const { return plots_->EventMarks(); }

  bool ExportPng(const QString& path, QString* error) const;
  // One line per time bucket: offset_s, then A and B for each figure; empty cells for a gap or a
  // side without that node.
  bool ExportCsv(const QString& path, QString* error) const;

 Q_SIGNALS:
  // Both sides finished loading, each loaded or failed.
  void LoadFinished();

 private:
  void StartLoad();
  void OnLoaded(int side, std::shared_ptr<const RecordingSeries> series);
  void OnFailed(int side, const QString& error);
  void OnSideDone();
  void RebuildNodePicker();
  // Redraws what is shown; `fit_time` shows both recordings' whole span, else the time range
  // stays as zoomed.
  void Redraw(bool fit_time = true);
  void FillSummary();
  void FillEvents();
  void UpdateErrors();
  void Browse(int side);
  void ExportPngInteractive();
  void ExportCsvInteractive();

  QLineEdit* path_[2];
  QPushButton* browse_[2];
  QPushButton* compare_;
  QProgressBar* progress_[2];
  QLabel* errors_;
  QLabel* legend_;
  QComboBox* node_picker_;
  QPushButton* png_;
  QPushButton* csv_;
  ComparePlots* plots_;
  QTableWidget* summary_;
  QTableWidget* events_;
  RecordingLoader* loaders_[2];
  std::shared_ptr<const RecordingSeries> series_[2];
  QString error_[2];
  QString node_;
};

}  // namespace railyard::ui
