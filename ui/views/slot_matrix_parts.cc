// SPDX-License-Identifier: Apache-2.0
#include "ui/views/slot_matrix_parts.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/models/palette.h"
#include "ui/models/slot_matrix_model.h"

namespace railyard::ui {

void KeepColoursDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const {
  QStyleOptionViewItem plain(option);
  const bool selected = option.state & QStyle::State_Selected;
  plain.state &= ~QStyle::State_Selected;
  QStyledItemDelegate::paint(painter, plain, index);
  if (!selected) return;
  painter->save();
  painter->setPen(QPen(option.palette.color(QPalette::Highlight), 2));
  const QRect r = option.rect.adjusted(0, 1, 0, -1);
  painter->drawLine(r.topLeft(), r.topRight());
  painter->drawLine(r.bottomLeft(), r.bottomRight());
  painter->restore();
}

namespace {

QLabel* Swatch(const QBrush& brush, const QString& text, QWidget* parent) {
  auto* swatch = new QLabel(text, parent);
  swatch->setAlignment(Qt::AlignCenter);
  swatch->setMinimumWidth(swatch->fontMetrics().horizontalAdvance(QStringLiteral("000")) + 8);
  swatch->setAutoFillBackground(true);
  QPalette palette = swatch->palette();
  palette.setBrush(QPalette::Window, brush);
  palette.setColor(QPalette::WindowText, Qt::black);
  swatch->setPalette(palette);
  return swatch;
}

}  // namespace

QWidget* MakeSlotMatrixLegend(QWidget* parent) {
  auto* legend = new QWidget(parent);
  legend->setObjectName(QStringLiteral("slotMatrixLegend"));
  auto* lines = new QVBoxLayout(legend);
  lines->setContentsMargins(0, 2, 0, 2);
  lines->setSpacing(2);
  auto* layout = new QHBoxLayout;
  lines->addLayout(layout);
  auto* cells = new QLabel(QObject::tr("A cell lists the client's slots on that server, or their "
                                       "count (\"5 slots\") where they do not fit; hover a cell "
                                       "for each slot's state and requests."),
                           legend);
  cells->setWordWrap(true);
  lines->addWidget(cells);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(4);
  layout->addWidget(new QLabel(QObject::tr("Slots: best"), legend));
  constexpr int kSteps = 4;
  for (int rank = 0; rank < kSteps; ++rank) {
    layout->addWidget(Swatch(RankColor(rank, kSteps), QString::number(rank), legend));
  }
  layout->addWidget(new QLabel(QObject::tr("worst"), legend));
  layout->addSpacing(8);
  layout->addWidget(Swatch(ChangeHighlight(0), QString(), legend));
  layout->addWidget(new QLabel(QObject::tr("changed < 2 s"), legend));
  layout->addSpacing(8);
  layout->addWidget(Swatch(SlotMatrixModel::MarkedColumnBrush(), QString(), legend));
  layout->addWidget(new QLabel(QObject::tr("drained or down"), legend));
  layout->addStretch(1);
  // A narrow window clips the legend's end rather than growing past the screen.
  legend->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  legend->setMinimumWidth(0);
  return legend;
}

}  // namespace railyard::ui
