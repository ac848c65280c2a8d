// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QPalette>
#include <QPointF>
#include <QRect>
#include <QString>
#include <QVector>
#include <QWidget>
#include <optional>

class QPainter;

namespace railyard::ui {

class FlowModel;

// Drawn alike by the canvas and its legend: the margin, a node dot's radius, and a rate as an
// edge's tooltip and the legend print it ("12.5/s", "480/s").
inline constexpr int kFlowMargin = 8;
inline constexpr double kFlowDot = 5;
// How much of an idle or rate-not-known edge's colour shows over the background.
inline constexpr double kFlowFaintEdge = 0.35;
// A rate not known prints as a dash, never as 0.
inline QString FlowRateText(const std::optional<double>& per_s) {
  if (!per_s) return QStringLiteral("\u2014/s");
  return QStringLiteral("%1/s").arg(*per_s, 0, 'f', *per_s >= 100 ? 0 : 1);
}

// What the request flow's marks mean: node dots by health (and the ring of a server only pools
// name), edge widths (with the rate of the thickest edge), colours and line styles, and the mark
// of an edge with busy connections. Entries flow left to right and wrap onto as many rows as the
// width needs, so a 1024 px window shows every one whole; the legend is as tall as its rows
// (heightForWidth). Repaints only when the thickest edge's rate, as printed, changes.
//
// Thread safety: GUI thread only. `model` must outlive it.
class FlowLegend : public QWidget {
  Q_OBJECT
 public:
  FlowLegend(FlowModel* model, QWidget* parent);

  // The legend in one sentence (its accessible description).
  QString Text() const;
  struct Entry {
    QString label;
    QRect rect;  // Swatch and label, as laid out at the current width.
  };
  QVector<Entry> Entries() const;

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

  // The mark the canvas draws near the server end of an edge whose connections are busy (the
  // legend draws the same).
  static void PaintBusyMark(QPainter& p, const QPointF& at, const QPalette& palette);

 protected:
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  enum class Swatch { kHealth, kNotWatched, kEdge, kBusy };
  struct Item {
    Swatch swatch;
    int detail;  // kHealth: the NodeHealth; kEdge: which sample edge.
    QString label;
  };
  QVector<Item> Items() const;
  // Each item's rectangle when the legend is `width` wide; edges start a row of their own.
  QVector<QRect> Layout(const QVector<Item>& items, int width) const;
  int SwatchWidth(Swatch swatch) const;

  FlowModel* const model_;
  QString max_text_;
};

}  // namespace railyard::ui
