// SPDX-License-Identifier: Apache-2.0
#include "ui/views/plot_event_marks.h"

#include <QMap>
#include <QSet>
#include <QStringList>
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

QVector<PlotEventMarks::Label> PlotEventMarks::Labels(const QVector<EventMark>& marks) const {
  QVector<int> order(marks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return marks[a].key < marks[b].key; });
  QVector<Label> labels;
  const double per_pixel = SecondsPerPixel();
  if (plots_.isEmpty() || per_pixel <= 0) {  // Not laid out yet: one row, nothing folded.
    for (int i : order) labels.push_back({marks[i].key, marks[i].label, marks[i].color, 0});
    return labels;
  }
  // Each mark's label, in pixels from the time origin: measured once (text layout is the cost).
  const QFontMetrics metrics(plots_.front()->font());
  QVector<double> left(marks.size()), right(marks.size());
  for (int i = 0; i < marks.size(); ++i) {
    left[i] = marks[i].key / per_pixel;
    right[i] = left[i] + metrics.horizontalAdvance(marks[i].label) + 8;
  }
  // A burst: marks in key order whose labels overlap the ones before them, directly or in a
  // chain. Bursts never overlap each other, so each lays out its rows alone.
  const auto lay_out = [&](const QVector<int>& burst) {
    std::vector<double> row_ends;  // In pixels from the time origin.
    QVector<int> rows;
    for (int i : burst) {
      size_t row = 0;
      while (row < row_ends.size() && row_ends[row] > left[i]) ++row;
      if (row == row_ends.size()) {
        row_ends.push_back(right[i]);
      } else {
        row_ends[row] = right[i];
      }
      rows.push_back(static_cast<int>(row));
    }
    if (static_cast<int>(row_ends.size()) <= kMaxRows) {
      for (int b = 0; b < burst.size(); ++b) {
        const EventMark& m = marks[burst[b]];
        labels.push_back({m.key, m.label, m.color, rows[b]});
      }
      return;
    }
    for (int b = 0; b < kMaxRows - 1; ++b) {
      const EventMark& m = marks[burst[b]];
      labels.push_back({m.key, m.label, m.color, b});
    }
    QMap<QString, int> kinds;
    for (int b = kMaxRows - 1; b < burst.size(); ++b) {
      const EventMark& m = marks[burst[b]];
      ++kinds[m.kind.isEmpty() ? m.label : m.kind];
    }
    QVector<QPair<int, QString>> counted;
    for (auto k = kinds.cbegin(); k != kinds.cend(); ++k) counted.push_back({-k.value(), k.key()});
    std::sort(counted.begin(), counted.end());  // Most first, then by name.
    QStringList parts;
    for (const auto& [minus_count, kind] : counted) {
      parts << QStringLiteral("%1 %2").arg(-minus_count).arg(kind);
    }
    const EventMark& first_folded = marks[burst[kMaxRows - 1]];
    labels.push_back({first_folded.key,
                      QStringLiteral("+%1 more: %2")
                          .arg(burst.size() - (kMaxRows - 1))
                          .arg(parts.join(QStringLiteral(", "))),
                      plots_.front()->palette().color(QPalette::PlaceholderText), kMaxRows - 1});
  };
  QVector<int> burst;
  double burst_end = 0;
  for (int i : order) {
    if (!burst.isEmpty() && left[i] >= burst_end) {
      lay_out(burst);
      burst.clear();
    }
    burst_end = burst.isEmpty() ? right[i] : std::max(burst_end, right[i]);
    burst.push_back(i);
  }
  if (!burst.isEmpty()) lay_out(burst);
  return labels;
}

void PlotEventMarks::Draw(const QVector<EventMark>& marks) {
  Clear();
  drawn_seconds_per_pixel_ = SecondsPerPixel();
  keys_.clear();
  const QVector<Label> labels = Labels(marks);
  // One line per colour and pixel column: a burst's lines at one instant would draw one stroke
  // many times over.
  QVector<const EventMark*> lines;
  QSet<QPair<qint64, QRgb>> drawn;  // Pixel column and colour of each line kept.
  for (const EventMark& mark : marks) {
    if (drawn_seconds_per_pixel_ > 0) {  // Else not laid out yet: every line.
      const QPair<qint64, QRgb> at{qRound64(mark.key / drawn_seconds_per_pixel_),
                                   mark.color.rgba()};
      if (drawn.contains(at)) continue;
      drawn.insert(at);
    }
    lines.push_back(&mark);
  }
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
    for (const EventMark* mark : lines) {
      auto* line = new QCPItemStraightLine(plot);
      line->setPen(QPen(mark->color, 1, Qt::DashLine));
      line->point1->setCoords(mark->key, 0);
      line->point2->setCoords(mark->key, 1);
      items_ << line;
    }
    for (const Label& label : labels) {
      auto* text = new QCPItemText(plot);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAbsolute);
      text->position->setParentAnchorY(top->position);
      text->position->setCoords(label.key, 1 + label.row * row_height);
      text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
      text->setPadding(padding);
      // Readable over the curves it crosses, which still show faintly through.
      QColor fill = background;
      fill.setAlpha(210);
      text->setBrush(fill);
      text->setColor(label.color);
      text->setText(label.text);
      items_ << text;
      labels_ << text;
      keys_ << label.key;
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
