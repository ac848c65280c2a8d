// SPDX-License-Identifier: Apache-2.0
#include "ui/views/time_axis_drag.h"

#include <QMouseEvent>
#include <algorithm>

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {
namespace {

// The range being selected, as a band across the whole chart's height (the drag selects times,
// not values), in the palette's highlight.
class TimeBand : public QCPSelectionRect {
 public:
  explicit TimeBand(QCustomPlot* plot) : QCPSelectionRect(plot) {
    QColor fill = plot->palette().color(QPalette::Highlight);
    fill.setAlpha(50);
    setBrush(fill);
    setPen(QPen(plot->palette().color(QPalette::Highlight), 1));
  }

 protected:
  void draw(QCPPainter* painter) override {
    if (!mActive) return;
    const QRect area = mParentPlot->axisRect()->rect();
    QRect band = mRect.normalized();
    band.setTop(area.top());
    band.setBottom(area.bottom());
    painter->setPen(mPen);
    painter->setBrush(mBrush);
    painter->drawRect(band.intersected(area));
  }
};

}  // namespace

TimeAxisDrag::TimeAxisDrag(QCustomPlot* plot) : QObject(plot), plot_(plot) {
  plot->setSelectionRect(new TimeBand(plot));  // The plot owns it.
  plot->setInteractions(plot->interactions() | QCP::iRangeDrag | QCP::iRangeZoom);
  plot->axisRect()->setRangeDrag(Qt::Horizontal);
  plot->axisRect()->setRangeZoom(Qt::Horizontal);
  // Only the time axis: a value axis dragged or zoomed by hand would stop being fitted.
  plot->axisRect()->setRangeDragAxes(plot->xAxis, nullptr);
  plot->axisRect()->setRangeZoomAxes(plot->xAxis, nullptr);
  plot->setSelectionRectMode(QCP::srmCustom);
  connect(plot, &QCustomPlot::mousePress, this, &TimeAxisDrag::OnPress);
  connect(plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { Q_EMIT Taken(); });
  connect(plot, &QCustomPlot::mouseDoubleClick, this,
          [this](QMouseEvent*) { Q_EMIT FollowAsked(); });
  connect(plot->selectionRect(), &QCPSelectionRect::accepted, this,
          [this](const QRect& rect, QMouseEvent*) { OnSelected(rect); });
}

void TimeAxisDrag::OnPress(QMouseEvent* event) {
  // QCustomPlot emits mousePress before it decides between the selection rect and a range drag:
  // the mode chosen here decides it for this press.
  const bool pan =
      event->button() != Qt::LeftButton || (event->modifiers() & Qt::ShiftModifier) != 0;
  plot_->setSelectionRectMode(pan ? QCP::srmNone : QCP::srmCustom);
  Q_EMIT Taken();
}

void TimeAxisDrag::OnSelected(const QRect& rect) {
  const QRect r = rect.normalized();
  if (r.width() < kMinDragPx) {
    plot_->replot(QCustomPlot::rpQueuedReplot);  // Clears the rectangle drawn so far.
    return;
  }
  double from = plot_->xAxis->pixelToCoord(r.left());
  double to = plot_->xAxis->pixelToCoord(r.right());
  if (from > to) std::swap(from, to);
  if (to - from < kMinRangeS) {
    const double middle = (from + to) / 2;
    from = middle - kMinRangeS / 2;
    to = middle + kMinRangeS / 2;
  }
  plot_->xAxis->setRange(from, to);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void FitTimeFormat(QCustomPlot* plot) {
  const double seconds = plot->xAxis->range().size();
  const QString format = seconds < 3600 ? "hh:mm:ss" : seconds <= 86400 ? "hh:mm" : "MM-dd hh:mm";
  auto ticker = plot->xAxis->ticker().dynamicCast<QCPAxisTickerDateTime>();
  if (ticker && ticker->dateTimeFormat() != format) ticker->setDateTimeFormat(format);
}

}  // namespace railyard::ui
