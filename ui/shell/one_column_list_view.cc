// SPDX-License-Identifier: Apache-2.0
#include "ui/shell/one_column_list_view.h"

namespace railyard::ui {

void OneColumnListView::dataChanged(const QModelIndex& top_left, const QModelIndex& bottom_right,
                                    const QList<int>& roles) {
  // Another column's figures: nothing this view draws has changed.
  if (top_left.isValid() && bottom_right.isValid() &&
      (modelColumn() < top_left.column() || modelColumn() > bottom_right.column())) {
    return;
  }
  QListView::dataChanged(top_left, bottom_right, roles);
}

}  // namespace railyard::ui
