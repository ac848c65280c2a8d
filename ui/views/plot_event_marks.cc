// SPDX-License-Identifier: Apache-2.0
#include "ui/views/plot_event_marks.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

double PlotEventMarks::SecondsPerPixel() const {
  if (plots_.isEmpty()) return 0;
  const QCustomPlot* plot = plots_.front();
  return plot->xAxis->range().size() / std::max(1, plot->axisRect()->width());
}

bool PlotEventMarks::ScaleChanged() const {
  return !items_.isEmpty() && SecondsPerPixel() != drawn_seconds_per_pixel_;
}

QVector<int> PlotEventMarks::Rows(const QVector<EventMark>& marks) const {
  QVector<int> rows(marks.size(), 0);
  const double per_pixel = SecondsPerPixel();
  if (plots_.isEmpty() || per_pixel <= 0) return rows;
  const QFontMetrics metrics(plots_.front()->font());
  QVector<int> order(marks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return marks[a].key < marks[b].key; });
  std::vector<double> row_ends;  // In pixels from the time origin.
  for (int i : order) {
    const double left = marks[i].key / per_pixel;
    size_t row = 0;
    while (row < row_ends.size() && row_ends[row] > left) ++row;
    const double right = left + metrics.horizontalAdvance(marks[i].label) + 8;
    if (row == row_ends.size()) {
      row_ends.push_back(right);
    } else {
      row_ends[row] = right;
    }
    rows[i] = static_cast<int>(row);
  }
  return rows;
}

void PlotEventMarks::Draw(const QVector<EventMark>& marks) {
  Clear();
  drawn_seconds_per_pixel_ = SecondsPerPixel();
  keys_.clear();
  const QVector<int> rows = Rows(marks);
  const QMargins padding(3, 1, 3, 1);
  const int row_height = plots_.isEmpty() ? 0
                                          : QFontMetrics(plots_.front()->font()).height() +
                                                padding.top() + padding.bottom();
  for (QCustomPlot* plot : plots_) {
    // The labels hang in rows below the axis rect's top edge, a fixed number of pixels apart
    // whatever the chart's height: their y is in pixels from this invisible point there. (Rows
    // made of top padding drew each label's background over the rows above it.)
    auto* top = new QCPItemTracer(plot);
    top->setVisible(false);
    top->position->setType(QCPItemPosition::ptAxisRectRatio);
    top->position->setCoords(0, 0);
    items_ << top;
    const QColor background = plot->palette().color(QPalette::Base);  // As StylePlot's.
    for (int m = 0; m < marks.size(); ++m) {
      const EventMark& mark = marks[m];
      auto* line = new QCPItemStraightLine(plot);
      line->setPen(QPen(mark.color, 1, Qt::DashLine));
      line->point1->setCoords(mark.key, 0);
      line->point2->setCoords(mark.key, 1);
      auto* text = new QCPItemText(plot);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAbsolute);
      text->position->setParentAnchorY(top->position);
      text->position->setCoords(mark.key, 1 + rows[m] * row_height);
      text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
      text->setPadding(padding);
      // Readable over the curves it crosses, which still show faintly through.
      QColor fill = background;
      fill.setAlpha(210);
      text->setBrush(fill);
      text->setColor(mark.color);
      text->setText(mark.label);
      items_ << line << text;
      labels_ << text;
      keys_ << mark.key;
    }
  }
  ShowWithin();
}

void PlotEventMarks::ShowWithin() {
  if (plots_.isEmpty()) return;
  const QCPRange shown = plots_.front()->xAxis->range();
  for (int i = 0; i < labels_.size(); ++i) {
    // A label whose line is off the chart would be clipped to a stub at its left edge.
    labels_[i]->setVisible(keys_[i] >= shown.lower && keys_[i] <= shown.upper);
  }
}

void PlotEventMarks::Clear() {
  for (QCPAbstractItem* item : items_) item->parentPlot()->removeItem(item);
  items_.clear();
  labels_.clear();
  keys_.clear();
}

}  // namespace railyard::ui
