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
// axis: commands, restarts, lame-duck changes. Draw replaces what was drawn before.
//
// Thread safety: GUI thread only. The plots must outlive it.
class PlotEventMarks {
 public:
  explicit PlotEventMarks(const QVector<QCustomPlot*>& plots) : plots_(plots) {}
  PlotEventMarks(const PlotEventMarks&) = delete;
  PlotEventMarks& operator=(const PlotEventMarks&) = delete;

  void Draw(const QVector<EventMark>& marks);
  void Clear();

 private:
  QVector<QCustomPlot*> plots_;
  QVector<QCPAbstractItem*> items_;  // Lines and labels, on all the plots.
};

}  // namespace railyard::ui
