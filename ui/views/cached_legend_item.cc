// SPDX-License-Identifier: Apache-2.0
#include "ui/views/cached_legend_item.h"

#include <QTransform>
#include <algorithm>

namespace railyard::ui {

CachedLegendItem::CachedLegendItem(QCPLegend* legend, QCPAbstractPlottable* plottable)
    : QCPPlottableLegendItem(legend, plottable) {
  text_.setTextFormat(Qt::PlainText);
  // Keeps the laid-out glyphs in the form the paint engine draws directly.
  text_.setPerformanceHint(QStaticText::AggressiveCaching);
}

void CachedLegendItem::AddTo(QCPAbstractPlottable* plottable) {
  QCPLegend* legend = plottable->parentPlot()->legend;
  if (legend->hasItemWithPlottable(plottable)) return;
  legend->addItem(new CachedLegendItem(legend, plottable));
}

const QStaticText& CachedLegendItem::Text() const {
  const QString& name = mPlottable->name();
  const QFont font = getFont();
  if (!laid_ || name != laid_name_ || font != laid_font_) {
    laid_ = true;
    laid_name_ = name;
    laid_font_ = font;
    text_.setText(name);
    text_.prepare(QTransform(), font);
  }
  return text_;
}

QSize CachedLegendItem::minimumOuterSizeHint() const {
  const QSize icon = mParentLegend->iconSize();
  const QSizeF text = Text().size();
  const QSize inner(icon.width() + mParentLegend->iconTextPadding() + qCeil(text.width()),
                    std::max(qCeil(text.height()), icon.height()));
  return inner + QSize(mMargins.left() + mMargins.right(), mMargins.top() + mMargins.bottom());
}

void CachedLegendItem::draw(QCPPainter* painter) {
  if (!mPlottable) return;
  const QStaticText& text = Text();
  const QSize icon_size = mParentLegend->iconSize();
  const int height = std::max(qCeil(text.size().height()), icon_size.height());
  const QRect icon(mRect.topLeft() + QPoint(0, (height - icon_size.height()) / 2), icon_size);
  painter->setFont(getFont());
  painter->setPen(QPen(getTextColor()));
  painter->drawStaticText(QPointF(icon.right() + 1 + mParentLegend->iconTextPadding(),
                                  mRect.y() + (height - text.size().height()) / 2.0),
                          text);
  // The plottable's own icon painter is not reachable from a subclass; a line in its pen is
  // what a line graph's icon is, over a swatch of its fill where it has one (a band).
  if (mPlottable->brush().style() != Qt::NoBrush) {
    painter->fillRect(
        QRectF(icon.left(), icon.top() + icon.height() / 4.0, icon.width(), icon.height() / 2.0),
        mPlottable->brush());
  }
  painter->setPen(mPlottable->pen());
  painter->drawLine(
      QLineF(icon.left(), icon.center().y() + 0.5, icon.right() + 1, icon.center().y() + 0.5));
  const QPen border = getIconBorderPen();
  if (border.style() != Qt::NoPen) {
    painter->setPen(border);
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(icon.adjusted(0, 0, -1, -1));
  }
}

}  // namespace railyard::ui
