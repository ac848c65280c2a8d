// SPDX-License-Identifier: Apache-2.0
#include "ui/views/flow_view.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "ui/models/flow_model.h"
#include "ui/models/palette.h"
#include "ui/support/color_mix.h"
#include "ui/views/flow_legend.h"

namespace railyard::ui {

namespace {

constexpr double kMinWidth = 1.5;
constexpr double kMaxWidth = 10;
// When dense, thinner, so crossings leave the picture readable. (Not translucent: blending
// wide lines costs several times an opaque paint.)
constexpr double kDenseMaxWidth = 4;
// More edges than this in view are drawn straight and without antialiasing.
constexpr qsizetype kDenseEdges = 300;
// Sprite keys (SpriteCache): a watched node's dot by health, an unwatched one's, the busy mark.
constexpr quint32 kWatchedDotSprite = 1;  // Plus the NodeHealth.
constexpr quint32 kUnwatchedDotSprite = 0x100;
constexpr quint32 kBusyMarkSprite = 0x101;
// How far a dot's and a busy mark's pixels reach from their centres (radius and half the pen).
constexpr double kDotReach = kFlowDot + 0.75;
constexpr double kBusyMarkReach = 3.5 + 0.75;

// A curve from client to server leaving and arriving horizontally.
void CurveBetween(QPainterPath& path, const QPointF& from, const QPointF& to) {
  const double mid = (from.x() + to.x()) / 2;
  path.moveTo(from);
  path.cubicTo(QPointF(mid, from.y()), QPointF(mid, to.y()), to);
}

QPointF BezierAt(const QPointF& from, const QPointF& to, double t) {
  const double mid = (from.x() + to.x()) / 2;
  const std::array<QPointF, 4> p = {from, QPointF(mid, from.y()), QPointF(mid, to.y()), to};
  const double u = 1 - t;
  return u * u * u * p[0] + 3 * u * u * t * p[1] + 3 * u * t * t * p[2] + t * t * t * p[3];
}

double DistanceToSegment(const QPointF& p, const QPointF& a, const QPointF& b) {
  const QPointF ab = b - a;
  const double len2 = QPointF::dotProduct(ab, ab);
  const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / len2, 0.0, 1.0) : 0.0;
  const QPointF d = p - (a + t * ab);
  return std::hypot(d.x(), d.y());
}

}  // namespace

FlowCanvas::FlowCanvas(FlowModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  setAccessibleName(tr("Request flow"));
  setAccessibleDescription(tr("Clients on the left send requests to servers on the right"));
  connect(model_, &FlowModel::Updated, this, &FlowCanvas::OnUpdated);
  Relayout();
}

QSize FlowCanvas::minimumSizeHint() const {
  const int rows = std::max<int>(model_->ServerOrder().size(), model_->ClientOrder().size());
  const int width = name_width_clients_ + name_width_servers_ + rate_width_ + 4 * kFlowMargin + 200;
  return QSize(width, 2 * kFlowMargin + std::max(1, rows) * row_height_);
}

QSize FlowCanvas::sizeHint() const { return minimumSizeHint().expandedTo(QSize(800, 500)); }

QPointF FlowCanvas::ServerPoint(int server) const {
  return server >= 0 && server < server_points_.size() ? server_points_[server] : QPointF();
}

QPointF FlowCanvas::ClientPoint(int client) const {
  return client >= 0 && client < client_points_.size() ? client_points_[client] : QPointF();
}

void FlowCanvas::OnUpdated() {
  if (layout_version_ != model_->LayoutVersion()) Relayout();
  DescribeForAccessibility();
  update();
}

