// SPDX-License-Identifier: Apache-2.0
#include "ui/views/flow_legend.h"

#include <QEvent>
#include <QPainter>
#include <algorithm>
#include <array>

#include "ui/models/flow_model.h"
#include "ui/models/palette.h"
#include "ui/support/color_mix.h"

namespace railyard::ui {

namespace {

constexpr int kLine = 28;  // An edge sample's length.
constexpr int kSwatchGap = 4;
constexpr int kItemGap = 14;
constexpr int kRowGap = 2;
constexpr int kTop = 4;

constexpr std::array<NodeHealth, 6> kHealths = {NodeHealth::kServing,      NodeHealth::kLameDuck,
                                                NodeHealth::kStarting,     NodeHealth::kUnreachable,
                                                NodeHealth::kTokenRefused, NodeHealth::kStale};

// The sample edges, in the canvas's widths, styles and faintness.
struct SampleEdge {
  int rank;
  double error_share;
  double width;
  Qt::PenStyle style;
  bool faint;
};
constexpr std::array<SampleEdge, 6> kEdges = {{{0, -1, 10, Qt::SolidLine, false},
                                               {3, -1, 2.5, Qt::SolidLine, false},
                                               {0, 0.25, 4, Qt::SolidLine, false},
                                               {3, -1, 3, Qt::DashLine, false},
                                               {0, -1, 1, Qt::DotLine, true},
                                               {0, -1, 1, Qt::DashDotLine, true}}};

}  // namespace

FlowLegend::FlowLegend(FlowModel* model, QWidget* parent)
    : QWidget(parent), model_(model), max_text_(FlowRateText(model->MaxEdgeRate())) {
  setAccessibleName(tr("Flow legend"));
  setAccessibleDescription(Text());
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
  connect(model_, &FlowModel::Updated, this, [this] {
    const QString max = FlowRateText(model_->MaxEdgeRate());
    if (max == max_text_) return;
    max_text_ = max;
    setAccessibleDescription(Text());
    updateGeometry();  // The first edge's label is as wide as the rate printed.
    update();
  });
}

QString FlowLegend::Text() const {
  return tr("Nodes by health; edges: width by requests/s (thickest %1), darkest on the lowest "
            "slots, red with errors, dash-dotted where the rate is not known; a dot near the "
            "server: busy connections")
      .arg(max_text_);
}

QVector<FlowLegend::Item> FlowLegend::Items() const {
  QVector<Item> items;
  for (NodeHealth h : kHealths) items.push_back({Swatch::kHealth, int(h), NodeHealthName(h)});
  items.push_back({Swatch::kNotWatched, 0, tr("not watched")});
  items.push_back({Swatch::kEdge, 0, tr("lowest slot, thickest %1").arg(max_text_)});
  items.push_back({Swatch::kEdge, 1, tr("higher slot")});
  items.push_back({Swatch::kEdge, 2, tr("errors")});
  items.push_back({Swatch::kEdge, 3, tr("gone, fading")});
  items.push_back({Swatch::kEdge, 4, tr("idle")});
  items.push_back({Swatch::kEdge, 5, tr("rate not known")});
  items.push_back({Swatch::kBusy, 0, tr("busy connections")});
  return items;
}

int FlowLegend::SwatchWidth(Swatch swatch) const {
  switch (swatch) {
    case Swatch::kHealth:
    case Swatch::kNotWatched:
      return int(2 * kFlowDot);
    case Swatch::kEdge:
      return kLine;
    case Swatch::kBusy:
      return kLine;  // An edge sample with the mark near its end.
  }
  return 0;
}

QVector<QRect> FlowLegend::Layout(const QVector<Item>& items, int width) const {
  const QFontMetrics fm = fontMetrics();
  const int line = fm.height();
  QVector<QRect> rects;
  int x = kFlowMargin;
  int y = kTop;
  bool first_edge = true;
  for (const Item& item : items) {
    const int w = SwatchWidth(item.swatch) + kSwatchGap + fm.horizontalAdvance(item.label);
    const bool edges_start = item.swatch == Swatch::kEdge && first_edge;
    if (item.swatch == Swatch::kEdge) first_edge = false;
    if (x > kFlowMargin && (edges_start || x + w > width - kFlowMargin)) {
      x = kFlowMargin;
      y += line + kRowGap;
    }
    rects.push_back(QRect(x, y, w, line));
    x += w + kItemGap;
  }
  return rects;
}

QVector<FlowLegend::Entry> FlowLegend::Entries() const {
  const QVector<Item> items = Items();
  const QVector<QRect> rects = Layout(items, width());
  QVector<Entry> entries;
  for (qsizetype i = 0; i < items.size(); ++i) entries.push_back({items[i].label, rects[i]});
  return entries;
}

int FlowLegend::heightForWidth(int width) const {
  const QVector<QRect> rects = Layout(Items(), width);
  return rects.isEmpty() ? 0 : rects.back().bottom() + 1 + kTop;
}

QSize FlowLegend::sizeHint() const {
  const int w = parentWidget() ? parentWidget()->width() : 800;
  return QSize(w, heightForWidth(w));
}

QSize FlowLegend::minimumSizeHint() const { return QSize(100, heightForWidth(width())); }

void FlowLegend::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange) updateGeometry();
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) update();
  QWidget::changeEvent(event);
}

