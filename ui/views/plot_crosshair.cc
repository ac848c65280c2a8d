// SPDX-License-Identifier: Apache-2.0
#include "ui/views/plot_crosshair.h"

#include <QDateTime>
#include <QLabel>
#include <algorithm>
#include <cmath>

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

namespace {

// The value of `graph`'s last point at or before `key`; false if it has none.
bool ValueAt(const QCPGraph* graph, double key, double* value) {
  const QSharedPointer<QCPGraphDataContainer> data = graph->data();
  if (data->isEmpty() || data->constBegin()->key > key) return false;
  auto it = data->findEnd(key, false);  // The first point after `key`.
  --it;
  *value = it->value;
  return true;
}

QString Figure(double v) {
  if (std::isnan(v)) return QStringLiteral("\u2013");
  const double a = std::abs(v);
  return QString::number(v, 'f', a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

}  // namespace

PlotCrosshair::PlotCrosshair(const QVector<QCustomPlot*>& plots, QWidget* readout_parent)
    : QObject(readout_parent), plots_(plots), readout_(new QLabel(readout_parent)) {
  readout_->setObjectName(QStringLiteral("crosshairReadout"));
  readout_->setAutoFillBackground(true);
  readout_->setFrameShape(QFrame::StyledPanel);
  readout_->setMargin(4);
  readout_->setTextFormat(Qt::PlainText);
  readout_->setAttribute(Qt::WA_TransparentForMouseEvents);
  readout_->hide();
  for (QCustomPlot* plot : plots_) {
    auto* line = new QCPItemLine(plot);
    line->start->setTypeX(QCPItemPosition::ptPlotCoords);
    line->start->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->end->setTypeX(QCPItemPosition::ptPlotCoords);
    line->end->setTypeY(QCPItemPosition::ptAxisRectRatio);
    line->setPen(QPen(plot->palette().color(QPalette::WindowText), 1));
    line->setSelectable(false);
    line->setVisible(false);
    lines_ << line;
    plot->setMouseTracking(true);
    connect(plot, &QCustomPlot::mouseMove, this, [this, plot](QMouseEvent* event) {
      if (!plot->axisRect()->rect().contains(event->pos())) {
        Hide();
        return;
      }
      const QWidget* parent = readout_->parentWidget();
      MoveTo(plot->xAxis->pixelToCoord(event->pos().x()), plot->mapTo(parent, event->pos()));
    });
    plot->installEventFilter(this);  // Leaving hides it: QCustomPlot reports no leave.
  }
}

bool PlotCrosshair::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::Leave) Hide();
  return QObject::eventFilter(watched, event);
}

void PlotCrosshair::MoveTo(double key, QPoint anchor) {
  key_ = key;
  shown_ = true;
  for (QCPItemLine* line : lines_) {
    line->start->setCoords(key, 0);
    line->end->setCoords(key, 1);
    line->setVisible(true);
  }
  for (QCustomPlot* plot : plots_) plot->replot(QCustomPlot::rpQueuedReplot);
  readout_->setText(ReadoutText());
  readout_->adjustSize();
  Place(anchor);
  readout_->show();
  readout_->raise();
}

void PlotCrosshair::Hide() {
  if (!shown_) return;
  shown_ = false;
  for (QCPItemLine* line : lines_) line->setVisible(false);
  for (QCustomPlot* plot : plots_) plot->replot(QCustomPlot::rpQueuedReplot);
  readout_->hide();
}

void PlotCrosshair::Refresh() {
  if (!shown_) return;
  readout_->setText(ReadoutText());
  readout_->adjustSize();
  Place(anchor_);
}

void PlotCrosshair::Place(QPoint anchor) {
  anchor_ = anchor;
  const QWidget* parent = readout_->parentWidget();
  QPoint at;
  if (anchor.isNull()) {
    const QCustomPlot* first = plots_.front();
    at = first->mapTo(parent, first->axisRect()->rect().topRight()) -
         QPoint(readout_->width() + 4, -4);
  } else {
    // Beside the pointer, on the side with room.
    at = anchor + QPoint(16, 16);
    if (at.x() + readout_->width() > parent->width()) at.rx() = anchor.x() - 16 - readout_->width();
    if (at.y() + readout_->height() > parent->height()) {
      at.ry() = std::max(0, parent->height() - readout_->height());
    }
  }
  readout_->move(std::max(0, at.x()), std::max(0, at.y()));
}

QVector<PlotCrosshair::Value> PlotCrosshair::Values() const {
  QVector<Value> out;
  for (int p = 0; p < plots_.size(); ++p) {
    QCustomPlot* plot = plots_[p];
    QVector<Value> values;
    for (int g = 0; g < plot->graphCount(); ++g) {
      const QCPGraph* graph = plot->graph(g);
      double value = 0;
      if (!graph->visible() || !ValueAt(graph, key_, &value)) continue;
      const QVariant readout_name = graph->property("readout_name");
      values.push_back(
          {p, readout_name.isValid() ? readout_name.toString() : graph->name(), value});
    }
    // Largest first; gaps last.
    std::stable_sort(values.begin(), values.end(), [](const Value& a, const Value& b) {
      if (std::isnan(a.value) || std::isnan(b.value))
        return !std::isnan(a.value) && std::isnan(b.value);
      return a.value > b.value;
    });
    out += values;
  }
  return out;
}

void PlotCrosshair::SetValueFormat(int plot, QString (*format)(double)) {
  if (formats_.size() < plots_.size()) formats_.resize(plots_.size(), nullptr);
  if (plot >= 0 && plot < formats_.size()) formats_[plot] = format;
  Refresh();
}

QString PlotCrosshair::ReadoutText() const {
  const qint64 ms = qint64(std::llround(key_ * 1000.0));
  QStringList lines{QDateTime::fromMSecsSinceEpoch(ms).toString(QStringLiteral("HH:mm:ss.zzz"))};
  const QVector<Value> values = Values();
  for (int p = 0; p < plots_.size(); ++p) {
    int listed = 0, more = 0;
    for (const Value& v : values) {
      if (v.plot != p) continue;
      if (listed == kMaxValuesPerPlot) {
        ++more;
        continue;
      }
      if (listed == 0) lines << plots_[p]->yAxis->label();
      const auto format = formats_.value(p, nullptr);
      lines << QStringLiteral("  %1  %2")
                   .arg(v.name, format && !std::isnan(v.value) ? format(v.value) : Figure(v.value));
      ++listed;
    }
    if (more > 0) lines << tr("  \u2026 %n more", nullptr, more);
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace railyard::ui
