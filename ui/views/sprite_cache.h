// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QImage>
#include <QPointF>
#include <functional>

class QPainter;

namespace railyard::ui {

// Small antialiased marks (dots, rings) drawn once into an image per kind and quarter-pixel
// position, then copied wherever they are drawn again. An antialiased QPainter::drawEllipse with
// a pen costs about 35k instructions (the stroker, then two rasterizer passes); copying a 14 x 14
// image costs a tenth of that, and the flow view draws hundreds of marks a frame.
//
// A copy is the direct drawing to within the quarter-pixel rounding of the position (at most 1/8
// of a pixel each way) and 8-bit rounding of the blend: the sprite is drawn onto transparency
// with the same antialiasing, then blended over the target.
//
// The caller names each kind by a key and says how far from its centre it reaches; what a key
// draws must not change until Clear() (call it when the palette, or anything else the drawing
// reads, changes). The painter must have no transform but an integer translation (a widget's
// painter); a device of another pixel ratio than the last draws new sprites.
//
// Thread safety: GUI thread only (it holds images drawn with the GUI's fonts and palette).
class SpriteCache {
 public:
  // Draws the mark centred on `centre` (the sprite's own coordinates).
  using PaintFn = std::function<void(QPainter& p, const QPointF& centre)>;

  // Draws mark `key` centred at `at` on `p`: `paint` draws it into a new sprite the first time
  // the key is drawn at this quarter-pixel phase. `reach`: how far the mark's pixels lie from
  // its centre, at most (its radius plus half its pen).
  void Draw(QPainter& p, const QPointF& at, quint32 key, double reach, const PaintFn& paint);
  void Clear() { sprites_.clear(); }
  int Size() const { return static_cast<int>(sprites_.size()); }

 private:
  QHash<quint64, QImage> sprites_;  // (key << 8 | phase) -> sprite.
  qreal ratio_ = 1.0;               // The device pixel ratio they were drawn for.
};

}  // namespace railyard::ui
