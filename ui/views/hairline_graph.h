// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

// A QCPGraph that draws a solid line of 2 px or wider as three 1 px lines a pixel apart (right
// and down), which reads as a 2 px line. Qt's raster engine draws 1 px lines with its fast
// cosmetic stroker but outlines anything wider as a path first: at a full 5-minute window of
// 10 Hz samples, three emphasised lines took about 3 ms of each frame's paint that way. The pen
// keeps its width, so legends and exports show it as set.
//
// Ownership and thread safety: as QCPGraph (its axes' plot owns it; GUI thread only).
class HairlineGraph : public QCPGraph {
 public:
  HairlineGraph(QCPAxis* key_axis, QCPAxis* value_axis) : QCPGraph(key_axis, value_axis) {}

 protected:
  void drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const override;
};

}  // namespace railyard::ui
