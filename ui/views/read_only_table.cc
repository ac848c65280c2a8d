// SPDX-License-Identifier: Apache-2.0
#include "ui/views/read_only_table.h"

#include <QHeaderView>
#include <QTableView>

namespace railyard::ui {

QTableView* MakeReadOnlyTable(QAbstractItemModel* model, QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setModel(model);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->horizontalHeader()->setStretchLastSection(true);
  return table;
}

}  // namespace railyard::ui
