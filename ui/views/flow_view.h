// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QImage>
#include <QPointF>
#include <QRect>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <functional>
#include <optional>

#include "ui/models/cluster_state.h"
#include "ui/views/sprite_cache.h"

class QScrollArea;

namespace railyard::ui {

class FlowModel;
class FlowLegend;

// The request flow drawn with QPainter: clients in a column on the left, servers on the right,
// both in natural name order with their names in full, each a dot in its health colour; one curve
// per client -> server pair, as thick as its requests/s (relative to the busiest edge, which the
// legend names) and coloured by its errors or by its slot (FlowModel::EdgeColor); an edge whose
// connections are busy has a mark near its server end. Hovering a curve or a node shows its
// figures. FlowLegend (flow_legend.h) says what each mark means.
//
// Two columns rather than a ring: curves run one way and never cross a node, and the servers'
// column reads as a ranking of load, top to bottom by name, with each server's rate beside it.
// The canvas is as tall as the longer column needs, inside a scroll area, so 100 servers keep
// legible names.
//
// Painting reads the model only; geometry is recomputed when the model's layout or the size
// changes, not per frame. What a frame rarely changes is drawn once and copied: the dots and busy
// marks from sprites (SpriteCache), each column's names (with the servers' rates) from an image
// of the exposed strip, redrawn when the layout, size, palette, font, exposed area or a shown
// rate's text changed. Only the edges are drawn anew each frame.
//
// Thread safety: GUI thread only, like the model.
class FlowCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit FlowCanvas(FlowModel* model, QWidget* parent = nullptr);

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  // Where the view draws a server or client (model index); a null point when it is not drawn.
  QPointF ServerPoint(int server) const;
  QPointF ClientPoint(int client) const;
  // Where the busy mark of edge `edge` (model index) is drawn: near its server end, for an edge
  // with busy connections; a null point for none.
  QPointF BusyMarkPoint(int edge) const;
  // The edge under `pos` (within a few pixels of its curve), or -1.
  int EdgeAt(const QPointF& pos) const;
  // What hovering at `pos` shows: a node's figures over its dot or name, else an edge's rate,
  // slots and source; empty over nothing.
  QString ToolTipAt(const QPointF& pos) const;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void changeEvent(QEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void OnUpdated();
  void Relayout();
  double EdgeWidth(const std::optional<double>& rate) const;
  void DescribeForAccessibility();
  // A column's text where no edge or mark reaches: drawn into an image of `rect` by `draw` when
  // the rectangle or `rates` differ from the last paint's (or Invalidate ran), else copied.
  struct TextStrip {
    QImage image;
    QRect rect;
    QStringList rates;  // The shown servers' rates as printed (the servers' strip only).
  };
  void DrawStrip(QPainter& p, TextStrip& strip, const QRect& rect, const QStringList& rates,
                 const std::function<void(QPainter&)>& draw);
  // Forgets the strips and sprites: what they show moved or looks different.
  void InvalidateCaches();

  FlowModel* const model_;
  int layout_version_ = -1;
  int name_width_clients_ = 0;
  int name_width_servers_ = 0;
  int rate_width_ = 0;
  int row_height_ = 0;
  double client_x_ = 0;
  double server_x_ = 0;
  QVector<QPointF> client_points_;  // By model index; null: not drawn.
  QVector<QPointF> server_points_;
  QVector<int> draw_order_;  // Per frame scratch: edges, thinnest first.
  bool dense_ = false;       // The last paint drew straight, thinner lines.
  QString description_;
  SpriteCache sprites_;
  TextStrip client_strip_;
  TextStrip server_strip_;
};

// The flow tab: a legend above the canvas, which scrolls.
class FlowView : public QWidget {
  Q_OBJECT
 public:
  // Draws `model`, which the console's session owns and which must outlive the view.
  explicit FlowView(FlowModel* model, QWidget* parent = nullptr);
  // With a model of its own on `state` (tests, a view outside the console).
  explicit FlowView(ClusterState* state, QWidget* parent = nullptr);

  FlowModel* Model() const { return model_; }
  FlowCanvas* Canvas() const { return canvas_; }
  FlowLegend* Legend() const { return legend_; }

  // Hidden (another tab shown), the model skips its per-frame work; shown again, it catches up
  // before the first paint (see the model's SetActive).
  void setVisible(bool visible) override;

 private:
  FlowModel* model_;
  FlowLegend* legend_;
  QScrollArea* scroll_;
  FlowCanvas* canvas_;
};

}  // namespace railyard::ui
