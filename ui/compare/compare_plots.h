// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include "ui/compare/recording_series.h"

class QCustomPlot;

namespace railyard::ui {

// The compare window's three stacked plots on one time axis (seconds from each recording's
// start): requests/s, errors + rejections/s and p99 latency (ms), each with A and B overlaid in
// their colours, gaps where nothing reported, and every event of both as a vertical line
// (labelled on the first plot). Zooming or panning one plot moves the others.
//
// Thread safety: GUI thread only.
class ComparePlots : public QWidget {
  Q_OBJECT
 public:
  explicit ComparePlots(QWidget* parent = nullptr);

  // A's and B's colour, and name ("A", "B").
  static QColor SideColor(int side);
  static constexpr const char* kSideName[2] = {"A", "B"};

  // Draws `node`'s series (empty: the cluster's) of `a` and `b` (either may be null: nothing
  // drawn for it). `fit_time` shows both whole spans; else the time range stays as zoomed.
  // REQUIRES: a and b outlive the next Show (the plots copy the points, not the events).
  void Show(const RecordingSeries* a, const RecordingSeries* b, const QString& node, bool fit_time);

  // 0: requests/s, 1: errors + rejections/s, 2: p99 latency (ms).
  QCustomPlot* Plot(int index) const { return plots_[index]; }
  // Events drawn (each a line on every plot).
  int EventMarks() const { return event_marks_; }

 private:
  void DrawSeries(int side, const RecordingSeries* series, const QString& node);
  void DrawEvents(const RecordingSeries* const series[2]);
  // Says so on the latency plot when neither recording measured any.
  void NoteMissingLatency(bool any_recording);

  QCustomPlot* plots_[3];
  int event_marks_ = 0;
};

}  // namespace railyard::ui
