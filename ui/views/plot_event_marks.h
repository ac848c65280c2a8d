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
  QString kind;  // What a folded burst counts it as ("restart"); empty: its label.
};

// Labelled dashed vertical lines at event times on every plot of a stack that shares one time
// axis: commands, restarts, lame-duck changes. Draw replaces what was drawn before. A label that
// would cover an earlier one (events at one instant, or close at this scale) goes a row lower;
// the rows hold while the axis keeps its scale (ScaleChanged: draw again). Labels have the
// chart's background behind them; only those whose line is within the time axis show
// (ShowWithin after the axis moves).
//
// A burst of marks that would need more than kMaxRows rows (a lab brought down, a rolling restart
// of dozens of nodes) keeps the labels of its first kMaxRows - 1 and says the rest on the last
// row: "+44 more: 30 down, 14 restart". Every mark keeps its line, but one line per colour and
// pixel column. Labelled one by one, 144 nodes going down and up buried the lag chart under
// hundreds of labels and cost the 48-node console 23 % of its frame time in drawing them
// (docs/benchmarks.md, "Event labels folded").
//
// Thread safety: GUI thread only. The plots must outlive it.
class PlotEventMarks {
 public:
  static constexpr int kMaxRows = 4;

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
  // A label to draw: a mark's own, or a burst's summary.
  struct Label {
    double key = 0;
    QString text;
    QColor color;
    int row = 0;
  };
  // The labels of `marks`: each in the first row whose last label ends left of it, a burst
  // beyond kMaxRows folded (see above).
  QVector<Label> Labels(const QVector<EventMark>& marks) const;

  QVector<QCustomPlot*> plots_;
  double drawn_seconds_per_pixel_ = 0;
  QVector<QCPAbstractItem*> items_;  // Lines, labels and anchors, on all the plots.
  QVector<QCPAbstractItem*> labels_;
  QVector<double> keys_;  // Of each of labels_.
};

}  // namespace railyard::ui
