// SPDX-License-Identifier: Apache-2.0
#include "ui/views/note_legend_item.h"

#include <QFontMetrics>

namespace railyard::ui {

NoteLegendItem::NoteLegendItem(QCPLegend* legend) : QCPAbstractLegendItem(legend) {
  setSelectable(false);
}

void NoteLegendItem::SetText(const QString& text) {
  if (text == text_) return;
  text_ = text;
  mParentLegend->parentPlot()->replot(QCustomPlot::rpQueuedReplot);
}

QFont NoteLegendItem::NoteFont() const {
  QFont font = this->font();
  font.setItalic(true);
  return font;
}

QSize NoteLegendItem::minimumOuterSizeHint() const {
  const QFontMetrics metrics(NoteFont());
  const QSize inner(metrics.horizontalAdvance(text_),
                    std::max(metrics.height(), mParentLegend->iconSize().height()));
  return inner + QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
}

void NoteLegendItem::draw(QCPPainter* painter) {
  painter->setFont(NoteFont());
  painter->setPen(QPen(textColor()));
  painter->drawText(mRect, Qt::AlignLeft | Qt::AlignVCenter, text_);
}

}  // namespace railyard::ui
