// SPDX-License-Identifier: Apache-2.0
#include "ui/views/bloom_view.h"

#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "ui/views/plot_style.h"
#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

BloomView::BloomView(ClusterState* state, QWidget* parent)
    : BloomView(new BloomModel(state), parent) {
  model_->setParent(this);
}

BloomView::BloomView(BloomModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  title_ = new QLabel(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  budget_ = new QProgressBar(this);
  budget_->setRange(0, 1000);
  budget_->setToolTip(
      tr("Bloom filter pages kept in memory, within the node's budget. A page "
         "not resident answers \"maybe\", so lookups read the index."));

  state_ = new QLabel(this);
  state_->setWordWrap(true);

  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(220);
  StylePlot(plot_);
  plot_->setNotAntialiasedElements(QCP::aeAll);
  map_ = new QCPColorMap(plot_->xAxis, plot_->yAxis);
  map_->setInterpolate(false);
  // Viridis: perceptually even, readable by colour-blind operators, and its hottest colour
  // (yellow) stands out from the plot's background where a thermal scale's white would vanish.
  QCPColorGradient gradient;
  gradient.setColorStops({{0.0, QColor(0x44, 0x01, 0x54)},
                          {0.25, QColor(0x3b, 0x52, 0x8b)},
                          {0.5, QColor(0x21, 0x91, 0x8c)},
                          {0.75, QColor(0x5e, 0xc9, 0x62)},
                          {1.0, QColor(0xfd, 0xe7, 0x25)}});
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  scale_ = new QCPColorScale(plot_);
  plot_->plotLayout()->addElement(0, 1, scale_);
  scale_->setType(QCPAxis::atRight);
  scale_->axis()->setLabel(tr("usefulness (requests \u00d7 P(no))"));
  map_->setColorScale(scale_);  // Takes the scale's gradient, so set it after this.
  map_->setGradient(gradient);
  auto* margins = new QCPMarginGroup(plot_);
  plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  scale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

  resident_ = plot_->addGraph();
  resident_->setLineStyle(QCPGraph::lsNone);
  resident_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare,
                                             QPen(QColor(0xff, 0x3d, 0x8b), 2), Qt::NoBrush, 10));
  resident_->setName(tr("resident (kept in memory)"));

  // The cut-off across the colour bar, in the bar's own coordinates: x spans the bar's width
  // (ratio of its axis rect), y is a usefulness on its axis.
  cutoff_line_ = new QCPItemLine(plot_);
  cutoff_line_->setClipToAxisRect(false);
  cutoff_line_->setPen(QPen(QColor(0xff, 0x3d, 0x8b), 3));
  for (QCPItemPosition* end : {cutoff_line_->start, cutoff_line_->end}) {
    end->setAxisRect(scale_->axis()->axisRect());
    end->setAxes(nullptr, scale_->axis());
    end->setTypeX(QCPItemPosition::ptAxisRectRatio);
    end->setTypeY(QCPItemPosition::ptPlotCoords);
  }
  cutoff_line_->setVisible(false);

  plot_->xAxis->setLabel(tr("page"));
  QSharedPointer<QCPAxisTickerFixed> whole_pages(new QCPAxisTickerFixed);
  whole_pages->setTickStep(1);
  whole_pages->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->xAxis->setTicker(whole_pages);
  plot_->yAxis->setRangeReversed(true);  // Newest index on top, as lookups visit them.
  // The legend sits below the grid, never over it.
  plot_->legend->setVisible(true);
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->addElement(1, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->setMouseTracking(true);
  plot_->installEventFilter(this);

  auto* budget_row = new QHBoxLayout;
  budget_row->addWidget(new QLabel(tr("Memory budget:"), this));
  budget_row->addWidget(budget_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(title_);
  layout->addLayout(budget_row);
  layout->addWidget(state_);
  layout->addWidget(plot_, 1);

  connect(model_, &BloomModel::Changed, this, [this] {
    if (!isVisible()) {
      dirty_ = true;
      return;
    }
    Refresh();
  });
  Refresh();
}

void BloomView::SetNode(int node_index) {
  model_->SetNode(node_index);
  Refresh();
}

void BloomView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (dirty_) Refresh();
}

QString BloomView::BudgetText() const {
  if (!model_->HasData()) return {};
  const QLocale locale;
  return tr("%1 of %2 (%3%), %4 of %5 pages resident")
      .arg(locale.formattedDataSize(qint64(model_->ResidentBytes())),
           locale.formattedDataSize(qint64(model_->BudgetBytes())))
      .arg(model_->BudgetUse() * 100, 0, 'f', 0)
      .arg(model_->ResidentPages())
      .arg(model_->TotalPages());
}

