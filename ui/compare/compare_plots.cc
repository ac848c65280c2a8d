// SPDX-License-Identifier: Apache-2.0
#include "ui/compare/compare_plots.h"

#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

namespace {

// The figure plot `plot` shows of a bucket; NaN where there is nothing to show (a gap).
double PlotValue(int plot, const SeriesPoint& p) {
  if (p.snapshots == 0) return kNoFigure;
  switch (plot) {
    case 0:
      return p.requests_per_s;
    case 1:
      return double(p.errors_per_s) + double(p.rejections_per_s);
    default:
      return p.latency_snapshots > 0 ? double(p.p99_us) / 1000.0 : kNoFigure;
  }
}

}  // namespace

QColor ComparePlots::SideColor(int side) { return SeriesColor(side == 0 ? 0 : 1); }

ComparePlots::ComparePlots(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  const char* labels[3] = {"requests/s", "errors + rejections /s", "p99 latency (ms)"};
  for (int i = 0; i < 3; ++i) {
    QCustomPlot* plot = new QCustomPlot(this);
    plots_[i] = plot;
    StylePlot(plot);
    plot->setMinimumHeight(110);
    // The same left margin on every plot, so their time axes line up (a wide tick label may
    // still widen one).
    plot->axisRect()->setMinimumMargins(QMargins(80, 8, 8, 8));
    QSharedPointer<QCPAxisTickerTime> ticker(new QCPAxisTickerTime);
    ticker->setTimeFormat(QStringLiteral("%h:%m:%s"));
    plot->xAxis->setTicker(ticker);
    plot->yAxis->setLabel(tr(labels[i]));
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    for (int side = 0; side < 2; ++side) {
      QCPGraph* graph = plot->addGraph();
      graph->setName(QLatin1String(kSideName[side]));
      graph->setPen(QPen(SideColor(side), 1.5));
      graph->setAdaptiveSampling(true);
    }
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    // One time axis: zooming or panning one plot moves the others.
    connect(plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this, plot](const QCPRange& range) {
              for (QCustomPlot* other : plots_) {
                if (other == plot || other->xAxis->range() == range) continue;
                other->xAxis->setRange(range);
                other->replot(QCustomPlot::rpQueuedReplot);
              }
            });
    layout->addWidget(plot, 1);
  }
  plots_[2]->xAxis->setLabel(tr("time since each recording's start"));
}

void ComparePlots::Show(const RecordingSeries* a, const RecordingSeries* b, const QString& node,
                        bool fit_time) {
  const RecordingSeries* const series[2] = {a, b};
  for (int side = 0; side < 2; ++side) DrawSeries(side, series[side], node);
  DrawEvents(series);
  NoteMissingLatency(a || b);
  double span_s = 0;
  for (const RecordingSeries* s : series) {
    if (s) span_s = std::max(span_s, double(s->Buckets() * s->bucket_ms) / 1000.0);
  }
  for (QCustomPlot* plot : plots_) {
    if (fit_time) plot->xAxis->setRange(0, std::max(1.0, span_s));
    bool found = false;
    QCPRange range;
    for (int g = 0; g < plot->graphCount(); ++g) {
      bool ok = false;
      const QCPRange r = plot->graph(g)->getValueRange(ok);
      if (!ok) continue;
      if (found) {
        range.expand(r);
      } else {
        range = r;
        found = true;
      }
    }
    plot->yAxis->setRange(0, found && range.upper > 0 ? range.upper * 1.1 : 1.0);
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ComparePlots::DrawSeries(int side, const RecordingSeries* s, const QString& node) {
  const std::vector<SeriesPoint>* points = s ? s->Points(node) : nullptr;
  for (int i = 0; i < 3; ++i) {
    QVector<double> keys, values;
    if (points) {
      keys.reserve(qsizetype(points->size()));
      values.reserve(qsizetype(points->size()));
      const double bucket_s = double(s->bucket_ms) / 1000.0;
      for (size_t b = 0; b < points->size(); ++b) {
        keys.push_back(double(b) * bucket_s);
        values.push_back(PlotValue(i, (*points)[b]));
      }
    }
    plots_[i]->graph(side)->setData(keys, values, true);
  }
}

void ComparePlots::DrawEvents(const RecordingSeries* const series[2]) {
  for (QCustomPlot* plot : plots_) plot->clearItems();
  event_marks_ = 0;
  for (int side = 0; side < 2; ++side) {
    if (!series[side]) continue;
    for (const SeriesEvent& e : series[side]->events) {
      const double x = double(e.offset_ms) / 1000.0;
      for (int i = 0; i < 3; ++i) {
        auto* line = new QCPItemStraightLine(plots_[i]);
        line->setPen(QPen(SideColor(side), 1, side == 0 ? Qt::DashLine : Qt::DotLine));
        line->point1->setCoords(x, 0);
        line->point2->setCoords(x, 1);
        if (i != 0) continue;
        auto* label = new QCPItemText(plots_[i]);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        label->position->setTypeX(QCPItemPosition::ptPlotCoords);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // A's labels along the top, B's below them, so both read where they coincide.
        label->position->setCoords(x, side == 0 ? 0.02 : 0.12);
        label->setColor(SideColor(side));
        const QString what = e.kind == QLatin1String("sim") ? e.detail : e.kind + ' ' + e.node;
        label->setText(QStringLiteral("%1 %2").arg(QLatin1String(kSideName[side]), what));
      }
      ++event_marks_;
    }
  }
}

void ComparePlots::NoteMissingLatency(bool any_recording) {
  QCustomPlot* latency = plots_[2];
  bool measured = false;
  for (int side = 0; side < 2; ++side) {
    bool found = false;
    latency->graph(side)->getValueRange(found);
    measured |= found;
  }
  if (measured || !any_recording) return;
  // An empty plot should say why (older simulator recordings, for one, carry no latency).
  auto* note = new QCPItemText(latency);
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setCoords(0.5, 0.5);
  note->setColor(latency->xAxis->labelColor());
  note->setText(tr("no latency recorded in these recordings"));
}

}  // namespace railyard::ui
