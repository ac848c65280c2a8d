// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStyledItemDelegate>

class QWidget;

namespace railyard::ui {

// Paints a matrix cell as its model colours it even when its row is selected (the selection is
// drawn as a frame over the row instead of a solid fill that would hide the rank colours).
class KeepColoursDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
};

// The slot matrix's legend, always on screen: rank colours from best to worst slot, the
// change highlight, the hatching of drained or down servers, and how a cell reads.
QWidget* MakeSlotMatrixLegend(QWidget* parent);

}  // namespace railyard::ui
