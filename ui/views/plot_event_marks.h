// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>
#include <QString>
#include <QVector>

class QCustomPlot;
class QCPAbstractItem;

namespace railyard::ui {

struct EventMark {
  double key = 0;  // On the plots' time axis (seconds).
  QString label;
  QColor color;
};

// Labelled dashed vertical lines at event times on every plot of a stack that shares one time
// axis: commands, restarts, lame-duck changes. Draw replaces what was drawn before. A label that
// would cover an earlier one (events at one instant, or close at this scale) goes a row lower;
// the rows hold while the axis keeps its scale (ScaleChanged: draw again). Labels have the
// chart's background behind them; only those whose line is within the time axis show
// (ShowWithin after the axis moves).
//
// Thread safety: GUI thread only. The plots must outlive it.
class PlotEventMarks {
 public:
  explicit PlotEventMarks(const QVector<QCustomPlot*>& plots) : plots_(plots) {}
  PlotEventMarks(const PlotEventMarks&) = delete;
  PlotEventMarks& operator=(const PlotEventMarks&) = delete;

  void Draw(const QVector<EventMark>& marks);
  void Clear();
  // Shows the labels of the marks within the time axis' range, hides the others. Cheap (no item
  // is made): call it whenever the axis moved without a Draw.
  void ShowWithin();
  // True once the time axis shows a different span per pixel than at the last Draw.
  bool ScaleChanged() const;

 private:
  double SecondsPerPixel() const;
  // Each mark's row: the first whose last label ends left of this one.
  QVector<int> Rows(const QVector<EventMark>& marks) const;

  QVector<QCustomPlot*> plots_;
  double drawn_seconds_per_pixel_ = 0;
  QVector<QCPAbstractItem*> items_;  // Lines, labels and anchors, on all the plots.
  QVector<QCPAbstractItem*> labels_;
  QVector<double> keys_;  // Of each of labels_.
};

}  // namespace railyard::ui
