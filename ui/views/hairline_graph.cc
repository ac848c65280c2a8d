// SPDX-License-Identifier: Apache-2.0
#include "ui/views/hairline_graph.h"

#include <QPen>

namespace railyard::ui {

void HairlineGraph::drawLinePlot(QCPPainter* painter, const QVector<QPointF>& lines) const {
  const QPen pen = painter->pen();
  if (pen.widthF() < 2 || pen.style() != Qt::SolidLine) {
    QCPGraph::drawLinePlot(painter, lines);
    return;
  }
  QPen hairline = pen;
  hairline.setWidthF(1);
  painter->setPen(hairline);
  for (const QPointF offset : {QPointF(0, 0), QPointF(1, 0), QPointF(0, 1)}) {
    painter->translate(offset);
    QCPGraph::drawLinePlot(painter, lines);
    painter->translate(-offset);
  }
  painter->setPen(pen);
}

}  // namespace railyard::ui