void FlowCanvas::Relayout() {
  layout_version_ = model_->LayoutVersion();
  InvalidateCaches();
  const QFontMetrics fm = fontMetrics();
  row_height_ = fm.height() + 2;
  name_width_clients_ = 0;
  name_width_servers_ = 0;
  for (int c : model_->ClientOrder()) {
    name_width_clients_ =
        std::max(name_width_clients_, fm.horizontalAdvance(model_->Clients()[size_t(c)].name));
  }
  for (int s : model_->ServerOrder()) {
    name_width_servers_ =
        std::max(name_width_servers_, fm.horizontalAdvance(model_->Servers()[size_t(s)].name));
  }
  rate_width_ = fm.horizontalAdvance(QStringLiteral("00000/s"));
  client_x_ = kFlowMargin + name_width_clients_ + 6 + kFlowDot;
  server_x_ = std::max(client_x_ + 100, double(width() - kFlowMargin - rate_width_ -
                                               name_width_servers_ - 12 - kFlowDot));
  // Each column spreads over the height, so a short column lines up with a long one's middle.
  const double top = kFlowMargin;
  const double height = std::max(1, this->height() - 2 * kFlowMargin);
  auto place = [&](const QVector<int>& order, size_t count, double x, QVector<QPointF>& points) {
    points.fill(QPointF(), static_cast<int>(count));
    const double step = order.isEmpty() ? 0 : height / double(order.size());
    for (int i = 0; i < order.size(); ++i) points[order[i]] = QPointF(x, top + step * (i + 0.5));
  };
  place(model_->ClientOrder(), model_->Clients().size(), client_x_, client_points_);
  place(model_->ServerOrder(), model_->Servers().size(), server_x_, server_points_);
  updateGeometry();
}

double FlowCanvas::EdgeWidth(const std::optional<double>& known_rate) const {
  const double max = model_->MaxEdgeRate().value_or(0);
  const double rate = known_rate.value_or(0);
  if (rate <= 0 || max <= 0) return 1.0;
  const double widest = dense_ ? kDenseMaxWidth : kMaxWidth;
  return kMinWidth + (widest - kMinWidth) * rate / max;
}

void FlowCanvas::DescribeForAccessibility() {
  const std::vector<FlowModel::Server>& servers = model_->Servers();
  int busiest = -1;
  int draining = 0;
  for (int s : model_->ServerOrder()) {
    if (servers[size_t(s)].rate &&
        (busiest < 0 || *servers[size_t(s)].rate > *servers[size_t(busiest)].rate)) {
      busiest = s;
    }
    draining += servers[size_t(s)].health == NodeHealth::kLameDuck ? 1 : 0;
  }
  QString text = tr("%1 clients, %2 servers, %3 draining")
                     .arg(model_->ClientOrder().size())
                     .arg(model_->ServerOrder().size())
                     .arg(draining);
  if (busiest >= 0) {
    text += tr("; busiest server %1 at %2")
                .arg(servers[size_t(busiest)].name, FlowRateText(servers[size_t(busiest)].rate));
  }
  if (text != description_) {
    description_ = text;
    setAccessibleDescription(text);
  }
}

void FlowCanvas::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  Relayout();
}

void FlowCanvas::changeEvent(QEvent* event) {
  if (event->type() == QEvent::FontChange) Relayout();
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
    InvalidateCaches();
    update();
  }
  QWidget::changeEvent(event);
}

void FlowCanvas::InvalidateCaches() {
  sprites_.Clear();
  client_strip_ = {};
  server_strip_ = {};
}

void FlowCanvas::DrawStrip(QPainter& p, TextStrip& strip, const QRect& rect,
                           const QStringList& rates, const std::function<void(QPainter&)>& draw) {
  if (rect.isEmpty()) return;
  const qreal ratio = devicePixelRatio();
  if (strip.image.isNull() || strip.rect != rect || strip.rates != rates ||
      strip.image.devicePixelRatio() != ratio) {
    strip.rect = rect;
    strip.rates = rates;
    strip.image = QImage(rect.size() * ratio, QImage::Format_ARGB32_Premultiplied);
    strip.image.setDevicePixelRatio(ratio);
    strip.image.fill(palette().color(QPalette::Base));
    QPainter sp(&strip.image);
    sp.setFont(font());
    sp.setRenderHints(p.renderHints());
    sp.translate(-rect.topLeft());
    draw(sp);
  }
  p.drawImage(rect.topLeft(), strip.image);
}