void FlowLegend::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // A box layout asks heightForWidth only of its top level: keep the height right here.
  const int h = heightForWidth(width());
  if (h != height()) setFixedHeight(h);
}

void FlowLegend::PaintBusyMark(QPainter& p, const QPointF& at, const QPalette& palette) {
  p.setPen(QPen(palette.color(QPalette::Base), 1.5));
  p.setBrush(palette.color(QPalette::Text));
  p.drawEllipse(at, 3.5, 3.5);
}

void FlowLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QFontMetrics fm = fontMetrics();
  const QVector<Item> items = Items();
  const QVector<QRect> rects = Layout(items, width());
  const QColor text = palette().color(QPalette::WindowText);
  for (qsizetype i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    const QRect& r = rects[i];
    const double mid_y = r.top() + r.height() / 2.0;
    switch (item.swatch) {
      case Swatch::kHealth:
        p.setPen(text);
        p.setBrush(HealthColor(NodeHealth(item.detail)));
        p.drawEllipse(QPointF(r.left() + kFlowDot, mid_y), kFlowDot, kFlowDot);
        break;
      case Swatch::kNotWatched:
        p.setBrush(palette().color(QPalette::Base));
        p.setPen(QPen(palette().color(QPalette::Mid), 1.5));
        p.drawEllipse(QPointF(r.left() + kFlowDot, mid_y), kFlowDot, kFlowDot);
        break;
      case Swatch::kEdge:
      case Swatch::kBusy: {
        const SampleEdge& sample = kEdges[size_t(item.swatch == Swatch::kBusy ? 1 : item.detail)];
        FlowModel::Edge edge;
        edge.ranks = 4;
        edge.rank = sample.rank;
        edge.error_share = sample.error_share;
        const QColor color = FlowModel::EdgeColor(edge);
        p.setPen(QPen(sample.faint
                          ? MixColors(palette().color(QPalette::Base), color, kFlowFaintEdge)
                          : color,
                      sample.width, sample.style, Qt::FlatCap));
        p.drawLine(QPointF(r.left(), mid_y), QPointF(r.left() + kLine, mid_y));
        if (item.swatch == Swatch::kBusy) {
          PaintBusyMark(p, QPointF(r.left() + kLine * 0.85, mid_y), palette());
        }
        break;
      }
    }
    p.setPen(text);
    p.drawText(QPointF(r.left() + SwatchWidth(item.swatch) + kSwatchGap, r.top() + fm.ascent()),
               item.label);
  }
}

}  // namespace railyard::ui
