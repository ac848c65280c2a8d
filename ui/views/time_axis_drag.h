// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QtGlobal>

class QCustomPlot;
class QMouseEvent;
class QRect;

namespace railyard::ui {

// Grafana's habits on a chart whose x axis is time (seconds): dragging across it selects a time
// range and zooms there, Shift+drag pans, the wheel zooms around the cursor, and a double-click
// asks to follow the newest samples again. Only the time axis moves: the owner fits the value
// axis to what is visible.
//
// A drag narrower than kMinDragPx is taken for a click and does nothing; a zoom never goes below
// kMinRangeS, where a poll's samples would be a few points across the chart.
//
// Thread safety: GUI thread only. Lives as long as `plot` (its child).
class TimeAxisDrag : public QObject {
  Q_OBJECT
 public:
  static constexpr int kMinDragPx = 5;
  static constexpr double kMinRangeS = 2.0;

  explicit TimeAxisDrag(QCustomPlot* plot);

 Q_SIGNALS:
  // The user is about to move the time axis (a press, a wheel turn): whoever follows the newest
  // samples stops. Emitted before the axis moves.
  void Taken();
  // A double-click: follow the newest samples again.
  void FollowAsked();

 private:
  void OnPress(QMouseEvent* event);
  void OnSelected(const QRect& rect);

  QCustomPlot* const plot_;
};

// The time axis' tick labels for the span it shows: seconds matter within an hour; over hours
// they crowd the axis; past a day, the date does. For a QCPAxisTickerDateTime x axis.
void FitTimeFormat(QCustomPlot* plot);

}  // namespace railyard::ui
