// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QPoint>
#include <QString>
#include <QVector>

class QCustomPlot;
class QCPItemLine;
class QLabel;
class QWidget;

namespace railyard::ui {

// A shared crosshair for plots stacked on one time axis: hovering any of them draws a vertical
// line at that time on all of them and shows one readout with the time and, plot by plot, each
// visible graph's value at that time (its last point at or before it; a dash for a gap), largest
// first. Leaving the plots hides it.
//
// A graph is named in the readout by its "readout_name" property when it has one (its legend name
// may carry figures), else by its name.
//
// Thread safety: GUI thread only. The plots and `readout_parent` must outlive it.
class PlotCrosshair : public QObject {
  Q_OBJECT
 public:
  PlotCrosshair(const QVector<QCustomPlot*>& plots, QWidget* readout_parent);

  // Shows the crosshair at `key` (seconds, the plots' time axis); `anchor` is where the readout
  // goes, in readout_parent's coordinates (a null point: the top right of the first plot).
  void MoveTo(double key, QPoint anchor = {});
  void Hide();
  bool Shown() const { return shown_; }
  double Key() const { return key_; }

  struct Value {
    int plot = 0;
    QString name;
    double value = 0;  // NaN: a gap at that time.
  };
  // The values the readout lists, plot by plot, largest first within a plot.
  QVector<Value> Values() const;
  QString ReadoutText() const;
  // How the readout prints plot `plot`'s values (LatencyText for a latency plot); the default
  // prints a plain number with few digits.
  void SetValueFormat(int plot, QString (*format)(double));
  // Recomputes the readout after the graphs changed (new samples), if it is shown.
  void Refresh();

  // The most values listed per plot; the rest are summed up as "N more".
  static constexpr int kMaxValuesPerPlot = 12;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void Place(QPoint anchor);

  QVector<QCustomPlot*> plots_;
  QVector<QCPItemLine*> lines_;
  QVector<QString (*)(double)> formats_;  // Per plot; null: Figure.
  QLabel* readout_;
  bool shown_ = false;
  double key_ = 0;
  QPoint anchor_;
};

}  // namespace railyard::ui
