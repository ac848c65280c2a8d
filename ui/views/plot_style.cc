// SPDX-License-Identifier: Apache-2.0
#include "ui/views/plot_style.h"

#include "ui/views/qcustomplot_include.h"

#include <QEvent>
#include <QFontMetrics>
#include <array>
#include <cmath>

#include "ui/support/color_mix.h"

namespace railyard::ui {

namespace {

// Restyles its plot when the plot's palette changes; one per plot, owned by it.
class PaletteFollower : public QObject {
 public:
  explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), plot_(plot) {
    setObjectName(QStringLiteral("railyard_palette_follower"));
    plot->installEventFilter(this);
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (watched == plot_ && event->type() == QEvent::PaletteChange) {
      StylePlot(plot_);
      plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    return false;
  }

 private:
  QCustomPlot* plot_;
};

}  // namespace

void StylePlot(QCustomPlot* plot) {
  if (!plot->findChild<QObject*>(QStringLiteral("railyard_palette_follower"),
                                 Qt::FindDirectChildrenOnly)) {
    new PaletteFollower(plot);
  }
  // QCustomPlot repaints its widget at once after every replot by default: a synchronous pass
  // over the window's dirty regions (the tables beside it, the tab bar) and a flush, per plot and
  // per frame. A soft update paints every plot in the frame's one pass; the Replication tab at 48
  // nodes spent about half its frames' time in those repaints.
  plot->setPlottingHint(QCP::phImmediateRefresh, false);
  const QPalette palette = plot->palette();
  const QColor text = palette.color(QPalette::WindowText);
  const QColor base = palette.color(QPalette::Base);
  // Faint by mixing, not by alpha: a translucent line taller than 96 rows is a fill that Qt's
  // raster engine splits across its thread pool, waiting for it (see FlowCanvas::paintEvent).
  // A little darker than the Throughput charts' opaque spread band (0.15), which it crosses.
  const QColor grid = MixColors(base, text, 0.24);
  plot->setBackground(base);
  for (QCPAxis* axis : plot->axisRect()->axes()) {
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  if (plot->legend) {
    plot->legend->setBrush(base);
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(grid));
  }
  plot->setNotAntialiasedElements(QCP::aeAll);  // Cheap repaints at 10 Hz with many series.
}

QColor SeriesColor(int n) {
  static const std::array<QColor, 10> kColors = {
      QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
      QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
      QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f), QColor(0xbc, 0xbd, 0x22),
      QColor(0x17, 0xbe, 0xcf)};
  return kColors[static_cast<size_t>(n < 0 ? 0 : n) % kColors.size()];
}

bool VisibleValueRange(QCustomPlot* plot, QCPRange* range, bool positive_only) {
  return ValueRangeIn(plot, plot->xAxis->range(), range, positive_only);
}

bool ValueRangeIn(QCustomPlot* plot, const QCPRange& keys, QCPRange* range, bool positive_only) {
  bool found = false;
  for (int g = 0; g < plot->graphCount(); ++g) {
    if (!plot->graph(g)->visible()) continue;
    bool ok = false;
    const QCPRange r =
        plot->graph(g)->getValueRange(ok, positive_only ? QCP::sdPositive : QCP::sdBoth, keys);
    if (!ok) continue;
    if (found) {
      range->expand(r);
    } else {
      *range = r;
      found = true;
    }
  }
  return found;
}

int LegendRowsFitting(const QCustomPlot* plot) {
  const QCPLegend* legend = plot->legend;
  // An entry's own height where there is one (its text, icon and margins), else the font's.
  const QCPLayoutElement* entry = legend->itemCount() > 0 ? legend->item(0) : nullptr;
  const int row =
      (entry ? entry->minimumOuterSizeHint().height()
             : std::max(QFontMetrics(legend->font()).height() + 4, legend->iconSize().height())) +
      legend->rowSpacing();
  const int margins = legend->margins().top() + legend->margins().bottom() + 12;
  return (plot->axisRect()->height() - margins) / std::max(row, 1) - 1;
}

QCPRange DecadesAround(const QCPRange& positive) {
  return QCPRange(std::pow(10.0, std::floor(std::log10(positive.lower / 1.2))),
                  std::pow(10.0, std::ceil(std::log10(positive.upper * 1.2))));
}

QCPRange FromZero(double upper) {
  constexpr double kBelowZero = 0.03;  // Of the range: a few pixels on a chart of any height.
  return QCPRange(-kBelowZero * upper, upper);
}

QString LatencyText(double ms) {
  if (std::isnan(ms)) return QStringLiteral("\u2013");
  if (ms == 0) return QStringLiteral("0");
  const double us = ms * 1000.0;
  if (std::abs(us) < 999.5) {
    return QStringLiteral("%1 \u00b5s").arg(us, 0, 'f', std::abs(us) < 9.95 ? 1 : 0);
  }
  const double a = std::abs(ms);
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2);
}

}  // namespace railyard::ui
