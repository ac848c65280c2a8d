// SPDX-License-Identifier: Apache-2.0
#include "ui/views/plot_event_marks.h"

#include "ui/views/qcustomplot_include.h"

namespace railyard::ui {

void PlotEventMarks::Draw(const QVector<EventMark>& marks) {
  Clear();
  for (const EventMark& mark : marks) {
    for (QCustomPlot* plot : plots_) {
      auto* line = new QCPItemStraightLine(plot);
      line->setPen(QPen(mark.color, 1, Qt::DashLine));
      line->point1->setCoords(mark.key, 0);
      line->point2->setCoords(mark.key, 1);
      auto* text = new QCPItemText(plot);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
      text->position->setCoords(mark.key, 0);
      text->setPositionAlignment(Qt::AlignTop | Qt::AlignLeft);
      text->setPadding(QMargins(3, 1, 0, 0));
      text->setColor(mark.color);
      text->setText(mark.label);
      items_ << line << text;
    }
  }
}

void PlotEventMarks::Clear() {
  for (QCPAbstractItem* item : items_) item->parentPlot()->removeItem(item);
  items_.clear();
}

}  // namespace railyard::ui
