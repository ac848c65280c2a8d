// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QListView>

namespace railyard::ui {

// A QListView that repaints only for changes to the column it shows (modelColumn()). QListView
// repaints its whole viewport on any dataChanged that spans more than one cell, whatever the
// columns: over the overview model, whose figures change every frame, the Nodes list repainted
// every visible row each frame (5% of the GUI thread at 300 nodes) to draw the same names.
// Thread safety: GUI thread only, as any widget.
class OneColumnListView : public QListView {
  Q_OBJECT

 public:
  using QListView::QListView;

 protected:
  void dataChanged(const QModelIndex& top_left, const QModelIndex& bottom_right,
                   const QList<int>& roles = QList<int>()) override;
};

}  // namespace railyard::ui
