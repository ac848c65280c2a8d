// SPDX-License-Identifier: Apache-2.0
#include "ui/views/sprite_cache.h"

#include <QPaintDevice>
#include <QPainter>
#include <cmath>

namespace railyard::ui {

namespace {

// `v` as whole pixels (in `whole`) and a phase of 0..3 quarter pixels, rounded to the nearest.
int SplitQuarter(double v, int* whole) {
  double floor = std::floor(v);
  int quarter = static_cast<int>(std::lround((v - floor) * 4));
  if (quarter == 4) {
    floor += 1;
    quarter = 0;
  }
  *whole = static_cast<int>(floor);
  return quarter;
}

}  // namespace

void SpriteCache::Draw(QPainter& p, const QPointF& at, quint32 key, double reach,
                       const PaintFn& paint) {
  int x = 0, y = 0;
  const int qx = SplitQuarter(at.x(), &x);
  const int qy = SplitQuarter(at.y(), &y);
  // One pixel of room beyond the reach, for the antialiased rim.
  const int half = static_cast<int>(std::ceil(reach)) + 1;
  const quint64 id = (quint64(key) << 8) | quint64(qx << 2 | qy);
  const qreal ratio = p.device() ? p.device()->devicePixelRatio() : 1.0;
  if (ratio != ratio_) {  // Moved to another screen: sprites of the new resolution.
    sprites_.clear();
    ratio_ = ratio;
  }
  auto it = sprites_.constFind(id);
  if (it == sprites_.constEnd()) {
    const int side = 2 * half + 1;
    const int device_side = static_cast<int>(std::ceil(side * ratio));
    QImage sprite(device_side, device_side, QImage::Format_ARGB32_Premultiplied);
    sprite.setDevicePixelRatio(ratio);
    sprite.fill(Qt::transparent);
    QPainter sp(&sprite);
    sp.setRenderHints(p.renderHints());
    paint(sp, QPointF(half + qx / 4.0, half + qy / 4.0));
    sp.end();
    it = sprites_.insert(id, sprite);
  }
  p.drawImage(QPointF(x - half, y - half), *it);
}

}  // namespace railyard::ui