QString BloomView::StateText() const {
  if (!model_->HasData()) return {};
  if (model_->TotalPages() == 0) {
    return tr(
        "No Bloom pages yet: the node has no on-disk index (documents are still only in its "
        "in-memory index).");
  }
  if (model_->AllZero()) {
    return tr(
        "Every page's usefulness is 0: no lookup reached a page that could answer \"no\" "
        "lately, so there is nothing to rank yet.");
  }
  if (model_->EvictionCutoff() < 0) {
    return tr("No page is resident yet: every lookup reads the index.");
  }
  return tr("Cut-off: pages less useful than %1 are not kept in memory (the line on the colour "
            "bar). Colours share one scale, 0 to %2, for every node this session.")
      .arg(model_->EvictionCutoff(), 0, 'f', 2)
      .arg(model_->ScaleMax(), 0, 'f', 2);
}

void BloomView::Refresh() {
  dirty_ = false;
  const int rows = model_->RowCount();
  const int columns = model_->ColumnCount();
  if (!model_->HasData()) {
    title_->setText(model_->Node() < 0 ? tr("No node selected") : tr("No telemetry yet"));
  } else {
    title_->setText(
        rows == 0   ? tr("Bloom pages: no on-disk index")
        : rows == 1 ? tr("Bloom pages: 1 index, %1 page(s)").arg(columns)
                    : tr("Bloom pages: %1 indexes, up to %2 pages each").arg(rows).arg(columns));
  }
  budget_->setValue(int(model_->BudgetUse() * 1000));
  budget_->setFormat(BudgetText());
  state_->setText(StateText());
  state_->setVisible(!state_->text().isEmpty());

  // QCPColorMap sizes a cell from the distance between cell centres, so a dimension of one cell
  // would draw nothing; such a dimension gets two half-width cells holding the same value.
  const auto grid = [](int cells, int* size, QCPRange* range) {
    *size = std::max(2, cells);
    *range = cells > 1 ? QCPRange(0, cells - 1) : QCPRange(-0.25, 0.25);
  };
  int map_columns = 0, map_rows = 0;
  QCPRange key_range, value_range;
  grid(columns, &map_columns, &key_range);
  grid(rows, &map_rows, &value_range);
  map_->data()->setSize(map_columns, map_rows);
  map_->data()->setRange(key_range, value_range);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int r = 0; r < map_rows; ++r) {
    for (int c = 0; c < map_columns; ++c) {
      const BloomCell* cell = model_->Cell(std::min(r, rows - 1), std::min(c, columns - 1));
      map_->data()->setCell(c, r, cell ? cell->usefulness : nan);
    }
  }
  QVector<double> keys, values;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      const BloomCell* cell = model_->Cell(r, c);
      if (cell && cell->resident) {
        keys.push_back(c);
        values.push_back(r);
      }
    }
  }
  resident_->setData(keys, values, true);
  // One scale for the session; none at all while nothing has a usefulness (the text says so).
  const bool has_scale = model_->ScaleMax() > 0;
  scale_->setVisible(has_scale);
  map_->setDataRange(QCPRange(0, has_scale ? model_->ScaleMax() : 1.0));
  const double cutoff = model_->EvictionCutoff();
  cutoff_line_->setVisible(has_scale && cutoff >= 0);
  plot_->legend->setVisible(model_->TotalPages() > 0);  // Nothing to mark on an empty grid.
  cutoff_line_->start->setCoords(-0.15, cutoff);
  cutoff_line_->end->setCoords(1.15, cutoff);

  // Rows labelled with the index and its size-rule P(no), the prior; each page's measured P(no) is
  // in its tooltip and in its colour.
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  const int step = std::max(1, rows / 24);  // Keep labels legible with many indexes.
  for (int r = 0; r < rows; r += step) {
    ticker->addTick(r, tr("#%1  size rule P(no) %2")
                           .arg(model_->Row(r).index)
                           .arg(model_->Row(r).p_no, 0, 'f', 2));
  }
  plot_->yAxis->setTicker(ticker);
  plot_->yAxis->setRange(-0.5, std::max(1, rows) - 0.5);
  plot_->xAxis->setRange(-0.5, std::max(1, columns) - 0.5);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool BloomView::CellAt(const QPoint& plot_pos, int* row, int* page) const {
  const double x = plot_->xAxis->pixelToCoord(plot_pos.x());
  const double y = plot_->yAxis->pixelToCoord(plot_pos.y());
  const int c = int(std::lround(x));
  const int r = int(std::lround(y));
  if (r < 0 || r >= model_->RowCount() || c < 0 || c >= model_->ColumnCount()) return false;
  *row = r;
  *page = c;
  return true;
}

QString BloomView::ToolTipAt(const QPoint& plot_pos) const {
  int r = 0, c = 0;
  if (!CellAt(plot_pos, &r, &c)) return {};
  return model_->DescribeCell(r, c);
}

QPoint BloomView::CellCenter(int row, int page) const {
  return QPoint(int(plot_->xAxis->coordToPixel(page)), int(plot_->yAxis->coordToPixel(row)));
}

bool BloomView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = ToolTipAt(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, plot_);
    }
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace railyard::ui