QPointF FlowCanvas::BusyMarkPoint(int edge) const {
  if (edge < 0 || size_t(edge) >= model_->Edges().size()) return {};
  const FlowModel::Edge& e = model_->Edges()[size_t(edge)];
  const QPointF client = ClientPoint(e.client);
  const QPointF server = ServerPoint(e.server);
  if (e.busy <= 0 || e.slots.isEmpty() || client.isNull() || server.isNull()) return {};
  const QPointF from = client + QPointF(kFlowDot, 0);
  const QPointF to = server - QPointF(kFlowDot, 0);
  // Near the server, where edges converge less than in the middle; on the line as drawn.
  constexpr double kAt = 0.9;
  return dense_ ? from + kAt * (to - from) : BezierAt(from, to, kAt);
}

int FlowCanvas::EdgeAt(const QPointF& pos) const {
  const std::vector<FlowModel::Edge>& edges = model_->Edges();
  int best = -1;
  double best_distance = 1e9;
  for (size_t i = 0; i < edges.size(); ++i) {
    const QPointF client = ClientPoint(edges[i].client);
    const QPointF server = ServerPoint(edges[i].server);
    if (client.isNull() || server.isNull()) continue;
    // The curve as paintEvent draws it, between the dots' edges.
    const QPointF from = client + QPointF(kFlowDot, 0);
    const QPointF to = server - QPointF(kFlowDot, 0);
    if (pos.y() < std::min(from.y(), to.y()) - kMaxWidth ||
        pos.y() > std::max(from.y(), to.y()) + kMaxWidth) {
      continue;
    }
    // As last painted: straight when dense, else the curve in short segments.
    const int steps = dense_ ? 1 : 16;
    QPointF a = from;
    for (int k = 1; k <= steps; ++k) {
      const QPointF b = dense_ ? to : BezierAt(from, to, double(k) / steps);
      const double d = DistanceToSegment(pos, a, b);
      if (d < best_distance && d <= EdgeWidth(edges[i].rate) / 2 + 3) {
        best_distance = d;
        best = static_cast<int>(i);
      }
      a = b;
    }
  }
  return best;
}

QString FlowCanvas::ToolTipAt(const QPointF& pos) const {
  // A node answers over its dot and its name (and a server's rate).
  auto over = [&pos, this](const QPointF& at, double left, double right) {
    return !at.isNull() && std::abs(pos.y() - at.y()) <= std::max(kFlowDot, row_height_ / 2.0) &&
           pos.x() >= at.x() - left && pos.x() <= at.x() + right;
  };
  for (int s : model_->ServerOrder()) {
    if (over(ServerPoint(s), kFlowDot + 2, kFlowDot + 14 + name_width_servers_ + rate_width_)) {
      return model_->NodeText(true, s);
    }
  }
  for (int c : model_->ClientOrder()) {
    if (over(ClientPoint(c), kFlowDot + 6 + name_width_clients_, kFlowDot + 2)) {
      return model_->NodeText(false, c);
    }
  }
  const int edge = EdgeAt(pos);
  return edge >= 0 ? model_->EdgeText(model_->Edges()[size_t(edge)]) : QString();
}

bool FlowCanvas::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const QString text = ToolTipAt(help->pos());
  if (text.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(help->globalPos(), text, this);
  }
  return true;
}

