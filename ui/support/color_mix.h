// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QColor>

namespace railyard::ui {

// The opaque colour `t` of the way from `a` to `b` (0: a, 1: b). Where a translucent colour would
// do over a known background, this one draws the same and costs no blending per pixel.
inline QColor MixColors(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() * (1 - t) + b.redF() * t),
                          float(a.greenF() * (1 - t) + b.greenF() * t),
                          float(a.blueF() * (1 - t) + b.blueF() * t));
}

}  // namespace railyard::ui