void FlowCanvas::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  // Inside the scroll area only the visible strip is exposed: paint what crosses it.
  const QRectF exposed = event->rect();
  p.fillRect(exposed, palette().color(QPalette::Base));
  const QColor text_color = palette().color(QPalette::Text);
  if (model_->ServerOrder().isEmpty() && model_->ClientOrder().isEmpty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No clients or servers known yet"));
    return;
  }
  const std::vector<FlowModel::Edge>& edges = model_->Edges();
  draw_order_.clear();
  for (size_t i = 0; i < edges.size(); ++i) {
    const FlowModel::Edge& e = edges[i];
    // Nothing to show: idle or not known, and no connection.
    if (e.rate.value_or(0) <= 0 && e.slots.isEmpty()) continue;
    const QPointF from = ClientPoint(e.client);
    const QPointF to = ServerPoint(e.server);
    if (from.isNull() || to.isNull()) continue;
    if (std::max(from.y(), to.y()) + kMaxWidth < exposed.top() ||
        std::min(from.y(), to.y()) - kMaxWidth > exposed.bottom()) {
      continue;
    }
    draw_order_.push_back(static_cast<int>(i));
  }
  // Thin first, so the heavy traffic stays on top.
  std::sort(draw_order_.begin(), draw_order_.end(), [&edges](int a, int b) {
    return edges[size_t(a)].rate.value_or(0) < edges[size_t(b)].rate.value_or(0);
  });
  // Many edges (a hundred nodes): straight and without antialiasing, which costs a fraction of
  // smooth curves and reads the same at that density; thinner too (EdgeWidth).
  const bool dense = draw_order_.size() > kDenseEdges;
  dense_ = dense;
  p.setRenderHint(QPainter::Antialiasing, !dense);
  QPainterPath path;
  p.setBrush(Qt::NoBrush);
  const QColor base = palette().color(QPalette::Base);
  for (int i : draw_order_) {
    const FlowModel::Edge& e = edges[size_t(i)];
    const QPointF from = ClientPoint(e.client) + QPointF(kFlowDot, 0);
    const QPointF to = ServerPoint(e.server) - QPointF(kFlowDot, 0);
    QColor color = FlowModel::EdgeColor(e);
    // An idle connection: a faint dotted hairline, so the pool's spread shows without competing.
    // Traffic whose connections are gone (a drained server): dashed while its rate fades.
    // Faint by mixing with the background, not by alpha: Qt's raster engine hands a translucent
    // fill of more than 96 spans to its thread pool and waits, a few hand-offs per long line;
    // 700 idle edges then cost a frame 30-50 ms on a loaded machine (docs/benchmarks.md).
    // Listed connections whose rate is not known (their reporter's first report, or its first
    // after a silence): faint and dash-dotted, never drawn as idle.
    const bool faint = e.rate.value_or(0) <= 0;
    if (faint) color = MixColors(base, color, kFlowFaintEdge);
    const Qt::PenStyle style = !e.rate             ? Qt::DashDotLine
                               : faint             ? Qt::DotLine
                               : e.slots.isEmpty() ? Qt::DashLine
                                                   : Qt::SolidLine;
    p.setPen(QPen(color, EdgeWidth(e.rate), style, Qt::FlatCap));
    if (dense) {
      p.drawLine(from, to);
    } else {
      path.clear();
      CurveBetween(path, from, to);
      p.drawPath(path);
    }
  }
  // Busy connections: a mark near the server end of their edge, above every edge.
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF mark_area =
      exposed.adjusted(-kBusyMarkReach, -kBusyMarkReach, kBusyMarkReach, kBusyMarkReach);
  const QPalette& colors = palette();
  for (int i : draw_order_) {
    const QPointF at = BusyMarkPoint(i);
    if (at.isNull() || !mark_area.contains(at)) continue;
    sprites_.Draw(
        p, at, kBusyMarkSprite, kBusyMarkReach,
        [&colors](QPainter& sp, const QPointF& c) { FlowLegend::PaintBusyMark(sp, c, colors); });
  }
  const QFontMetrics fm = fontMetrics();
  const int text_height = fm.height();
  const double ascent_shift = (fm.ascent() - fm.descent()) / 2.0;
  auto dot = [&](const QPointF& at, bool watched, NodeHealth health) {
    const quint32 key = watched ? kWatchedDotSprite + quint32(health) : kUnwatchedDotSprite;
    sprites_.Draw(p, at, key, kDotReach, [&](QPainter& sp, const QPointF& c) {
      if (watched) {
        sp.setPen(QPen(text_color, 1));
        sp.setBrush(HealthColor(health));
      } else {
        sp.setPen(QPen(colors.color(QPalette::Mid), 1.5));
        sp.setBrush(colors.color(QPalette::Base));
      }
      sp.drawEllipse(c, kFlowDot, kFlowDot);
    });
  };
  auto visible = [&exposed, text_height](const QPointF& at) {
    return at.y() + text_height >= exposed.top() && at.y() - text_height <= exposed.bottom();
  };
  const std::vector<FlowModel::Client>& clients = model_->Clients();
  const std::vector<FlowModel::Server>& servers = model_->Servers();
  QStringList rates;
  for (int c : model_->ClientOrder()) {
    const QPointF at = ClientPoint(c);
    if (visible(at)) dot(at, clients[size_t(c)].watched(), clients[size_t(c)].health);
  }
  for (int s : model_->ServerOrder()) {
    const QPointF at = ServerPoint(s);
    if (!visible(at)) continue;
    dot(at, servers[size_t(s)].watched(), servers[size_t(s)].health);
    rates << FlowRateText(servers[size_t(s)].rate);
  }
  // The names (and the servers' rates) lie beside the dots, where no edge or mark reaches: left
  // of the clients' dots, right of the servers'. Drawing text costs about 35k instructions a
  // name; a strip changes only with the layout or, on the right, a rate as printed.
  const QRect area = exposed.toAlignedRect();
  const int left_end = int(std::floor(client_x_ - kDotReach)) - 1;
  const int right_start = int(std::ceil(server_x_ + kDotReach)) + 1;
  DrawStrip(p, client_strip_, QRect(0, area.top(), left_end, area.height()), {}, [&](QPainter& sp) {
    sp.setPen(text_color);
    for (int c : model_->ClientOrder()) {
      const QPointF at = ClientPoint(c);
      if (!visible(at)) continue;
      const QString& name = clients[size_t(c)].name;
      const double w = fm.horizontalAdvance(name);
      sp.drawText(QPointF(at.x() - kFlowDot - 6 - w, at.y() + ascent_shift), name);
    }
  });
  const QColor rate_color = colors.color(QPalette::PlaceholderText);
  DrawStrip(p, server_strip_, QRect(right_start, area.top(), width() - right_start, area.height()),
            rates, [&](QPainter& sp) {
              for (int s : model_->ServerOrder()) {
                const QPointF at = ServerPoint(s);
                if (!visible(at)) continue;
                const FlowModel::Server& server = servers[size_t(s)];
                const double x = at.x() + kFlowDot + 6;
                sp.setPen(text_color);
                sp.drawText(QPointF(x, at.y() + ascent_shift), server.name);
                sp.setPen(rate_color);
                sp.drawText(QPointF(x + name_width_servers_ + 8, at.y() + ascent_shift),
                            FlowRateText(server.rate));
              }
            });
}

FlowView::FlowView(ClusterState* state, QWidget* parent) : FlowView(new FlowModel(state), parent) {
  model_->setParent(this);
}

FlowView::FlowView(FlowModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      legend_(new FlowLegend(model_, this)),
      scroll_(new QScrollArea(this)),
      canvas_(new FlowCanvas(model_, scroll_)) {
  setObjectName(QStringLiteral("flow"));
  setAccessibleName(tr("Flow"));
  setAccessibleDescription(
      tr("Requests from clients to servers: width by rate, colour by slot or errors"));
  scroll_->setWidget(canvas_);
  scroll_->setWidgetResizable(true);
  scroll_->setFrameShape(QFrame::NoFrame);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(legend_);
  layout->addWidget(scroll_, 1);
}

void FlowView::setVisible(bool visible) {
  if (visible) model_->SetActive(true);
  QWidget::setVisible(visible);
  if (!visible) model_->SetActive(false);
}

}  // namespace railyard::ui
